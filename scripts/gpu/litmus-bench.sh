#!/bin/sh
# The GPU litmus benchmark of issue 26, through the bundle (npm run gpu:pack; carry .bundle, and the
# Dat3M peer tests copied into .peers/dat3m, to the GPU host).
# Usage: sh scripts/gpu/litmus-bench.sh OUTDIR [PEER_DIR]
#   1. suite: the corpus (cases/litmus) and the peer tests, >= 1 M instances each, timed end to end;
#   2. search: --search-stress (per-class stress settings chosen on sampled mutants, written to
#      OUTDIR/gpu-stress.json), then the tests and every mutant under the chosen settings;
#   3. the self-test (a planted forbidden outcome must be flagged).
# Prints each run's wall seconds and exit code, then the figures of the targets (litmus-figures.mjs).
out=${1:-/tmp/ptxconf-litmus-bench}
peers=${2:-.peers/dat3m}
mkdir -p "$out"
. "$(dirname "$0")/bench-lib.sh"
timed suite 150 litmus --backend gpu --arch sm_90 cases/litmus "$peers" --report "$out/suite"
cp cases/litmus/gpu-stress.json "$out/gpu-stress.before.json" 2>/dev/null
timed search 400 litmus --backend gpu --arch sm_90 --search-stress --stress-file "$out/gpu-stress.json" cases/litmus --report "$out/search"
timed self-test 60 litmus --backend gpu --arch sm_90 --self-test --report "$out/self-test"
/tmp/ptxconf-node "$(dirname "$0")/litmus-figures.mjs" "$out"
