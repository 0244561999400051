// 64-bit integer atomics as CUDA C++ users write them (atomicOr/And/Xor/Max/Min on unsigned long
// long, atomicMax on long long), and the controls atomicAdd, atomicCAS and atomicExch on
// unsigned long long. The contract: lens.cuh; which catalog variant each stands for: lens.yaml.
#include "lens.cuh"

LENS_OP(atomicOr_u64, unsigned long long, atomicOr(p, b))
LENS_OP(atomicAnd_u64, unsigned long long, atomicAnd(p, b))
LENS_OP(atomicXor_u64, unsigned long long, atomicXor(p, b))
LENS_OP(atomicMax_u64, unsigned long long, atomicMax(p, b))
LENS_OP(atomicMin_u64, unsigned long long, atomicMin(p, b))
LENS_OP(atomicMax_s64, long long, atomicMax(p, b))
LENS_OP(atomicAdd_u64, unsigned long long, atomicAdd(p, b))
LENS_OP(atomicCAS_u64, unsigned long long, atomicCAS(p, b, c))
LENS_OP(atomicExch_u64, unsigned long long, atomicExch(p, b))
