#!/usr/bin/env bash
# A new user's trial on a fresh clone with nothing beside it (no ../shared): install, npm test, the
# main job, a vector file with a wrong expect:, litmus from a subfolder, every command's --help, a
# misspelt command, repro --finding. Prints each step's exit code and the lines that matter.
# Usage: bash scripts/trial-clone.sh [WORKDIR]   (default: a new temporary folder; the clone is WORKDIR/repo)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/trial-clone-XXXXXX)}
mkdir -p "$work"
[ ! -e "$work/shared" ] || { echo "trial: $work/shared exists; use a folder with nothing beside the clone" >&2; exit 2; }
rm -rf "$work/repo"
git clone -q "$src" "$work/repo" && cd "$work/repo" || exit 2
step() { echo; echo "== $*"; }
t() { local s; s=$(date +%s.%N); "$@"; local rc=$?; printf -- '-- exit %s in %.1f s\n' "$rc" "$(echo "$(date +%s.%N) - $s" | bc)"; return $rc; }

step "npm ci"
t npm ci --no-audit --no-fund > "$work/install.log" 2>&1; tail -3 "$work/install.log"
step "npm test (nothing beside the clone)"
t npm test > "$work/test.log" 2>&1; grep -E '^ (Test Files|      Tests) ' "$work/test.log"; grep -c '^\[skip\]' "$work/test.log" | sed 's/^/[skip] lines: /'; grep '^\[skip\]' "$work/test.log" | cut -c1-160 | sort -u | head -12
step "npm run conformance (the main job)"
t npm run -s conformance > "$work/main.log" 2>&1; grep -E '^(backend|spec|catalog):|^all results|^report:' "$work/main.log" | cut -c1-200
step "a vector file with a wrong expect:"
mkdir -p sub && cat > sub/mine.yaml <<'EOF'
cases:
  - name: add-one
    instruction: atom.global.add.f32
    memory: ["0x3f800000"]
    operands: { b: ["0x3f800000"] }
    expect:
      memory: ["0x40400000"]
EOF
(cd sub && t npm run -s conformance -- --vectors mine.yaml --report "$work/wrong-expect" > "$work/wrong.log" 2>&1); sed -n '/^failing results/,/^  replay:/p' "$work/wrong.log"
step "litmus from a subfolder"
cp cases/litmus/MP+atom.release+atom.acquire.gpu.litmus sub/MP.litmus
(cd sub && t npm run -s conformance -- litmus MP.litmus --report "$work/litmus" 2>&1 | tail -4)
step "every command's --help"
for c in diff render merge export sweep contend repro litmus lens hostmem peer; do
  npm run -s conformance -- "$c" --help > /dev/null 2>&1; echo "$c --help: exit $?"
done
step "misspelt commands"
npm run -s conformance -- litmsu 2>&1; echo "-- exit $?"
npm run -s conformance -- dif a b 2>&1; echo "-- exit $?"
step "repro --finding of a toolchain finding"
t npm run -s conformance -- repro reports/baselines/ptxas-13.0-catalog/sm_100a-red-async-report.json.gz --finding F1 --out "$work/repro-f1" 2>&1 | tail -3
ls "$work/repro-f1"
