#!/usr/bin/env bash
# Set-up command 1: install, build, and run the main job on the embedded spec database:
# the occupancy table of representative SGEMM kernels on every GPU. With a GPU present it also
# validates the occupancy model against the CUDA runtime and the hardware.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
./build/model/cli/roofcast table
if [ -x build/validation/roofcast-occupancy-check ]; then
  echo
  status=0
  ./build/validation/roofcast-occupancy-check --check \
    --git-revision "$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    --out build/occupancy-runtime.json || status=$?
  if [ "$status" -eq 77 ]; then
    echo "(no GPU here: the runtime validation was skipped)"
  elif [ "$status" -ne 0 ]; then
    exit "$status"
  fi
fi
