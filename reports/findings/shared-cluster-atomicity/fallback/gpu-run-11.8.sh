#!/bin/sh
# What made h100-run-ptxas-11.8.txt: the experiments from kernel-ptxas-11.8.cubin (PTXAS118=... sh build.sh
# on a machine with Debian's ptxas 11.8.89, carried to the GPU host), each in its own process, since a
# kernel that traps ends the process's context; then compute-sanitizer on the ones that trapped.
# From the repository root: sh reports/findings/shared-cluster-atomicity/fallback/gpu-run-11.8.sh OUTDIR
set -u
out=${1:?OUTDIR}
cd "$(dirname "$0")"
[ -x experiments ] || sh build.sh > /dev/null
cuobjdump -sass kernel-ptxas-11.8.cubin > "$out/kernel-ptxas-11.8.sass"
{
  echo "# sh reports/findings/shared-cluster-atomicity/fallback/gpu-run-11.8.sh, $(date -u +%Y-%m-%d)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /'
  echo "## kernel-ptxas-11.8.cubin (the same kernels' PTX at .version 7.8, ptxas 11.8.89), one process per experiment"
  trapped=""
  for n in $(./experiments --list); do
    ./experiments --cubin kernel-ptxas-11.8.cubin "$n" > one.txt 2>&1 || trapped="$trapped $n"
    grep -v '^fallback experiments from' one.txt
  done
  rm -f one.txt
  echo "## experiments whose process ended with a CUDA error:${trapped:- none}"
  for n in $trapped; do
    echo "## compute-sanitizer ./experiments --cubin kernel-ptxas-11.8.cubin $n"
    timeout 120 compute-sanitizer --print-limit 3 ./experiments --cubin kernel-ptxas-11.8.cubin "$n" 2>&1 | grep -v '^fallback experiments from' | head -40
  done
} > "$out/h100-run-ptxas-11.8.txt" 2>&1
grep -E '^(#|gpu|##|result|CUDA error|=========.*(Illegal|at |by thread))' "$out/h100-run-ptxas-11.8.txt" | head -120
