// A standalone reproducer written by `npm run conformance -- repro` (ptx-reduction-conformance) for
// one cell (or a bounded sub-range of one) of an exhaustive sweep. It needs only the CUDA driver and
// nvcc: build.sh compiles kernel.ptx (the sweep kernel, as the sweep compiled it) to kernel.cubin
// and this file to ./repro. It launches the kernel over the pairs FIRST .. FIRST+PAIRS-1 as the sweep
// did (parameters out, ret, dig, base, n, mode, selftest, val; LANES pairs a thread, 256 threads a
// block), reads back every result and returned old value, and compares each with the reference
// model's result in expected.bin (written by the harness; a set bit of its bitmap: any NaN allowed).
// Prints REPRODUCED (exit 1) when some pair differs, else NOT REPRODUCED (exit 0); 2 on an error.
//
//   ./repro [LAUNCHES]     LAUNCHES: how many times to run the range (default 1)
#include <vector>

#include "params.h"

static uint32_t pairA(uint32_t p) { return DOMAIN == 0 ? ((p >> 24) << 8) | ((p >> 8) & 0xff) : ((MODE & 2) ? VAL : p); }
static uint32_t pairB(uint32_t p) { return DOMAIN == 0 ? (((p >> 16) & 0xff) << 8) | (p & 0xff) : ((MODE & 2) ? p : VAL); }

static bool isNaNBits(uint32_t x) {
  if (!EXP_BITS) return false;
  uint32_t exp = (x >> FRAC_BITS) & ((1u << EXP_BITS) - 1);
  uint32_t frac = x & ((1u << FRAC_BITS) - 1);
  return exp == (1u << EXP_BITS) - 1 && frac != 0;
}

static uint32_t at(const std::vector<unsigned char>& b, int q) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + q * (LANE_BITS / 8), LANE_BITS / 8);
  return v;
}

int main(int argc, char** argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : 1;
  if (launches < 1) {
    std::fprintf(stderr, "usage: %s [LAUNCHES]  (LAUNCHES >= 1; default 1)\n", argv[0]);
    return 2;
  }
  const int bytes = LANE_BITS / 8;
  std::vector<unsigned char> expected(PAIRS * bytes + PAIRS / 8);
  FILE* f = std::fopen("expected.bin", "rb");
  if (!f || std::fread(expected.data(), 1, expected.size(), f) != expected.size()) {
    std::fprintf(stderr, "cannot read expected.bin (%zu bytes): run ./repro in its folder\n", expected.size());
    return 2;
  }
  std::fclose(f);
  const unsigned char* anyNaN = expected.data() + PAIRS * bytes;
  Session s = openSession(KERNEL);
  CUdeviceptr dout, dret, ddig;
  CHECK(p_cuMemAlloc(&dout, PAIRS * bytes));
  CHECK(p_cuMemAlloc(&dret, PAIRS * bytes));
  CHECK(p_cuMemAlloc(&ddig, 64));
  unsigned long long base = FIRST, n = THREADS;
  unsigned mode = MODE, self = SELFTEST, val = VAL;
  // the kernel's parameters: out, ret, dig, base, n (.u64), mode, selftest, val (.u32)
  void* args[] = {&dout, &dret, &ddig, &base, &n, &mode, &self, &val};
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = GRID_X; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = BLOCK_X; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  if (CLUSTER_X > 1) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = CLUSTER_X; attr.value.clusterDim.y = 1; attr.value.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  std::printf("%s\n%s on %s (driver %d.%d): %d pairs from 0x%08x, grid %d x block %d%s, %d launch(es)%s; the model under the PTX ISA %s text\n", CELL_ID, INSTRUCTION, s.name, s.drv / 1000, (s.drv % 1000) / 10, PAIRS, FIRST, GRID_X, BLOCK_X,
              CLUSTER_X > 1 ? " in clusters of 2" : "", launches, SELFTEST ? " with the sweep's self-test fault" : "", EDITION);
  std::vector<unsigned char> out(PAIRS * bytes), ret(PAIRS * bytes);
  std::vector<unsigned char> zero(64, 0);
  long long pass = 0, nan = 0, bad = 0, retBad = 0, badPairs = 0;
  int badLaunches = 0, shown = 0;
  for (int launch = 0; launch < launches; launch++) {
    CHECK(p_cuMemcpyHtoD(ddig, zero.data(), 64));
    CHECK(p_cuLaunchKernelEx(&cfg, s.fn, args, nullptr));
    CHECK(p_cuCtxSynchronize());
    CHECK(p_cuMemcpyDtoH(out.data(), dout, out.size()));
    if (RETURNS) CHECK(p_cuMemcpyDtoH(ret.data(), dret, ret.size()));
    long long before = badPairs;
    for (int q = 0; q < PAIRS; q++) {
      uint32_t p = FIRST + q;
      uint32_t got = at(out, q);
      bool any = (anyNaN[q >> 3] >> (q & 7)) & 1;
      uint32_t want = at(expected, q);
      bool retOk = !RETURNS || at(ret, q) == pairA(p);
      if (!retOk) retBad++;
      bool ok = any ? isNaNBits(got) : got == want;
      if (ok && retOk) {
        if (any) nan++;
        else pass++;
        continue;
      }
      if (!ok) bad++;
      badPairs++;
      if (shown < 10) {
        shown++;
        std::printf("  pair 0x%08x: a 0x%0*x, b 0x%0*x: result 0x%0*x, the model %s", p, LANE_BITS / 4, pairA(p), LANE_BITS / 4, pairB(p), LANE_BITS / 4, got, any ? "allows any NaN" : "gives ");
        if (!any) std::printf("0x%0*x", LANE_BITS / 4, want);
        if (!retOk) std::printf("; returned 0x%0*x, not the memory before", LANE_BITS / 4, at(ret, q));
        std::printf("\n");
      }
    }
    if (badPairs > before) badLaunches++;
  }
  CHECK(p_cuMemFree(dout));
  CHECK(p_cuMemFree(dret));
  CHECK(p_cuMemFree(ddig));
  closeSession(s);
  long long total = (long long)PAIRS * launches;
  if (badLaunches) {
    std::printf("REPRODUCED: %lld of %lld pairs differ from the model (%lld results, %lld returned values) in %d of %d launches; %lld pass, %lld NaN where any NaN is allowed (the recorded run: %s)\n", badPairs, total, bad, retBad, badLaunches, launches, pass, nan, RECORDED);
    return 1;
  }
  std::printf("NOT REPRODUCED: all %lld pairs as the model gives them (%lld pass, %lld NaN where any NaN is allowed) in %d launch(es) (the recorded run: %s)\n", total, pass, nan, launches, RECORDED);
  return 0;
}
