// A standalone reproducer of a litmus test on the GPU, written by `litmus --backend gpu --repro TEST`
// (or for every forbidden outcome a run saw) (ptx-reduction-conformance, harness/litmus-gpu/).
// It needs only the CUDA driver (opened with dlopen, driver.h) and nvcc: build.sh compiles kernel.ptx
// (the runner's module: lt_test runs many instances of the test at once, lt_count counts each
// instance's outcome in a table of outcomes and resets its memory) to kernel.cubin and this file to
// ./repro. It makes the launches the runner made (params.h: the same grid, block, cluster, buffers,
// per-iteration permutation of instances, xorshift seeded as harness/litmus-gpu/run.ts does), reads
// the histogram back, and counts the outcomes the model forbids (params.h: the verdict of each
// table row; an outcome outside the table is one no candidate execution has).
//
// Prints REPRODUCED n of N instances (exit 1) when a forbidden outcome was counted, else
// NOT REPRODUCED in N instances (exit 0); 2 on a CUDA error or bad usage.
//
//   ./repro [ITERATIONS]     ITERATIONS: launches of lt_test (default: as many as the run made)
#include <vector>

#include "driver.h"
#include "params.h"

// xorshift32, as permutations() in harness/litmus-gpu/run.ts: one Fisher-Yates shuffle of 0..n-1 per iteration
static void permutations(std::vector<uint32_t>& out, uint32_t n, uint32_t iterations, uint32_t seed) {
  out.assign((size_t)n * iterations, 0);
  uint32_t x = seed ? seed : 0x9e3779b9u;
  for (uint32_t it = 0; it < iterations; it++) {
    uint32_t* p = out.data() + (size_t)it * n;
    for (uint32_t i = 0; i < n; i++) p[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      uint32_t j = x % (i + 1);
      uint32_t t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
  }
}

// a device buffer of `words` 32-bit words (at least one), filled from `data` (or zeros)
static CUdeviceptr upload(std::vector<CUdeviceptr>& all, size_t words, const uint32_t* data) {
  size_t bytes = words ? words * 4 : 4;
  CUdeviceptr p;
  CHECK(p_cuMemAlloc(&p, bytes));
  std::vector<uint32_t> zeros;
  if (!data) {
    zeros.assign(bytes / 4, 0);
    data = zeros.data();
  }
  CHECK(p_cuMemcpyHtoD(p, data, bytes));
  all.push_back(p);
  return p;
}

// a test with virtual aliases (ALIAS_VIEWS > 0): mem is one allocation (cuMemCreate once) mapped 1 + ALIAS_VIEWS
// times back to back (cuMemMap per view; view k at the base + k * viewBytes), as native/src/views.cc maps it; no multicast
// (the virtual memory calls are opened here, not in driver.h, so the other reproducers need none of them)
#define VMM(X)                                                                                     \
  X(cuCtxGetDevice, "cuCtxGetDevice") X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity") \
  X(cuMemCreate, "cuMemCreate") X(cuMemRelease, "cuMemRelease") X(cuMemAddressReserve, "cuMemAddressReserve") \
  X(cuMemAddressFree, "cuMemAddressFree") X(cuMemMap, "cuMemMap") X(cuMemUnmap, "cuMemUnmap") X(cuMemSetAccess, "cuMemSetAccess")
#define DECLARE(name, sym) static decltype(&::name) p_##name = nullptr;
VMM(DECLARE)
#undef DECLARE
static void openVmm() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
#define LOAD(name, sym)                                                    \
  p_##name = lib ? reinterpret_cast<decltype(p_##name)>(dlsym(lib, sym)) : nullptr; \
  if (!p_##name) {                                                         \
    std::fprintf(stderr, "the CUDA driver lacks %s (too old?)\n", sym);  \
    std::exit(2);                                                          \
  }
  VMM(LOAD)
#undef LOAD
}
struct Views {
  CUdeviceptr base = 0;
  size_t viewBytes = 0, total = 0;
  CUmemGenericAllocationHandle h = 0;
};
static Views uploadViews(size_t words, const uint32_t* data, int views) {
  openVmm();
  Views v;
  CUdevice dev;
  CHECK(p_cuCtxGetDevice(&dev));
  CUmemAllocationProp prop;
  std::memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CHECK(p_cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  v.viewBytes = (words * 4 + gran - 1) / gran * gran;
  v.total = v.viewBytes * views;
  CHECK(p_cuMemCreate(&v.h, v.viewBytes, &prop, 0));
  CHECK(p_cuMemAddressReserve(&v.base, v.total, gran, 0, 0));
  for (int k = 0; k < views; k++) CHECK(p_cuMemMap(v.base + k * v.viewBytes, v.viewBytes, 0, v.h, 0));
  CUmemAccessDesc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = dev;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK(p_cuMemSetAccess(v.base, v.total, &desc, 1));
  CHECK(p_cuMemcpyHtoD(v.base, data, words * 4));
  return v;
}

// a test with tensor maps (N_TMAPS > 0): each instance's own 128-byte map of each (ptm), encoded here as the runner
// encodes it (run.ts: a map of 32-bit elements over the copies of the location it points at, of the geometry TMAP_* give),
// and the initial maps (ptinit) lt_count restores after each launch
typedef CUresult (*EncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*EncodeIm2col)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*, const int*, const int*,
                                 cuuint32_t, cuuint32_t, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);
static void encodeMaps(CUdeviceptr dmem, std::vector<uint8_t>& all, std::vector<uint8_t>& init) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  EncodeTiled enc = lib ? reinterpret_cast<EncodeTiled>(dlsym(lib, "cuTensorMapEncodeTiled")) : nullptr;
  EncodeIm2col encIm2col = lib ? reinterpret_cast<EncodeIm2col>(dlsym(lib, "cuTensorMapEncodeIm2col")) : nullptr;
  if (!enc || !encIm2col) {
    std::fprintf(stderr, "the CUDA driver lacks cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col (CUDA 12.0 or newer has them)\n");
    std::exit(2);
  }
  all.assign((size_t)N_TMAPS * NI * 128, 0);
  init.assign((size_t)N_TMAPS * 128, 0);
  for (int k = 0; k < N_TMAPS; k++) {
    alignas(64) CUtensorMap map;
    const cuuint32_t estr[5] = {1, 1, 1, 1, 1};
    void* at = reinterpret_cast<void*>(dmem + (CUdeviceptr)TMAP_TARGET[k] * NI * STRIDE * SLOT_BYTES);
    const int corner[3] = {0, 0, 0};
    if (TMAP_IM2COL[k])
      CHECK(encIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, TMAP_RANK[k], at, TMAP_DIM[k], TMAP_STRIDE[k], corner, corner, 4, 1, estr,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    else
      CHECK(enc(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, TMAP_RANK[k], at, TMAP_DIM[k], TMAP_STRIDE[k], TMAP_BOX[k], estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    std::memcpy(init.data() + (size_t)k * 128, &map, 128);
    for (int i = 0; i < NI; i++) std::memcpy(all.data() + ((size_t)k * NI + i) * 128, &map, 128);
  }
}

static void launch(CUfunction f, unsigned grid, unsigned block, unsigned cluster, std::vector<uint64_t> vals) {
  std::vector<void*> args(vals.size());
  for (size_t i = 0; i < vals.size(); i++) args[i] = &vals[i];  // 64 bits each, as the runner's launcher passes them
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = grid; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = block; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  cfg.sharedMemBytes = 0;
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  if (cluster > 1) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster; attr.value.clusterDim.y = 1; attr.value.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  CHECK(p_cuLaunchKernelEx(&cfg, f, args.data(), nullptr));
}

int main(int argc, char** argv) {
  long its = argc > 1 ? std::atol(argv[1]) : ITERATIONS;
  if (argc > 2 || its < 1 || its > 100000) {
    std::fprintf(stderr, "usage: %s [ITERATIONS]  (1 to 100000; default %d, as the run)\n", argv[0], (int)ITERATIONS);
    return 2;
  }
  Session s = openSession("lt_test");
  CUfunction count;
  CHECK(p_cuModuleGetFunction(&count, s.mod, "lt_count"));
  std::printf("%s\n%s on %s (driver %d.%d): %ld launch(es) of %d instances (grid %d x block %d%s), stride %d, seed %u; %s\n", TEST_NAME, TEST_FILE, s.name, s.drv / 1000, (s.drv % 1000) / 10, its, NI, GRID,
              BLOCK, CLUSTER > 1 ? ", clusters of " CLUSTER_TEXT " CTAs" : "", STRIDE, (unsigned)SEED, STRESS_TEXT);
  std::vector<CUdeviceptr> all;
  // instance i's copy of location j is at byte (j * NI + i) * STRIDE * SLOT_BYTES (an array's element: in its array's copy, INIT_LOC and
  // INIT_OFFSET); one more location: the barrier word (align);
  // a test with loops one more: the instance's give-up word (a thread whose loop ran too long sets it)
  std::vector<uint32_t> mem((size_t)(N_LOCS + 1 + LOOPS) * NI * STRIDE * SLOT_BYTES / 4, 0);
  for (int j = 0; j < N_LOCS; j++)
    for (int i = 0; i < NI; i++) mem[(((size_t)INIT_LOC[j] * NI + i) * STRIDE * SLOT_BYTES + INIT_OFFSET[j]) / 4] = INIT[j];
  std::vector<uint32_t> perm;
  permutations(perm, NI, (uint32_t)its, SEED);
  Views views;
  if (ALIAS_VIEWS > 0) views = uploadViews(mem.size(), mem.data(), 1 + ALIAS_VIEWS);
  CUdeviceptr dmem = ALIAS_VIEWS > 0 ? views.base : upload(all, mem.size(), mem.data());
  CUdeviceptr dregs = upload(all, (size_t)NI * (N_REG_WORDS > 0 ? N_REG_WORDS : 1), nullptr);
  CUdeviceptr dperm = upload(all, perm.size(), perm.data());
  CUdeviceptr dtab = upload(all, (size_t)N_ROWS * N_WORDS, TABLE);
  const size_t histWords = N_ROWS + 1 + SAMPLES * N_WORDS + LOOPS;
  CUdeviceptr dhist = upload(all, histWords, nullptr);
  CUdeviceptr dinit = upload(all, N_LOCS, INIT);
  CUdeviceptr dscratch = upload(all, SCRATCH_WORDS, nullptr);
  CUdeviceptr dtm = 0, dtinit = 0;
  if (N_TMAPS > 0) {
    std::vector<uint8_t> maps, first;
    encodeMaps(dmem, maps, first);
    dtm = upload(all, maps.size() / 4, reinterpret_cast<const uint32_t*>(maps.data()));
    dtinit = upload(all, first.size() / 4, reinterpret_cast<const uint32_t*>(first.data()));
  }
  for (long it = 0; it < its; it++) {
    // lt_test's parameters after the seventh: the bytes between views of mem (aliases), the maps (tensor maps)
    std::vector<uint64_t> tp = {dmem, dregs, dperm, (uint64_t)it, (uint64_t)NI, (uint64_t)STRIDE, dscratch};
    if (ALIAS_VIEWS > 0) tp.push_back((uint64_t)views.viewBytes);
    if (N_TMAPS > 0) tp.push_back(dtm);
    launch(s.fn, GRID, BLOCK, CLUSTER, tp);
    std::vector<uint64_t> cp = {dmem, dregs, dtab, dhist, dinit, (uint64_t)NI, (uint64_t)STRIDE, (uint64_t)N_ROWS};
    if (N_TMAPS > 0) cp.push_back(dtm), cp.push_back(dtinit);
    launch(count, (NI + 255) / 256, 256, 1, cp);
  }
  CHECK(p_cuCtxSynchronize());
  std::vector<uint32_t> hist(histWords);
  CHECK(p_cuMemcpyDtoH(hist.data(), dhist, histWords * 4));
  for (CUdeviceptr p : all) CHECK(p_cuMemFree(p));
  if (ALIAS_VIEWS > 0) {
    CHECK(p_cuMemUnmap(views.base, views.total));
    CHECK(p_cuMemAddressFree(views.base, views.total));
    CHECK(p_cuMemRelease(views.h));
  }
  closeSession(s);

  const unsigned long long total = (unsigned long long)NI * its;
  unsigned long long counted = 0, forbidden = 0;
  std::printf("  %s  count  verdict\n", KEYS_TEXT);
  for (int k = 0; k < N_ROWS; k++) {
    counted += hist[k];
    if (FORBIDDEN[k] && !hist[k]) continue;  // a forbidden row never seen: left out
    std::printf("  %s  %u  %s%s\n", ROW_TEXT[k], hist[k], FORBIDDEN[k] ? "forbidden: " : "allowed", FORBIDDEN[k] ? WHY[k] : "");
    if (FORBIDDEN[k]) forbidden += hist[k];
  }
  const uint32_t other = hist[N_ROWS];
  counted += other;
  if (other) {
    // outside the table: no candidate execution of the model has it (the table holds every allowed outcome)
    std::printf("  %u outcome(s) outside the table (no candidate execution has them), the first %u as 32-bit words (a 64-bit key: low, high):\n", other, other < SAMPLES ? other : SAMPLES);
    for (uint32_t n = 0; n < other && n < SAMPLES; n++) {
      std::printf("   ");
      for (int x = 0; x < N_WORDS; x++) std::printf(" %u", hist[N_ROWS + 1 + n * N_WORDS + x]);
      std::printf("\n");
    }
    forbidden += other;
  }
  if (LOOPS) {
    // instances a thread gave up on (its loop ran 2^20 times): counted, not judged
    counted += hist[histWords - 1];
    if (hist[histWords - 1]) std::printf("  %u instance(s) not judged: a thread's loop ran 2^20 times and gave up\n", hist[histWords - 1]);
  }
  if (counted != total) {
    std::fprintf(stderr, "the histogram counts %llu outcomes for %llu instances\n", counted, total);
    return 2;
  }
  std::printf("the recorded run: %s\n", RECORDED);
  if (forbidden) {
    std::printf("REPRODUCED %llu of %llu instances: an outcome the model forbids (%s)\n", forbidden, total, OUTCOME);
    return 1;
  }
  std::printf("NOT REPRODUCED in %llu instances: no outcome the model forbids (%s) was seen\n", total, OUTCOME);
  return 0;
}
