#!/usr/bin/env bash
# Builds the probe for sm_90 (cudart linked statically, nvcc's default).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/build-carry/tile-latency-probe}
mkdir -p "$(dirname "$out")"
/usr/local/cuda/bin/nvcc -O3 -std=c++17 --generate-code=arch=compute_90,code=[sm_90] "$here/probe.cu" -o "$out"
