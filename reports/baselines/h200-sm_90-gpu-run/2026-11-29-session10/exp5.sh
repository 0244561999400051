#!/bin/sh
# Session 10, call 4: the last code's bundle (conformance.sh starts node with package.json's --max-semi-space-size=64),
# the bench twice, against the same bundle started without the flag, in turn.
R=$(pwd); O=${OUT:-/tmp/out}; mkdir -p $O/d
cat .bundle/conformance.sh | tail -1
sh .bundle/conformance.sh --version > /dev/null 2>&1
nproc; uptime
rm -rf /tmp/nf && cp -r .bundle /tmp/nf && sed -i 's/ --max-semi-space-size=64//' /tmp/nf/conformance.sh && tail -1 /tmp/nf/conformance.sh && sh /tmp/nf/conformance.sh --version
for round in 1 2; do
  BUNDLE=/tmp/nf sh scripts/gpu/default-run-bench.sh $O/d/noflagA$round > $O/d/bench-noflagA$round.txt 2>&1
  sh scripts/gpu/default-run-bench.sh $O/d/flag$round > $O/d/bench-flag$round.txt 2>&1
  BUNDLE=/tmp/nf sh scripts/gpu/default-run-bench.sh $O/d/noflag$round > $O/d/bench-noflag$round.txt 2>&1
done
for f in $O/d/bench-*.txt; do echo "== $f"; grep -h "ms verdicts" $f | cut -c1-60; grep -h "sass" $f | awk '{print $NF}' | sort | uniq -c; done
for f in $O/d/*/cold.log; do echo "$f $(grep -h 'modules: 0/\|modules: 1/' $f | awk '{print $1}' | tr '\n' ' ') $(grep -h 'ready (0 from' $f | tail -1 | awk '{print $1, $4}') $(grep -h 'cases of' $f | awk '{print $1}') $(grep -ho 'making cases [0-9.]* s' $f)"; done
rm -rf $O/d/*/prof
cd $O && tar czf calls4.tgz d && rm -rf d
