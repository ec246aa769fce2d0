#!/bin/sh
# CUDA compiler launcher: runs the compile command (which carries --resource-usage), keeps
# ptxas's per-kernel report in <object>.ptxas.txt and shows only the rest (warnings, errors).
# Usage (set by CMake): capture-ptxas.sh <nvcc> <args...> -o <object> ...
object=""
previous=""
for argument in "$@"; do
  if [ "$previous" = "-o" ]; then object="$argument"; fi
  previous="$argument"
done
if [ -z "$object" ]; then exec "$@"; fi
"$@" 2>"$object.stderr"
status=$?
grep -E '^ptxas info|^    [0-9]+ bytes stack frame' "$object.stderr" >"$object.ptxas.txt"
grep -v -E '^ptxas info|^    [0-9]+ bytes stack frame' "$object.stderr" >&2
rm -f "$object.stderr"
exit $status
