// Waves: how many rounds of resident blocks a grid takes, how full the last round is, and how
// much of the launched tile area is useful work (boundary-tile waste). Reasoning and
// measurements: docs/model.md#waves-and-tails, docs/model.md#cluster-waves-and-stage-waits.
#pragma once

#include <cstdint>

#include "roofcast/gemm.hpp"

namespace roofcast {

/// Rounds of resident blocks ("waves") of one launch.
struct WaveResult {
  std::int64_t grid_blocks = 0;
  int blocks_per_sm = 0;  // from the occupancy model
  int sm_count = 0;
  int cluster = 1;                    // blocks per thread-block cluster
  std::int64_t blocks_per_wave = 0;   // blocks_per_sm * sm_count, whole clusters only
  std::int64_t waves = 0;             // ceil(grid / blocks_per_wave)
  std::int64_t full_waves = 0;        // floor(grid / blocks_per_wave)
  std::int64_t last_wave_blocks = 0;  // blocks of the last wave (blocks_per_wave when exact)
  double tail_efficiency = 0;         // grid / (waves * blocks_per_wave)

  bool launchable() const { return blocks_per_wave > 0; }
};

/// Waves of a grid of `grid_blocks` blocks with `blocks_per_sm` resident per SM:
///   blocks_per_wave = floor(blocks_per_sm * sm_count / cluster) * cluster
///   waves           = ceil(grid / blocks_per_wave)
///   tail_efficiency = grid / (waves * blocks_per_wave)   (1 = the last wave is full)
/// A grid smaller than one wave is one wave with tail efficiency grid / blocks_per_wave.
/// blocks_per_sm = 0 (cannot launch) gives zero waves and tail efficiency 0.
/// Clusters: the hardware places a cluster's blocks on SMs of one GPC, so a GPC whose SM count
/// (times blocks_per_sm) is not a multiple of the cluster size leaves slots idle. GPC sizes are
/// not in the spec; when the runtime's count is known (max_active_clusters > 0, what
/// cudaOccupancyMaxActiveClusters reports for the kernel and its launch configuration) the wave
/// holds at most that many clusters:
///   blocks_per_wave = min(floor(blocks_per_sm * sm_count / cluster), max_active_clusters)
///                     * cluster;
/// without it the wave is only rounded down to whole clusters (units: max_active_clusters in
/// clusters, blocks_per_wave in blocks). The H200's counts and the training case that needs the
/// cap: docs/model.md#cluster-waves. Throws std::invalid_argument for grid_blocks < 1,
/// blocks_per_sm < 0, sm_count < 1, cluster < 1 or max_active_clusters < 0.
WaveResult compute_waves(std::int64_t grid_blocks, int blocks_per_sm, int sm_count, int cluster = 1,
                         int max_active_clusters = 0);

/// Boundary-tile waste: the launched tile area against the problem.
struct TileWaste {
  std::int64_t tiles_m = 0;           // ceil(M / BM)
  std::int64_t launched_tiles_m = 0;  // tiles_m rounded up to whole clusters (rung 10)
  std::int64_t tiles_n = 0;           // ceil(N / BN)
  std::int64_t k_tiles = 0;           // ceil(K / k_tile), k_tile = BK (rung 1: 1)
  std::int64_t launched_m = 0;        // launched_tiles_m * BM
  std::int64_t launched_n = 0;        // tiles_n * BN
  std::int64_t launched_k = 0;        // k_tiles * k_tile
  double useful_fraction = 0;         // M * N / (launched_m * launched_n)
  double useful_k_fraction = 0;       // K / launched_k

  /// One block per launched tile.
  std::int64_t grid_blocks() const { return launched_tiles_m * tiles_n; }
};

/// The K depth of one main-loop iteration: BK, or 1 for the naive rung (BK = 0).
int k_tile_depth(const gemm::TileConfig& config);

/// useful_fraction = M * N / (ceil(M / BM) * BM * ceil(N / BN) * BN); e.g. M = 300, BM = 256
/// launches 512 rows for 300 useful (0.586). Edge blocks compute zero-filled tiles in full, so
/// the issue cost follows the launched area while memory traffic follows the useful one.
/// Clusters (config.cluster > 1) stack vertically adjacent tiles, so the tile rows launched
/// are rounded up to whole clusters (the extra blocks compute and store nothing).
/// Throws std::invalid_argument for M, N, K < 1 or BM, BN < 1.
TileWaste compute_tile_waste(const gemm::Problem& problem, const gemm::TileConfig& config);

}  // namespace roofcast
