#!/bin/sh
# The nightly GPU job rehearsed on a GPU host without node (issue 40), through the bundle
# (npm run gpu:pack; carry .bundle): a first run accepted as the baseline (npm run accept-baseline,
# bundled), then the nightly job's own script (.ci/nightly-gpu) twice against it, each diff kept.
# Across two GPUs: OTHER, a report of the same run on another GPU (the recorded H100 run), is diffed
# against the accepted baseline as the nightly job would (--fail-on regressions).
# Usage: sh scripts/gpu/nightly-rehearsal.sh OUTDIR [OTHER]   (logs, the accepted baseline and the diffs in OUTDIR)
out=${1:?usage: sh scripts/gpu/nightly-rehearsal.sh OUTDIR [OTHER]}
other=${2:-}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
B="$here/.bundle"
export CONFORMANCE="sh $B/conformance.sh" XDG_CACHE_HOME=/tmp/nightly-cache
sh "$B/conformance.sh" --help > /dev/null || exit 3   # unpacks node into /tmp/ptxconf-node
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
s=$(date +%s)
rm -rf reports/accepted-run
sh "$B/conformance.sh" --backend gpu --arch sm_90 --report reports/accepted-run > "$out/accepted-run.log" 2>&1
echo "accepted run: exit $? in $(( $(date +%s) - s )) s"
/tmp/ptxconf-node "$B/accept-baseline.mjs" reports/accepted-run/report.json > "$out/accept.log" 2>&1
echo "accept-baseline: exit $?"; tail -2 "$out/accept.log"
cp reports/accepted/sm_90-gpu.json.gz "$out/"
for n in 1 2; do
  s=$(date +%s)
  NIGHTLY_REPORT="reports/nightly-$n" bash .ci/nightly-gpu > "$out/nightly-$n.log" 2>&1
  echo "nightly $n: exit $? in $(( $(date +%s) - s )) s"
  cp "reports/nightly-$n/diff.txt" "$out/diff-$n.txt" 2>/dev/null
  grep -E '^(old|new): |change\(s\)|^regressions|^finding ' "$out/nightly-$n.log" | sed 's/^/    /'
done
if [ -n "$other" ]; then
  sh "$B/conformance.sh" diff reports/accepted/sm_90-gpu.json.gz "$other" --fail-on regressions > "$out/diff-other-gpu.txt" 2>&1
  echo "diff against $other: exit $?"
  grep -E '^(old|new): |change\(s\)|^regressions|^finding |^  +[0-9]+  ' "$out/diff-other-gpu.txt" | sed 's/^/    /'
fi
