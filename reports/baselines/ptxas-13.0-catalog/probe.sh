#!/bin/sh
# Standalone check of the red.async lines ptxas 13.0 accepts for sm_100a though 9.7.15.7 has no
# syntax line for them (cases/expectations/ptxas-13.0-sm_100.yaml). Prints each line and ptxas's exit
# code (0: accepted). Needs only ptxas on PATH.
set -u
dir=$(mktemp -d)
for line in \
  "red.async.release.gpu.global.min.u32 [%rd1], %r1;" \
  "red.async.release.sys.global.inc.u32 [%rd1], %r1;" \
  "red.async.release.gpu.global.and.b32 [%rd1], %r1;" \
  "red.async.mmio.release.gpu.global.add.u32 [%rd1], %r1;" \
  "red.async.relaxed.gpu.global.add.u32 [%rd1], %r1;" \
  "red.async.release.gpu.global.add.u32 [%rd1], %r1;" \
  "red.async.release.cluster.global.add.u32 [%rd1], %r1;"; do
  cat > "$dir/k.ptx" <<PTX
.version 9.0
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p) {
 .reg .b64 %rd<3>; .reg .b32 %r<3>;
 ld.param.u64 %rd1, [p]; mov.u32 %r1, 1;
 $line
 ret;
}
PTX
  ptxas -arch=sm_100a "$dir/k.ptx" -o "$dir/k.cubin" >"$dir/msg" 2>&1
  printf '%s\t%s\t%s\n' "$?" "$line" "$(head -1 "$dir/msg")"
done
rm -rf "$dir"
