// Peer memory between two GPUs (issue 29, the `peer` command): peer access between the primary
// contexts of two devices, the driver's description of their link, and allocations on a chosen
// device. Built into cuda_launcher.node (its Module calls RegisterPeer); opens libcuda.so.1 itself
// (dlopen gives the library the launcher opened, so the primary contexts are the same ones).
// Peer mappings only: this file binds no multicast call (cuMulticast*) at all.
#include <napi.h>
#include <cuda.h>
#include <dlfcn.h>

#include "driver-open.h"
#include <string>

namespace peer {

void* lib = nullptr;
std::string loadError;

decltype(&::cuInit) pInit = nullptr;
decltype(&::cuDeviceGet) pDeviceGet = nullptr;
decltype(&::cuDeviceCanAccessPeer) pCanAccessPeer = nullptr;
decltype(&::cuDeviceGetP2PAttribute) pP2PAttribute = nullptr;
decltype(&::cuDevicePrimaryCtxRetain) pRetain = nullptr;
decltype(&::cuCtxGetCurrent) pGetCurrent = nullptr;
decltype(&::cuCtxSetCurrent) pSetCurrent = nullptr;
decltype(&::cuCtxEnablePeerAccess) pEnablePeer = nullptr;
decltype(&::cuCtxSynchronize) pSync = nullptr;
decltype(&::cuMemAlloc) pAlloc = nullptr;
decltype(&::cuGetErrorName) pErrorName = nullptr;

bool Open(Napi::Env env) {
  DriverSym need[] = {
      {reinterpret_cast<void**>(&pInit), "cuInit"},
      {reinterpret_cast<void**>(&pDeviceGet), "cuDeviceGet"},
      {reinterpret_cast<void**>(&pCanAccessPeer), "cuDeviceCanAccessPeer"},
      {reinterpret_cast<void**>(&pP2PAttribute), "cuDeviceGetP2PAttribute"},
      {reinterpret_cast<void**>(&pRetain), "cuDevicePrimaryCtxRetain"},
      {reinterpret_cast<void**>(&pGetCurrent), "cuCtxGetCurrent"},
      {reinterpret_cast<void**>(&pSetCurrent), "cuCtxSetCurrent"},
      {reinterpret_cast<void**>(&pEnablePeer), "cuCtxEnablePeerAccess"},
      {reinterpret_cast<void**>(&pSync), "cuCtxSynchronize"},
      {reinterpret_cast<void**>(&pAlloc), "cuMemAlloc_v2"},
      {reinterpret_cast<void**>(&pErrorName), "cuGetErrorName"},
  };
  if (!OpenDriver(env, lib, loadError, need, sizeof need / sizeof need[0])) return false;
  return true;
}

bool Check(Napi::Env env, CUresult r, const std::string& what) { return CheckCu(env, r, what, pErrorName); }

bool Ctx(Napi::Env env, int ordinal, CUcontext* c) {
  CUdevice d;
  if (!Check(env, pDeviceGet(&d, ordinal), "cuDeviceGet")) return false;
  return Check(env, pRetain(c, d), "cuDevicePrimaryCtxRetain");
}

// peerLink(a, b) -> { canAccess: [a->b, b->a], attributes: { performanceRank, accessSupported,
// nativeAtomicSupported, cudaArrayAccessSupported } (a -> b; null where the driver gives none) }
Napi::Value Link(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  if (!Check(env, pInit(0), "cuInit")) return env.Undefined();
  CUdevice a, b;
  if (!Check(env, pDeviceGet(&a, info[0].As<Napi::Number>().Int32Value()), "cuDeviceGet")) return env.Undefined();
  if (!Check(env, pDeviceGet(&b, info[1].As<Napi::Number>().Int32Value()), "cuDeviceGet")) return env.Undefined();
  int ab = 0, ba = 0;
  if (!Check(env, pCanAccessPeer(&ab, a, b), "cuDeviceCanAccessPeer")) return env.Undefined();
  if (!Check(env, pCanAccessPeer(&ba, b, a), "cuDeviceCanAccessPeer")) return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  Napi::Array can = Napi::Array::New(env, 2);
  can.Set(0u, Napi::Boolean::New(env, ab != 0));
  can.Set(1u, Napi::Boolean::New(env, ba != 0));
  o.Set("canAccess", can);
  Napi::Object attrs = Napi::Object::New(env);
  struct { CUdevice_P2PAttribute a; const char* name; } list[] = {
      {CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, "performanceRank"},
      {CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, "accessSupported"},
      {CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, "nativeAtomicSupported"},
      {CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, "cudaArrayAccessSupported"},
  };
  for (auto& x : list) {
    int v = 0;
    CUresult r = pP2PAttribute(&v, x.a, a, b);
    attrs.Set(x.name, r == CUDA_SUCCESS ? Napi::Value(Napi::Number::New(env, v)) : env.Null());
  }
  o.Set("attributes", attrs);
  return o;
}

// peerEnable(a, b): peer access from a's primary context to b's memory and back
// (cuCtxEnablePeerAccess both ways; already enabled counts as done). The current context is kept.
Napi::Value Enable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  int oa = info[0].As<Napi::Number>().Int32Value(), ob = info[1].As<Napi::Number>().Int32Value();
  CUcontext ca, cb, cur = nullptr;
  if (!Ctx(env, oa, &ca) || !Ctx(env, ob, &cb)) return env.Undefined();
  pGetCurrent(&cur);
  for (int k = 0; k < 2; k++) {
    CUcontext from = k == 0 ? ca : cb, to = k == 0 ? cb : ca;
    if (!Check(env, pSetCurrent(from), "cuCtxSetCurrent")) return env.Undefined();
    CUresult r = pEnablePeer(to, 0);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
      if (cur) pSetCurrent(cur);
      Check(env, r, std::string("cuCtxEnablePeerAccess(") + std::to_string(k == 0 ? oa : ob) + " -> " + std::to_string(k == 0 ? ob : oa) + ")");
      return env.Undefined();
    }
  }
  if (cur) pSetCurrent(cur);
  return env.Undefined();
}

// memAllocOn(ordinal, bytes) -> BigInt: cuMemAlloc in that device's primary context (the current
// context is kept). With unified addressing the pointer is usable by any context with peer access.
Napi::Value AllocOn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  CUcontext c, cur = nullptr;
  if (!Ctx(env, info[0].As<Napi::Number>().Int32Value(), &c)) return env.Undefined();
  pGetCurrent(&cur);
  if (!Check(env, pSetCurrent(c), "cuCtxSetCurrent")) return env.Undefined();
  CUdeviceptr p = 0;
  CUresult r = pAlloc(&p, static_cast<size_t>(info[1].As<Napi::Number>().Int64Value()));
  if (cur) pSetCurrent(cur);
  if (!Check(env, r, "cuMemAlloc")) return env.Undefined();
  return Napi::BigInt::New(env, static_cast<uint64_t>(p));
}

// synchronizeOn(ordinal): cuCtxSynchronize of that device's primary context (the current is kept).
Napi::Value SyncOn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  CUcontext c, cur = nullptr;
  if (!Ctx(env, info[0].As<Napi::Number>().Int32Value(), &c)) return env.Undefined();
  pGetCurrent(&cur);
  if (!Check(env, pSetCurrent(c), "cuCtxSetCurrent")) return env.Undefined();
  CUresult r = pSync();
  if (cur) pSetCurrent(cur);
  Check(env, r, "cuCtxSynchronize");
  return env.Undefined();
}

}  // namespace peer

// Called by cuda_launcher.cc's Module.
void RegisterPeer(Napi::Env env, Napi::Object exports) {
  exports.Set("peerLink", Napi::Function::New(env, peer::Link));
  exports.Set("peerEnable", Napi::Function::New(env, peer::Enable));
  exports.Set("memAllocOn", Napi::Function::New(env, peer::AllocOn));
  exports.Set("synchronizeOn", Napi::Function::New(env, peer::SyncOn));
}
