#!/bin/sh
# Runs ptxas on entry.ptx (multimem.red.gpu.add.f32 on sm_100a) and says whether its answer still differs from the
# PTX ISA text's: the text expects accept; the recorded run's ptxas rejected.
# REPRODUCED (exit 1): it still differs; NOT REPRODUCED (exit 0); 2: no ptxas. PTXAS=path picks another ptxas.
set -u
cd "$(dirname "$0")"
P=${PTXAS:-ptxas}
command -v "$P" >/dev/null 2>&1 || { echo "no ptxas (set PTXAS=/path/to/ptxas)"; exit 2; }
"$P" --version | tail -1
"$P" -arch=sm_100a entry.ptx -o /dev/null >ptxas.log 2>&1
rc=$?
sed "s/^/  ptxas: /" ptxas.log
# killed by a signal: 128 + its number (139: SIGSEGV); ptxas itself exits 255 on an error
if [ $rc -gt 128 ] && [ $rc -lt 255 ]; then got=crashed; elif [ $rc -eq 0 ]; then got=accept; else got=reject; fi
want=accept
# a crash is no answer the text allows, whatever it expects
if [ "$got" != crashed ] && { [ "$want" = either ] || [ "$got" = "$want" ]; }; then
  echo "NOT REPRODUCED: ptxas answers $got (exit $rc), as the PTX ISA text allows (accept)"; exit 0
fi
echo "REPRODUCED: ptxas answers $got (exit $rc), where the PTX ISA text says accept (the recorded run: rejected)"
exit 1
