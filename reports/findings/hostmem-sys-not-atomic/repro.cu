// Standalone reproducer (nvcc alone): atom.add.sys.u64 (atomicAdd_system) on one word of mapped
// pinned host memory (cudaHostAlloc, DEVICEMAP|PORTABLE) while 4 CPU threads add to the same word
// with __atomic_fetch_add (seq_cst, what std::atomic compiles to). The GPU adds 1, the CPU adds
// 2^32: if every update is atomic the final word is exactly GPU_OPS + (CPU_OPS << 32). PTX ISA 9.4,
// 8.1.1: "When communicating with the host CPU, certain strong operations with system scope may not
// be performed atomically on some systems." Prints the lost updates per side; exit 1 when any is lost
// (REPRODUCED), 0 when none is (not reproduced on this system), 2 on a CUDA error.
//   nvcc -arch=sm_90 -O2 -o repro repro.cu && ./repro [rounds]
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(2); } } while (0)

constexpr int GPU_THREADS = 64, GPU_ITERS = 1024;  // 65,536 GPU adds of 1: below the CPU's unit
constexpr int CPU_THREADS = 4, CPU_ITERS = 4096;    // 16,384 CPU adds of 2^32

__global__ void add(unsigned long long* word, volatile int* go, int* arrived) {
  atomicAdd_system(arrived, 1);
  while (*go == 0) {}  // start together with the CPU threads
  for (int i = 0; i < GPU_ITERS; i++) atomicAdd_system(word, 1ULL);  // atom.add.sys.u64
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  unsigned long long* word; int* go; int* arrived;
  CK(cudaHostAlloc(&word, sizeof *word, cudaHostAllocMapped | cudaHostAllocPortable));
  CK(cudaHostAlloc(&go, sizeof *go, cudaHostAllocMapped | cudaHostAllocPortable));
  CK(cudaHostAlloc(&arrived, sizeof *arrived, cudaHostAllocMapped | cudaHostAllocPortable));
  unsigned long long* dword; int* dgo; int* darrived;
  CK(cudaHostGetDevicePointer(&dword, word, 0));
  CK(cudaHostGetDevicePointer(&dgo, go, 0));
  CK(cudaHostGetDevicePointer(&darrived, arrived, 0));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  int native = 0; CK(cudaDeviceGetAttribute(&native, cudaDevAttrHostNativeAtomicSupported, 0));
  printf("%s (sm_%d%d), hostNativeAtomicSupported=%d; GPU %d x %d adds of 1, CPU %d x %d adds of 2^32, %d rounds\n",
         p.name, p.major, p.minor, native, GPU_THREADS, GPU_ITERS, CPU_THREADS, CPU_ITERS, rounds);
  unsigned long long lostGpu = 0, lostCpu = 0; int losing = 0;
  for (int r = 0; r < rounds; r++) {
    *word = 0; *go = 0; *arrived = 0;
    add<<<GPU_THREADS / 32, 32>>>(dword, dgo, darrived);
    CK(cudaGetLastError());
    std::vector<std::thread> cpu;
    for (int t = 0; t < CPU_THREADS; t++) cpu.emplace_back([&] {
      while (__atomic_load_n(go, __ATOMIC_ACQUIRE) == 0) {}
      for (int i = 0; i < CPU_ITERS; i++) __atomic_fetch_add(word, 1ULL << 32, __ATOMIC_SEQ_CST);
    });
    while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < GPU_THREADS) {}
    __atomic_store_n(go, 1, __ATOMIC_RELEASE);
    for (auto& t : cpu) t.join();
    CK(cudaDeviceSynchronize());
    unsigned long long w = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    unsigned long long g = w & 0xffffffffULL, c = w >> 32;
    unsigned long long eg = (unsigned long long)GPU_THREADS * GPU_ITERS, ec = (unsigned long long)CPU_THREADS * CPU_ITERS;
    printf("round %d: final 0x%016llx: GPU adds seen %llu of %llu, CPU adds seen %llu of %llu\n", r, w, g, eg, c, ec);
    if (g > eg || c > ec) { printf("a value no interleaving gives\n"); return 2; }
    lostGpu += eg - g; lostCpu += ec - c; losing += (g != eg || c != ec);
  }
  if (losing) printf("REPRODUCED: %d of %d rounds lost updates (GPU %llu, CPU %llu)\n", losing, rounds, lostGpu, lostCpu);
  else printf("not reproduced: no update lost in %d rounds\n", rounds);
  return losing ? 1 : 0;
}
