#!/bin/sh
# The GPU benchmark of issue 10, through the bundle (npm run gpu:pack; carry .bundle to the GPU host):
# default run with an empty cubin cache, again warm, the spec vector files on the GPU, and
# --generated 100000. Prints wall-clock seconds and the gpu line (cases, cases/s, stage times) of each.
# Usage: sh scripts/gpu/bench.sh [OUTDIR]   (logs OUTDIR/*.log; default /tmp/ptxconf-gpu-bench)
out=${1:-/tmp/ptxconf-gpu-bench}
mkdir -p "$out"
B="$(dirname "$0")/../../.bundle/conformance.sh"
export XDG_CACHE_HOME="$out/cache"
rm -rf "$XDG_CACHE_HOME"
run() {
  name=$1; shift
  s=$(date +%s.%N)
  if [ -n "$GPU_BENCH_TIMEOUT" ]; then t="timeout $GPU_BENCH_TIMEOUT"; else t=""; fi
  $t sh "$B" "$@" --report "$out/$name" > "$out/$name.log" 2>&1
  rc=$?
  e=$(date +%s.%N)
  printf '%-28s %7.1f s  exit %s\n' "$name" "$(awk "BEGIN{print $e - $s}")" "$rc"
  grep '^gpu: [0-9]* cases' "$out/$name.log" | sed 's/^/    /'
}
run default-cold-cache
run default-warm-cache
run vectors-on-gpu --vectors cases/hardware --vectors cases/vectors/handwritten-spec-rules.yaml --backend gpu
run generated-1e5 --generated 100000
grep '^gpu: [0-9]*/' "$out/generated-1e5.log" | tail -1 | sed 's/^/    last progress: /'
echo "targets: cold <= 30 s, warm <= 10 s, --generated 100000 >= 50 M judged cases/s"
