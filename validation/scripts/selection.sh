#!/usr/bin/env bash
# The selection experiment of one GPU (its spec id first), executed ON the device machine from the repository root
# with the binaries built here and carried along (see data/measurements/h200-sxm/README.md):
#   validation/scripts/selection.sh <gpu-id> <git-revision> <build-dir>
# Writes into $OUT: nvidia-smi before/after and the roofcast-validate --selection JSON and log
# (cuBLAS and every registered config at each selection shape, checked, then timed).
set -u -o pipefail
gpu=${1:?usage: validation/scripts/selection.sh <gpu-id> <git-revision> <build-dir>}
revision=${2:?usage: validation/scripts/selection.sh <gpu-id> <git-revision> <build-dir>}
build=${3:?usage: validation/scripts/selection.sh <gpu-id> <git-revision> <build-dir>}
out=${OUT:?OUT must name the output directory}
smi_fields=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pstate

nvidia-smi --query-gpu=$smi_fields --format=csv >"$out/nvidia-smi-before.csv"
"$build/validation/roofcast-validate" --expect-gpu "$gpu" --git-revision "$revision" --selection \
  --out "$out/sgemm-selection.json" 2>&1 | tee "$out/selection.log"
validate_status=${PIPESTATUS[0]}
nvidia-smi --query-gpu=$smi_fields --format=csv >"$out/nvidia-smi-after.csv"
echo "roofcast-validate exit status: $validate_status"
exit "$validate_status"
