// A standalone reproducer written by `npm run conformance -- repro` (ptx-reduction-conformance).
// It needs only the CUDA driver and nvcc: build.sh compiles kernel.ptx to kernel.cubin and this file
// to ./repro. It launches the kernel exactly as the contention run that found the finding did
// (params.h: the grid, block, cluster shape, operands and initial memory), reads back every address's
// final memory and checks each lane against the values some order of the operations gives (also in
// params.h, computed by the harness's contention model). Prints REPRODUCED (exit 1) when an address
// holds a value no order gives, else NOT REPRODUCED (exit 0); 2 on a CUDA error.
//
//   ./repro [LAUNCHES]     LAUNCHES: how many times to launch (default params.h's, the run's own)
#include <vector>

#include "driver.h"
#include "params.h"

static bool allowed(uint64_t x, const Lane& l) { return allowedBits(x, l, LANES_ALLOWED); }

int main(int argc, char** argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : LAUNCHES;
  if (launches < 1) {
    std::fprintf(stderr, "usage: %s [LAUNCHES]  (LAUNCHES >= 1; default %d)\n", argv[0], LAUNCHES);
    return 2;
  }
  Session s = openSession(KERNEL);
  CUfunction fn = s.fn;
  const char* name = s.name;
  int drv = s.drv;

  const size_t memBytes = size_t(REPS) * SLOT_BYTES;
  CUdeviceptr dmem, dops, dout;
  CHECK(p_cuMemAlloc(&dmem, memBytes));
  CHECK(p_cuMemAlloc(&dops, sizeof OPS));
  CHECK(p_cuMemAlloc(&dout, size_t(REPS) * N * 16));
  CHECK(p_cuMemcpyHtoD(dops, OPS, sizeof OPS));
  std::vector<unsigned char> init(memBytes), fin(memBytes);
  for (int r = 0; r < REPS; r++) std::memcpy(&init[size_t(r) * SLOT_BYTES], MEMORY, SLOT_BYTES);

  unsigned n = N, layout = LAYOUT, mode = MODE;
  void* args[] = {&dmem, &dops, &dout, &n, &layout, &mode};
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = CLUSTER_X;
  attr.value.clusterDim.y = 1;
  attr.value.clusterDim.z = 1;
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = GRID_X; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = BLOCK_X; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  cfg.attrs = CLUSTER_X > 1 ? &attr : nullptr;
  cfg.numAttrs = CLUSTER_X > 1 ? 1 : 0;

  std::printf("%s\n%s on %s (driver %d.%d): %d participants (%s layout) on each of %d addresses, %d launch(es)\n",
              GROUP, INSTRUCTION, name, drv / 1000, (drv % 1000) / 10, N, LAYOUT_NAME, REPS, launches);
  long bad = 0, total = 0;
  int shown = 0;
  for (int launch = 0; launch < launches; launch++) {
    CHECK(p_cuMemcpyHtoD(dmem, init.data(), memBytes));
    CHECK(p_cuLaunchKernelEx(&cfg, fn, args, nullptr));
    CHECK(p_cuCtxSynchronize());
    CHECK(p_cuMemcpyDtoH(fin.data(), dmem, memBytes));
    long badHere = 0;
    for (int r = 0; r < REPS; r++) {
      const unsigned char* slot = &fin[size_t(r) * SLOT_BYTES];
      bool ok = true;
      for (int j = 0; j < NLANES; j++) {
        uint64_t x = laneBits(slot, LANES[j]);
        if (!allowed(x, LANES[j])) {
          ok = false;
          if (shown < 5) {
            std::printf("  launch %d, address %d, lane %d: final 0x%0*llx, which no order of the %d operations gives (expected %s)\n",
                        launch, r, j, LANES[j].bits / 4, (unsigned long long)x, N, LANES[j].expected);
            shown++;
          }
        }
      }
      total++;
      if (!ok) badHere++;
    }
    bad += badHere;
  }
  CHECK(p_cuMemFree(dmem));
  CHECK(p_cuMemFree(dops));
  CHECK(p_cuMemFree(dout));
  closeSession(s);
  if (bad) {
    std::printf("REPRODUCED: %ld of %ld addresses hold a final value that no order of the %d operations gives (the recorded run: %s)\n", bad, total, N, RECORDED);
    return 1;
  }
  std::printf("NOT REPRODUCED: all %ld addresses hold a final value some order of the %d operations gives (the recorded run: %s)\n", total, N, RECORDED);
  return 0;
}
