// A standalone reproducer written by `npm run conformance -- repro` (ptx-reduction-conformance).
// It needs only the CUDA driver and nvcc: build.sh compiles kernel.ptx to kernel.cubin and this file
// to ./repro. It launches the kernel exactly as the contention run that found the finding did
// (params.h: the grid, block, cluster shape, operands and initial memory), reads back every address's
// final memory and checks each lane against the values some order of the operations gives (also in
// params.h, computed by the harness's contention model). Prints REPRODUCED (exit 1) when an address
// holds a value no order gives, else NOT REPRODUCED (exit 0); 2 on a CUDA error.
//
//   ./repro [LAUNCHES]     LAUNCHES: how many times to launch (default params.h's, the run's own)
#include <cuda.h>
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "params.h"

// The driver is opened with dlopen, as the harness's own launcher does, so the program builds on a
// machine without a driver (CI: compile only) and runs against whatever driver the GPU host has.
#define DRIVER(X)                                                        \
  X(cuInit, "cuInit") X(cuDeviceGet, "cuDeviceGet") X(cuDeviceGetName, "cuDeviceGetName") \
  X(cuDriverGetVersion, "cuDriverGetVersion") X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") X(cuCtxSetCurrent, "cuCtxSetCurrent") \
  X(cuCtxSynchronize, "cuCtxSynchronize") X(cuModuleLoad, "cuModuleLoad") X(cuModuleUnload, "cuModuleUnload") \
  X(cuModuleGetFunction, "cuModuleGetFunction") X(cuMemAlloc, "cuMemAlloc_v2") X(cuMemFree, "cuMemFree_v2") \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2") X(cuMemcpyDtoH, "cuMemcpyDtoH_v2") X(cuLaunchKernelEx, "cuLaunchKernelEx") \
  X(cuGetErrorString, "cuGetErrorString")
#define DECLARE(name, sym) static decltype(&::name) p_##name = nullptr;
DRIVER(DECLARE)
#undef DECLARE

static void openDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "no CUDA driver: dlopen(libcuda.so.1) failed: %s\n", dlerror());
    std::exit(2);
  }
#define LOAD(name, sym)                                                      \
  p_##name = reinterpret_cast<decltype(p_##name)>(dlsym(lib, sym));          \
  if (!p_##name) {                                                           \
    std::fprintf(stderr, "the CUDA driver lacks %s (too old?)\n", sym);    \
    std::exit(2);                                                            \
  }
  DRIVER(LOAD)
#undef LOAD
}

#define CHECK(x)                                                                  \
  do {                                                                            \
    CUresult r_ = (x);                                                            \
    if (r_ != CUDA_SUCCESS) {                                                     \
      const char* s_ = nullptr;                                                   \
      p_cuGetErrorString(r_, &s_);                                                  \
      std::fprintf(stderr, "CUDA error %d (%s) at %s\n", (int)r_, s_ ? s_ : "?", #x); \
      std::exit(2);                                                               \
    }                                                                             \
  } while (0)

static uint64_t laneBits(const unsigned char* slot, const Lane& l) {
  uint64_t v = 0;
  std::memcpy(&v, slot + l.byte, l.bytes);  // little endian, as the GPU writes it
  v >>= l.shift;
  return l.bits == 64 ? v : (v & ((uint64_t(1) << l.bits) - 1));
}

static bool isNaN(uint64_t x, const Lane& l) {
  if (!l.expBits) return false;
  uint64_t exp = (x >> l.fracBits) & ((uint64_t(1) << l.expBits) - 1);
  uint64_t frac = x & ((uint64_t(1) << l.fracBits) - 1);
  return exp == ((uint64_t(1) << l.expBits) - 1) && frac != 0;
}

static bool allowed(uint64_t x, const Lane& l) {
  for (int k = 0; k < l.count; k++) if (ALLOWED[l.first + k] == x) return true;
  return l.anyNaN && isNaN(x, l);
}

int main(int argc, char** argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : LAUNCHES;
  if (launches < 1) {
    std::fprintf(stderr, "usage: %s [LAUNCHES]  (LAUNCHES >= 1; default %d)\n", argv[0], LAUNCHES);
    return 2;
  }
  openDriver();
  CHECK(p_cuInit(0));
  CUdevice dev;
  CHECK(p_cuDeviceGet(&dev, 0));
  char name[256] = {0};
  CHECK(p_cuDeviceGetName(name, sizeof name, dev));
  int drv = 0;
  CHECK(p_cuDriverGetVersion(&drv));
  CUcontext ctx;
  CHECK(p_cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(p_cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK(p_cuModuleLoad(&mod, "kernel.cubin"));
  CUfunction fn;
  CHECK(p_cuModuleGetFunction(&fn, mod, KERNEL));

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
  CHECK(p_cuModuleUnload(mod));
  CHECK(p_cuDevicePrimaryCtxRelease(dev));
  if (bad) {
    std::printf("REPRODUCED: %ld of %ld addresses hold a final value that no order of the %d operations gives (the recorded run: %s)\n", bad, total, N, RECORDED);
    return 1;
  }
  std::printf("NOT REPRODUCED: all %ld addresses hold a final value some order of the %d operations gives (the recorded run: %s)\n", total, N, RECORDED);
  return 0;
}
