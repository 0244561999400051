#!/bin/sh
# What made h100-run.txt: on the GPU host (CUDA 13.0 nvcc and cuobjdump, a driver), from the repository
# root: sh reports/findings/shared-cluster-atomicity/fallback/gpu-run.sh OUTDIR
# Writes OUTDIR/h100-run.txt (the experiments, run twice), OUTDIR/kernel.sass and the SASS of two
# reproducers' kernels (repro-*.sass). The ptxas 11.8 cubin: gpu-run-11.8.sh.
set -u
out=${1:?OUTDIR}
cd "$(dirname "$0")"
sh build.sh > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 2; }
cp kernel.sass "$out/kernel.sass"
for r in atom.shared-cluster.add.noftz.f16x2.cluster-special atom.shared-cluster.or.b64.cluster-bits; do
  nvcc -cubin -arch=sm_90 -o "repro-$r.cubin" "../$r/kernel.ptx" && cuobjdump -sass "repro-$r.cubin" > "$out/repro-$r.sass"
done
{
  echo "# sh reports/findings/shared-cluster-atomicity/fallback/gpu-run.sh, $(date -u +%Y-%m-%d)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /'
  nvcc --version | tail -2
  echo "## kernel.cubin (nvcc/ptxas 13.0), run 1"
  ./experiments
  echo "## kernel.cubin (nvcc/ptxas 13.0), run 2"
  ./experiments
} > "$out/h100-run.txt" 2>&1
echo "exit $?" >> "$out/h100-run.txt"
grep -E '^(#|gpu|Cuda|Build|##|result)' "$out/h100-run.txt"
