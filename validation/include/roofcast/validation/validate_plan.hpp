// Which cases roofcast-validate runs: the ladder set (every rung's headline config and cuBLAS
// over the ladder sizes, every raster order for rungs 7-10), the tile-config sweep, the
// correctness-only set, and which of them the Nsight Compute pass profiles. Pure functions of
// the registry and the options: no CUDA, tested on the CPU.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/validate_runner.hpp"

namespace roofcast::validation {

/// The sample's stated Nsight Compute subsets (docs/sample.md), every case timed and profiled:
/// every tenth sample config at sample_ncu_problems(); every config of the sample and of the
/// registry's rungs 4-10 that uses local memory, at the same shapes; every such config, local
/// memory or not, at one shape alone (2048^3 unless PlanOptions::sample_ncu_problem names
/// another: the event counts of the whole space at one shape).
enum class SampleNcuSubset { kEveryTenth, kLocalMemory, kEveryConfig };
std::optional<SampleNcuSubset> parse_sample_ncu_subset(std::string_view text);

struct PlannedCase {
  CaseSpec spec;
  CaseSet set = CaseSet::kLadder;
  bool profile = false;  // in the Nsight Compute subset (only with --ncu)
};

struct PlanOptions {
  bool quick = false;       // a few small sizes (smoke tests)
  bool check_only = false;  // correctness only: the check set (with quick) or every case
  bool ncu = false;         // mark the Nsight Compute subset
  /// The selection set alone: cuBLAS and every registered config (one raster order each,
  /// sweep_raster) at selection_problems(); no other set.
  bool selection = false;
  /// The sample set alone (docs/sample.md): cuBLAS, the registry's rungs 4-10 and the measured
  /// sample's configs (one raster order each, sweep_raster) at sample_problems(); no other set.
  bool sample = false;
  /// With sample: only the sample's stated Nsight Compute subset (sample_ncu_case), every case
  /// timed and profiled.
  bool sample_ncu = false;
  /// With sample_ncu: which subset (SampleNcuSubset).
  SampleNcuSubset sample_ncu_subset = SampleNcuSubset::kEveryTenth;
  /// With SampleNcuSubset::kEveryConfig: the one shape (empty: 2048^3).
  std::optional<gemm::Problem> sample_ncu_problem;
  /// For SampleNcuSubset::kLocalMemory: whether a compiled kernel uses local memory (the
  /// runtime's cudaFuncAttributes::localSizeBytes > 0 on the device).
  std::function<bool(std::size_t compiled_index)> uses_local_memory;
  /// ECMAScript regex searched in each kernel id ("cublas" for cuBLAS); empty: every kernel.
  std::string kernels_regex;
  /// Overrides the Nsight Compute subset's kernels (same matching); empty: the default, the
  /// ladder configs of rungs 7-10 and cuBLAS at one size.
  std::string ncu_kernels_regex;
};

/// Ladder sizes: M=N=K in {512, ..., 8192} and six non-square or odd shapes; quick: three.
std::vector<gemm::Problem> ladder_problems(bool quick);
/// Sweep sizes: 4096^3 and the skinny 256 x 4096 x 4096; quick: 1024^3.
std::vector<gemm::Problem> sweep_problems(bool quick);
/// Training-sweep sizes (every config of rungs 4+, like the sweep, but in the model's training
/// split): 2048^3, 512 x 2048 x 4096 (below one wave for large tiles) and 2049^3 (unaligned: K
/// and N not multiples of 4); quick: none.
std::vector<gemm::Problem> training_sweep_problems(bool quick);
/// The selection experiment's shapes (issue: square, skinny, tall, odd, small; at least 10):
/// 512^3, 1024^3, 2048^3, 4096^3, 256x4096x4096, 4096x256x4096, 8192x1024x1024,
/// 4096x4096x256, 128x128x16384, 1000^3, 1999x3001x1537; quick: 1000^3 and 256x1024x1024.
std::vector<gemm::Problem> selection_problems(bool quick);
/// The sample's shapes (tune::sample_shapes) and then the sweep and training-sweep shapes; quick:
/// the first two sample shapes.
std::vector<gemm::Problem> sample_problems(bool quick);
/// The sample's stated Nsight Compute subset (docs/sample.md#nsight-compute-subset): every tenth
/// sample config (sample index = compiled index - kRegistrySize, index % 10 == 0: 42 configs) at
/// three training shapes, 2048^3, 512 x 2048 x 4096 and 1459 x 2313 x 162 (short, unaligned K).
std::vector<gemm::Problem> sample_ncu_problems();
bool sample_ncu_config(std::size_t compiled_index);

/// Correctness-only sizes for --quick --check-only: 1, 17, 127x129x131, 300x512x1000.
std::vector<gemm::Problem> check_problems();
/// The raster orders a config is measured under in the ladder set: all four for rungs 7-10
/// (row_major, column_major, grouped:8, grouped:4), row_major otherwise.
std::vector<gemm::RasterOrder> ladder_rasters(const gemm::TileConfig& config);
/// The sweep's one raster order: grouped:8 for rungs 7-10, row_major otherwise.
gemm::RasterOrder sweep_raster(const gemm::TileConfig& config);
/// Sizes the Nsight Compute pass profiles: 2048^3, 4096^3, 8192^3, 4096x4096x256; quick: 1024^3.
std::vector<gemm::Problem> ncu_problems(bool quick);

/// The cases, ordered by problem size (small first) so that cases of one problem run together.
/// Throws std::regex_error for a malformed regex.
std::vector<PlannedCase> build_plan(const PlanOptions& options);

/// Blocks a registry kernel launches for `problem`: one per C tile, tiles_m x tiles_n; thread-block
/// cluster kernels (cluster > 1, rung 10) round the tile rows up to whole clusters:
/// cluster x ceil(tiles_m / cluster) x tiles_n.
std::int64_t grid_blocks_of(const gemm::Problem& problem, const gemm::TileConfig& config);

/// "cublas" or the registry kernel's id.
std::string kernel_name(const CaseSpec& spec);
/// "512x512x512".
std::string problem_text(const gemm::Problem& problem);
/// Parses "N" (N x N x N) or "MxNxK", each 1..2^20; empty when malformed.
std::optional<gemm::Problem> parse_problem(std::string_view text);

/// --profile-one's argument: "KERNEL,M,N,K,RASTER" (KERNEL an id or "cublas").
std::string encode_profile_case(const CaseSpec& spec);
/// The inverse; empty (and `error` set) when the text is malformed or names no kernel.
std::optional<CaseSpec> decode_profile_case(std::string_view text, std::string* error);

}  // namespace roofcast::validation
