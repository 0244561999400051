// libcu++'s cuda::atomic_ref as CUDA C++ users write it (the default memory order, seq_cst), with
// device scope (which includes every CTA of a cluster): fetch_or, fetch_max and fetch_add on
// unsigned long long. fetch_add on float: atomic_ref_f32.cu; cluster scope: atomic_ref_cluster.cu.
// The contract: lens.cuh; the variants: lens.yaml.
#include <cuda/atomic>
#include "lens.cuh"

using device_ref_u64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

LENS_OP(atomic_ref_device_fetch_or_u64, unsigned long long, device_ref_u64(*p).fetch_or(b))
LENS_OP(atomic_ref_device_fetch_max_u64, unsigned long long, device_ref_u64(*p).fetch_max(b))
LENS_OP(atomic_ref_device_fetch_add_u64, unsigned long long, device_ref_u64(*p).fetch_add(b))
