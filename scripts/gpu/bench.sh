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
# a user's big file on the GPU: 1,000,000 JSON lines of four instructions (as npm run bench:vectors writes)
awk 'BEGIN { srand(12345); split("atom.global.add.f32 red.global.add.u32 atom.global.cas.b32 atom.global.add.noftz.f16", k, " ");
  for (i = 0; i < 1000000; i++) { j = i % 4 + 1; d = (j == 4) ? 4 : 8; f = "%0" d "x";
    m = sprintf(f, int(rand() * 16 ^ d)); b = sprintf(f, int(rand() * 16 ^ d)); c = sprintf(f, int(rand() * 16 ^ d));
    printf "{\"name\": \"case-%d\", \"instruction\": \"%s\", \"memory\": [\"0x%s\"], \"operands\": {\"b\": [\"0x%s\"]%s}}\n", i, k[j], m, b, (j == 3) ? ", \"c\": [\"0x" c "\"]" : "" } }' > "$out/mixed-1e6.jsonl"
run vectors-1e6-jsonl --vectors "$out/mixed-1e6.jsonl" --backend gpu
grep -E '^cases: |peak|^gpu: [0-9]+ cases' "$out/vectors-1e6-jsonl.log" | head -3 | sed 's/^/    /'
rm -f "$out/mixed-1e6.jsonl"
echo "targets: cold <= 30 s, warm <= 10 s, --generated 100000 >= 50 M judged cases/s"
