#include "roofcast/tune/space.hpp"
#include "roofcast/kernels/anatomy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/rung_defaults.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast::tune {

namespace {

using gemm::RasterKind;
using gemm::SmemLayout;
using gemm::TileConfig;

/// The portable maximum cluster size (CUDA C++ Programming Guide, "Thread Block Clusters":
/// 8 blocks; larger needs a non-portable opt-in).
constexpr int kPortableClusterBlocks = 8;

void require_list(const std::vector<int>& values, const char* field, int low, int high) {
  if (values.empty()) {
    throw std::invalid_argument(std::string("SpaceBounds.") + field + ": empty list");
  }
  for (int v : values) {
    if (v < low || v > high) {
      throw std::invalid_argument(std::string("SpaceBounds.") + field + ": value " +
                                  std::to_string(v) + " outside " + std::to_string(low) + ".." +
                                  std::to_string(high));
    }
  }
}

void validate(const SpaceBounds& b) {
  require_list(b.rungs, "rungs", 1, gemm::kRungCount);
  require_list(b.block_tiles, "block_tiles", 1, 4096);
  require_list(b.naive_rows, "naive_rows", 1, 1024);
  require_list(b.naive_columns, "naive_columns", 1, 1024);
  require_list(b.shared_tiles, "shared_tiles", 1, 1024);
  require_list(b.k_tiles, "k_tiles", 1, 1024);
  require_list(b.thread_tiles, "thread_tiles", 1, 256);
  require_list(b.warp_tiles, "warp_tiles", 1, 4096);
  require_list(b.stages, "stages", 1, 64);
  require_list(b.vector_widths, "vector_widths", 1, 16);
  require_list(b.clusters, "clusters", 1, 64);
  if (b.rasters.empty()) throw std::invalid_argument("SpaceBounds.rasters: empty list");
  for (const gemm::RasterOrder& r : b.rasters) {
    if (r.kind == RasterKind::kZOrder) {
      throw std::invalid_argument(
          "SpaceBounds.rasters: z_order is a model-only order, kernels "
          "do not launch it");
    }
    if (r.kind == RasterKind::kGrouped && r.group < 1) {
      throw std::invalid_argument("SpaceBounds.rasters: grouped order with group " +
                                  std::to_string(r.group) + " (must be >= 1)");
    }
  }
}

void sort_unique(std::vector<int>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

SpaceBounds normalized(SpaceBounds b) {
  for (std::vector<int>* list :
       {&b.rungs, &b.block_tiles, &b.naive_rows, &b.naive_columns, &b.shared_tiles, &b.k_tiles,
        &b.thread_tiles, &b.warp_tiles, &b.stages, &b.vector_widths, &b.clusters}) {
    sort_unique(*list);
  }
  std::vector<gemm::RasterOrder> rasters;
  for (const gemm::RasterOrder& r : b.rasters) {
    if (std::find(rasters.begin(), rasters.end(), r) == rasters.end()) rasters.push_back(r);
  }
  b.rasters = std::move(rasters);
  return b;
}

/// Calls emit(config) for every combination of the rung's own parameters (threads derived).
template <class Emit>
void walk_rung(int rung, const SpaceBounds& b, Emit&& emit) {
  const kernels::RungTraits traits = kernels::rung_traits(rung);
  TileConfig c = kernels::default_config(rung);
  auto finish = [&](TileConfig config) {
    config.threads = kernels::derived_threads(config);
    emit(config);
  };
  if (traits.shape == kernels::TileShape::kNaive) {
    c.tm = c.tn = 1;
    for (int bm : b.naive_rows) {
      for (int bn : b.naive_columns) {
        c.bm = bm;
        c.bn = bn;
        finish(c);
      }
    }
    return;
  }
  if (traits.shape == kernels::TileShape::kSquareShared) {
    c.tm = c.tn = 1;
    for (int t : b.shared_tiles) {
      c.bm = c.bn = c.bk = t;
      finish(c);
    }
    return;
  }
  const std::vector<int> one = {1};
  const std::vector<int> fixed_vector = {traits.fixed_vector_width};
  const std::vector<int>& vectors = traits.fixed_vector_width > 0 ? fixed_vector : b.vector_widths;
  const std::vector<int>& tns = traits.needs_tn ? b.thread_tiles : one;
  for (int li = 0; li < traits.layout_count; ++li) {
    c.layout = traits.layouts[static_cast<std::size_t>(li)];
    for (int bm : b.block_tiles) {
      for (int bn : b.block_tiles) {
        for (int bk : b.k_tiles) {
          for (int tm : b.thread_tiles) {
            for (int tn : tns) {
              for (int v : vectors) {
                c.bm = bm;
                c.bn = bn;
                c.bk = bk;
                c.tm = tm;
                c.tn = tn;
                c.vector_width = v;
                if (!traits.warp_tiled) {
                  finish(c);
                  continue;
                }
                for (int wm : b.warp_tiles) {
                  for (int wn : b.warp_tiles) {
                    for (int s : b.stages) {
                      for (int cl : traits.clustered ? b.clusters : one) {
                        c.wm = wm;
                        c.wn = wn;
                        c.stages = s;
                        c.cluster = cl;
                        finish(c);
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

std::string_view to_string(Exclusion exclusion) {
  switch (exclusion) {
    case Exclusion::kNone:
      return "none";
    case Exclusion::kTileRule:
      return "tile_rule";
    case Exclusion::kComputeCapability:
      return "compute_capability";
    case Exclusion::kThreadsPerBlock:
      return "threads_per_block";
    case Exclusion::kSharedMemory:
      return "shared_memory";
    case Exclusion::kCluster:
      return "cluster";
  }
  return "unknown";
}

Exclusion exclusion(const GpuSpec& gpu, const TileConfig& config, std::string* detail) {
  auto say = [&](std::string text) {
    if (detail != nullptr) *detail = std::move(text);
  };
  if (const char* rule = kernels::violated_rule(config)) {
    say(rule);
    return Exclusion::kTileRule;
  }
  const int needed = kernels::minimum_compute_capability(config);
  if (gpu.compute_capability.number() < needed) {
    say("needs compute capability " + std::to_string(needed / 10) + "." +
        std::to_string(needed % 10) + ", " + gpu.id + " has " +
        std::to_string(gpu.compute_capability.major) + "." +
        std::to_string(gpu.compute_capability.minor));
    return Exclusion::kComputeCapability;
  }
  const int threads = config.threads > 0 ? config.threads : kernels::derived_threads(config);
  if (threads > gpu.sm.max_threads_per_block) {
    say(std::to_string(threads) + " threads > max_threads_per_block " +
        std::to_string(gpu.sm.max_threads_per_block));
    return Exclusion::kThreadsPerBlock;
  }
  const int shared = kernels::shared_memory_bytes(config);
  if (shared > gpu.sm.shared_memory_per_block_optin_bytes) {
    say(std::to_string(shared) + " B of shared memory > shared_memory_per_block_optin_bytes " +
        std::to_string(gpu.sm.shared_memory_per_block_optin_bytes));
    return Exclusion::kSharedMemory;
  }
  if (config.cluster > 1 &&
      (gpu.compute_capability.number() < 90 || config.cluster > kPortableClusterBlocks)) {
    say("cluster of " + std::to_string(config.cluster) +
        " blocks needs compute capability 9.0 and at most 8 blocks");
    return Exclusion::kCluster;
  }
  say("");
  return Exclusion::kNone;
}

std::vector<TileConfig> enumerate_configs(const GpuSpec& gpu, const SpaceBounds& bounds) {
  validate(bounds);
  // Distinct sorted lists give distinct combinations, so no config repeats.
  const SpaceBounds b = normalized(bounds);
  std::vector<TileConfig> out;
  for (int rung : b.rungs) {
    walk_rung(rung, b, [&](const TileConfig& c) {
      if (exclusion(gpu, c) == Exclusion::kNone) out.push_back(c);
    });
  }
  return out;
}

std::vector<Candidate> with_raster_orders(const std::vector<TileConfig>& configs,
                                          const SpaceBounds& bounds) {
  validate(bounds);
  const std::vector<gemm::RasterOrder> rasters = normalized(bounds).rasters;
  std::vector<Candidate> out;
  out.reserve(configs.size() * rasters.size());
  for (const TileConfig& c : configs) {
    if (!kernels::takes_raster_order(c)) {
      out.push_back(Candidate{c, {RasterKind::kRowMajor, 1}, std::nullopt, 0});
      continue;
    }
    for (const gemm::RasterOrder& r : rasters) {
      out.push_back(Candidate{c, r, std::nullopt, 0});
    }
  }
  return out;
}

std::vector<Candidate> enumerate_candidates(const GpuSpec& gpu, const SpaceBounds& bounds) {
  return with_raster_orders(enumerate_configs(gpu, bounds), bounds);
}

}  // namespace roofcast::tune
