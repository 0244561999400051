// 32-bit controls: atomicOr and atomicMax on unsigned int. The contract: lens.cuh.
#include "lens.cuh"

LENS_OP(atomicOr_u32, unsigned int, atomicOr(p, b))
LENS_OP(atomicMax_u32, unsigned int, atomicMax(p, b))
