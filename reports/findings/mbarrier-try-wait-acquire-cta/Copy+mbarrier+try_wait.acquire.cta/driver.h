// The CUDA driver API for the reproducers `npm run conformance -- repro` writes (ptx-reduction-conformance):
// opened with dlopen, as the harness's own launcher does, so a reproducer builds on a machine without
// a driver (CI: compile only) and runs against whatever driver the GPU host has. Also the lane check
// both reproducers share: a lane's bits against the values the harness's model allows.
#pragma once
#include <cuda.h>
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// The device, its primary context and the kernel: what every reproducer opens first.
struct Session {
  CUdevice dev;
  CUmodule mod;
  CUfunction fn;
  char name[256];
  int drv;
};

static Session openSession(const char* kernel) {
  Session s;
  std::memset(&s, 0, sizeof s);
  openDriver();
  CHECK(p_cuInit(0));
  CHECK(p_cuDeviceGet(&s.dev, 0));
  CHECK(p_cuDeviceGetName(s.name, sizeof s.name, s.dev));
  CHECK(p_cuDriverGetVersion(&s.drv));
  CUcontext ctx;
  CHECK(p_cuDevicePrimaryCtxRetain(&ctx, s.dev));
  CHECK(p_cuCtxSetCurrent(ctx));
  CHECK(p_cuModuleLoad(&s.mod, "kernel.cubin"));
  CHECK(p_cuModuleGetFunction(&s.fn, s.mod, kernel));
  return s;
}

static void closeSession(Session& s) {
  CHECK(p_cuModuleUnload(s.mod));
  CHECK(p_cuDevicePrimaryCtxRelease(s.dev));
}

// a lane: byte offset and bytes in its 16-byte slot, bit shift, bits, float exponent/fraction bits
// (0: not a float), its allowed values ALLOWED[first..first+count), whether any NaN is allowed, and the
// allowed values in words
struct Lane { int byte, bytes, shift, bits, expBits, fracBits, first, count, anyNaN; const char* expected; };

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

static bool allowedBits(uint64_t x, const Lane& l, const uint64_t* allowed) {
  for (int k = 0; k < l.count; k++) if (allowed[l.first + k] == x) return true;
  return l.anyNaN && isNaN(x, l);
}
