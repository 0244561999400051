#!/bin/sh
# Issue 27, deliverable 5, on a GPU host: npm run bench:vector-file for the new build and an older
# one, each with an empty cubin cache and again warm, on the TestFloat f16 add file (1.3 M cases, one
# variant) and on a 12-variant file of 1.3 M cases (bench-vector-file --mix). Each build is a folder
# with cli.mjs, worker.mjs, executor.mjs, cuda_launcher.node and bench-vector-file.mjs (esbuild, as
# scripts/gpu/pack.mjs makes them); node from NODE_XZ (the bundle's node.xz).
# Usage: sh scripts/gpu/vector-file-bench.sh OUTDIR NODE_XZ NEW_DIR [OLD_DIR]
# Logs: OUTDIR/<file>-<build>-<cold|warm|warm2>.txt (the bench's lines and stage table; warm twice for the spread).
out=$1; nodexz=$2; new=$3; old=$4
mkdir -p "$out"
N=/tmp/ptxconf-node
[ -x $N ] || { xz -dc "$nodexz" > $N && chmod +x $N; }
echo "host: $(nproc) cores; $(nvidia-smi -L 2>/dev/null | head -2 | tr '\n' ' ')"
one() { # file build dir
  f=$1; b=$2; d=$3
  export XDG_CACHE_HOME=/tmp/vfb-cache-$f-$b
  rm -rf "$XDG_CACHE_HOME"
  for t in cold warm warm2; do
    timeout 240 $N "$d/bench-vector-file.mjs" --file /tmp/vfb-$f.jsonl > "$out/$f-$b-$t.txt" 2>&1
    echo "== $f $b $t: exit $?"
    sed -n '/^stage/,$p' "$out/$f-$b-$t.txt"
  done
}
# the files, written once by the new build's bench (its first run writes a missing --file)
$N "$new/bench-vector-file.mjs" --file /tmp/vfb-testfloat.jsonl --write-only
$N "$new/bench-vector-file.mjs" --file /tmp/vfb-mixed.jsonl --mix --write-only
ls -la /tmp/vfb-*.jsonl
for f in testfloat mixed; do
  one $f new "$new"
  [ -n "$old" ] && one $f old "$old"
done
