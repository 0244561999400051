#!/bin/sh
# The sweep benchmark of issue 11, through the bundle (npm run gpu:pack; carry .bundle to the GPU host).
# Usage: sh scripts/gpu/sweep-bench.sh OUTDIR [one|all|f32]
#   one: a partial sweep of four variants (256 cells), then atom.global.add.noftz.f16 over all 2^32
#        pairs with an empty reference cache (cold), again (warm), and its self-test; the bulk
#        add.noftz.f16 self-test; one 32-bit sweep (red.global.add.f32 against +0) and its self-test;
#   all: every 16-bit sweep of sm_90 (--budget 0) with an empty reference cache, then again with the
#        records it cached;
#   f32: the 32-bit float add sweeps with an empty reference cache for SWEEP_BUDGET seconds (default 300).
# Prints wall-clock seconds, the sweep lines and where the seconds went; logs and reports in OUTDIR.
out=${1:-/tmp/ptxconf-sweep-bench}
what=${2:-one}
mkdir -p "$out"
. "$(dirname "$0")/bench-lib.sh"
C="$out/cache"
run() {
  name=$1; shift
  timed "$name" "${SWEEP_BENCH_TIMEOUT:-600}" sweep --cache-dir "$C" --report "$out/$name" "$@"
  grep -E '^sweep[ :]|^error' "$out/$name.log" | grep -v '^sweep seconds' | sed 's/^/    /' | head -${SWEEP_BENCH_LINES:-8}
  grep -E '^sweep seconds' "$out/$name.log" | sed 's/^/    /'
}
if [ "$what" = one ]; then
  rm -rf "$C"
  run partial-256-cells --filter 'atom.global.add.noftz.f1?,red.global.add.noftz.bf1?,atom.global.max.bf16x2,red.shared::cta.min.noftz.v8.f16' --cells 256 --budget 0
  rm -rf "$C/sweep"
  run f16-add-cold --filter 'atom.global.add.noftz.f1?' --budget 0
  run f16-add-warm --filter 'atom.global.add.noftz.f1?' --budget 0
  run f16-add-warm-again --filter 'atom.global.add.noftz.f1?' --budget 0
  run f16-add-self-test --filter 'atom.global.add.noftz.f1?' --budget 0 --self-test
  echo "self-test: expected mismatches for f16 add (b subnormal, a not NaN): 2046 x 63490 = 129900540"
  run bulk-f16-add-self-test --filter 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16' --budget 0 --self-test
  echo "self-test: expected mismatches for bulk f16 add (b subnormal, a not NaN): 2046 x 63490 = 129900540"
  run f32-red-cold --filter 'red.global.add.f32' --budget 1
  run f32-red-warm --filter 'red.global.add.f32' --budget 1
  run f32-red-self-test --filter 'red.global.add.f32' --budget 1 --self-test
  echo "self-test: expected mismatches for f32 add against +0 (x subnormal): 2 x (2^23 - 1) = 16777214"
  echo "targets: one 2^32 sweep warm <= 2 s, cold <= 20 s"
elif [ "$what" = all ]; then
  rm -rf "$C"
  SWEEP_BENCH_LINES=400 run all-sm_90-cold --budget 0
  SWEEP_BENCH_LINES=400 run all-sm_90-warm --budget 0
  echo "target: all 16-bit sweeps of sm_90 <= 3 min"
else
  rm -rf "$C"
  SWEEP_BENCH_LINES=1000 run f32-budget --filter '*.f32' --budget "${SWEEP_BUDGET:-300}"
fi
