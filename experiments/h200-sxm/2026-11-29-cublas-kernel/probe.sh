#!/usr/bin/env bash
# Development probe (not committed data): which kernel cuBLAS runs for 4096^3 and 8192^3 SGEMM.
export PATH="$PATH:/usr/local/cuda/bin"
B=build-smoke/ve
for n in 4096 8192; do
timeout 200 ncu --clock-control none --kernel-name regex:'xmma|cutlass|simt|sm90_|sm80_|gemm_f32|ampere' --launch-count 2 --section LaunchStats --section Occupancy \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio \
  $B/roofcast-ladder-check --kernels '^r01-naive' --sizes 1 --rasters row_major --time --time-size $n --repeats 2 > $OUT/ncu-cublas-$n.txt 2>&1
echo "rc=$?"
grep -E "^  [a-zA-Z_].*\(|Grid Size|Block Size|Registers Per|gpu__time_duration|inst_executed|no_instruction|Shared Memory Per Block|Cluster Size|Waves Per SM" $OUT/ncu-cublas-$n.txt | cut -c1-250 | head -40
done
