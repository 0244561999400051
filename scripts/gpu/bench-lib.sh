# Shared by the GPU benchmark scripts (sourced): the bundle's CLI, and one timed run of it.
# timed NAME TIMEOUT_S ARGS...: runs `conformance.sh ARGS` with output in $out/NAME.log, prints the
# wall-clock seconds and the exit code.
B="$(dirname "$0")/../../.bundle/conformance.sh"
timed() {
  name=$1; limit=$2; shift 2
  s=$(date +%s.%N)
  timeout "$limit" sh "$B" "$@" > "$out/$name.log" 2>&1
  rc=$?
  e=$(date +%s.%N)
  printf '%-22s %7.1f s  exit %s\n' "$name" "$(awk "BEGIN{print $e - $s}")" "$rc"
}
