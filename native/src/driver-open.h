// The addon's files that open libcuda.so.1 themselves (hostmem.cc, peer.cc, views.cc): one loader and one
// CUresult check for them. dlopen gives the library the launcher opened, so the primary contexts are the
// same ones. No multicast call is bound anywhere through this.
#pragma once
#include <napi.h>
#include <cuda.h>
#include <dlfcn.h>
#include <cstddef>
#include <string>

// One driver symbol a file needs: where to put it, and its name in libcuda.so.1.
struct DriverSym {
  void** p;
  const char* s;
};

// Opens libcuda.so.1 once (into `lib`) and resolves every symbol of `syms`; on the first failure `lib`
// stays null and `err` says why (kept: later calls fail the same way). Throws that reason (cuResult
// NO_DRIVER) and returns false when the driver or a symbol is missing.
inline bool OpenDriver(Napi::Env env, void*& lib, std::string& err, DriverSym* syms, size_t n) {
  if (lib) return true;
  if (err.empty()) {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      err = std::string("no CUDA driver: dlopen(libcuda.so.1) failed: ") + (e ? e : "unknown error");
    } else {
      for (size_t k = 0; k < n; k++) {
        *syms[k].p = dlsym(lib, syms[k].s);
        if (!*syms[k].p) {
          err = std::string("CUDA driver lacks ") + syms[k].s;
          dlclose(lib);
          lib = nullptr;
          break;
        }
      }
    }
  }
  if (lib) return true;
  Napi::Error e = Napi::Error::New(env, err);
  e.Set("cuResult", Napi::String::New(env, "NO_DRIVER"));
  e.ThrowAsJavaScriptException();
  return false;
}

// Throws `what: <CUresult name>` (cuResult set) and returns false unless r is CUDA_SUCCESS.
inline bool CheckCu(Napi::Env env, CUresult r, const std::string& what, decltype(&::cuGetErrorName) errorName) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = "CUDA_ERROR_UNKNOWN";
  if (errorName) errorName(r, &name);
  Napi::Error e = Napi::Error::New(env, what + ": " + name);
  e.Set("cuResult", Napi::String::New(env, name));
  e.ThrowAsJavaScriptException();
  return false;
}
