// The CUDA C++ lens's kernel contract (harness/lens/, docs/cuda-lens.md): every kernel here is the
// contention kernel of harness/contention/kernel.ts written in CUDA C++, so the harness launches it
// and judges its outcomes exactly as it does the PTX kernel's.
//
// Parameters (mem, ops, out, n, layout, mode), each launched by the contention runner:
//   mem     16 bytes per group (address), the memory the N participants contend on (staged into
//           shared memory and back for the shared and DSMEM kernels);
//   ops     32 bytes per participant: operand b at 0, operand c (atomicCAS's compare value) at 16;
//   out     16 bytes per (group, participant): the value the call returned, at (g * n + i) * 16;
//   n       participants per address; layout 0 warp, 1 cta, 2 grid, 3 cluster (as kernel.ts);
//   mode    unused here (0).
// Layouts: 0 warp (group = global thread / n, participant = its remainder), 1 cta (group = CTA x 32
// + lane, participant = warp), 2 grid (group = thread, participant = CTA), 3 cluster (clusters of n
// CTAs: group = cluster x threads + thread, participant = the CTA's rank in the cluster).
//
// LENS_OP(NAME, T, EXPR) writes the call once, as a user would (p: T*, b and c: T), and three
// kernels around it, one per memory:
//   NAME_dsmem   distributed shared memory: rank 0's shared slot, reached by every CTA of the
//                cluster through cooperative_groups this_cluster().map_shared_rank(ptr, 0)
//                (cluster layout only);
//   NAME_shared  the CTA's own shared memory (__shared__), staged in by participant 0;
//   NAME_global  global memory (any layout; the slot is mem + g * 16).
#pragma once
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace cg = cooperative_groups;

#define LENS_PARAMS unsigned char *mem, const unsigned char *ops, unsigned char *out, unsigned n, unsigned layout, unsigned mode
#define LENS_ARGS mem, ops, out, n, layout

// slots of 16 bytes, one per thread of a CTA of up to 256 threads (harness/backends/gpu/family.ts)
#define LENS_SLOT 16
#define LENS_BLOCK 256

struct LensIndex {
  unsigned g;   // the group (address) this thread works on
  unsigned i;   // the participant it is in that group
  unsigned gl;  // the group's slot in this CTA's shared memory
};

__device__ inline LensIndex lens_index(unsigned n, unsigned layout) {
  const unsigned t = blockIdx.x, tx = threadIdx.x, nt = blockDim.x;
  LensIndex r;
  const unsigned u = t * nt + tx;
  r.g = u / n;
  r.i = u % n;
  r.gl = tx / n;
  if (layout == 1) {
    r.g = t * 32 + (tx & 31);
    r.i = tx >> 5;
    r.gl = tx & 31;
  } else if (layout == 2) {
    r.g = tx;
    r.i = t;
    r.gl = tx;
  } else if (layout == 3) {
    cg::cluster_group c = cg::this_cluster();
    r.i = c.block_rank();
    r.g = (t / c.num_blocks()) * nt + tx;
    r.gl = tx;
  }
  return r;
}

__device__ inline void lens_copy16(unsigned char *dst, const unsigned char *src) {
  *reinterpret_cast<ulonglong2 *>(dst) = *reinterpret_cast<const ulonglong2 *>(src);
}

template <typename T, typename Op>
__device__ inline void lens_result(const LensIndex &x, unsigned n, unsigned char *out, T old) {
  *reinterpret_cast<T *>(out + (static_cast<unsigned long long>(x.g) * n + x.i) * 16) = old;
}

template <typename T>
__device__ inline T lens_operand(const unsigned char *ops, unsigned i, unsigned at) {
  return *reinterpret_cast<const T *>(ops + static_cast<unsigned long long>(i) * 32 + at);
}

// distributed shared memory: every CTA of the cluster applies the call to rank 0's slot
template <typename T, typename Op>
__device__ inline void lens_dsmem(LENS_PARAMS) {
  __shared__ alignas(16) unsigned char smem[LENS_BLOCK * LENS_SLOT];
  const LensIndex x = lens_index(n, layout);
  unsigned char *slot = mem + static_cast<unsigned long long>(x.g) * LENS_SLOT;
  unsigned char *mine = smem + x.gl * LENS_SLOT;
  cg::cluster_group cluster = cg::this_cluster();
  if (x.i == 0) lens_copy16(mine, slot);
  cluster.sync();
  T *p = cluster.map_shared_rank(reinterpret_cast<T *>(mine), 0);
  const T old = Op::apply(p, lens_operand<T>(ops, x.i, 0), lens_operand<T>(ops, x.i, 16));
  cluster.sync();
  if (x.i == 0) lens_copy16(slot, mine);
  lens_result<T, Op>(x, n, out, old);
}

// the CTA's own shared memory: the participants are threads of one CTA
template <typename T, typename Op>
__device__ inline void lens_shared(LENS_PARAMS) {
  __shared__ alignas(16) unsigned char smem[LENS_BLOCK * LENS_SLOT];
  const LensIndex x = lens_index(n, layout);
  unsigned char *slot = mem + static_cast<unsigned long long>(x.g) * LENS_SLOT;
  unsigned char *mine = smem + x.gl * LENS_SLOT;
  if (x.i == 0) lens_copy16(mine, slot);
  __syncthreads();
  T *p = reinterpret_cast<T *>(mine);
  const T old = Op::apply(p, lens_operand<T>(ops, x.i, 0), lens_operand<T>(ops, x.i, 16));
  __syncthreads();
  if (x.i == 0) lens_copy16(slot, mine);
  lens_result<T, Op>(x, n, out, old);
}

// global memory
template <typename T, typename Op>
__device__ inline void lens_global(LENS_PARAMS) {
  const LensIndex x = lens_index(n, layout);
  T *p = reinterpret_cast<T *>(mem + static_cast<unsigned long long>(x.g) * LENS_SLOT);
  const T old = Op::apply(p, lens_operand<T>(ops, x.i, 0), lens_operand<T>(ops, x.i, 16));
  lens_result<T, Op>(x, n, out, old);
}

#define LENS_OP(NAME, T, EXPR)                                                                      \
  struct NAME##_op {                                                                                \
    __device__ static T apply(T *p, T b, T c) {                                                     \
      (void)c;                                                                                      \
      return EXPR;                                                                                  \
    }                                                                                               \
  };                                                                                                \
  extern "C" __global__ void NAME##_dsmem(LENS_PARAMS) { lens_dsmem<T, NAME##_op>(LENS_ARGS, mode); } \
  extern "C" __global__ void NAME##_shared(LENS_PARAMS) { lens_shared<T, NAME##_op>(LENS_ARGS, mode); } \
  extern "C" __global__ void NAME##_global(LENS_PARAMS) { lens_global<T, NAME##_op>(LENS_ARGS, mode); }
