#!/usr/bin/env bash
# Set-up command 1: install, build, and run the main job on the embedded spec database and the
# kernel registry: every SGEMM ladder rung's headline config predicted on every GPU (no GPU
# needed). With a GPU present it also validates: the occupancy model against the CUDA runtime
# and the hardware, and the ladder against cuBLAS with timings (roofcast-validate), then writes
# that run's validation report to build/report/README.md (roofcast report).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
./build/cli/roofcast ladder
revision="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
run_gpu_step() {  # exit 77 means "no GPU": report it and go on
  local status=0
  "$@" || status=$?
  if [ "$status" -eq 77 ]; then
    echo "(no GPU here: $1 was skipped)"
  elif [ "$status" -ne 0 ]; then
    exit "$status"
  fi
}
if [ -x build/validation/roofcast-occupancy-check ]; then
  echo
  run_gpu_step ./build/validation/roofcast-occupancy-check --check --git-revision "$revision" \
    --out build/occupancy-runtime.json
fi
if [ -x build/validation/roofcast-validate ]; then
  echo
  rm -f build/sgemm-ladder.json
  run_gpu_step ./build/validation/roofcast-validate --git-revision "$revision" \
    --out build/sgemm-ladder.json
  if [ -f build/sgemm-ladder.json ]; then
    # The validation report of this run: measured against predicted, with figures.
    echo
    ./build/cli/roofcast report --measurements build/sgemm-ladder.json --out build/report
  fi
fi
