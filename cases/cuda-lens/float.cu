// Floating-point adds as CUDA C++ users write them: atomicAdd on float, double, __half2,
// __nv_bfloat162, and the scalar __half as a control. The contract: lens.cuh; the variants: lens.yaml.
#include "lens.cuh"

LENS_OP(atomicAdd_f32, float, atomicAdd(p, b))
LENS_OP(atomicAdd_f64, double, atomicAdd(p, b))
LENS_OP(atomicAdd_half2, __half2, atomicAdd(p, b))
LENS_OP(atomicAdd_bf162, __nv_bfloat162, atomicAdd(p, b))
LENS_OP(atomicAdd_half, __half, atomicAdd(p, b))
