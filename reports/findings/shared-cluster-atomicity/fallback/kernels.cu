// Targeted kernels for issue 24, deliverable 4: what the non-atomic fallback of `atom`/`red`
// `.shared::cluster` does on sm_90. Each kernel is one instruction (inline PTX), run by a host program
// (experiments.cpp) over the CUDA driver API. Compiled with `nvcc -cubin -arch=sm_90` (build.sh).
//
// Every CTA of a cluster fills its 512-byte shared array with a canary pattern (32-bit word i of
// cluster rank r: 0xCA000000 | r << 16 | i), writes the experiment's initial value at the target
// offset, and the cluster synchronizes. Then the issuing CTAs (a bitmask of ranks) apply the
// instruction, from `threads` threads each, to the word at that offset in the target CTA's shared
// memory (address from mapa.shared::cluster; or the issuer's own shared::cta address, no mapa).
// After a second cluster barrier every CTA copies its whole shared array to global memory (dump),
// so a write to any CTA, at any offset, is seen.
#include <cstdint>

#define WORDS 128  // 32-bit words of shared memory per CTA, all dumped

struct Params {
  unsigned issuers;   // bitmask of cluster ranks that issue
  unsigned threads;   // threads of each issuing CTA that issue
  unsigned target;    // rank whose memory is targeted through mapa; SELF: mapa to the issuer's own rank; CTA: the issuer's shared::cta address, no mapa
  unsigned byteOff;   // byte offset of the target word in the shared array
  unsigned serial;    // 1: the issuing ranks take turns (rank 0, 1, 2, 3, 0, ...), a cluster barrier between turns
  unsigned rounds;    // serial: rounds of turns; else: operations per issuing thread
  unsigned initBytes; // 4 or 8: width of the initial value written at byteOff
  unsigned pad;
  unsigned long long init;     // the target word's initial value, written in every CTA
  unsigned long long operand;  // the operand (or-kinds: shifted left by rank * 16 + tid)
};
#define SELF 0xffffffffu
#define CTA 0xfffffffeu

__device__ __forceinline__ unsigned rankInCluster() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}

// OP: what one issuing thread does, `a` being the 32-bit .shared::cluster address of the target word.
enum {
  ATOM_F16X2 = 0,   // atom.shared::cluster.add.noftz.f16x2
  RED_F16X2,        // red.shared::cluster.add.noftz.f16x2
  ATOM_BF16X2,      // atom.shared::cluster.add.noftz.bf16x2
  GENERIC_F16X2,    // atom.add.noftz.f16x2 on the generic address (cvta.shared::cluster), as CUDA C++ atomicAdd(__half2*) does
  CAS_F16X2,        // control: atom.shared::cluster.cas.b32 loop with add.rn.f16x2
  ATOM_OR64,        // atom.shared::cluster.or.b64
  RED_OR64,         // red.shared::cluster.or.b64
  ATOM_MAXU64,      // atom.shared::cluster.max.u64
  CAS_OR64,         // control: atom.shared::cluster.cas.b64 loop with or.b64
  ATOM_ADDU64,      // control: atom.shared::cluster.add.u64
  ATOM_OR32,        // control: atom.shared::cluster.or.b32
};

template <int OP>
__device__ __forceinline__ unsigned long long apply(unsigned a, unsigned long long b) {
  unsigned r32 = 0;
  unsigned long long r64 = 0;
  unsigned b32 = (unsigned)b;
  if (OP == ATOM_F16X2) asm volatile("atom.shared::cluster.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r32) : "r"(a), "r"(b32) : "memory");
  if (OP == RED_F16X2) asm volatile("red.shared::cluster.add.noftz.f16x2 [%0], %1;" :: "r"(a), "r"(b32) : "memory");
  if (OP == ATOM_BF16X2) asm volatile("atom.shared::cluster.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r32) : "r"(a), "r"(b32) : "memory");
  if (OP == GENERIC_F16X2) {
    unsigned long long g;
    asm volatile("cvta.shared::cluster.u64 %0, %1;" : "=l"(g) : "l"((unsigned long long)a));
    asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r32) : "l"(g), "r"(b32) : "memory");
  }
  if (OP == CAS_F16X2) {
    unsigned old, seen, nw;
    asm volatile("ld.shared::cluster.b32 %0, [%1];" : "=r"(old) : "r"(a) : "memory");
    for (;;) {
      asm("add.rn.f16x2 %0, %1, %2;" : "=r"(nw) : "r"(old), "r"(b32));
      asm volatile("atom.shared::cluster.cas.b32 %0, [%1], %2, %3;" : "=r"(seen) : "r"(a), "r"(old), "r"(nw) : "memory");
      if (seen == old) break;
      old = seen;
    }
    r32 = old;
  }
  if (OP == ATOM_OR64) asm volatile("atom.shared::cluster.or.b64 %0, [%1], %2;" : "=l"(r64) : "r"(a), "l"(b) : "memory");
  if (OP == RED_OR64) asm volatile("red.shared::cluster.or.b64 [%0], %1;" :: "r"(a), "l"(b) : "memory");
  if (OP == ATOM_MAXU64) asm volatile("atom.shared::cluster.max.u64 %0, [%1], %2;" : "=l"(r64) : "r"(a), "l"(b) : "memory");
  if (OP == CAS_OR64) {
    unsigned long long old, seen;
    asm volatile("ld.shared::cluster.b64 %0, [%1];" : "=l"(old) : "r"(a) : "memory");
    for (;;) {
      asm volatile("atom.shared::cluster.cas.b64 %0, [%1], %2, %3;" : "=l"(seen) : "r"(a), "l"(old), "l"(old | b) : "memory");
      if (seen == old) break;
      old = seen;
    }
    r64 = old;
  }
  if (OP == ATOM_ADDU64) asm volatile("atom.shared::cluster.add.u64 %0, [%1], %2;" : "=l"(r64) : "r"(a), "l"(b) : "memory");
  if (OP == ATOM_OR32) asm volatile("atom.shared::cluster.or.b32 %0, [%1], %2;" : "=r"(r32) : "r"(a), "r"(b32) : "memory");
  return (OP == ATOM_OR64 || OP == ATOM_MAXU64 || OP == CAS_OR64 || OP == ATOM_ADDU64) ? r64 : r32;
}

// or-kinds get a distinct bit per issuing thread: operand << (rank * 16 + tid)
template <int OP>
__device__ __forceinline__ unsigned long long operandOf(const Params& p, unsigned rank, unsigned tid) {
  if (OP == ATOM_OR64 || OP == RED_OR64 || OP == CAS_OR64) return p.operand << ((rank * 16 + tid) & 63);
  if (OP == ATOM_OR32) return p.operand << ((rank * 8 + tid) & 31);
  return p.operand;
}

// dump: per CTA, WORDS 32-bit words of its shared memory after the experiment.
// ret: per CTA, per thread, the last value the instruction returned (0xdead... where it did not issue).
// info: per CTA, 4 words: the own shared::cta address of the target word, the address given to the
// instruction, isspacep.shared::cta and isspacep.shared::cluster of its generic form (cvta.shared::cluster).
template <int OP>
__device__ void body(const Params& p, unsigned* dump, unsigned long long* ret, unsigned* info) {
  __shared__ __align__(16) unsigned sm[WORDS];
  const unsigned tid = threadIdx.x, rank = rankInCluster();
  for (unsigned i = tid; i < WORDS; i += blockDim.x) sm[i] = 0xCA000000u | (rank << 16) | i;
  __syncthreads();
  if (tid == 0) {
    if (p.initBytes == 8) *(unsigned long long*)((char*)sm + p.byteOff) = p.init;
    else *(unsigned*)((char*)sm + p.byteOff) = (unsigned)p.init;
  }
  const unsigned own = (unsigned)__cvta_generic_to_shared((char*)sm + p.byteOff);
  unsigned a = own;
  if (p.target != CTA) {
    unsigned t = p.target == SELF ? rank : p.target;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(own), "r"(t));
  }
  if (tid == 0) {
    unsigned long long g;
    unsigned s1, s2;
    asm volatile("cvta.shared::cluster.u64 %0, %1;" : "=l"(g) : "l"((unsigned long long)a));
    asm volatile("{ .reg .pred q; isspacep.shared::cta q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(s1) : "l"(g));
    asm volatile("{ .reg .pred q; isspacep.shared::cluster q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(s2) : "l"(g));
    unsigned* in = info + blockIdx.x * 4;
    in[0] = own; in[1] = a; in[2] = s1; in[3] = s2;
  }
  clusterSync();
  unsigned long long last = 0xdeaddeaddeaddeadull;
  const bool issues = ((p.issuers >> rank) & 1) && tid < p.threads;
  const unsigned long long b = operandOf<OP>(p, rank, tid);
  if (p.serial) {
#pragma unroll 1
    for (unsigned round = 0; round < p.rounds; round++)
#pragma unroll 1
      for (unsigned turn = 0; turn < 4; turn++) {
        if (issues && turn == rank) last = apply<OP>(a, b);
        clusterSync();
      }
  } else {
    if (issues)
#pragma unroll 1
      for (unsigned k = 0; k < p.rounds; k++) last = apply<OP>(a, b);
    clusterSync();
  }
  ret[blockIdx.x * blockDim.x + tid] = last;
  for (unsigned i = tid; i < WORDS; i += blockDim.x) dump[blockIdx.x * WORDS + i] = sm[i];
  clusterSync();  // no CTA leaves while another may still reach its shared memory
}

#define KERNEL(NAME, OP) \
  extern "C" __global__ void NAME(Params p, unsigned* dump, unsigned long long* ret, unsigned* info) { body<OP>(p, dump, ret, info); }
KERNEL(k_atom_f16x2, ATOM_F16X2)
KERNEL(k_red_f16x2, RED_F16X2)
KERNEL(k_atom_bf16x2, ATOM_BF16X2)
KERNEL(k_generic_f16x2, GENERIC_F16X2)
KERNEL(k_cas_f16x2, CAS_F16X2)
KERNEL(k_atom_or64, ATOM_OR64)
KERNEL(k_red_or64, RED_OR64)
KERNEL(k_atom_maxu64, ATOM_MAXU64)
KERNEL(k_cas_or64, CAS_OR64)
KERNEL(k_atom_addu64, ATOM_ADDU64)
KERNEL(k_atom_or32, ATOM_OR32)
