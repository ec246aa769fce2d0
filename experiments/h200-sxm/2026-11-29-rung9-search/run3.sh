#!/usr/bin/env bash
# Device command of the third call: roofcast-ladder-check on every rung 9 config (correctness
# against cuBLAS at its default sizes and rasters, then --time at 4096^3), then the probe.
d=build-smoke/rung9
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
} > "$OUT/run3.context.txt" 2>&1
timeout 80 "$d/roofcast-ladder-check" --kernels '^r09' --time --time-size 4096 --repeats 20 \
  > "$OUT/ladder-check-r09.log" 2>&1
echo "ladder-check rc=$?" | tee -a "$OUT/run3.context.txt"
"$d/rung9-probe3" "$OUT/run3.json" 3 > "$OUT/run3.log" 2>&1
rc=$?
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv >> "$OUT/run3.context.txt" 2>&1
tail -25 "$OUT/ladder-check-r09.log"
grep -v " ok$" "$OUT/run3.log" | tail -14
exit $rc
