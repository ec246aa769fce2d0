#!/usr/bin/env bash
# The measured sample of one GPU (docs/sample.md), or one part of it, executed ON the device
# machine from the repository root with a sample build (-DROOFCAST_BUILD_SAMPLE=ON) carried along:
#   validation/scripts/sample.sh <gpu-id> <git-revision> <build-dir> <part-name> [kernels-regex] \
#     [ncu-problem]
# Writes into $OUT: nvidia-smi before/after and the roofcast-validate --sample JSON and log of
# the kernels matching the regex (all when absent), each case checked against cuBLAS, then timed.
# A sample too long for one device call is measured in parts: one regex per part. The part named
# "ncu" (or "ncu-<name>") is the stated Nsight Compute subset instead (roofcast-validate
# --sample-ncu, docs/sample.md); parts "ncu-local" and "ncu-all" are its local-memory and
# every-config subsets (--sample-ncu-subset local|all; "ncu-all-<name>" for one part of the latter,
# at 2048^3 or at the ncu-problem MxNxK given after the regex, --sample-ncu-problem).
set -u -o pipefail
usage="usage: validation/scripts/sample.sh <gpu-id> <git-revision> <build-dir> <part-name> [kernels-regex] [ncu-problem]"
gpu=${1:?$usage}
revision=${2:?$usage}
build=${3:?$usage}
part=${4:?$usage}
regex=${5:-}
ncu_problem=${6:-}
out=${OUT:?OUT must name the output directory}
case "$part" in
  *[!A-Za-z0-9_-]*) echo "sample.sh: part name '$part': letters, digits, _ and - only" >&2; exit 2 ;;
esac
smi_fields=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pstate
filter=()
if [ -n "$regex" ]; then filter=(--kernels "$regex"); fi

nvidia-smi --query-gpu=$smi_fields --format=csv >"$out/sample-$part.nvidia-smi-before.csv"
set_flags=(--sample)
case "$part" in
  ncu-all | ncu-all-*) ;;
  *) if [ -n "$ncu_problem" ]; then
    echo "sample.sh: an ncu-problem ('$ncu_problem') is for the ncu-all parts only" >&2
    exit 2
  fi ;;
esac
case "$part" in
  ncu-local) set_flags=(--sample-ncu --sample-ncu-subset local) ;;
  ncu-all | ncu-all-*)
    set_flags=(--sample-ncu --sample-ncu-subset all)
    if [ -n "$ncu_problem" ]; then set_flags+=(--sample-ncu-problem "$ncu_problem"); fi
    ;;
  ncu) set_flags=(--sample-ncu) ;;
esac
"$build/validation/roofcast-validate" --expect-gpu "$gpu" --git-revision "$revision" "${set_flags[@]}" \
  "${filter[@]}" --out "$out/sgemm-sample-$part.json" 2>&1 | tee "$out/sample-$part.log"
validate_status=${PIPESTATUS[0]}
nvidia-smi --query-gpu=$smi_fields --format=csv >"$out/sample-$part.nvidia-smi-after.csv"
echo "roofcast-validate exit status: $validate_status"
exit "$validate_status"
