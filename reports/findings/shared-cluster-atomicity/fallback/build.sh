#!/bin/sh
# Builds the fallback experiments with nvcc alone: the kernels (CUDA C++ with inline PTX) to
# kernel.cubin for sm_90, the host program over the CUDA driver API to ./experiments, and the SASS of
# the kernels to kernel.sass where cuobjdump is on PATH. With PTXAS118=/path/to/ptxas-11.8 also
# kernel-ptxas-11.8.cubin: the same kernels' PTX, declared .version 7.8, assembled by that ptxas
# (run it with ./experiments --cubin kernel-ptxas-11.8.cubin).
set -eu
cd "$(dirname "$0")"
nvcc -cubin -arch=sm_90 -o kernel.cubin kernels.cu
nvcc -O2 -std=c++17 -o experiments experiments.cpp -ldl
if command -v cuobjdump >/dev/null 2>&1; then cuobjdump -sass kernel.cubin > kernel.sass; fi
if [ -n "${PTXAS118:-}" ]; then
  nvcc -ptx -arch=sm_90 -o kernels.ptx kernels.cu
  sed 's/^\.version .*/.version 7.8/' kernels.ptx > kernels-7.8.ptx
  "$PTXAS118" -arch sm_90 -o kernel-ptxas-11.8.cubin kernels-7.8.ptx
fi
echo "built ./experiments; run it on a GPU that runs sm_90: ./experiments [--cubin FILE] [NAME...]"
