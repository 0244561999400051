// Host memory against the CPU (issue 27, `hostmem`): the three kinds of host memory a kernel can
// reach (cuMemHostAlloc with DEVICEMAP, cuMemHostRegister of malloc'd memory, cuMemAllocManaged),
// and CPU threads that update the same word as a running kernel. Built into cuda_launcher.node (its
// Module calls RegisterHostMem); opens libcuda.so.1 itself (dlopen gives the same library the
// launcher opened, so the context the launcher made current on this thread is the one used here).
//
// The start protocol, over a control block of pinned mapped host memory (u32 words, 64 bytes apart):
//   +0   arrived: every GPU thread adds 1 (red.sys) before it waits
//   +64  go: a starter thread sets it once `arrived` reaches the expected count (or after 2 s);
//        the GPU threads and the CPU workers both spin on it, so both sides start together
//   +128 gpu progress: GPU thread 0 stores k + 1 after its k-th operation
//   +192 cpu progress: each CPU operation adds 1
// Overlap evidence: each CPU operation reads the GPU progress first and counts the operations that
// saw it strictly between 0 and the GPU's iteration count (the kernel in flight); the kernel counts
// the converse.
//
// The CPU operations use GCC's __atomic builtins (what std::atomic<T> compiles to; the addon builds
// as C++17, which has no std::atomic_ref for a word the driver allocated), sequentially consistent;
// mode 1 (the contrast) is a plain volatile load, the operation, and a plain volatile store.
#include <napi.h>
#include <cuda.h>
#include <dlfcn.h>

#include "driver-open.h"
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace hostmem {

void* lib = nullptr;
std::string loadError;

decltype(&::cuMemHostAlloc) pHostAlloc = nullptr;
decltype(&::cuMemHostGetDevicePointer) pHostGetDevicePointer = nullptr;
decltype(&::cuMemHostRegister) pHostRegister = nullptr;
decltype(&::cuMemHostUnregister) pHostUnregister = nullptr;
decltype(&::cuMemFreeHost) pFreeHost = nullptr;
decltype(&::cuMemAllocManaged) pAllocManaged = nullptr;
decltype(&::cuMemFree) pFree = nullptr;
decltype(&::cuDeviceGet) pDeviceGet = nullptr;
decltype(&::cuDeviceGetAttribute) pDeviceGetAttribute = nullptr;
decltype(&::cuGetErrorName) pGetErrorName = nullptr;
// optional (CUDA 13.0 drivers have it)
decltype(&::cuDeviceGetHostAtomicCapabilities) pHostAtomicCaps = nullptr;

bool Open(Napi::Env env) {
  DriverSym need[] = {
      {reinterpret_cast<void**>(&pHostAlloc), "cuMemHostAlloc"},
      {reinterpret_cast<void**>(&pHostGetDevicePointer), "cuMemHostGetDevicePointer_v2"},
      {reinterpret_cast<void**>(&pHostRegister), "cuMemHostRegister_v2"},
      {reinterpret_cast<void**>(&pHostUnregister), "cuMemHostUnregister"},
      {reinterpret_cast<void**>(&pFreeHost), "cuMemFreeHost"},
      {reinterpret_cast<void**>(&pAllocManaged), "cuMemAllocManaged"},
      {reinterpret_cast<void**>(&pFree), "cuMemFree_v2"},
      {reinterpret_cast<void**>(&pDeviceGet), "cuDeviceGet"},
      {reinterpret_cast<void**>(&pDeviceGetAttribute), "cuDeviceGetAttribute"},
      {reinterpret_cast<void**>(&pGetErrorName), "cuGetErrorName"},
  };
  const bool had = lib != nullptr;
  if (!OpenDriver(env, lib, loadError, need, sizeof need / sizeof need[0])) return false;
  if (!had) pHostAtomicCaps = reinterpret_cast<decltype(pHostAtomicCaps)>(dlsym(lib, "cuDeviceGetHostAtomicCapabilities"));
  return true;
}

bool Check(Napi::Env env, CUresult r, const char* what) { return CheckCu(env, r, what, pGetErrorName); }

uint64_t U64(const Napi::Value& v) {
  bool lossless = true;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

// hostmemInfo(ordinal) -> { attributes: {86, 88, 89, 147}, hostAtomicCapabilities: number[13] | null, capabilitiesError? }
Napi::Value Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  CUdevice d;
  if (!Check(env, pDeviceGet(&d, info[0].As<Napi::Number>().Int32Value()), "cuDeviceGet")) return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  Napi::Object a = Napi::Object::New(env);
  for (int attr : {86, 88, 89, 147}) {
    int v = 0;
    CUresult r = pDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(attr), d);
    a.Set(std::to_string(attr), r == CUDA_SUCCESS ? Napi::Value(Napi::Number::New(env, v)) : env.Null());
  }
  o.Set("attributes", a);
  if (!pHostAtomicCaps) {
    o.Set("hostAtomicCapabilities", env.Null());
    o.Set("capabilitiesError", Napi::String::New(env, "the driver has no cuDeviceGetHostAtomicCapabilities"));
  } else {
    CUatomicOperation ops[13];
    unsigned caps[13] = {0};
    for (int i = 0; i < 13; i++) ops[i] = static_cast<CUatomicOperation>(i);
    CUresult r = pHostAtomicCaps(caps, ops, 13, d);
    if (r != CUDA_SUCCESS) {
      const char* name = "CUDA_ERROR_UNKNOWN";
      pGetErrorName(r, &name);
      o.Set("hostAtomicCapabilities", env.Null());
      o.Set("capabilitiesError", Napi::String::New(env, name));
    } else {
      Napi::Array arr = Napi::Array::New(env, 13);
      for (int i = 0; i < 13; i++) arr.Set(i, Napi::Number::New(env, caps[i]));
      o.Set("hostAtomicCapabilities", arr);
    }
  }
  return o;
}

// hostmemAlloc(kind, bytes) -> [host, device] (kind 0: cuMemHostAlloc DEVICEMAP, 1: cuMemHostRegister
// of page-aligned malloc'd memory, 2: cuMemAllocManaged GLOBAL). The memory is zeroed.
Napi::Value Alloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  int kind = info[0].As<Napi::Number>().Int32Value();
  size_t bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  bytes = (bytes + 4095) & ~static_cast<size_t>(4095);
  void* host = nullptr;
  CUdeviceptr dev = 0;
  if (kind == 0) {
    if (!Check(env, pHostAlloc(&host, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc")) return env.Undefined();
    std::memset(host, 0, bytes);
    if (!Check(env, pHostGetDevicePointer(&dev, host, 0), "cuMemHostGetDevicePointer")) return env.Undefined();
  } else if (kind == 1) {
    host = std::aligned_alloc(4096, bytes);
    if (!host) {
      Napi::Error::New(env, "aligned_alloc failed").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    std::memset(host, 0, bytes);
    if (!Check(env, pHostRegister(host, bytes, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE), "cuMemHostRegister")) {
      std::free(host);
      return env.Undefined();
    }
    if (!Check(env, pHostGetDevicePointer(&dev, host, 0), "cuMemHostGetDevicePointer")) return env.Undefined();
  } else {
    if (!Check(env, pAllocManaged(&dev, bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged")) return env.Undefined();
    host = reinterpret_cast<void*>(dev);
    std::memset(host, 0, bytes);
  }
  Napi::Array a = Napi::Array::New(env, 2);
  a.Set(0u, Napi::BigInt::New(env, reinterpret_cast<uint64_t>(host)));
  a.Set(1u, Napi::BigInt::New(env, static_cast<uint64_t>(dev)));
  return a;
}

Napi::Value Free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Open(env)) return env.Undefined();
  int kind = info[0].As<Napi::Number>().Int32Value();
  void* host = reinterpret_cast<void*>(U64(info[1]));
  if (kind == 0) Check(env, pFreeHost(host), "cuMemFreeHost");
  else if (kind == 1) {
    if (Check(env, pHostUnregister(host), "cuMemHostUnregister")) std::free(host);
  } else Check(env, pFree(reinterpret_cast<CUdeviceptr>(host)), "cuMemFree");
  return env.Undefined();
}

// hostmemRead(host, bytes) -> Buffer (a CPU copy); hostmemWrite(host, Buffer)
Napi::Value Read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const uint8_t* p = reinterpret_cast<const uint8_t*>(U64(info[0]));
  size_t n = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  std::vector<uint8_t> tmp(n);
  for (size_t i = 0; i < n; i++) tmp[i] = reinterpret_cast<const volatile uint8_t*>(p)[i];
  return Napi::Buffer<uint8_t>::Copy(env, tmp.data(), n);
}

Napi::Value Write(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint8_t* p = reinterpret_cast<uint8_t*>(U64(info[0]));
  Napi::Buffer<uint8_t> b = info[1].As<Napi::Buffer<uint8_t>>();
  for (size_t i = 0; i < b.Length(); i++) reinterpret_cast<volatile uint8_t*>(p)[i] = b.Data()[i];
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return env.Undefined();
}

// hostmemAddressOf(Buffer) -> BigInt: the address of a Node buffer's bytes (CPU tests run the
// workers on ordinary memory; the caller keeps the buffer alive until the join).
Napi::Value AddressOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Buffer<uint8_t> b = info[0].As<Napi::Buffer<uint8_t>>();
  return Napi::BigInt::New(env, reinterpret_cast<uint64_t>(b.Data()));
}

// ---- CPU workers ----

enum Op { ADD = 0, SUB = 1, MIN = 2, MAX = 3, OR_AND = 4, AND_OR = 5, XOR = 6, EXCH = 7, CAS = 8 };
enum Fmt { INT = 0, F32 = 1, F64 = 2, F16 = 3, BF16 = 4 };

struct Config {
  uint8_t* data;
  uint8_t* ctrl;
  int threads, iters, width, op, mode, fmt, isSigned;
  uint64_t unit;      // add/sub/cas: the CPU's operand (bits of the format for floats)
  uint64_t stride;    // min/max: the counter stride per iteration; exch: the tag
  uint64_t offset;    // min/max: the first CPU counter; or/and/xor: the first CPU-owned bit
  uint32_t gpuArrivals, gpuIters;
};

struct Worker {
  std::vector<uint64_t> returned;
  uint64_t successes = 0, sawGpuMid = 0;
};

struct Run {
  Config c;
  std::vector<Worker> w;
  std::vector<std::thread> threads;
  std::thread starter;
  bool startTimedOut = false;
  uint32_t arrivedAtGo = 0;
  int64_t goNs = 0, endNs = 0;
};

inline uint32_t* Word(uint8_t* ctrl, int i) { return reinterpret_cast<uint32_t*>(ctrl + 64 * i); }
int64_t NowNs() { return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

float HalfToFloat(uint16_t h) {
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  uint32_t f;
  if (e == 0 && m == 0) f = s << 31;
  else if (e == 0) {  // subnormal
    int sh = 0;
    while (!(m & 1024)) { m <<= 1; sh++; }
    f = (s << 31) | ((127 - 15 + 1 - sh) << 23) | ((m & 1023) << 13);
  } else if (e == 31) f = (s << 31) | (255u << 23) | (m << 13);
  else f = (s << 31) | ((e - 15 + 127) << 23) | (m << 13);
  float x;
  std::memcpy(&x, &f, 4);
  return x;
}
// exact for the values used here (integers below 2048, normal); otherwise truncates
uint16_t FloatToHalf(float x) {
  uint32_t f;
  std::memcpy(&f, &x, 4);
  uint32_t s = f >> 31;
  int e = static_cast<int>((f >> 23) & 255) - 127 + 15;
  if (x == 0) return static_cast<uint16_t>(s << 15);
  if (e <= 0 || e >= 31) return static_cast<uint16_t>((s << 15) | 0x7c00);
  return static_cast<uint16_t>((s << 15) | (e << 10) | ((f >> 13) & 1023));
}

// The new value of an add of `unit` to `old` in the format.
uint64_t AddBits(int fmt, int width, uint64_t old, uint64_t unit) {
  if (fmt == INT) return width == 64 ? old + unit : (old + unit) & ((1ull << width) - 1);
  if (fmt == F32) {
    float a, b;
    uint32_t x = static_cast<uint32_t>(old), y = static_cast<uint32_t>(unit);
    std::memcpy(&a, &x, 4);
    std::memcpy(&b, &y, 4);
    float r = a + b;
    uint32_t o;
    std::memcpy(&o, &r, 4);
    return o;
  }
  if (fmt == F64) {
    double a, b;
    std::memcpy(&a, &old, 8);
    std::memcpy(&b, &unit, 8);
    double r = a + b;
    uint64_t o;
    std::memcpy(&o, &r, 8);
    return o;
  }
  if (fmt == F16) return FloatToHalf(HalfToFloat(static_cast<uint16_t>(old)) + HalfToFloat(static_cast<uint16_t>(unit)));
  // bf16: the upper half of an f32
  uint32_t x = static_cast<uint32_t>(old) << 16, y = static_cast<uint32_t>(unit) << 16;
  float a, b;
  std::memcpy(&a, &x, 4);
  std::memcpy(&b, &y, 4);
  float r = a + b;
  uint32_t o;
  std::memcpy(&o, &r, 4);
  return o >> 16;
}

template <typename T>
void Work(Run* run, int j) {
  const Config& c = run->c;
  Worker& w = run->w[j];
  T* p = reinterpret_cast<T*>(c.data);
  volatile T* vp = reinterpret_cast<volatile T*>(c.data);
  uint32_t* go = Word(c.ctrl, 1);
  uint32_t* gpuProgress = Word(c.ctrl, 2);
  uint32_t* cpuProgress = Word(c.ctrl, 3);
  const int64_t t0 = NowNs();
  while (!__atomic_load_n(go, __ATOMIC_ACQUIRE)) {
    if (NowNs() - t0 > 5000000000LL) break;  // the starter sets go within 2 s; never hang
  }
  const bool plain = c.mode == 1;
  const int width = c.width;
  const T mask = static_cast<T>(width == 64 ? ~0ull : (1ull << width) - 1);
  auto signedLess = [&](T a, T b) {
    if (!c.isSigned) return a < b;
    if (width == 64) return static_cast<int64_t>(a) < static_cast<int64_t>(b);
    if (width == 32) return static_cast<int32_t>(a) < static_cast<int32_t>(b);
    return static_cast<int16_t>(a) < static_cast<int16_t>(b);
  };
  T guess = plain ? *vp : __atomic_load_n(p, __ATOMIC_SEQ_CST);
  for (int k = 0; k < c.iters; k++) {
    uint32_t gp = __atomic_load_n(gpuProgress, __ATOMIC_RELAXED);
    if (gp > 0 && gp < c.gpuIters) w.sawGpuMid++;
    T old = 0;
    auto rmw = [&](auto f) {  // f(old) -> new
      if (plain) {
        old = *vp;
        *vp = static_cast<T>(f(old));
      } else {
        old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(p, &old, static_cast<T>(f(old)), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        }
      }
    };
    switch (c.op) {
      case ADD:
        if (c.fmt == INT && !plain) old = __atomic_fetch_add(p, static_cast<T>(c.unit), __ATOMIC_SEQ_CST);
        else rmw([&](T x) { return static_cast<T>(AddBits(c.fmt, width, x, c.unit)); });  // floats: a compare_exchange loop
        break;
      case SUB:
        if (!plain) old = __atomic_fetch_sub(p, static_cast<T>(c.unit), __ATOMIC_SEQ_CST);
        else rmw([&](T x) { return static_cast<T>((x - static_cast<T>(c.unit)) & mask); });
        break;
      case MIN:
      case MAX: {
        // the counter of this operation; max: counter + 1; min: -(counter + 1) signed, mask - (counter + 1) unsigned
        uint64_t ctr = static_cast<uint64_t>(k) * c.stride + c.offset + j;
        T v = c.op == MAX ? static_cast<T>(ctr + 1) : c.isSigned ? static_cast<T>((0 - (ctr + 1)) & mask) : static_cast<T>(mask - (ctr + 1));
        rmw([&](T x) { return c.op == MAX ? (signedLess(x, v) ? v : x) : (signedLess(v, x) ? v : x); });
        break;
      }
      case OR_AND:
      case AND_OR:
      case XOR: {
        T bit = static_cast<T>(static_cast<T>(1) << (c.offset + j));
        bool setNow = c.op == XOR ? true : ((k % 2 == 0) == (c.op == OR_AND));
        if (c.op == XOR) {
          if (plain) rmw([&](T x) { return x ^ bit; });
          else old = __atomic_fetch_xor(p, bit, __ATOMIC_SEQ_CST);
        } else if (setNow) {
          if (plain) rmw([&](T x) { return x | bit; });
          else old = __atomic_fetch_or(p, bit, __ATOMIC_SEQ_CST);
        } else {
          if (plain) rmw([&](T x) { return x & static_cast<T>(~bit); });
          else old = __atomic_fetch_and(p, static_cast<T>(~bit), __ATOMIC_SEQ_CST);
        }
        break;
      }
      case EXCH: {
        T v = static_cast<T>(c.stride | (static_cast<uint64_t>(j) * c.iters + k + 1));
        if (plain) {
          old = *vp;
          *vp = v;
        } else old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
        break;
      }
      case CAS: {
        // one attempt of a compare-exchange increment loop: guess -> guess + unit
        T want = static_cast<T>((guess + static_cast<T>(c.unit)) & mask);
        if (plain) {
          old = *vp;
          if (old == guess) *vp = want;
        } else {
          old = guess;
          __atomic_compare_exchange_n(p, &old, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        }
        if (old == guess) {
          w.successes++;
          guess = want;
        } else guess = old;
        break;
      }
    }
    w.returned[k] = static_cast<uint64_t>(old);
    __atomic_fetch_add(cpuProgress, 1u, __ATOMIC_RELAXED);
  }
}

// hostmemCpuStart({data, ctrl, threads, iters, width, op, mode, fmt, signed, unit, stride, offset,
// gpuArrivals, gpuIters}) -> BigInt handle: the workers and the starter are running (waiting for the
// kernel's threads to arrive).
Napi::Value CpuStart(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  auto num = [&](const char* k) { return o.Get(k).As<Napi::Number>().Int64Value(); };
  auto big = [&](const char* k) { return U64(o.Get(k)); };
  Run* run = new Run();
  Config& c = run->c;
  c.data = reinterpret_cast<uint8_t*>(big("data"));
  c.ctrl = reinterpret_cast<uint8_t*>(big("ctrl"));
  c.threads = static_cast<int>(num("threads"));
  c.iters = static_cast<int>(num("iters"));
  c.width = static_cast<int>(num("width"));
  c.op = static_cast<int>(num("op"));
  c.mode = static_cast<int>(num("mode"));
  c.fmt = static_cast<int>(num("fmt"));
  c.isSigned = static_cast<int>(num("signed"));
  c.unit = big("unit");
  c.stride = big("stride");
  c.offset = big("offset");
  c.gpuArrivals = static_cast<uint32_t>(num("gpuArrivals"));
  c.gpuIters = static_cast<uint32_t>(num("gpuIters"));
  if (c.threads < 0 || c.threads > 64 || c.iters < 0 || (c.width != 16 && c.width != 32 && c.width != 64)) {
    delete run;
    Napi::Error::New(env, "hostmemCpuStart: 0-64 threads, iters >= 0, width 16, 32 or 64").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  run->w.resize(c.threads);
  for (auto& w : run->w) w.returned.assign(c.iters, 0);
  for (int j = 0; j < c.threads; j++) {
    if (c.width == 16) run->threads.emplace_back(Work<uint16_t>, run, j);
    else if (c.width == 32) run->threads.emplace_back(Work<uint32_t>, run, j);
    else run->threads.emplace_back(Work<uint64_t>, run, j);
  }
  run->starter = std::thread([run]() {
    uint32_t* arrived = Word(run->c.ctrl, 0);
    const int64_t t0 = NowNs();
    while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < run->c.gpuArrivals) {
      if (NowNs() - t0 > 2000000000LL) {
        run->startTimedOut = true;
        break;
      }
    }
    run->arrivedAtGo = __atomic_load_n(arrived, __ATOMIC_ACQUIRE);
    run->goNs = NowNs();
    __atomic_store_n(Word(run->c.ctrl, 1), 1u, __ATOMIC_SEQ_CST);
  });
  return Napi::BigInt::New(env, reinterpret_cast<uint64_t>(run));
}

// hostmemCpuJoin(handle) -> { returned: Buffer (threads x iters u64, thread-major), successes, sawGpuMid,
// startTimedOut, arrivedAtGo, cpuNs (go to the last worker's end) }
Napi::Value CpuJoin(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Run* run = reinterpret_cast<Run*>(U64(info[0]));
  run->starter.join();
  for (auto& t : run->threads) t.join();
  run->endNs = NowNs();
  const Config& c = run->c;
  std::vector<uint64_t> all;
  all.reserve(static_cast<size_t>(c.threads) * c.iters);
  uint64_t succ = 0, mid = 0;
  for (auto& w : run->w) {
    all.insert(all.end(), w.returned.begin(), w.returned.end());
    succ += w.successes;
    mid += w.sawGpuMid;
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("returned", Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<uint8_t*>(all.data()), all.size() * 8));
  o.Set("successes", Napi::Number::New(env, static_cast<double>(succ)));
  o.Set("sawGpuMid", Napi::Number::New(env, static_cast<double>(mid)));
  o.Set("startTimedOut", Napi::Boolean::New(env, run->startTimedOut));
  o.Set("arrivedAtGo", Napi::Number::New(env, run->arrivedAtGo));
  o.Set("cpuNs", Napi::Number::New(env, static_cast<double>(run->endNs - run->goNs)));
  delete run;
  return o;
}

}  // namespace hostmem

// Called by cuda_launcher.cc's Module.
void RegisterHostMem(Napi::Env env, Napi::Object exports) {
  exports.Set("hostmemAddressOf", Napi::Function::New(env, hostmem::AddressOf));
  exports.Set("hostmemInfo", Napi::Function::New(env, hostmem::Info));
  exports.Set("hostmemAlloc", Napi::Function::New(env, hostmem::Alloc));
  exports.Set("hostmemFree", Napi::Function::New(env, hostmem::Free));
  exports.Set("hostmemRead", Napi::Function::New(env, hostmem::Read));
  exports.Set("hostmemWrite", Napi::Function::New(env, hostmem::Write));
  exports.Set("hostmemCpuStart", Napi::Function::New(env, hostmem::CpuStart));
  exports.Set("hostmemCpuJoin", Napi::Function::New(env, hostmem::CpuJoin));
}
