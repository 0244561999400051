#!/bin/sh
# Issue 43's GPU benchmark, through the bundle (npm run gpu:pack; carry .bundle to the GPU host): the
# default run (--backend gpu) with an empty cache, then warm twice, then warm with the run's own CPU
# profile. Each log line is stamped with its seconds since the start (stamp.mjs); each run's sorted
# (id, verdict) lines are digested, so that two runs' verdicts compare. Prints the targets, met or NOT met.
# Usage: sh scripts/gpu/default-run-bench.sh OUTDIR [ARCH]   (logs OUTDIR/*.log, profile OUTDIR/prof/)
out=$1; arch=${2:-sm_90}
d=$(dirname "$0")
# BUNDLE: another bundle folder to time (an A/B on one machine)
BD=${BUNDLE:-$d/../../.bundle}
B="$BD/conformance.sh"
N=/tmp/ptxconf-node
sh "$B" --version > /dev/null 2>&1 # unpacks node
mkdir -p "$out/prof"
C=/tmp/ptxconf-default-run-cache; rm -rf "$C" /tmp/ptxconf-drb-*
run() {
  name=$1; shift
  S=$(date +%s%3N)
  "$@" --backend gpu --arch "$arch" --cache-dir "$C" --report "/tmp/ptxconf-drb-$name" 2>&1 | START=$S $N "$d/stamp.mjs" > "$out/$name.log"
  ms=$(( $(date +%s%3N) - S ))
  v=$(zcat "/tmp/ptxconf-drb-$name/results.jsonl.gz" | $N -e "const l=require('fs').readFileSync(0,'utf8').trim().split('\n').map(x=>JSON.parse(x)).filter(o=>o.verdict).map(o=>o.id+' '+o.verdict).sort();console.log(l.length, require('crypto').createHash('sha256').update(l.join('\n')).digest('hex'))")
  # the SASS each kept result carries (none may be the placeholder of a module whose SASS was still being read)
  sass=$(zcat "/tmp/ptxconf-drb-$name/results.jsonl.gz" | $N -e "const l=require('fs').readFileSync(0,'utf8').trim().split('\n').map(x=>JSON.parse(x)).filter(o=>o.verdict&&o.kind==='case').map(o=>o.id+' '+(o.sass??'-')).sort();console.log(l.length, 'placeholders', l.filter(x=>x.endsWith('(SASS being read)')).length, require('crypto').createHash('sha256').update(l.join('\n')).digest('hex'))")
  echo "$name $ms ms verdicts $v sass $sass"
  eval "ms_$name=$ms"
}
run cold sh "$B"
run warm1 sh "$B"
run warm2 sh "$B"
run warmprof $N --cpu-prof --cpu-prof-dir="$out/prof" "$BD/cli.mjs"
w=$ms_warm1; [ "$ms_warm2" -lt "$w" ] && w=$ms_warm2
echo "default GPU run, empty cache: $ms_cold ms (target <= 12000: $([ "$ms_cold" -le 12000 ] && echo met || echo NOT met))"
echo "default GPU run, warm: $w ms, the better of two (target <= 4000: $([ "$w" -le 4000 ] && echo met || echo NOT met))"
