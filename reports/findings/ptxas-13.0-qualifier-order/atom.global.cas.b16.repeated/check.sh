#!/bin/sh
# Runs ptxas on entry.ptx (atom.global.cas.b16~repeated on sm_90) and says whether its answer is still the recorded one, where the text is silent:
# the text does not say (expect either); the recorded run's ptxas rejected.
# sh check.sh [FILE]: FILE entry.ptx (default) or entry-min.ptx. REPRODUCED (exit 1): ptxas still rejects it; NOT REPRODUCED (exit 0): it answers otherwise; CANNOT CHECK (exit 2): no ptxas, or one without the target or PTX ISA version. PTXAS=path picks another ptxas.
set -u
cd "$(dirname "$0")"
P=${PTXAS:-ptxas}
command -v "$P" >/dev/null 2>&1 || { echo "no ptxas (set PTXAS=/path/to/ptxas)"; exit 2; }
"$P" --version | tail -1
F=${1:-entry.ptx}
V=$(sed -n "s/^\.version //p" "$F")
"$P" -arch=sm_90 "$F" -o /dev/null >ptxas.log 2>&1
rc=$?
sed "s/^/  ptxas: /" ptxas.log
# a toolchain that does not know the target or the PTX ISA version cannot answer the question
if grep -qE "is not defined for option 'gpu-name'|Unsupported \.version|does not support \.target|not supported on \.target" ptxas.log; then
  echo "CANNOT CHECK: this ptxas does not know .target sm_90 or PTX ISA $V ($F)"; exit 2
fi
# killed by a signal: 128 + its number (139: SIGSEGV); ptxas itself exits 255 on an error
if [ $rc -gt 128 ] && [ $rc -lt 255 ]; then got=crashed; elif [ $rc -eq 0 ]; then got=accept; else got=reject; fi
want=reject
if [ "$got" = "$want" ]; then
  echo "REPRODUCED: ptxas answers $got (exit $rc) at PTX ISA $V, as the recorded run did (at 9.0: rejected); the PTX ISA text does not say (either)"; exit 1
fi
echo "NOT REPRODUCED: ptxas answers $got (exit $rc) at PTX ISA $V, where the recorded run's ptxas rejected (the PTX ISA text does not say: either)"
exit 0
