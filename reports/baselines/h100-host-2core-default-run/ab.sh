#!/bin/sh
# A/B of the default CPU run (ptxas + reference), old (7a0e770) and new code, as esbuild bundles,
# on 2 pinned cores of the idle GPU host (taskset -c 0,1): empty verdict cache, then warm twice.
set -u
xz -dc .bundle-ab/node.xz > /tmp/ptxconf-node && chmod +x /tmp/ptxconf-node
export PATH=/usr/local/cuda/bin:$PATH
command -v ptxas; ptxas --version | tail -1; nproc; lscpu | grep -E "Model name|MHz" | head -3
for round in 1 2; do
for v in old new; do
  rm -rf /tmp/cache-$v-$round
  for run in empty warm1 warm2; do
    s=$(date +%s%N)
    /usr/bin/time -f "%U %S" -o /tmp/t taskset -c 0,1 /tmp/ptxconf-node .bundle-ab/$v/cli.mjs --cache-dir /tmp/cache-$v-$round --report /tmp/r-$v > /tmp/out 2> /tmp/err
    rc=$?
    e=$(date +%s%N)
    echo "round $round $v $run: $(( (e - s) / 1000000 )) ms wall, cpu $(cat /tmp/t | tail -1), exit $rc | $(grep -E '^ptxas: [0-9]+ entries' /tmp/err | cut -c1-120) | $(grep -E 'judged by the case child' /tmp/err)"
  done
done
done
cp /tmp/err $OUT/last-err.txt
