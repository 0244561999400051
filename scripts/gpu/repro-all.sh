#!/bin/sh
# On a GPU host: every GPU reproducer folder of the findings, built and run under the host's CUDA
# (nvcc) and with each kernel compiled by Debian's ptxas 11.8 (BUNDLE/ptxas-11.8.xz), into
# OUT/<finding>.h100-run.txt and OUT/<finding>.h100-run-ptxas-11.8.txt.
#   sh scripts/gpu/repro-all.sh BUNDLE OUT [LONG]
set -u
b=$1
out=$2
long=${3:-100}
mkdir -p "$out"
xz -dc "$b/ptxas-11.8.xz" > /tmp/ptxas-11.8 && chmod +x /tmp/ptxas-11.8
for f in shared-cluster-atomicity bulk-add-f32-keeps-subnormals tensor-reduce-keeps-subnormals; do
  sh scripts/gpu/repro-run.sh "reports/findings/$f" "$long" > "$out/$f.h100-run.txt" 2>&1
  PTXAS=/tmp/ptxas-11.8 sh scripts/gpu/repro-run.sh "reports/findings/$f" "$long" > "$out/$f.h100-run-ptxas-11.8.txt" 2>&1
  echo "$f: $(grep -c ': build' "$out/$f.h100-run.txt") run under 13.0, $(grep -c ': build' "$out/$f.h100-run-ptxas-11.8.txt") under 11.8"
done
