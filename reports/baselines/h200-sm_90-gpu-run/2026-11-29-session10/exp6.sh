#!/bin/sh
# Session 10, call 6: the last code's bundle (raw SASS counted only where every kernel's code has a line), the bench twice.
R=$(pwd); O=${OUT:-/tmp/out}; mkdir -p $O/e
sh .bundle/conformance.sh --version > /dev/null 2>&1
nproc; uptime
for round in 1 2; do sh scripts/gpu/default-run-bench.sh $O/e/last$round > $O/e/bench-last$round.txt 2>&1; done
for f in $O/e/bench-*.txt; do echo "== $f"; cat $f; done
for f in $O/e/*/cold.log; do echo "$f $(grep -h 'modules: 0/\|modules: 1/' $f | awk '{print $1}' | tr '\n' ' ') $(grep -h 'ready (0 from' $f | tail -1 | awk '{print $1, $4}') $(grep -h 'cases of' $f | awk '{print $1}') $(grep -ho 'making cases [0-9.]* s' $f)"; done
rm -rf $O/e/*/prof
cd $O && tar czf calls6.tgz e && rm -rf e
