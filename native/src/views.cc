// Virtual aliases on one GPU (issue 42, the litmus runner's `fence.proxy.alias` tests): one physical
// allocation (cuMemCreate, once) mapped at N consecutive virtual address ranges of one reservation
// (cuMemMap N times), so that byte o of view k is byte o of view 0 under another virtual address.
// Built into cuda_launcher.node (its Module calls RegisterViews); opens libcuda.so.1 itself (dlopen
// gives the library the launcher opened). Unicast mappings only: this file binds no multicast call
// (cuMulticast*) at all, and the allocation asks for no handle type that could be shared or exported.
#include <napi.h>
#include <cuda.h>
#include <dlfcn.h>

#include "driver-open.h"
#include <map>
#include <string>

namespace views {

void* lib = nullptr;
std::string loadError;

decltype(&::cuCtxGetDevice) pCtxGetDevice = nullptr;
decltype(&::cuMemGetAllocationGranularity) pGranularity = nullptr;
decltype(&::cuMemCreate) pCreate = nullptr;
decltype(&::cuMemRelease) pRelease = nullptr;
decltype(&::cuMemAddressReserve) pReserve = nullptr;
decltype(&::cuMemAddressFree) pAddressFree = nullptr;
decltype(&::cuMemMap) pMap = nullptr;
decltype(&::cuMemUnmap) pUnmap = nullptr;
decltype(&::cuMemSetAccess) pSetAccess = nullptr;
decltype(&::cuGetErrorName) pErrorName = nullptr;

struct Mapping {
  CUmemGenericAllocationHandle handle;
  size_t total;
};
std::map<uint64_t, Mapping> live;

bool Open(Napi::Env env) {
  DriverSym need[] = {
      {reinterpret_cast<void**>(&pCtxGetDevice), "cuCtxGetDevice"},
      {reinterpret_cast<void**>(&pGranularity), "cuMemGetAllocationGranularity"},
      {reinterpret_cast<void**>(&pCreate), "cuMemCreate"},
      {reinterpret_cast<void**>(&pRelease), "cuMemRelease"},
      {reinterpret_cast<void**>(&pReserve), "cuMemAddressReserve"},
      {reinterpret_cast<void**>(&pAddressFree), "cuMemAddressFree"},
      {reinterpret_cast<void**>(&pMap), "cuMemMap"},
      {reinterpret_cast<void**>(&pUnmap), "cuMemUnmap"},
      {reinterpret_cast<void**>(&pSetAccess), "cuMemSetAccess"},
      {reinterpret_cast<void**>(&pErrorName), "cuGetErrorName"},
  };
  if (!OpenDriver(env, lib, loadError, need, sizeof need / sizeof need[0])) return false;
  return true;
}

bool Check(Napi::Env env, CUresult r, const std::string& what) { return CheckCu(env, r, what, pErrorName); }

// memAllocViews(bytes, views) -> { base: BigInt, viewBytes: number }: one physical allocation of at
// least `bytes` on the current context's device, mapped `views` times back to back from `base`
// (view k at base + k * viewBytes; viewBytes is bytes rounded up to the allocation granularity),
// readable and writable by that device.
Napi::Value AllocViews(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  size_t bytes = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  int n = info[1].As<Napi::Number>().Int32Value();
  CUdevice dev;
  if (!Check(env, pCtxGetDevice(&dev), "cuCtxGetDevice")) return env.Undefined();
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
  size_t gran = 0;
  if (!Check(env, pGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity")) return env.Undefined();
  size_t size = ((bytes ? bytes : 1) + gran - 1) / gran * gran;
  size_t total = size * static_cast<size_t>(n);
  CUmemGenericAllocationHandle h;
  if (!Check(env, pCreate(&h, size, &prop, 0), "cuMemCreate")) return env.Undefined();
  CUdeviceptr base = 0;
  if (!Check(env, pReserve(&base, total, gran, 0, 0), "cuMemAddressReserve")) {
    pRelease(h);
    return env.Undefined();
  }
  for (int k = 0; k < n; k++) {
    CUresult r = pMap(base + static_cast<size_t>(k) * size, size, 0, h, 0);
    if (r != CUDA_SUCCESS) {
      if (k) pUnmap(base, static_cast<size_t>(k) * size);
      pAddressFree(base, total);
      pRelease(h);
      Check(env, r, "cuMemMap (view " + std::to_string(k) + ")");
      return env.Undefined();
    }
  }
  CUmemAccessDesc desc = {};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = dev;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUresult r = pSetAccess(base, total, &desc, 1);
  if (r != CUDA_SUCCESS) {
    pUnmap(base, total);
    pAddressFree(base, total);
    pRelease(h);
    Check(env, r, "cuMemSetAccess");
    return env.Undefined();
  }
  live[static_cast<uint64_t>(base)] = Mapping{h, total};
  Napi::Object o = Napi::Object::New(env);
  o.Set("base", Napi::BigInt::New(env, static_cast<uint64_t>(base)));
  o.Set("viewBytes", Napi::Number::New(env, static_cast<double>(size)));
  return o;
}

// memFreeViews(base): unmaps every view, frees the reservation and releases the allocation.
Napi::Value FreeViews(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  bool lossless = true;
  uint64_t base = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  auto it = live.find(base);
  if (it == live.end()) {
    Napi::Error::New(env, "memFreeViews: no views were allocated at this address").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Mapping m = it->second;
  live.erase(it);
  if (!Check(env, pUnmap(static_cast<CUdeviceptr>(base), m.total), "cuMemUnmap")) return env.Undefined();
  if (!Check(env, pAddressFree(static_cast<CUdeviceptr>(base), m.total), "cuMemAddressFree")) return env.Undefined();
  Check(env, pRelease(m.handle), "cuMemRelease");
  return env.Undefined();
}

}  // namespace views

// Called by cuda_launcher.cc's Module.
void RegisterViews(Napi::Env env, Napi::Object exports) {
  exports.Set("memAllocViews", Napi::Function::New(env, views::AllocViews));
  exports.Set("memFreeViews", Napi::Function::New(env, views::FreeViews));
}
