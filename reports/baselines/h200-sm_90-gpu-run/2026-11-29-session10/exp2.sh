#!/bin/sh
# Session 10, call 2: the cold default run, raw-binary SASS (HEAD) against whole cubins (5643be5, .bundle/old), in turn; then a cold run with the tools' timeline and the run's CPU profile.
R=$(pwd); O=${OUT:-/tmp/out}; mkdir -p $O/b
sh .bundle/conformance.sh --version > /dev/null 2>&1
N=/tmp/ptxconf-node
nproc; uptime
for round in 1 2; do
  BUNDLE=$R/.bundle/old sh scripts/gpu/default-run-bench.sh $O/b/old$round > $O/b/bench-old$round.txt 2>&1
  BUNDLE=$R/.bundle sh scripts/gpu/default-run-bench.sh $O/b/new$round > $O/b/bench-new$round.txt 2>&1
done
# the tools' timeline: shims log each call's start and end
mkdir -p /tmp/shim
for t in ptxas nvdisasm cuobjdump; do
  real=$(command -v $t)
  printf '#!/bin/sh\necho "$(date +%%s%%3N) start $$ %s $*" >> /tmp/tools.log\n%s "$@"\nrc=$?\necho "$(date +%%s%%3N) end $$ %s" >> /tmp/tools.log\nexit $rc\n' $t "$real" $t > /tmp/shim/$t
  chmod +x /tmp/shim/$t
done
for v in new old; do
  B=$R/.bundle; [ $v = old ] && B=$R/.bundle/old
  rm -rf /tmp/c-tl /tmp/tools.log /tmp/r-tl; mkdir -p $O/b/prof-$v
  S=$(date +%s%3N); echo "$S run-start" > /tmp/tools.log
  PATH=/tmp/shim:$PATH $N --cpu-prof --cpu-prof-dir=$O/b/prof-$v $B/cli.mjs --backend gpu --arch sm_90 --cache-dir /tmp/c-tl --report /tmp/r-tl 2>&1 | START=$S $N scripts/gpu/stamp.mjs > $O/b/timeline-$v.log
  echo "$(date +%s%3N) run-end" >> /tmp/tools.log
  cp /tmp/tools.log $O/b/tools-$v.log
done
for f in $O/b/bench-*.txt; do echo "== $f"; grep -h "ms verdicts\|empty cache\|warm:" $f; done
grep -h "modules: 0/\|modules: 1/\|ready (0 from\|judged in\|cases of" $O/b/timeline-*.log | cut -c1-200 | grep -v "modules: [2-9]/\|modules: [12][0-9]/\|modules: 3[01]/"
rm -rf $O/b/*/prof
cd $O && tar czf profs.tgz b/prof-* && rm -rf b/prof-* && tar czf calls2.tgz b && rm -rf b
ls -la $O
