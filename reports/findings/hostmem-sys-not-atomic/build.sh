#!/bin/sh
# builds and runs the reproducer with nvcc alone (CUDA 12 or 13; sm_90 here, any GPU with mapped host memory)
set -e
cd "$(dirname "$0")"
nvcc -arch=${ARCH:-sm_90} -O2 -std=c++17 -o repro repro.cu
./repro "${1:-10}"
