// The configuration space a tuner searches: every tile config of the ladder's rungs that obeys
// the kernels' tile rules (kernels::violated_rule, the predicates the kernels static_assert) and
// fits a GPU (compute capability, threads, shared memory, clusters), each with the raster
// orders its rung can launch.
//
// Enumeration reads the rules, never the registry's list: the registry holds the configs that
// are compiled and measured, the space holds every config a kernel author could instantiate.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::tune {

/// One point of the space: a tile config and the block raster order it launches with.
struct Candidate {
  gemm::TileConfig config;
  gemm::RasterOrder raster;
  /// Registers per thread and spill stores when the kernel is compiled (ptxas -v); empty:
  /// the model estimates them (estimate_registers), as for a config not yet written.
  std::optional<int> registers_per_thread;
  int spill_bytes_per_thread = 0;

  bool operator==(const Candidate& other) const = default;
};

/// The values each tile parameter takes. Every combination is tried per rung; fields a rung
/// does not read are fixed to the value its rules require (naive: BK = 0, TM = TN = 1;
/// rungs 1-6: WM = WN = 0, one stage, no cluster), threads are derived from the tile
/// (derived_threads) and kernels::violated_rule decides what is valid.
struct SpaceBounds {
  std::vector<int> rungs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<int> block_tiles = {32, 64, 128, 256};    // BM and BN (rungs 2-10)
  std::vector<int> naive_rows = {1, 2, 4, 8, 16, 32};   // BM of rung 1 (a row of threads)
  std::vector<int> naive_columns = {32, 64, 128, 256};  // BN of rung 1
  std::vector<int> shared_tiles = {8, 16, 32};          // rung 2's square tile T = BM = BN = BK
  std::vector<int> k_tiles = {4, 8, 16, 32};            // BK (rungs 3-10)
  std::vector<int> thread_tiles = {2, 4, 8, 16};        // TM and TN (rung 3: TN = 1)
  std::vector<int> warp_tiles = {16, 32, 64, 128};      // WM and WN (rungs 7-10)
  std::vector<int> stages = {1, 2, 3, 4};               // rungs 7-10
  std::vector<int> vector_widths = {1, 4};              // A's load width
  std::vector<int> clusters = {1, 2, 4};                // rung 10
  /// Raster orders of rungs 7-10 (rungs 1-6 launch row-major only). Grouped orders are listed
  /// with their group size.
  std::vector<gemm::RasterOrder> rasters = {{gemm::RasterKind::kRowMajor, 1},
                                            {gemm::RasterKind::kColumnMajor, 1},
                                            {gemm::RasterKind::kGrouped, 4},
                                            {gemm::RasterKind::kGrouped, 8},
                                            {gemm::RasterKind::kGrouped, 16}};
};

/// Why a config is not in the space for a GPU (the first reason that applies).
enum class Exclusion : int {
  kNone = 0,
  kTileRule = 1,           // kernels::violated_rule: the kernel would not compile
  kComputeCapability = 2,  // the rung needs a newer GPU (cp.async 8.0, clusters 9.0)
  kThreadsPerBlock = 3,    // more threads than a block may have
  kSharedMemory = 4,       // more shared memory than a block may opt in to
  kCluster = 5,            // clusters on a GPU without them, or larger than the portable 8
};

/// "none", "tile_rule", "compute_capability", "threads_per_block", "shared_memory", "cluster".
std::string_view to_string(Exclusion exclusion);

/// Whether `config` can be compiled and launched on `gpu`; kNone when it can. `detail`
/// (optional) receives the rule's sentence or the limit and value. Registers are not checked:
/// ptxas decides them, and the ranking prices an estimate above the limit as spills.
Exclusion exclusion(const GpuSpec& gpu, const gemm::TileConfig& config,
                    std::string* detail = nullptr);

/// Every valid config of `bounds` for `gpu` (exclusion == kNone), threads filled in, in a fixed
/// order (rung, then the parameters as listed), without duplicates. Throws
/// std::invalid_argument naming the field when a bound list is empty or holds a value < 1
/// (rung outside 1..10, a raster order that does not launch: Z-order, or a group < 1).
std::vector<gemm::TileConfig> enumerate_configs(const GpuSpec& gpu, const SpaceBounds& bounds = {});

/// The candidates of `configs`: each rung-7..10 config once per raster order of `bounds`,
/// rungs 1-6 once, row-major. Candidates of one config are adjacent (ranking reuses the
/// config's analysis across them).
std::vector<Candidate> with_raster_orders(const std::vector<gemm::TileConfig>& configs,
                                          const SpaceBounds& bounds = {});

/// enumerate_configs then with_raster_orders.
std::vector<Candidate> enumerate_candidates(const GpuSpec& gpu, const SpaceBounds& bounds = {});

}  // namespace roofcast::tune
