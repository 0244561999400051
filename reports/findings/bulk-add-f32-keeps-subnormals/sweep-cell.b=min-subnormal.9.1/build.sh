#!/bin/sh
# Builds the reproducer with nvcc alone (no node): the kernel from its PTX, the host program over the CUDA driver API.
set -eu
cd "$(dirname "$0")"
nvcc -cubin -arch=sm_90 -o kernel.cubin kernel.ptx
nvcc -O2 -std=c++17 -o repro host.cpp -ldl
echo "built ./repro; run it on a GPU that runs sm_90: ./repro [LAUNCHES]"
