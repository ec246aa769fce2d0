#!/usr/bin/env bash
# The whole measurement run of one GPU (its spec id first), executed ON the device machine from the repository root with
# the binaries built here and carried along (see data/measurements/h200-sxm/README.md):
#   validation/scripts/measure.sh <gpu-id> <git-revision> <build-dir>
# Writes into $OUT: nvidia-smi before/after, the roofcast-validate JSON and log (ladder, sweep,
# microbenchmarks, Nsight Compute subset), and compute-sanitizer memcheck/racecheck logs of every
# rung's headline config at small, edge-tile sizes.
set -u -o pipefail
gpu=${1:?usage: validation/scripts/measure.sh <gpu-id> <git-revision> <build-dir>}
revision=${2:?usage: validation/scripts/measure.sh <gpu-id> <git-revision> <build-dir>}
build=${3:?usage: validation/scripts/measure.sh <gpu-id> <git-revision> <build-dir>}
out=${OUT:?OUT must name the output directory}
smi_fields=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pstate
export PATH="$PATH:/usr/local/cuda/bin"

nvidia-smi --query-gpu=$smi_fields --format=csv >"$out/nvidia-smi-before.csv"
"$build/validation/roofcast-validate" --expect-gpu "$gpu" --git-revision "$revision" --ncu \
  --out "$out/sgemm-ladder.json" 2>&1 | tee "$out/validate.log"
validate_status=${PIPESTATUS[0]}
nvidia-smi --query-gpu=$smi_fields --format=csv >"$out/nvidia-smi-after.csv"

sanitizer_sizes=1,67x45x33,130x70x129
for tool in memcheck racecheck; do
  {
    echo "# compute-sanitizer --tool $tool, git revision $revision, $(date -u +%FT%TZ)"
    compute-sanitizer --version | tail -1
    timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$build/validation/roofcast-ladder-check" --headline-only --sizes "$sanitizer_sizes" \
      --rasters row_major,grouped:2
    echo "exit status: $? (124: stopped by the 120 s timeout)"
  } >"$out/sanitizer-$tool.log" 2>&1
  tail -3 "$out/sanitizer-$tool.log"
done
echo "roofcast-validate exit status: $validate_status"
exit "$validate_status"
