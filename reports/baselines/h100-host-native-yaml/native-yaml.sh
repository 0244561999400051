#!/bin/sh
# device check of the bundle's native YAML scanner (vector_scan.node): it loads, and the bench's YAML
# files give the same verdicts with it and without it, on the reference and the gpu backends
set -e
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
B=$(pwd)/.bundle
xz -dc $B/node.xz > /tmp/ptxconf-node && chmod +x /tmp/ptxconf-node
N=/tmp/ptxconf-node
nproc; $N --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$N -e 'const m=require(process.argv[1]);console.log("vector_scan.node loads:", m.layout, typeof m.scan, typeof m.scanYaml)' $B/vector_scan.node
for sp in block seq testfloat; do $N $B/gen-spelled.mjs /tmp/$sp.yaml $sp 1000000; done
ls -la /tmp/*.yaml
for f in block seq testfloat; do
  for be in reference gpu; do
    for m in 1 0 1 0; do
      PTX_NATIVE_SCAN=$m /usr/bin/time -f "cpu %U user %S sys %e wall" sh $B/conformance.sh --vectors /tmp/$f.yaml --backend $be --report /tmp/r-$f-$be-$m > /tmp/o 2>&1 || true
      echo "$f backend=$be native=$m: $(grep -E 'read and judged|cases of .* judged' /tmp/o | cut -c1-150) | $(grep 'all results' /tmp/o) | $(tail -1 /tmp/o)"
    done
    # the same results, case by case (every result the run streamed, its header line aside: the start time and command)
    a=$(zcat /tmp/r-$f-$be-1/results.jsonl.gz | tail -n +2 | md5sum | cut -c1-12); b=$(zcat /tmp/r-$f-$be-0/results.jsonl.gz | tail -n +2 | md5sum | cut -c1-12)
    echo "$f $be: results.jsonl.gz past its header: native $a, TypeScript $b: $([ "$a" = "$b" ] && echo same || echo DIFFERENT)"
  done
done
