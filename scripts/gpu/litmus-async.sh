#!/bin/sh
# The async-proxy litmus tests on the GPU, through the bundle (npm run gpu:pack; carry .bundle).
# Usage: sh scripts/gpu/litmus-async.sh OUTDIR [PEER_DIR]
#   1. async: every Bulk+*, Copy+*, RedAsync+*, Alias+*, Tensormap+* and Vector+* test of the corpus and the spin loops, and their
#      mutants (class async among them), 1 M instances each, the default stress settings;
#   2. async-stress: the same with 8 stress warps and the threads aligned on a barrier word;
#   3. the self-test (the planted kernels, the async one among them, must be flagged);
#   4. suite: the whole corpus (a check that the runner's other tests still run as before);
#   4b. peers: Dat3M's tests (PEER_DIR, default .peers/dat3m, when present), default and heavy stress;
#   5. the SASS of the bulk modules (cuobjdump, where the host has it).
# Prints each run's wall seconds and exit code.
out=${1:-/tmp/ptxconf-litmus-async}
mkdir -p "$out"
cache=${CACHE:-/tmp/ptxconf-async-cache}
. "$(dirname "$0")/bench-lib.sh"
timed async 300 litmus --backend gpu --arch sm_90 --mutants cases/litmus/Bulk+*.litmus cases/litmus/Copy+*.litmus cases/litmus/RedAsync+*.litmus cases/litmus/Alias+*.litmus cases/litmus/Tensormap+*.litmus cases/litmus/Vector+*.litmus cases/litmus/MP+spin-loop*.litmus --cache-dir "$cache" --report "$out/async"
timed async-stress 300 litmus --backend gpu --arch sm_90 --mutants --stress-warps 8 --align cases/litmus/Bulk+*.litmus cases/litmus/Copy+*.litmus cases/litmus/RedAsync+*.litmus cases/litmus/Alias+*.litmus cases/litmus/Tensormap+*.litmus cases/litmus/Vector+*.litmus cases/litmus/MP+spin-loop*.litmus --cache-dir "$cache" --report "$out/async-stress"
timed self-test 120 litmus --backend gpu --arch sm_90 --self-test --cache-dir "$cache" --report "$out/self-test"
timed suite 200 litmus --backend gpu --arch sm_90 cases/litmus --cache-dir "$cache" --report "$out/suite"
peers=${2:-.peers/dat3m}
if [ -d "$peers" ]; then
  timed peers 300 litmus --backend gpu --arch sm_90 "$peers" --cache-dir "$cache" --report "$out/peers"
  timed peers-stress 300 litmus --backend gpu --arch sm_90 --stress-warps 8 --align "$peers" --cache-dir "$cache" --report "$out/peers-stress"
fi
if command -v cuobjdump >/dev/null 2>&1; then
  for b in "$cache"/cubin/*.cubin; do
    cuobjdump -sass "$b" 2>/dev/null | grep -i -E "UBLKRED|UBLKCP|UTMA|FENCE|SYNCS|DEPBAR|MEMBAR|CCTL|BAR\.|ERRBAR" | sed "s|^|$(basename "$b" .cubin | cut -c1-12): |" >> "$out/sass-async.txt"
  done
fi
ls "$out"
