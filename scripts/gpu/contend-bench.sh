#!/bin/sh
# The contention benchmark of issue 12, through the bundle (npm run gpu:pack; carry .bundle to the GPU host).
# Usage: sh scripts/gpu/contend-bench.sh OUTDIR
#   every GPU-runnable atom/red representative under contention (default reps), twice (cubin cache
#   cold, then warm), and the self-test; prints wall-clock seconds and the contend lines.
out=${1:-/tmp/ptxconf-contend-bench}
mkdir -p "$out"
B="$(dirname "$0")/../../.bundle/conformance.sh"
C="$out/cache"
run() {
  name=$1; shift
  s=$(date +%s.%N)
  timeout "${CONTEND_BENCH_TIMEOUT:-600}" sh "$B" contend --cache-dir "$C" --report "$out/$name" "$@" > "$out/$name.log" 2>&1
  rc=$?
  e=$(date +%s.%N)
  printf '%-22s %7.1f s  exit %s\n' "$name" "$(awk "BEGIN{print $e - $s}")" "$rc"
  grep -E '^contend|^error|^all ' "$out/$name.log" | sed 's/^/    /' | cut -c1-400 | head -${CONTEND_BENCH_LINES:-12}
}
rm -rf "$C"
run all-cold
run all-warm
run self-test --self-test
echo "targets: every GPU-runnable atom/red/bulk variant under contention <= 60 s; false alarms 0; planted violations detected: all"
