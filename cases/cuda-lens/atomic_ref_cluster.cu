// libcu++'s cuda::atomic_ref with cluster scope, cuda::atomic_ref<T, cuda::thread_scope_cluster>, as
// CUDA C++ users would write it (the default memory order): fetch_or, fetch_max and fetch_add on
// unsigned long long, fetch_add on float. Where the toolchain's libcu++ has no
// cuda::thread_scope_cluster this file does not compile, and the lens skips its kernels with the
// compiler's message. The contract: lens.cuh; the variants: lens.yaml.
#include <cuda/atomic>
#include "lens.cuh"

using cluster_ref_u64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_cluster>;
using cluster_ref_f32 = cuda::atomic_ref<float, cuda::thread_scope_cluster>;

LENS_OP(atomic_ref_cluster_fetch_or_u64, unsigned long long, cluster_ref_u64(*p).fetch_or(b))
LENS_OP(atomic_ref_cluster_fetch_max_u64, unsigned long long, cluster_ref_u64(*p).fetch_max(b))
LENS_OP(atomic_ref_cluster_fetch_add_u64, unsigned long long, cluster_ref_u64(*p).fetch_add(b))
LENS_OP(atomic_ref_cluster_fetch_add_f32, float, cluster_ref_f32(*p).fetch_add(b))
