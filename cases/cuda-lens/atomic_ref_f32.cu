// libcu++'s cuda::atomic_ref<float, cuda::thread_scope_device>::fetch_add, as CUDA C++ users write it
// (the default memory order, seq_cst). A file of its own: a libcu++ without floating-point
// fetch_add (CUDA 11.8's 1.8.1) skips it alone. The contract: lens.cuh; the variants: lens.yaml.
#include <cuda/atomic>
#include "lens.cuh"

using device_ref_f32 = cuda::atomic_ref<float, cuda::thread_scope_device>;

LENS_OP(atomic_ref_device_fetch_add_f32, float, device_ref_f32(*p).fetch_add(b))
