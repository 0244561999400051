#!/bin/sh
# Builds the reproducer with nvcc alone (no node): the kernel from its PTX, the host program over the CUDA driver API.
# PTXAS=/path/to/ptxas sh build.sh: the kernel compiled by that ptxas instead (another toolchain; kernel.ptx declares
# the lowest PTX ISA version it needs), the host still by nvcc.
set -eu
cd "$(dirname "$0")"
if [ -n "${PTXAS:-}" ]; then "$PTXAS" -arch=sm_90 -o kernel.cubin kernel.ptx; "$PTXAS" --version | tail -1; else nvcc -cubin -arch=sm_90 -o kernel.cubin kernel.ptx; fi
nvcc -O2 -std=c++17 -o repro host.cpp -ldl
echo "built ./repro; run it on a GPU that runs sm_90: ./repro [LAUNCHES]"
