#!/bin/sh
# On a GPU host (no node): the toolchain matrix on the hardware. contend and the gpu backend's
# default run, each under the host's ptxas and under Debian's ptxas 11.8 carried as BUNDLE/ptxas-11.8.xz;
# reports (gzipped), matrices and logs in OUT/matrix-run.tgz.
#   sh scripts/gpu/matrix-run.sh BUNDLE OUT
set -u
b=$1
out=$2
mkdir -p "$out"
xz -dc "$b/ptxas-11.8.xz" > /tmp/ptxas-11.8 && chmod +x /tmp/ptxas-11.8
p13=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /'
"$p13" --version | tail -2 | head -1 | sed "s|^|$p13: |"
/tmp/ptxas-11.8 --version | tail -2 | head -1 | sed 's|^|/tmp/ptxas-11.8: |'
for job in contend contend-cluster-1024 gpu; do
  t0=$(date +%s.%N)
  case $job in
    contend) sh "$b/conformance.sh" contend --ptxas "$p13" --ptxas /tmp/ptxas-11.8 --report "$out/$job-matrix" > "$out/$job-matrix.log" 2>&1 ;;
    contend-cluster-1024) sh "$b/conformance.sh" contend --filter 'shared::cluster' --reps 1024 --ptxas "$p13" --ptxas /tmp/ptxas-11.8 --report "$out/$job-matrix" > "$out/$job-matrix.log" 2>&1 ;;
    gpu) sh "$b/conformance.sh" --backend gpu --ptxas "$p13" --ptxas /tmp/ptxas-11.8 --report "$out/$job-matrix" > "$out/$job-matrix.log" 2>&1 ;;
  esac
  rc=$?
  t1=$(date +%s.%N)
  echo "$job matrix: exit $rc, $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"
  sed -n '/^toolchain matrix:/,$p' "$out/$job-matrix.log" | head -40
done
# flat: what comes back from the device is a few folders deep at most
for d in "$out"/*-matrix; do
  j=$(basename "$d")
  cp "$d/matrix.json" "$out/$j.matrix.json"; cp "$d/matrix.txt" "$out/$j.matrix.txt"
  for t in "$d"/ptxas-*; do gzip -9c "$t/report.json" > "$out/$j.$(basename "$t").report.json.gz"; done
  rm -rf "$d"
done
# one archive: what comes back from the device is a few files at most
(cd "$out" && tar czf matrix-run.tgz --remove-files ./*-matrix.* && ls -la)
