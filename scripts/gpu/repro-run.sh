#!/bin/sh
# On a GPU host: builds every reproducer folder under the given folder (each has build.sh) with nvcc,
# runs each with its recorded launch count and with LONG launches, and prints what each said, how
# long the build and the runs took, and the SASS of the kernel's atomics (cuobjdump, where present).
#   sh scripts/gpu/repro-run.sh reports/findings/shared-cluster-atomicity [LONG]
set -u
root=$1
long=${2:-100}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
nvcc --version | tail -2
[ -n "${PTXAS:-}" ] && echo "kernels by PTXAS=$PTXAS: $("$PTXAS" --version | grep -o 'release [0-9.]*, V[0-9.]*')"
for d in "$root"/*/; do
  [ -f "$d/build.sh" ] && [ -f "$d/host.cpp" ] || continue
  name=$(basename "$d")
  t0=$(date +%s.%N)
  if ! sh "$d/build.sh" >"$d/build.log" 2>&1; then
    if grep -q "Unsupported .version" "$d/build.log"; then echo "== $name: CANNOT BUILD under this ptxas: kernel.ptx declares PTX ISA $(sed -n 's/^\.version //p' "$d/kernel.ptx"), $(grep -o "current version is '[0-9.]*'" "$d/build.log")"; continue; fi
    echo "== $name: BUILD FAILED"; cat "$d/build.log"; continue
  fi
  t1=$(date +%s.%N)
  out=$(cd "$d" && ./repro 2>&1); rc=$?
  t2=$(date +%s.%N)
  outl=$(cd "$d" && ./repro "$long" 2>&1 | tail -1); rcl=$?
  t3=$(date +%s.%N)
  echo "== $name: build $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; run $(awk "BEGIN{printf \"%.2f\", $t2 - $t1}") s, exit $rc; $long launches $(awk "BEGIN{printf \"%.2f\", $t3 - $t2}") s"
  echo "$out" | sed 's/^/   /'
  echo "   $long launches: $outl"
  if command -v cuobjdump >/dev/null; then cuobjdump -sass "$d/kernel.cubin" | grep -E 'ATOM|RED|ATOMS|LD\.E|ST\.E|CAS' | sed 's/^ */   sass: /' | head -12; fi
done
