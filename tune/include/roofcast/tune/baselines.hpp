// Selection baselines a tuner could use instead of roofcast, implemented here so the selection
// experiment compares like with like (same candidates, same GPU facts):
//   - highest occupancy: the config with the most resident warps per SM;
//   - largest tile: the config with the largest BM x BN block tile (most operand reuse);
//   - Triton's former matmul performance model (triton/ops/matmul_perf_model.py,
//     estimate_matmul_time, removed from Triton in 2024): max(compute, load) + store with a
//     fixed 80% L2 hit rate, no occupancy and no waves.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/space.hpp"

namespace roofcast::tune {

enum class Selector : int {
  kRoofcast = 0,          // roofcast's predicted time (rank())
  kHighestOccupancy = 1,  // most active warps per SM; ties: larger BM*BN, then BK, then order
  kLargestTile = 2,       // largest BM*BN; ties: larger BK, then higher occupancy, then order
  kTritonFormula = 3,     // smallest triton_matmul_estimate_ms; ties: candidate order
};
inline constexpr int kSelectorCount = 4;

/// "roofcast", "highest_occupancy", "largest_tile", "triton_formula".
std::string_view to_string(Selector selector);

/// Triton's former estimate, milliseconds, for a config on `gpu` (SPLIT_K = 1, 4-byte
/// elements). Its own units are kept: GOPS = 2 M N K / 1024^3 over TFLOPS, MB = bytes / 1024^2
/// over GB/s (the ranking only uses the order).
///   ctas = ceil(M / BM) * ceil(N / BN); M, N raised to at least BM, BN
///   compute = GOPS / (min(4 * SMs, ctas * min(warps, 4)) / (4 * SMs) * peak_fp32_TFLOPS)
///   dram_bw = DRAM GB/s * (0.95 * min(1, ctas / 32) + 0.05 * clamp((ctas - 32) / (108 - 32)))
///   load = (A + B first reads + 20% of re-reads) / dram_bw + (80% of re-reads) / (4 * dram_bw),
///          re-reads of A = M K * 4 * (ceil(N / BN) - 1), of B = N K * 4 * (ceil(M / BM) - 1)
///   store = M N * 4 B / (0.6 * dram_bw)
///   time = max(compute, load) + store
/// The peak is the FP32 (SIMT) peak: the formula takes it for FP32 on GPUs without TF32 tensor
/// cores, and every ladder kernel is FFMA. 108 (the A100's SM count) is in the original.
double triton_matmul_estimate_ms(const GpuSpec& gpu, const gemm::Problem& problem,
                                 const gemm::TileConfig& config);

/// Candidate indices, best first, under a baseline selector (kRoofcast: throws
/// std::invalid_argument, use rank()). Candidates that cannot launch on `gpu` (occupancy 0 with
/// their registers, given or estimated) are left out.
std::vector<std::size_t> baseline_order(const GpuSpec& gpu, const gemm::Problem& problem,
                                        const std::vector<Candidate>& candidates,
                                        Selector selector);

}  // namespace roofcast::tune
