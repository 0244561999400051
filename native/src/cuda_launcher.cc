// Thin N-API layer over the CUDA driver API. libcuda.so.1 is opened at run time (dlopen), so this
// builds on machines with the CUDA headers but no driver, and loads there, answering "no CUDA
// driver" instead of failing to load. Argument checking, defaults and messages live in TypeScript
// (harness/backends/gpu/driver.ts); errors cross as JS exceptions carrying the CUresult name.
// This file never creates a multicast object: it binds no multicast-object call at all.
#include <napi.h>
#include <cuda.h>
#include <dlfcn.h>
#include <string>
#include <vector>

// native/src/hostmem.cc: host memory against the CPU (the `hostmem` command).
void RegisterHostMem(Napi::Env env, Napi::Object exports);
// native/src/peer.cc: peer access between two GPUs (the `peer` command).
void RegisterPeer(Napi::Env env, Napi::Object exports);
// native/src/views.cc: one allocation mapped at several virtual addresses (litmus aliases).
void RegisterViews(Napi::Env env, Napi::Object exports);

namespace {

void* lib = nullptr;
std::string loadError;

#define FN(name, sym) decltype(&::name) p_##name = nullptr;
#define CUDA_FUNCS(X)                                      \
  X(cuInit, "cuInit")                                      \
  X(cuDriverGetVersion, "cuDriverGetVersion")              \
  X(cuDeviceGetCount, "cuDeviceGetCount")                  \
  X(cuDeviceGet, "cuDeviceGet")                            \
  X(cuDeviceGetName, "cuDeviceGetName")                    \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")          \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")  \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                    \
  X(cuCtxSynchronize, "cuCtxSynchronize")                  \
  X(cuModuleLoadData, "cuModuleLoadData")                  \
  X(cuModuleUnload, "cuModuleUnload")                      \
  X(cuModuleGetFunction, "cuModuleGetFunction")            \
  X(cuMemAlloc, "cuMemAlloc_v2")                           \
  X(cuMemFree, "cuMemFree_v2")                             \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2")                       \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                       \
  X(cuLaunchKernelEx, "cuLaunchKernelEx")                  \
  X(cuGetErrorName, "cuGetErrorName")                      \
  X(cuGetErrorString, "cuGetErrorString")
CUDA_FUNCS(FN)
#undef FN

// Optional: a driver without it still runs every other family (the tensor family then says why not).
decltype(&::cuTensorMapEncodeTiled) p_cuTensorMapEncodeTiled = nullptr;
decltype(&::cuTensorMapEncodeIm2col) p_cuTensorMapEncodeIm2col = nullptr;
// Optional: raises a kernel's dynamic shared-memory limit past 48 KiB (bulk reductions of up to 227 KiB).
decltype(&::cuFuncSetAttribute) p_cuFuncSetAttribute = nullptr;

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
    loadError = std::string("CUDA driver lacks ") + sym + " (too old?)";  \
    dlclose(lib);                                                         \
    lib = nullptr;                                                        \
    return false;                                                         \
  }
  CUDA_FUNCS(LOAD)
#undef LOAD
  p_cuTensorMapEncodeTiled = reinterpret_cast<decltype(p_cuTensorMapEncodeTiled)>(dlsym(lib, "cuTensorMapEncodeTiled"));
  p_cuTensorMapEncodeIm2col = reinterpret_cast<decltype(p_cuTensorMapEncodeIm2col)>(dlsym(lib, "cuTensorMapEncodeIm2col"));
  p_cuFuncSetAttribute = reinterpret_cast<decltype(p_cuFuncSetAttribute)>(dlsym(lib, "cuFuncSetAttribute"));
  return true;
}

Napi::Error CuError(Napi::Env env, CUresult r, const char* what) {
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* msg = "unknown";
  if (p_cuGetErrorName) p_cuGetErrorName(r, &name);
  if (p_cuGetErrorString) p_cuGetErrorString(r, &msg);
  Napi::Error e = Napi::Error::New(env, std::string(what) + ": " + name + ": " + msg);
  e.Set("cuResult", Napi::String::New(env, name));
  e.Set("cuCode", Napi::Number::New(env, static_cast<double>(r)));
  return e;
}

#define CHECK(env, call, what)                 \
  do {                                         \
    CUresult r_ = (call);                      \
    if (r_ != CUDA_SUCCESS) {                  \
      CuError(env, r_, what).ThrowAsJavaScriptException(); \
      return env.Undefined();                  \
    }                                          \
  } while (0)

bool Need(Napi::Env env) {
  if (Open()) return true;
  Napi::Error e = Napi::Error::New(env, loadError);
  e.Set("cuResult", Napi::String::New(env, "NO_DRIVER"));
  e.ThrowAsJavaScriptException();
  return false;
}

uint64_t U64(const Napi::Value& v) {
  bool lossless = true;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

// status() -> { driver: boolean, reason?: string }
Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  bool ok = Open();
  o.Set("driver", Napi::Boolean::New(env, ok));
  if (!ok) o.Set("reason", Napi::String::New(env, loadError));
  return o;
}

Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuInit(0), "cuInit");
  int v = 0;
  CHECK(env, p_cuDriverGetVersion(&v), "cuDriverGetVersion");
  int n = 0;
  CHECK(env, p_cuDeviceGetCount(&n), "cuDeviceGetCount");
  Napi::Object o = Napi::Object::New(env);
  o.Set("driverVersion", Napi::Number::New(env, v));
  o.Set("deviceCount", Napi::Number::New(env, n));
  return o;
}

// deviceAttributes(ordinal, [attr...]) -> { name, values: [...] }
Napi::Value Device(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUdevice d;
  CHECK(env, p_cuDeviceGet(&d, info[0].As<Napi::Number>().Int32Value()), "cuDeviceGet");
  char name[256] = {0};
  CHECK(env, p_cuDeviceGetName(name, sizeof(name) - 1, d), "cuDeviceGetName");
  Napi::Array attrs = info[1].As<Napi::Array>();
  Napi::Array values = Napi::Array::New(env, attrs.Length());
  for (uint32_t i = 0; i < attrs.Length(); i++) {
    int v = 0;
    CUresult r = p_cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(attrs.Get(i).As<Napi::Number>().Int32Value()), d);
    values.Set(i, r == CUDA_SUCCESS ? Napi::Value(Napi::Number::New(env, v)) : env.Null());
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", Napi::String::New(env, name));
  o.Set("values", values);
  return o;
}

// useDevice(ordinal): retains the primary context and makes it current.
Napi::Value UseDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUdevice d;
  CHECK(env, p_cuDeviceGet(&d, info[0].As<Napi::Number>().Int32Value()), "cuDeviceGet");
  CUcontext c;
  CHECK(env, p_cuDevicePrimaryCtxRetain(&c, d), "cuDevicePrimaryCtxRetain");
  CHECK(env, p_cuCtxSetCurrent(c), "cuCtxSetCurrent");
  return env.Undefined();
}

// loadModule(cubin: Buffer) -> BigInt handle
Napi::Value LoadModule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  Napi::Buffer<uint8_t> img = info[0].As<Napi::Buffer<uint8_t>>();
  CUmodule m;
  CHECK(env, p_cuModuleLoadData(&m, img.Data()), "cuModuleLoadData");
  return Napi::BigInt::New(env, reinterpret_cast<uint64_t>(m));
}

Napi::Value UnloadModule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuModuleUnload(reinterpret_cast<CUmodule>(U64(info[0]))), "cuModuleUnload");
  return env.Undefined();
}

// getFunction(module, name) -> BigInt handle
Napi::Value GetFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUfunction f;
  std::string name = info[1].As<Napi::String>().Utf8Value();
  CHECK(env, p_cuModuleGetFunction(&f, reinterpret_cast<CUmodule>(U64(info[0])), name.c_str()), "cuModuleGetFunction");
  return Napi::BigInt::New(env, reinterpret_cast<uint64_t>(f));
}

Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CUdeviceptr p;
  CHECK(env, p_cuMemAlloc(&p, static_cast<size_t>(info[0].As<Napi::Number>().Int64Value())), "cuMemAlloc");
  return Napi::BigInt::New(env, static_cast<uint64_t>(p));
}

Napi::Value MemFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuMemFree(static_cast<CUdeviceptr>(U64(info[0]))), "cuMemFree");
  return env.Undefined();
}

// copyToDevice(devptr, Buffer)
Napi::Value CopyToDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  Napi::Buffer<uint8_t> b = info[1].As<Napi::Buffer<uint8_t>>();
  CHECK(env, p_cuMemcpyHtoD(static_cast<CUdeviceptr>(U64(info[0])), b.Data(), b.Length()), "cuMemcpyHtoD");
  return env.Undefined();
}

// copyFromDevice(Buffer, devptr)
Napi::Value CopyFromDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  Napi::Buffer<uint8_t> b = info[0].As<Napi::Buffer<uint8_t>>();
  CHECK(env, p_cuMemcpyDtoH(b.Data(), static_cast<CUdeviceptr>(U64(info[1])), b.Length()), "cuMemcpyDtoH");
  return env.Undefined();
}

// launch(fn, [gx,gy,gz], [bx,by,bz], sharedBytes, [cx,cy,cz], params: BigInt[] (64-bit each))
Napi::Value Launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  auto dim = [&](int i, int k) { return info[i].As<Napi::Array>().Get(k).As<Napi::Number>().Uint32Value(); };
  CUlaunchConfig cfg = {};
  cfg.gridDimX = dim(1, 0); cfg.gridDimY = dim(1, 1); cfg.gridDimZ = dim(1, 2);
  cfg.blockDimX = dim(2, 0); cfg.blockDimY = dim(2, 1); cfg.blockDimZ = dim(2, 2);
  cfg.sharedMemBytes = info[3].As<Napi::Number>().Uint32Value();
  CUlaunchAttribute attr = {};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = dim(4, 0); attr.value.clusterDim.y = dim(4, 1); attr.value.clusterDim.z = dim(4, 2);
  if (attr.value.clusterDim.x * attr.value.clusterDim.y * attr.value.clusterDim.z > 1) {
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  Napi::Array ps = info[5].As<Napi::Array>();
  std::vector<uint64_t> vals(ps.Length());
  std::vector<void*> args(ps.Length());
  for (uint32_t i = 0; i < ps.Length(); i++) {
    vals[i] = U64(ps.Get(i));
    args[i] = &vals[i];
  }
  CHECK(env, p_cuLaunchKernelEx(&cfg, reinterpret_cast<CUfunction>(U64(info[0])), args.data(), nullptr), "cuLaunchKernelEx");
  return env.Undefined();
}

Napi::Value Synchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  CHECK(env, p_cuCtxSynchronize(), "cuCtxSynchronize");
  return env.Undefined();
}

// tensorMapEncodeTiled(dataType, globalAddress, globalDim[], globalStrides[] (bytes, rank-1),
// boxDim[], elementStrides[]) -> Buffer of the 128-byte CUtensorMap: no interleave, no swizzle, no L2
// promotion, out-of-bound elements zero-filled.
Napi::Value TensorMapEncodeTiled(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  if (!p_cuTensorMapEncodeTiled) {
    Napi::Error e = Napi::Error::New(env, "this CUDA driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer has it)");
    e.Set("cuResult", Napi::String::New(env, "NO_TENSOR_MAP"));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto u64s = [&](int i) {
    Napi::Array a = info[i].As<Napi::Array>();
    std::vector<cuuint64_t> v(a.Length());
    for (uint32_t k = 0; k < a.Length(); k++) v[k] = static_cast<cuuint64_t>(U64(a.Get(k)));
    return v;
  };
  auto u32s = [&](int i) {
    Napi::Array a = info[i].As<Napi::Array>();
    std::vector<cuuint32_t> v(a.Length());
    for (uint32_t k = 0; k < a.Length(); k++) v[k] = a.Get(k).As<Napi::Number>().Uint32Value();
    return v;
  };
  auto dt = static_cast<CUtensorMapDataType>(info[0].As<Napi::Number>().Uint32Value());
  void* addr = reinterpret_cast<void*>(U64(info[1]));
  std::vector<cuuint64_t> dims = u64s(2), strides = u64s(3);
  std::vector<cuuint32_t> box = u32s(4), estr = u32s(5);
  // fixed arrays: a rank-1 map has no stride, and an empty vector's data() may be null
  cuuint64_t d5[5] = {0}, s5[5] = {0};
  cuuint32_t b5[5] = {0}, e5[5] = {0};
  if (dims.size() < 1 || dims.size() > 5 || strides.size() + 1 != dims.size() || box.size() != dims.size() || estr.size() != dims.size()) {
    Napi::Error e = Napi::Error::New(env, "tensorMapEncodeTiled: rank 1-5, one stride fewer than dims, a box and element stride per dim");
    e.Set("cuResult", Napi::String::New(env, "CUDA_ERROR_INVALID_VALUE"));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  for (size_t k = 0; k < dims.size(); k++) { d5[k] = dims[k]; b5[k] = box[k]; e5[k] = estr[k]; }
  for (size_t k = 0; k < strides.size(); k++) s5[k] = strides[k];
  alignas(64) CUtensorMap map;
  CHECK(env,
        p_cuTensorMapEncodeTiled(&map, dt, static_cast<cuuint32_t>(dims.size()), addr, d5, s5, b5, e5,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  return Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<uint8_t*>(&map), sizeof(map));
}

// tensorMapEncodeIm2col(dataType, globalAddress, globalDim[], globalStrides[] (bytes, rank-1),
// lowerCorner[] (rank-2), upperCorner[] (rank-2), channelsPerPixel, pixelsPerColumn, elementStrides[])
// -> Buffer of the 128-byte CUtensorMap: no interleave, no swizzle, no L2 promotion, out-of-bound
// elements zero-filled. Rank 3-5 (NWC, NHWC, NDHWC).
Napi::Value TensorMapEncodeIm2col(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  if (!p_cuTensorMapEncodeIm2col) {
    Napi::Error e = Napi::Error::New(env, "this CUDA driver has no cuTensorMapEncodeIm2col (CUDA 12.0 or newer has it)");
    e.Set("cuResult", Napi::String::New(env, "NO_TENSOR_MAP"));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto arr = [&](int i) { return info[i].As<Napi::Array>(); };
  auto dt = static_cast<CUtensorMapDataType>(info[0].As<Napi::Number>().Uint32Value());
  void* addr = reinterpret_cast<void*>(U64(info[1]));
  Napi::Array dims = arr(2), strides = arr(3), lower = arr(4), upper = arr(5), estr = arr(8);
  uint32_t rank = dims.Length();
  if (rank < 3 || rank > 5 || strides.Length() + 1 != rank || lower.Length() + 2 != rank || upper.Length() + 2 != rank || estr.Length() != rank) {
    Napi::Error e = Napi::Error::New(env, "tensorMapEncodeIm2col: rank 3-5, one stride fewer than dims, rank-2 corners, an element stride per dim");
    e.Set("cuResult", Napi::String::New(env, "CUDA_ERROR_INVALID_VALUE"));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  cuuint64_t d5[5] = {0}, s5[5] = {0};
  cuuint32_t e5[5] = {0};
  int lo[3] = {0}, up[3] = {0};
  for (uint32_t k = 0; k < rank; k++) { d5[k] = static_cast<cuuint64_t>(U64(dims.Get(k))); e5[k] = estr.Get(k).As<Napi::Number>().Uint32Value(); }
  for (uint32_t k = 0; k + 1 < rank; k++) s5[k] = static_cast<cuuint64_t>(U64(strides.Get(k)));
  for (uint32_t k = 0; k + 2 < rank; k++) { lo[k] = lower.Get(k).As<Napi::Number>().Int32Value(); up[k] = upper.Get(k).As<Napi::Number>().Int32Value(); }
  alignas(64) CUtensorMap map;
  CHECK(env,
        p_cuTensorMapEncodeIm2col(&map, dt, rank, addr, d5, s5, lo, up, info[6].As<Napi::Number>().Uint32Value(), info[7].As<Napi::Number>().Uint32Value(), e5,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeIm2col");
  return Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<uint8_t*>(&map), sizeof(map));
}

// funcMaxDynamicShared(fn, bytes): cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
// which a launch with more than 48 KiB of dynamic shared memory needs first.
Napi::Value FuncMaxDynamicShared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Need(env)) return env.Undefined();
  if (!p_cuFuncSetAttribute) {
    Napi::Error e = Napi::Error::New(env, "this CUDA driver has no cuFuncSetAttribute");
    e.Set("cuResult", Napi::String::New(env, "CUDA_ERROR_NOT_SUPPORTED"));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  CHECK(env, p_cuFuncSetAttribute(reinterpret_cast<CUfunction>(U64(info[0])), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(info[1].As<Napi::Number>().Int32Value())), "cuFuncSetAttribute");
  return env.Undefined();
}

Napi::Object Module(Napi::Env env, Napi::Object exports) {
  exports.Set("tensorMapEncodeTiled", Napi::Function::New(env, TensorMapEncodeTiled));
  exports.Set("tensorMapEncodeIm2col", Napi::Function::New(env, TensorMapEncodeIm2col));
  exports.Set("funcMaxDynamicShared", Napi::Function::New(env, FuncMaxDynamicShared));
  exports.Set("status", Napi::Function::New(env, Status));
  exports.Set("init", Napi::Function::New(env, Init));
  exports.Set("device", Napi::Function::New(env, Device));
  exports.Set("useDevice", Napi::Function::New(env, UseDevice));
  exports.Set("loadModule", Napi::Function::New(env, LoadModule));
  exports.Set("unloadModule", Napi::Function::New(env, UnloadModule));
  exports.Set("getFunction", Napi::Function::New(env, GetFunction));
  exports.Set("memAlloc", Napi::Function::New(env, MemAlloc));
  exports.Set("memFree", Napi::Function::New(env, MemFree));
  exports.Set("copyToDevice", Napi::Function::New(env, CopyToDevice));
  exports.Set("copyFromDevice", Napi::Function::New(env, CopyFromDevice));
  exports.Set("launch", Napi::Function::New(env, Launch));
  exports.Set("synchronize", Napi::Function::New(env, Synchronize));
  RegisterHostMem(env, exports);
  RegisterPeer(env, exports);
  RegisterViews(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(cuda_launcher, Module)
