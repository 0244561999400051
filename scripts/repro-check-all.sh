#!/bin/sh
# Runs every toolchain reproducer (check.sh) under reports/findings/ with each ptxas given, and prints
# per folder, toolchain and module (entry.ptx at the run's PTX ISA, entry-min.ptx at the lowest) what it said (REPRODUCED, NOT REPRODUCED, CANNOT CHECK).
#   sh scripts/repro-check-all.sh [PTXAS...]      (default: ptxas on PATH)
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- "$(command -v ptxas)"
for p in "$@"; do echo "# $p: $("$p" --version | tail -2 | head -1)"; done
for d in reports/findings/*/*/; do
  [ -f "$d/check.sh" ] || continue
  for p in "$@"; do
    v=$("$p" --version | grep -o 'release [0-9.]*')
    for f in entry.ptx entry-min.ptx; do
      printf '%s\t%s\t%s\t%s\n' "${d%/}" "$v" "$f" "$(PTXAS=$p sh "$d/check.sh" "$f" | tail -1)"
    done
    rm -f "$d/ptxas.log"
  done
done
