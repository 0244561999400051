#!/bin/sh
# Instructions a line of a JSON-lines read in steady state, independent of the machine's load:
# scripts/read-loop.ts under valgrind's cachegrind, reading FILE once and three times (V8's compiles
# made synchronous, so the count repeats within about 1%); (three - one) / 2 / lines.
# Usage: sh scripts/bench-read-instructions.sh FILE.jsonl   (needs valgrind; a few minutes for 1 M lines)
f=${1:?usage: sh scripts/bench-read-instructions.sh FILE.jsonl}
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    node --no-concurrent-recompilation --single-threaded-gc --import tsx "$(dirname "$0")/read-loop.ts" "$f" "$1" 2>&1 |
    awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}
one=$(count 1)
three=$(count 3)
lines=$(wc -l < "$f")
awk -v a="$one" -v b="$three" -v n="$lines" 'BEGIN { printf "%s: %.0f instructions a line in steady state (one read %.2f G, three %.2f G, %d lines)\n", ARGV[1], (b - a) / 2 / n, a / 1e9, b / 1e9, n }' "$f"
