// A standalone reproducer written by `npm run conformance -- repro` (ptx-reduction-conformance) for
// one single-thread case whose kernel needs more than the plain launch of host-case.cpp: clusters of
// 2 CTAs (red.async, bulk reductions to .shared::cluster), a tiled tensor map over the memory at [a]
// (cp.reduce.async.bulk.tensor), and, for a case the PTX ISA text leaves open (an `observed` float
// add that kept or flushed subnormals where no rule says), the check of that behaviour. It needs
// only the CUDA driver and nvcc: build.sh compiles kernel.ptx to kernel.cubin and this file to
// ./repro. It launches the case as the gpu backend did (the kernel contract: parameters mem, b, c,
// out, n, mode; the case in 16-byte slot 0 of each buffer; a tensor map's address as c), reads back
// the memory at [a] and the returned values, and checks each lane against what the PTX ISA text
// allows (params.h, from the harness's reference model, under the edition named there).
//
// Prints REPRODUCED (exit 1) when a lane holds bits the text does not allow, or, for an observed
// case, when the GPU still does what the recorded run did with subnormals (SUB_LANES: the lanes
// whose result tells keeping from flushing); else NOT REPRODUCED (exit 0); 2 on a CUDA error.
//
//   ./repro [LAUNCHES]     LAUNCHES: how many times to run the case (default 1)
#include <vector>

#include "driver.h"

// a lane whose result tells keeping subnormals from flushing them: where it is in the slot (as Lane)
// and the two results
struct SubLane { int byte, bytes, shift, bits; uint64_t kept, flushed; };

#include "params.h"

static void show(const char* what, const unsigned char* slot, int elements, int width) {
  std::printf("  %s:", what);
  for (int j = 0; j < elements; j++) {
    uint64_t v = 0;
    std::memcpy(&v, slot + j * width / 8, width / 8);
    std::printf(" 0x%0*llx", width / 4, (unsigned long long)v);
  }
  std::printf("\n");
}

/** Lanes of `slot` outside what the text allows, each printed (the first launch only). */
static int check(const char* what, const unsigned char* slot, const Lane* lanes, int n, const uint64_t* allowed, bool print) {
  int bad = 0;
  for (int j = 0; j < n; j++) {
    uint64_t x = laneBits(slot, lanes[j]);
    if (!allowedBits(x, lanes[j], allowed)) {
      if (print) std::printf("  %s lane %d: 0x%0*llx, which the text does not allow (it allows %s)\n", what, j, lanes[j].bits / 4, (unsigned long long)x, lanes[j].expected);
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
  // the memory buffer: slot 0 holds the case; a tensor map's extent may reach past it (zeros)
  const size_t memBytes = 1024;
  CUdeviceptr dmem, db, dc, dout;
  CHECK(p_cuMemAlloc(&dmem, memBytes));
  CHECK(p_cuMemAlloc(&db, 16));
  CHECK(p_cuMemAlloc(&dc, 128));
  CHECK(p_cuMemAlloc(&dout, 16));
  CHECK(p_cuMemcpyHtoD(db, B, 16));
  CHECK(p_cuMemcpyHtoD(dc, C, 16));
  std::vector<unsigned char> zeros(memBytes, 0);
  if (TENSOR_RANK) {
    // the tiled tensor map over the memory, as the gpu backend's executor encodes it
    // (cuTensorMapEncodeTiled; no interleave, swizzle or L2 promotion), copied where the kernel reads it
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto encode = lib ? reinterpret_cast<decltype(&::cuTensorMapEncodeTiled)>(dlsym(lib, "cuTensorMapEncodeTiled")) : nullptr;
    if (!encode) {
      std::fprintf(stderr, "the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12.0 or newer has it)\n");
      return 2;
    }
    alignas(64) CUtensorMap map;
    cuuint64_t dims[5], strides[5];
    cuuint32_t box[5], estr[5];
    for (int k = 0; k < 5; k++) { dims[k] = TENSOR_DIMS[k]; strides[k] = TENSOR_STRIDES[k]; box[k] = TENSOR_BOX[k]; estr[k] = TENSOR_ESTRIDES[k]; }
    CHECK(encode(&map, (CUtensorMapDataType)TENSOR_DATA_TYPE, TENSOR_RANK, reinterpret_cast<void*>(dmem), dims, strides, box, estr,
                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    CHECK(p_cuMemcpyHtoD(dc, &map, sizeof map));
  }
  unsigned long long n = 1;
  unsigned mode = MODE;
  void* args[] = {&dmem, &db, &dc, &dout, &n, &mode};
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = GRID_X; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = 1; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  if (CLUSTER_X > 1) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = CLUSTER_X; attr.value.clusterDim.y = 1; attr.value.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }

  std::printf("%s\n%s on %s (driver %d.%d), %d launch(es) of grid %d x block 1%s%s; judged against the PTX ISA %s text\n", CASE_ID, INSTRUCTION, s.name, s.drv / 1000, (s.drv % 1000) / 10, launches, GRID_X,
              CLUSTER_X > 1 ? " in clusters of 2 CTAs" : "", TENSOR_RANK ? ", a tiled tensor map over the memory" : "", EDITION);
  show("memory before", MEMORY, ELEMENTS, WIDTH);
  show(OPERAND_NAME, B, ELEMENTS, WIDTH);
  int badLaunches = 0, sameLaunches = 0;
  unsigned char mem[16], out[16];
  for (int launch = 0; launch < launches; launch++) {
    CHECK(p_cuMemcpyHtoD(dmem, zeros.data(), memBytes));
    CHECK(p_cuMemcpyHtoD(dmem, MEMORY, 16));
    CHECK(p_cuLaunchKernelEx(&cfg, s.fn, args, nullptr));
    CHECK(p_cuCtxSynchronize());
    CHECK(p_cuMemcpyDtoH(mem, dmem, 16));
    CHECK(p_cuMemcpyDtoH(out, dout, 16));
    bool first = launch == 0;
    if (first) {
      show("memory after", mem, ELEMENTS, WIDTH);
      if (RETURNS) show("returned", out, ELEMENTS, WIDTH);
    }
    int bad = check("memory", mem, MEM_LANES, N_MEM_LANES, MEM_LANES_ALLOWED, first) + (RETURNS ? check("returned", out, RET_LANES, N_RET_LANES, RET_LANES_ALLOWED, first) : 0);
    if (bad) badLaunches++;
    // an observed case: what the GPU did with subnormals on the lanes that tell keeping from flushing
    int kept = 0, flushed = 0;
    for (int j = 0; j < N_SUB_LANES; j++) {
      const SubLane& l = SUB_LANES[j];
      Lane at = {l.byte, l.bytes, l.shift, l.bits, 0, 0, 0, 0, 0, ""};
      uint64_t x = laneBits(mem, at);
      if (x == l.kept) kept++;
      else if (x == l.flushed) flushed++;
      if (first) std::printf("  memory lane %d: 0x%0*llx (subnormals kept: 0x%0*llx; flushed: 0x%0*llx): %s\n", j, l.bits / 4, (unsigned long long)x, l.bits / 4, (unsigned long long)l.kept, l.bits / 4,
                             (unsigned long long)l.flushed, x == l.kept ? "kept" : x == l.flushed ? "flushed" : "neither");
    }
    const char* did = kept == N_SUB_LANES ? "kept" : flushed == N_SUB_LANES ? "flushed" : "mixed";
    if (N_SUB_LANES && std::strcmp(did, RECORDED_SUBNORMALS) == 0) sameLaunches++;
  }
  CHECK(p_cuMemFree(dmem));
  CHECK(p_cuMemFree(db));
  CHECK(p_cuMemFree(dc));
  CHECK(p_cuMemFree(dout));
  closeSession(s);
  if (N_SUB_LANES) {
    // the text leaves the lanes open: the finding is what the GPU did with subnormals
    if (badLaunches) std::printf("and %d of %d launches gave bits the PTX ISA %s text does not allow\n", badLaunches, launches, EDITION);
    if (sameLaunches) {
      std::printf("REPRODUCED: %d of %d launches %s subnormals on all %d lanes that tell keeping from flushing, as the recorded run did (the PTX ISA %s text says neither; the recorded run: %s)\n", sameLaunches, launches,
                  RECORDED_SUBNORMALS, N_SUB_LANES, EDITION, RECORDED);
      return 1;
    }
    if (badLaunches) {
      std::printf("REPRODUCED: %d of %d launches gave bits the PTX ISA %s text does not allow, though none %s subnormals as the recorded run did (the recorded run: %s)\n", badLaunches, launches, EDITION, RECORDED_SUBNORMALS, RECORDED);
      return 1;
    }
    std::printf("NOT REPRODUCED: 0 of %d launches %s subnormals on all %d lanes that tell keeping from flushing (the recorded run: %s)\n", launches, RECORDED_SUBNORMALS, N_SUB_LANES, RECORDED);
    return 0;
  }
  if (badLaunches) {
    std::printf("REPRODUCED: %d of %d launches gave bits the PTX ISA %s text does not allow (the recorded run: %s)\n", badLaunches, launches, EDITION, RECORDED);
    return 1;
  }
  std::printf("NOT REPRODUCED: %d launches gave bits the PTX ISA %s text allows (the recorded run: %s)\n", launches, EDITION, RECORDED);
  return 0;
}
