#!/usr/bin/env bash
# One device call on the GPU named first: rung 9 against cuBLAS at the correctness sizes, then the whole ladder run
# (validation/scripts/measure.sh) and the selection run (validation/scripts/selection.sh) with the same
# binaries. Stops before measuring if the check fails.
#   validation/scripts/final.sh <gpu-id> <git-revision> <build-dir>
set -u -o pipefail
gpu=${1:?usage: validation/scripts/final.sh <gpu-id> <git-revision> <build-dir>}
revision=${2:?usage: validation/scripts/final.sh <gpu-id> <git-revision> <build-dir>}
build=${3:?usage: validation/scripts/final.sh <gpu-id> <git-revision> <build-dir>}
out=${OUT:?OUT must name the output directory}
"$build/validation/roofcast-ladder-check" --kernels '^r09' >"$out/ladder-check-r09.log" 2>&1
check=$?
tail -3 "$out/ladder-check-r09.log"
if [ "$check" -ne 0 ]; then
  echo "rung 9 check failed (exit $check): nothing measured"
  exit "$check"
fi
bash validation/scripts/measure.sh "$gpu" "$revision" "$build" | tail -8
# At most 8 files come back from the device: the selection run's four travel as one archive.
selection=$(mktemp -d)
OUT="$selection" bash validation/scripts/selection.sh "$gpu" "$revision" "$build" | tail -3
tar czf "$out/selection.tgz" -C "$selection" .
