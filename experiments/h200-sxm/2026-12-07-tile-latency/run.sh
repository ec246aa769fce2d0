#!/usr/bin/env bash
# Device command: context, then the probe (built by build.sh) with its JSON under $OUT.
bin=${1:-build-carry/tile-latency-probe}
tag=${2:-run}
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  echo "git revision: ${REV:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
  nvcc --version 2>/dev/null | tail -1
} > "$OUT/$tag.context.txt" 2>&1
"$bin" "$OUT/$tag.json" "${@:3}" > "$OUT/$tag.log" 2>&1
rc=$?
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv >> "$OUT/$tag.context.txt" 2>&1
cat "$OUT/$tag.context.txt"
cat "$OUT/$tag.log"
exit $rc
