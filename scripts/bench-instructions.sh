#!/bin/sh
# Instructions per validating read of a vector file, counted (valgrind's cachegrind, node --predictable:
# one thread, no concurrent compiling), for two trees of this repository: a figure the 2-core
# machine's timing noise (+-15 %) does not move. Each tree reads the file 1 and 9 times in one process;
# (9 reads - 1 read) / 8 is one warm read (1 and 3 reads left +-4 % of run-to-run spread in the difference). Both the native scanner's path and the TypeScript twin's.
# Usage: sh scripts/bench-instructions.sh TREE_BEFORE TREE_AFTER FILE
# (each tree a checkout with node_modules and, for the native row, native/reader/build; the before tree
# needs scripts/bench-read-reps.ts: copy it there). Prints one line per tree and path.
set -e
[ $# -eq 3 ] || { echo "usage: sh scripts/bench-instructions.sh TREE_BEFORE TREE_AFTER FILE" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
count() { # tree native(0/1) reps -> instructions
  (cd "$1" && PTX_NATIVE_SCAN=$2 valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    node --predictable --import tsx scripts/bench-read-reps.ts "$3" "$4" 2>&1 | sed -n 's/.*I *refs: *//p' | tr -d ',')
}
for path in 0 1; do
  name=$([ $path = 1 ] && echo native || echo typescript)
  for t in "$1" "$2"; do
    a=$(count "$t" $path "$3" 1); b=$(count "$t" $path "$3" 9)
    echo "$name $t: $(( (b - a) / 8 )) instructions per warm read (1 read: $a, 9 reads: $b)"
  done
done
