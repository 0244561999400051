#!/bin/sh
# The contention benchmark of issue 12, through the bundle (npm run gpu:pack; carry .bundle to the GPU host).
# Usage: sh scripts/gpu/contend-bench.sh OUTDIR
#   every GPU-runnable atom/red representative under contention (default reps), twice (cubin cache
#   cold, then warm), and the self-test; prints wall-clock seconds and the contend lines.
out=${1:-/tmp/ptxconf-contend-bench}
mkdir -p "$out"
. "$(dirname "$0")/bench-lib.sh"
C="$out/cache"
run() {
  name=$1; shift
  timed "$name" "${CONTEND_BENCH_TIMEOUT:-600}" contend --cache-dir "$C" --report "$out/$name" "$@"
  grep -E '^contend|^error|^all ' "$out/$name.log" | sed 's/^/    /' | cut -c1-400 | head -${CONTEND_BENCH_LINES:-12}
}
rm -rf "$C"
run all-cold
run all-warm
run self-test --self-test
echo "targets: every GPU-runnable atom/red/bulk variant under contention <= 60 s; false alarms 0; planted violations detected: all"
