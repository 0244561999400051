// The multicast backend's driver calls (harness/backends/multicast/native.ts), kept out of the
// gpu backend's addon (cuda_launcher.cc binds no multicast call at all) and loaded only by
// `--backend multicast` after its guard (harness/backends/multicast/guard.ts) has passed: the
// user's --allow-multicast, no NCCL/NVSHMEM/PyTorch veto in the environment, two or more devices
// reporting multicast support. Creating a multicast object on a shared multi-GPU host can take
// every GPU out of service: nothing here runs unless that guard said yes.
// libcuda.so.1 is opened at run time (dlopen), as in cuda_launcher.cc.
#include <napi.h>
#include <cuda.h>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace {

void* lib = nullptr;
std::string loadError;

#define FN(name, sym) decltype(&::name) p_##name = nullptr;
#define CUDA_FUNCS(X)                                             \
  X(cuInit, "cuInit")                                             \
  X(cuDeviceGet, "cuDeviceGet")                                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")         \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                           \
  X(cuCtxSynchronize, "cuCtxSynchronize")                         \
  X(cuModuleLoadData, "cuModuleLoadData")                         \
  X(cuModuleUnload, "cuModuleUnload")                             \
  X(cuModuleGetFunction, "cuModuleGetFunction")                   \
  X(cuMemAlloc, "cuMemAlloc_v2")                                  \
  X(cuMemFree, "cuMemFree_v2")                                    \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2")                              \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                              \
  X(cuLaunchKernel, "cuLaunchKernel")                             \
  X(cuMemCreate, "cuMemCreate")                                   \
  X(cuMemRelease, "cuMemRelease")                                 \
  X(cuMemAddressReserve, "cuMemAddressReserve")                   \
  X(cuMemAddressFree, "cuMemAddressFree")                         \
  X(cuMemMap, "cuMemMap")                                         \
  X(cuMemUnmap, "cuMemUnmap")                                     \
  X(cuMemSetAccess, "cuMemSetAccess")                             \
  X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity") \
  X(cuMulticastGetGranularity, "cuMulticastGetGranularity")       \
  X(cuMulticastCreate, "cuMulticastCreate")                       \
  X(cuMulticastAddDevice, "cuMulticastAddDevice")                 \
  X(cuMulticastBindMem, "cuMulticastBindMem")                     \
  X(cuMulticastUnbind, "cuMulticastUnbind")                       \
  X(cuGetErrorName, "cuGetErrorName")                             \
  X(cuGetErrorString, "cuGetErrorString")
CUDA_FUNCS(FN)
#undef FN

bool Open() {
  if (lib) return true;
  if (!loadError.empty()) return false;
  lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    loadError = std::string("no CUDA driver: dlopen(libcuda.so.1) failed: ") + (e ? e : "unknown error");
    return false;
  }
#define LOAD(name, sym)                                                   \
  p_##name = reinterpret_cast<decltype(p_##name)>(dlsym(lib, sym));       \
  if (!p_##name) {                                                        \
    loadError = std::string("CUDA driver lacks ") + sym + " (multicast needs CUDA 12.1 or newer)"; \
    dlclose(lib);                                                         \
    lib = nullptr;                                                        \
    return false;                                                         \
  }
  CUDA_FUNCS(LOAD)
#undef LOAD
  return true;
}

Napi::Error CuError(Napi::Env env, CUresult r, const char* what) {
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* msg = "unknown";
  if (p_cuGetErrorName) p_cuGetErrorName(r, &name);
  if (p_cuGetErrorString) p_cuGetErrorString(r, &msg);
  Napi::Error e = Napi::Error::New(env, std::string(what) + ": " + name + ": " + msg);
  e.Set("cuResult", Napi::String::New(env, name));
  return e;
}

#define CHECK(env, call, what)                               \
  do {                                                       \
    CUresult r_ = (call);                                    \
    if (r_ != CUDA_SUCCESS) {                                \
      CuError(env, r_, what).ThrowAsJavaScriptException();   \
      return env.Undefined();                                \
    }                                                        \
  } while (0)

bool Need(Napi::Env env) {
  if (Open()) return true;
  Napi::Error::New(env, loadError).ThrowAsJavaScriptException();
  return false;
}

uint64_t U64(const Napi::Value& v) {
  bool lossless = true;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}
int I32(const Napi::Value& v) { return v.As<Napi::Number>().Int32Value(); }
size_t Size(const Napi::Value& v) { return static_cast<size_t>(v.As<Napi::Number>().Int64Value()); }
Napi::Value Big(Napi::Env env, uint64_t x) { return Napi::BigInt::New(env, x); }

// Makes device `ordinal`'s primary context current; false (with the JS error thrown) on failure.
bool UseDevice(Napi::Env env, int ordinal, CUdevice* out = nullptr) {
  CUdevice d;
  CUresult r = p_cuDeviceGet(&d, ordinal);
  if (r == CUDA_SUCCESS) {
    CUcontext c;
    r = p_cuDevicePrimaryCtxRetain(&c, d);
    if (r == CUDA_SUCCESS) r = p_cuCtxSetCurrent(c);
  }
  if (r != CUDA_SUCCESS) {
    CuError(env, r, "making the device current").ThrowAsJavaScriptException();
    return false;
  }
  if (out) *out = d;
  return true;
}

CUmulticastObjectProp McProp(unsigned devices, size_t size) {
  CUmulticastObjectProp p = {};
  p.numDevices = devices;
  p.size = size;
  p.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return p;
}

CUmemAllocationProp PhysProp(int ordinal) {
  CUmemAllocationProp p = {};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = ordinal;
  p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return p;
}

// status() -> { driver, reason? }
Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  bool ok = Open();
  o.Set("driver", Napi::Boolean::New(env, ok));
  if (!ok) o.Set("reason", Napi::String::New(env, loadError));
  return o;
}

// granularity(devices, bytes, ordinal) -> the larger of the multicast recommended and the physical allocation granularity
Napi::Value Granularity(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuInit(0), "cuInit");
  if (!UseDevice(env, I32(info[2]))) return env.Undefined();
  CUmulticastObjectProp mp = McProp(static_cast<unsigned>(I32(info[0])), Size(info[1]));
  size_t mg = 0, pg = 0;
  CHECK(env, p_cuMulticastGetGranularity(&mg, &mp, CU_MULTICAST_GRANULARITY_RECOMMENDED), "cuMulticastGetGranularity");
  CUmemAllocationProp pp = PhysProp(I32(info[2]));
  CHECK(env, p_cuMemGetAllocationGranularity(&pg, &pp, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "cuMemGetAllocationGranularity");
  return Napi::Number::New(env, static_cast<double>(mg > pg ? mg : pg));
}

Napi::Value CreateMulticast(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUmulticastObjectProp mp = McProp(static_cast<unsigned>(I32(info[0])), Size(info[1]));
  CUmemGenericAllocationHandle h = 0;
  CHECK(env, p_cuMulticastCreate(&h, &mp), "cuMulticastCreate");
  return Big(env, h);
}

Napi::Value AddDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUdevice d;
  CHECK(env, p_cuDeviceGet(&d, I32(info[1])), "cuDeviceGet");
  CHECK(env, p_cuMulticastAddDevice(U64(info[0]), d), "cuMulticastAddDevice");
  return env.Undefined();
}

Napi::Value AllocPhysical(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  CUmemAllocationProp pp = PhysProp(I32(info[0]));
  CUmemGenericAllocationHandle h = 0;
  CHECK(env, p_cuMemCreate(&h, Size(info[1]), &pp, 0), "cuMemCreate");
  return Big(env, h);
}

// bindMemory(mc, ordinal, mem, bytes)
Napi::Value BindMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[1]))) return env.Undefined();
  CHECK(env, p_cuMulticastBindMem(U64(info[0]), 0, U64(info[2]), 0, Size(info[3]), 0), "cuMulticastBindMem");
  return env.Undefined();
}

// map(handle, ordinal, bytes) -> va: reserve, map, grant `ordinal` read/write
Napi::Value Map(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[1]))) return env.Undefined();
  size_t size = Size(info[2]);
  CUdeviceptr va = 0;
  CHECK(env, p_cuMemAddressReserve(&va, size, 0, 0, 0), "cuMemAddressReserve");
  CUresult r = p_cuMemMap(va, size, 0, U64(info[0]), 0);
  if (r != CUDA_SUCCESS) {
    p_cuMemAddressFree(va, size);
    CuError(env, r, "cuMemMap").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  CUmemAccessDesc a = {};
  a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a.location.id = I32(info[1]);
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  r = p_cuMemSetAccess(va, size, &a, 1);
  if (r != CUDA_SUCCESS) {
    p_cuMemUnmap(va, size);
    p_cuMemAddressFree(va, size);
    CuError(env, r, "cuMemSetAccess").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Big(env, va);
}

Napi::Value Unmap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuMemUnmap(U64(info[0]), Size(info[1])), "cuMemUnmap");
  CHECK(env, p_cuMemAddressFree(U64(info[0]), Size(info[1])), "cuMemAddressFree");
  return env.Undefined();
}

Napi::Value AllocPlain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  CUdeviceptr p = 0;
  CHECK(env, p_cuMemAlloc(&p, Size(info[1])), "cuMemAlloc");
  return Big(env, p);
}

Napi::Value FreePlain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  CHECK(env, p_cuMemFree(U64(info[1])), "cuMemFree");
  return env.Undefined();
}

// write(ordinal, va, buffer)
Napi::Value Write(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  Napi::Buffer<uint8_t> b = info[2].As<Napi::Buffer<uint8_t>>();
  CHECK(env, p_cuMemcpyHtoD(U64(info[1]), b.Data(), b.Length()), "cuMemcpyHtoD");
  CHECK(env, p_cuCtxSynchronize(), "cuCtxSynchronize");
  return env.Undefined();
}

// read(ordinal, va, bytes) -> Buffer
Napi::Value Read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  CHECK(env, p_cuCtxSynchronize(), "cuCtxSynchronize");
  Napi::Buffer<uint8_t> b = Napi::Buffer<uint8_t>::New(env, Size(info[2]));
  CHECK(env, p_cuMemcpyDtoH(b.Data(), U64(info[1]), b.Length()), "cuMemcpyDtoH");
  return b;
}

// loadKernel(ordinal, cubin) -> [module, function]
Napi::Value LoadKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  Napi::Buffer<uint8_t> image = info[1].As<Napi::Buffer<uint8_t>>();
  CUmodule m;
  CHECK(env, p_cuModuleLoadData(&m, image.Data()), "cuModuleLoadData");
  CUfunction f;
  CUresult r = p_cuModuleGetFunction(&f, m, "multimem_kernel");
  if (r != CUDA_SUCCESS) {
    p_cuModuleUnload(m);
    CuError(env, r, "cuModuleGetFunction(multimem_kernel)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Big(env, reinterpret_cast<uint64_t>(m)));
  out.Set(1u, Big(env, reinterpret_cast<uint64_t>(f)));
  return out;
}

Napi::Value UnloadKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  CHECK(env, p_cuModuleUnload(reinterpret_cast<CUmodule>(U64(info[1]))), "cuModuleUnload");
  return env.Undefined();
}

// launch(ordinal, function, threads, mc, b, out): 256 threads a block, then synchronise
Napi::Value Launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env) || !UseDevice(env, I32(info[0]))) return env.Undefined();
  CUfunction f = reinterpret_cast<CUfunction>(U64(info[1]));
  unsigned n = static_cast<unsigned>(I32(info[2]));
  uint64_t mc = U64(info[3]), b = U64(info[4]), out = U64(info[5]);
  void* params[] = {&mc, &b, &out, &n};
  unsigned block = n < 256 ? (n ? n : 1) : 256;
  CHECK(env, p_cuLaunchKernel(f, (n + block - 1) / block, 1, 1, block, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
  CHECK(env, p_cuCtxSynchronize(), "cuCtxSynchronize (after the kernel)");
  return env.Undefined();
}

// unbindMemory(mc, ordinal, bytes)
Napi::Value UnbindMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUdevice d;
  CHECK(env, p_cuDeviceGet(&d, I32(info[1])), "cuDeviceGet");
  CHECK(env, p_cuMulticastUnbind(U64(info[0]), d, 0, Size(info[2])), "cuMulticastUnbind");
  return env.Undefined();
}

// release(handle): a physical allocation or the multicast object
Napi::Value Release(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuMemRelease(U64(info[0])), "cuMemRelease");
  return env.Undefined();
}

}  // namespace

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  exports.Set("status", Napi::Function::New(env, Status));
  exports.Set("granularity", Napi::Function::New(env, Granularity));
  exports.Set("createMulticast", Napi::Function::New(env, CreateMulticast));
  exports.Set("addDevice", Napi::Function::New(env, AddDevice));
  exports.Set("allocPhysical", Napi::Function::New(env, AllocPhysical));
  exports.Set("bindMemory", Napi::Function::New(env, BindMemory));
  exports.Set("map", Napi::Function::New(env, Map));
  exports.Set("unmap", Napi::Function::New(env, Unmap));
  exports.Set("allocPlain", Napi::Function::New(env, AllocPlain));
  exports.Set("freePlain", Napi::Function::New(env, FreePlain));
  exports.Set("write", Napi::Function::New(env, Write));
  exports.Set("read", Napi::Function::New(env, Read));
  exports.Set("loadKernel", Napi::Function::New(env, LoadKernel));
  exports.Set("unloadKernel", Napi::Function::New(env, UnloadKernel));
  exports.Set("launch", Napi::Function::New(env, Launch));
  exports.Set("unbindMemory", Napi::Function::New(env, UnbindMemory));
  exports.Set("release", Napi::Function::New(env, Release));
  return exports;
}

NODE_API_MODULE(cuda_multicast, InitModule)
