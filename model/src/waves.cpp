#include "roofcast/waves.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace roofcast {
namespace {

[[gnu::cold, gnu::noinline]] void throw_invalid(const char* name, std::int64_t value,
                                                const char* expectation) {
  throw std::invalid_argument(std::string(name) + " must be " + expectation + ", got " +
                              std::to_string(value));
}

}  // namespace

WaveResult compute_waves(std::int64_t grid_blocks, int blocks_per_sm, int sm_count, int cluster,
                         int max_active_clusters) {
  if (grid_blocks < 1) [[unlikely]]
    throw_invalid("grid_blocks", grid_blocks, ">= 1");
  if (blocks_per_sm < 0) [[unlikely]]
    throw_invalid("blocks_per_sm", blocks_per_sm, ">= 0");
  if (sm_count < 1) [[unlikely]]
    throw_invalid("sm_count", sm_count, ">= 1");
  if (cluster < 1) [[unlikely]]
    throw_invalid("cluster", cluster, ">= 1");
  if (max_active_clusters < 0) [[unlikely]]
    throw_invalid("max_active_clusters", max_active_clusters, ">= 0");
  WaveResult r;
  r.grid_blocks = grid_blocks;
  r.blocks_per_sm = blocks_per_sm;
  r.sm_count = sm_count;
  r.cluster = cluster;
  const std::int64_t resident = static_cast<std::int64_t>(blocks_per_sm) * sm_count;
  std::int64_t clusters = resident / cluster;
  if (cluster > 1 && max_active_clusters > 0) {
    clusters = std::min<std::int64_t>(clusters, max_active_clusters);
  }
  r.blocks_per_wave = clusters * cluster;
  if (r.blocks_per_wave == 0) return r;
  r.waves = ceil_div(grid_blocks, r.blocks_per_wave);
  r.full_waves = grid_blocks / r.blocks_per_wave;
  r.last_wave_blocks = grid_blocks - (r.waves - 1) * r.blocks_per_wave;
  r.tail_efficiency = static_cast<double>(grid_blocks) /
                      (static_cast<double>(r.waves) * static_cast<double>(r.blocks_per_wave));
  return r;
}

int k_tile_depth(const gemm::TileConfig& config) { return config.bk > 0 ? config.bk : 1; }

TileWaste compute_tile_waste(const gemm::Problem& problem, const gemm::TileConfig& config) {
  if (problem.m < 1) [[unlikely]]
    throw_invalid("M", problem.m, ">= 1");
  if (problem.n < 1) [[unlikely]]
    throw_invalid("N", problem.n, ">= 1");
  if (problem.k < 1) [[unlikely]]
    throw_invalid("K", problem.k, ">= 1");
  if (config.bm < 1) [[unlikely]]
    throw_invalid("BM", config.bm, ">= 1");
  if (config.bn < 1) [[unlikely]]
    throw_invalid("BN", config.bn, ">= 1");
  const int k_tile = k_tile_depth(config);
  TileWaste w;
  w.tiles_m = gemm::tiles_m(problem, config);
  w.tiles_n = gemm::tiles_n(problem, config);
  const int cluster = std::max(1, config.cluster);
  w.launched_tiles_m = ceil_div(w.tiles_m, cluster) * cluster;
  w.k_tiles = ceil_div(problem.k, k_tile);
  w.launched_m = w.launched_tiles_m * config.bm;
  w.launched_n = w.tiles_n * config.bn;
  w.launched_k = w.k_tiles * k_tile;
  w.useful_fraction = static_cast<double>(problem.m) * static_cast<double>(problem.n) /
                      (static_cast<double>(w.launched_m) * static_cast<double>(w.launched_n));
  w.useful_k_fraction = static_cast<double>(problem.k) / static_cast<double>(w.launched_k);
  return w;
}

}  // namespace roofcast
