#!/usr/bin/env bash
# Builds the probe for sm_90 with the ladder's compile flags (build-h200/compile_commands.json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)  # experiments/<gpu>/<probe>/ (moved from data/measurements/<gpu>/probes/)
out=${1:-$root/build-smoke/rung9/rung9-probe}
round=${2:-1}
mkdir -p "$(dirname "$out")"
/usr/local/cuda/bin/nvcc -I"$root/kernels/include" -I"$root/model/include" -I"$root/kernels" \
  -I"$root/kernels/src" -I"$here" -O3 -DNDEBUG --generate-code=arch=compute_90,code=[sm_90] \
  -DROUND="$round" --expt-relaxed-constexpr -lineinfo -Xptxas=-warn-spills --resource-usage -std=c++17 \
  "$here/probe.cu" -o "$out" -lcublas
