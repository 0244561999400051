// The host program of the fallback experiments (issue 24, deliverable 4), over the CUDA driver API
// opened with dlopen (driver.h, as the reproducers beside this folder do). It launches each
// experiment of the table below from kernel.cubin (build.sh: nvcc -cubin -arch=sm_90 kernels.cu),
// reads back every CTA's whole shared array and prints, per experiment, one `result` line: the
// target word in the shared memory of each cluster rank (most frequent values over the clusters),
// how many words outside the target word changed (the canary), what an atomic execution gives, and
// in how many clusters that is what was found. Also one `space` line (the addresses and what
// isspacep says of them) and, where one thread of each CTA issued, one `ret` line (returned values).
//
//   ./experiments [--cubin FILE] [NAME...]   (default kernel.cubin; no name: every experiment)
//   ./experiments --list                      the experiments' names
//   exit 0, or 2 on a CUDA error
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "driver.h"

#define WORDS 128
#define BLOCK 128
#define SELF 0xffffffffu
#define CTA 0xfffffffeu

struct Params {
  unsigned issuers, threads, target, byteOff, serial, rounds, initBytes, pad;
  unsigned long long init, operand;
};

enum Kind { F16, BF16, OR, MAX, ADD };
struct Exp {
  const char* name;
  const char* kernel;
  Kind kind;
  unsigned width;  // bytes of the target word
  unsigned issuers, threads, target, byteOff, serial, rounds;
  unsigned long long init, operand;
  unsigned clusters;
};

static const unsigned OFF = 0x100;
static const Exp EXPS[] = {
  // one thread of one CTA, one operation, nothing else touches the word (no contention)
  {"f16x2.solo.r1-to-r0", "k_atom_f16x2", F16, 4, 0x2, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r2-to-r0", "k_atom_f16x2", F16, 4, 0x4, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r3-to-r0", "k_atom_f16x2", F16, 4, 0x8, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r0-to-r0", "k_atom_f16x2", F16, 4, 0x1, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r1-to-r1", "k_atom_f16x2", F16, 4, 0x2, 1, SELF, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r1-to-r2", "k_atom_f16x2", F16, 4, 0x2, 1, 2, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r1-own-cta-address", "k_atom_f16x2", F16, 4, 0x2, 1, CTA, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r1-to-r0.offset+4", "k_atom_f16x2", F16, 4, 0x2, 1, 0, OFF + 4, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r1-to-r0.4-in-a-row", "k_atom_f16x2", F16, 4, 0x2, 1, 0, OFF, 0, 4, 0x3c003c00, 0x3c003c00, 1},
  {"f16x2.solo.r1-to-r0.operands-2048", "k_atom_f16x2", F16, 4, 0x2, 1, 0, OFF, 0, 1, 0x68006800, 0xe800e800, 1},
  {"red.f16x2.solo.r1-to-r0", "k_red_f16x2", F16, 4, 0x2, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"bf16x2.solo.r1-to-r0", "k_atom_bf16x2", BF16, 4, 0x2, 1, 0, OFF, 0, 1, 0x3f803f80, 0x3f803f80, 1},
  {"bf16x2.solo.r0-to-r0", "k_atom_bf16x2", BF16, 4, 0x1, 1, 0, OFF, 0, 1, 0x3f803f80, 0x3f803f80, 1},
  {"generic.f16x2.solo.r1-to-r0", "k_generic_f16x2", F16, 4, 0x2, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  {"cas-loop.f16x2.solo.r1-to-r0", "k_cas_f16x2", F16, 4, 0x2, 1, 0, OFF, 0, 1, 0x3c003c00, 0x3c003c00, 1},
  // sixteen +1.0 from 0, one at a time (ranks 0, 1, 2, 3 take turns, a cluster barrier between turns)
  {"f16x2.serial16.all-ranks", "k_atom_f16x2", F16, 4, 0xf, 1, 0, OFF, 1, 4, 0, 0x3c003c00, 1},
  {"f16x2.serial18.ranks-1-3", "k_atom_f16x2", F16, 4, 0xe, 1, 0, OFF, 1, 6, 0, 0x3c003c00, 1},
  // contended: the issuing threads all at once, 64 clusters
  {"f16x2.contended16.all-ranks", "k_atom_f16x2", F16, 4, 0xf, 4, 0, OFF, 0, 1, 0, 0x3c003c00, 64},
  {"f16x2.contended16.r0-only", "k_atom_f16x2", F16, 4, 0x1, 16, 0, OFF, 0, 1, 0, 0x3c003c00, 64},
  {"f16x2.contended16.r1-only", "k_atom_f16x2", F16, 4, 0x2, 16, 0, OFF, 0, 1, 0, 0x3c003c00, 64},
  {"cas-loop.f16x2.contended16.all-ranks", "k_cas_f16x2", F16, 4, 0xf, 4, 0, OFF, 0, 1, 0, 0x3c003c00, 64},
  // 64-bit or: no arithmetic to get wrong, so the path shows only through atomicity
  {"or.b64.solo.r1-to-r0", "k_atom_or64", OR, 8, 0x2, 1, 0, OFF, 0, 1, 0x1, 0x2, 1},
  {"or.b64.solo.r0-to-r0", "k_atom_or64", OR, 8, 0x1, 1, 0, OFF, 0, 1, 0x1, 0x2, 1},
  {"or.b64.solo.r1-to-r1", "k_atom_or64", OR, 8, 0x2, 1, SELF, OFF, 0, 1, 0x1, 0x2, 1},
  {"red.or.b64.solo.r1-to-r0", "k_red_or64", OR, 8, 0x2, 1, 0, OFF, 0, 1, 0x1, 0x2, 1},
  {"max.u64.solo.r1-to-r0", "k_atom_maxu64", MAX, 8, 0x2, 1, 0, OFF, 0, 1, 0x5, 0x7, 1},
  {"or.b64.contended64.all-ranks", "k_atom_or64", OR, 8, 0xf, 16, 0, OFF, 0, 1, 0, 0x1, 64},
  {"or.b64.contended48.ranks-1-3", "k_atom_or64", OR, 8, 0xe, 16, 0, OFF, 0, 1, 0, 0x1, 64},
  {"or.b64.contended16.r0-only", "k_atom_or64", OR, 8, 0x1, 16, 0, OFF, 0, 1, 0, 0x1, 64},
  {"or.b64.contended16.r1-only", "k_atom_or64", OR, 8, 0x2, 16, 0, OFF, 0, 1, 0, 0x1, 64},
  {"or.b64.contended32.self", "k_atom_or64", OR, 8, 0xf, 16, SELF, OFF, 0, 1, 0, 0x1, 64},
  {"red.or.b64.contended64.all-ranks", "k_red_or64", OR, 8, 0xf, 16, 0, OFF, 0, 1, 0, 0x1, 64},
  {"cas-loop.b64.or.contended64.all-ranks", "k_cas_or64", OR, 8, 0xf, 16, 0, OFF, 0, 1, 0, 0x1, 64},
  // controls: atomic by the contention run
  {"add.u64.contended256.all-ranks", "k_atom_addu64", ADD, 8, 0xf, 16, 0, OFF, 0, 4, 0, 0x1, 64},
  {"or.b32.contended32.all-ranks", "k_atom_or32", OR, 4, 0xf, 8, 0, OFF, 0, 1, 0, 0x1, 64},
};

// ---- f16 / bf16 on the host (round to nearest even), for what an atomic execution gives
static float h2f(unsigned h) {
  unsigned s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0) v = std::ldexp((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = std::ldexp((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
}
static unsigned f2h(float f) {  // exhaustive search is plenty for these few values
  unsigned best = 0;
  double bd = 1e300;
  for (unsigned h = 0; h < 0x10000; h++) {
    float v = h2f(h);
    if (std::isnan(v)) continue;
    double d = std::fabs((double)v - (double)f);
    if (d < bd) { bd = d; best = h; }  // the values here are exact: no ties
  }
  return best;
}
static float b2f(unsigned b) { unsigned u = b << 16; float f; std::memcpy(&f, &u, 4); return f; }
static unsigned f2b(float f) { unsigned u; std::memcpy(&u, &f, 4); return (u + 0x7fff + ((u >> 16) & 1)) >> 16; }

static unsigned long long applyAtomic(const Exp& e, unsigned long long x, unsigned long long b) {
  if (e.kind == F16 || e.kind == BF16) {
    unsigned r = 0;
    for (int l = 0; l < 2; l++) {
      unsigned xa = (x >> (16 * l)) & 0xffff, ba = (b >> (16 * l)) & 0xffff;
      unsigned s = e.kind == F16 ? f2h(h2f(xa) + h2f(ba)) : f2b(b2f(xa) + b2f(ba));
      r |= s << (16 * l);
    }
    return r;
  }
  if (e.kind == OR) return x | b;
  if (e.kind == MAX) return std::max(x, b);
  return x + b;
}
static unsigned long long operandOf(const Exp& e, unsigned rank, unsigned tid) {
  if (e.kind == OR && e.width == 8) return e.operand << ((rank * 16 + tid) & 63);
  if (e.kind == OR) return (e.operand << ((rank * 8 + tid) & 31)) & 0xffffffffull;
  return e.operand;
}
static std::string hex(unsigned long long v, unsigned width) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", width * 2, v);
  return b;
}
static std::string decode(const Exp& e, unsigned long long v) {
  if (e.kind != F16 && e.kind != BF16) return "";
  char b[64];
  unsigned lo = v & 0xffff, hi = (v >> 16) & 0xffff;
  float a = e.kind == F16 ? h2f(lo) : b2f(lo), c = e.kind == F16 ? h2f(hi) : b2f(hi);
  std::snprintf(b, sizeof b, " (%g, %g)", c, a);
  return b;
}

int main(int argc, char** argv) {
  const char* cubin = "kernel.cubin";
  if (argc > 2 && std::string(argv[1]) == "--cubin") {
    cubin = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc > 1 && std::string(argv[1]) == "--list") {
    for (const Exp& e : EXPS) std::printf("%s\n", e.name);
    return 0;
  }
  openDriver();
  CHECK(p_cuInit(0));
  CUdevice dev;
  CHECK(p_cuDeviceGet(&dev, 0));
  char gpu[256];
  CHECK(p_cuDeviceGetName(gpu, sizeof gpu, dev));
  int drv;
  CHECK(p_cuDriverGetVersion(&drv));
  CUcontext ctx;
  CHECK(p_cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(p_cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK(p_cuModuleLoad(&mod, cubin));
  std::printf("fallback experiments from %s on %s (driver API %d.%d); clusters of 4 CTAs x %d threads; %d-byte shared array per CTA, word i of rank r holds 0xCA000000|r<<16|i (canary) except the target word\n",
              cubin, gpu, drv / 1000, (drv % 1000) / 10, BLOCK, WORDS * 4);

  const unsigned maxClusters = 64, maxCtas = maxClusters * 4;
  CUdeviceptr ddump, dret, dinfo;
  CHECK(p_cuMemAlloc(&ddump, maxCtas * WORDS * 4));
  CHECK(p_cuMemAlloc(&dret, maxCtas * BLOCK * 8));
  CHECK(p_cuMemAlloc(&dinfo, maxCtas * 16));
  std::vector<unsigned> dump(maxCtas * WORDS), info(maxCtas * 4);
  std::vector<unsigned long long> ret(maxCtas * BLOCK);

  for (const Exp& e : EXPS) {
    if (argc > 1) {
      bool want = false;
      for (int i = 1; i < argc; i++) want = want || std::string(argv[i]) == e.name;
      if (!want) continue;
    }
    CUfunction fn;
    CHECK(p_cuModuleGetFunction(&fn, mod, e.kernel));
    Params p{e.issuers, e.threads, e.target, e.byteOff, e.serial, e.rounds, e.width == 8 ? 8u : 4u, 0, e.init, e.operand};
    void* args[] = {&p, &ddump, &dret, &dinfo};
    CUlaunchAttribute attr;
    std::memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = 4;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 4 * e.clusters; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = BLOCK; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(p_cuMemsetD8(ddump, 0, maxCtas * WORDS * 4));
    CHECK(p_cuLaunchKernelEx(&cfg, fn, args, nullptr));
    CHECK(p_cuCtxSynchronize());
    const unsigned ctas = 4 * e.clusters;
    CHECK(p_cuMemcpyDtoH(dump.data(), ddump, ctas * WORDS * 4));
    CHECK(p_cuMemcpyDtoH(ret.data(), dret, ctas * BLOCK * 8));
    CHECK(p_cuMemcpyDtoH(info.data(), dinfo, ctas * 16));

    // what an atomic execution leaves in each rank's target word
    unsigned long long want[4];
    for (unsigned r = 0; r < 4; r++) want[r] = e.width == 8 ? e.init : (e.init & 0xffffffffull);
    for (unsigned round = 0; round < e.rounds; round++)
      for (unsigned r = 0; r < 4; r++)
        if ((e.issuers >> r) & 1)
          for (unsigned t = 0; t < e.threads; t++) {
            unsigned tr = e.target == SELF || e.target == CTA ? r : e.target;
            want[tr] = applyAtomic(e, want[tr], operandOf(e, r, t));
          }

    const unsigned w0 = e.byteOff / 4, nw = e.width / 4;
    std::map<unsigned long long, unsigned> hist[4];
    unsigned canaryBad = 0, atomicClusters = 0;
    std::string canaryFirst;
    for (unsigned c = 0; c < e.clusters; c++) {
      bool allWant = true;
      for (unsigned r = 0; r < 4; r++) {
        const unsigned* sm = &dump[(c * 4 + r) * WORDS];
        unsigned long long v = sm[w0];
        if (nw == 2) v |= (unsigned long long)sm[w0 + 1] << 32;
        hist[r][v]++;
        allWant = allWant && v == want[r];
        for (unsigned i = 0; i < WORDS; i++) {
          if (i >= w0 && i < w0 + nw) continue;
          unsigned canary = 0xCA000000u | (r << 16) | i;
          if (sm[i] != canary) {
            if (canaryBad < 3) {
              char b[96];
              std::snprintf(b, sizeof b, " [cluster %u rank %u byte 0x%x: 0x%08x]", c, r, i * 4, sm[i]);
              canaryFirst += b;
            }
            canaryBad++;
          }
        }
      }
      atomicClusters += allWant;
    }
    std::printf("== %s: %s, issuers 0x%x x %u thread(s), target %s, byte 0x%x, %s x %u, init %s, operand %s, %u cluster(s)\n",
                e.name, e.kernel, e.issuers, e.threads,
                e.target == SELF ? "self (mapa to own rank)" : e.target == CTA ? "own shared::cta address (no mapa)" : (std::string("rank ") + std::to_string(e.target)).c_str(),
                e.byteOff, e.serial ? "serial rounds" : "ops per thread", e.rounds, hex(e.init, e.width).c_str(), hex(e.operand, e.width).c_str(), e.clusters);
    std::string line = std::string("result ") + e.name + ":";
    for (unsigned r = 0; r < 4; r++) {
      std::vector<std::pair<unsigned, unsigned long long>> top;
      for (auto& kv : hist[r]) top.push_back({kv.second, kv.first});
      std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
      line += " r" + std::to_string(r) + "=";
      for (size_t k = 0; k < top.size() && k < 3; k++) {
        if (k) line += ",";
        line += hex(top[k].second, e.width);
        if (e.clusters > 1) line += "x" + std::to_string(top[k].first);
      }
      if (top.size() > 3) line += ",+" + std::to_string(top.size() - 3) + "more";
    }
    line += " canary-changed=" + std::to_string(canaryBad);
    line += " atomic-gives=";
    for (unsigned r = 0; r < 4; r++) line += (r ? "/" : "") + hex(want[r], e.width);
    line += " atomic-in=" + std::to_string(atomicClusters) + "/" + std::to_string(e.clusters);
    std::printf("%s\n", line.c_str());
    if (canaryBad) std::printf("   canary changes, first:%s\n", canaryFirst.c_str());
    if (e.kind == F16 || e.kind == BF16) {
      std::printf("   decoded (hi, lo), cluster 0:");
      for (unsigned r = 0; r < 4; r++) {
        unsigned v = dump[r * WORDS + w0];
        std::printf(" r%u %s%s;", r, hex(v, 4).c_str(), decode(e, v).c_str());
      }
      std::printf(" atomic r%u %s%s\n", e.target < 4 ? e.target : 1, hex(want[e.target < 4 ? e.target : 1], 4).c_str(), decode(e, want[e.target < 4 ? e.target : 1]).c_str());
    }
    std::string sp = std::string("space ") + e.name + ":";
    for (unsigned r = 0; r < 4; r++) {
      char b[128];
      std::snprintf(b, sizeof b, " r%u own=0x%08x given=0x%08x shared::cta=%u shared::cluster=%u;", r, info[r * 4], info[r * 4 + 1], info[r * 4 + 2], info[r * 4 + 3]);
      sp += b;
    }
    std::printf("%s\n", sp.c_str());
    if (e.threads == 1) {
      std::string rl = std::string("ret ") + e.name + ":";
      for (unsigned r = 0; r < 4; r++)
        if ((e.issuers >> r) & 1) rl += " r" + std::to_string(r) + "=" + hex(ret[r * BLOCK], e.width);
      std::printf("%s (the value the last operation of each issuing thread returned, cluster 0)\n", rl.c_str());
    }
  }
  CHECK(p_cuMemFree(ddump));
  CHECK(p_cuMemFree(dret));
  CHECK(p_cuMemFree(dinfo));
  CHECK(p_cuModuleUnload(mod));
  CHECK(p_cuDevicePrimaryCtxRelease(dev));
  return 0;
}
