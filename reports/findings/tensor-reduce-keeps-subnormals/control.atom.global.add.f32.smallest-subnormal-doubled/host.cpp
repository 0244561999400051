// A standalone reproducer written by `npm run conformance -- repro` (ptx-reduction-conformance) for
// one single-thread case. It needs only the CUDA driver and nvcc: build.sh compiles kernel.ptx to
// kernel.cubin and this file to ./repro. It runs the case as the gpu backend did (the kernel
// contract: parameters mem, b, c, out, n, mode; the case in 16-byte slot 0 of each buffer; one
// thread), reads back the memory at [a] and the returned values, and checks each lane against what
// the PTX ISA text allows (params.h, from the harness's reference model, under the edition named
// there). Prints REPRODUCED (exit 1) when a lane holds bits the text does not allow, else NOT
// REPRODUCED (exit 0); 2 on a CUDA error.
//
//   ./repro [LAUNCHES]     LAUNCHES: how many times to run the case (default 1)
#include <vector>

#include "driver.h"
#include "params.h"

static void show(const char* what, const unsigned char* slot, int elements, int width) {
  std::printf("  %s:", what);
  for (int j = 0; j < elements; j++) {
    uint64_t v = 0;
    if (width <= 64) {
      std::memcpy(&v, slot + j * width / 8, width / 8);
      std::printf(" 0x%0*llx", width / 4, (unsigned long long)v);
    } else {
      uint64_t hi = 0;
      std::memcpy(&v, slot + j * 16, 8);
      std::memcpy(&hi, slot + j * 16 + 8, 8);
      std::printf(" 0x%016llx%016llx", (unsigned long long)hi, (unsigned long long)v);
    }
  }
  std::printf("\n");
}

/** Lanes of `slot` outside what the text allows, each printed. */
static int check(const char* what, const unsigned char* slot, const Lane* lanes, int n, const uint64_t* allowed) {
  int bad = 0;
  for (int j = 0; j < n; j++) {
    uint64_t x = laneBits(slot, lanes[j]);
    if (!allowedBits(x, lanes[j], allowed)) {
      std::printf("  %s lane %d: 0x%0*llx, which the text does not allow (it allows %s)\n", what, j, lanes[j].bits / 4, (unsigned long long)x, lanes[j].expected);
      bad++;
    }
  }
  return bad;
}

int main(int argc, char** argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : 1;
  if (launches < 1) {
    std::fprintf(stderr, "usage: %s [LAUNCHES]  (LAUNCHES >= 1; default 1)\n", argv[0]);
    return 2;
  }
  Session s = openSession(KERNEL);
  CUfunction fn = s.fn;
  const char* name = s.name;
  int drv = s.drv;
  CUdeviceptr dmem, db, dc, dout;
  CHECK(p_cuMemAlloc(&dmem, 16));
  CHECK(p_cuMemAlloc(&db, 16));
  CHECK(p_cuMemAlloc(&dc, 16));
  CHECK(p_cuMemAlloc(&dout, 16));
  CHECK(p_cuMemcpyHtoD(db, B, 16));
  CHECK(p_cuMemcpyHtoD(dc, C, 16));
  unsigned long long n = 1;
  unsigned mode = MODE;
  void* args[] = {&dmem, &db, &dc, &dout, &n, &mode};
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = 1; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = 1; cfg.blockDimY = 1; cfg.blockDimZ = 1;

  std::printf("%s\n%s on %s (driver %d.%d), %d launch(es); judged against the PTX ISA %s text\n", CASE_ID, INSTRUCTION, name, drv / 1000, (drv % 1000) / 10, launches, EDITION);
  show("memory before", MEMORY, ELEMENTS, WIDTH);
  show(OPERAND_NAME, B, ELEMENTS, WIDTH);
  int badLaunches = 0;
  unsigned char mem[16], out[16];
  for (int launch = 0; launch < launches; launch++) {
    CHECK(p_cuMemcpyHtoD(dmem, MEMORY, 16));
    CHECK(p_cuLaunchKernelEx(&cfg, fn, args, nullptr));
    CHECK(p_cuCtxSynchronize());
    CHECK(p_cuMemcpyDtoH(mem, dmem, 16));
    CHECK(p_cuMemcpyDtoH(out, dout, 16));
    if (launch == 0) {
      show("memory after", mem, ELEMENTS, WIDTH);
      if (RETURNS) show("returned", out, ELEMENTS, WIDTH);
    }
    int bad = check("memory", mem, MEM_LANES, N_MEM_LANES, MEM_LANES_ALLOWED) + (RETURNS ? check("returned", out, RET_LANES, N_RET_LANES, RET_LANES_ALLOWED) : 0);
    if (bad) badLaunches++;
  }
  CHECK(p_cuMemFree(dmem));
  CHECK(p_cuMemFree(db));
  CHECK(p_cuMemFree(dc));
  CHECK(p_cuMemFree(dout));
  closeSession(s);
  if (badLaunches) {
    std::printf("REPRODUCED: %d of %d launches gave bits the PTX ISA %s text does not allow (the recorded run: %s)\n", badLaunches, launches, EDITION, RECORDED);
    return 1;
  }
  std::printf("NOT REPRODUCED: %d launches gave bits the PTX ISA %s text allows (the recorded run: %s)\n", launches, EDITION, RECORDED);
  return 0;
}
