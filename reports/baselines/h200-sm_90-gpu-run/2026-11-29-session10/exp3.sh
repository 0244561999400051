#!/bin/sh
# Session 10, call 3: the cold default run at HEAD with two (561), three (374) and four (280) modules per core, in turn; then the bench at the default.
R=$(pwd); O=${OUT:-/tmp/out}; mkdir -p $O/c
sh .bundle/conformance.sh --version > /dev/null 2>&1
nproc; uptime
for round in 1 2; do
  for m in 561 374 280; do
    PTXCONF_MODULE_SIZE=$m sh scripts/gpu/default-run-bench.sh $O/c/m$m-$round > $O/c/bench-m$m-$round.txt 2>&1
  done
done
sh scripts/gpu/default-run-bench.sh $O/c/final > $O/c/bench-final.txt 2>&1
for f in $O/c/bench-*.txt; do echo "== $f"; grep -h "ms verdicts" $f | cut -c1-60; grep -h "sass" $f | awk '{print $NF}' | sort | uniq -c; done
for f in $O/c/*/cold.log; do echo "$f $(grep -h 'modules: 0/\|modules: 1/' $f | awk '{print $1}' | tr '\n' ' ') $(grep -h 'ready (0 from' $f | tail -1 | awk '{print $1, $4}') $(grep -h 'cases of' $f | awk '{print $1}')"; done
rm -rf $O/c/*/prof
cd $O && tar czf calls3.tgz c && rm -rf c
