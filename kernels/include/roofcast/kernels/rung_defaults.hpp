// What one rung's config is made of, for code that builds configs without the registry: the
// parameters a user has to give, the defaults of the others (the CLI's predict and occupancy),
// and the parameters a config space sweeps (tune's enumerate_configs). The one place outside
// the tile rules that knows which rung takes which parameter.
#pragma once

#include <array>

#include "roofcast/gemm.hpp"

namespace roofcast::kernels {

/// How a rung's block tile is given.
enum class TileShape {
  kNaive,         // rung 1: BM x BN threads, one output each; no K tile
  kSquareShared,  // rung 2: BM = BN = BK shared tiles, one output per thread
  kThreadTiled,   // rungs 3-10: BM x BN x BK tiles, TM x TN outputs per thread
};

struct RungTraits {
  TileShape shape = TileShape::kNaive;
  bool needs_bk = false;  // BK has no default (rungs 2-10)
  bool needs_tm = false;  // TM has no default (rungs 3-10; else 1)
  bool needs_tn = false;  // TN has no default (rungs 4-10; else 1)
  /// WM x WN warp tiles, several stages and A's vector width are parameters (rungs 7-10).
  bool warp_tiled = false;
  bool clustered = false;  // thread-block clusters are a parameter (rung 10)
  /// The shared-memory layouts its kernels come in; the first is the default.
  std::array<gemm::SmemLayout, 2> layouts{gemm::SmemLayout::kPlain, gemm::SmemLayout::kPlain};
  int layout_count = 1;
  /// Floats per global load when the rung fixes it (rungs 1-6); 0: a parameter (rungs 7-10).
  int fixed_vector_width = 1;
  /// The default config's stages and vector width (rung 8 double-buffers, rungs 9-10 keep 3
  /// stages; float4 loads from rung 5 on).
  int default_stages = 1;
  int default_vector_width = 1;
};

/// The traits of rung 1..10 (rung 0 or out of range: those of rung 1).
constexpr RungTraits rung_traits(int rung) {
  using gemm::SmemLayout;
  RungTraits t;
  if (rung <= 1) return t;
  t.shape = rung == 2 ? TileShape::kSquareShared : TileShape::kThreadTiled;
  t.needs_bk = true;
  t.needs_tm = rung >= 3;
  t.needs_tn = rung >= 4;
  t.warp_tiled = rung >= 7;
  t.clustered = rung == 10;
  if (rung == 6) {
    t.layouts = {SmemLayout::kPadded, SmemLayout::kSwizzled};
    t.layout_count = 2;
  } else if (rung >= 7) {
    t.layouts = {SmemLayout::kPadded, SmemLayout::kPadded};  // A^T padded
  }
  t.fixed_vector_width = rung <= 4 ? 1 : rung <= 6 ? 4 : 0;
  t.default_stages = rung == 8 ? 2 : (rung >= 9 ? 3 : 1);
  t.default_vector_width = rung >= 5 ? 4 : 1;
  return t;
}

/// The default config of a rung: every parameter that has a default at it (stages, vector
/// width, layout, cluster 1, TM = TN = 1), the tile itself (BM, BN, BK, WM, WN) and the threads
/// left 0 for the caller.
constexpr gemm::TileConfig default_config(int rung) {
  const RungTraits t = rung_traits(rung);
  gemm::TileConfig c;
  c.rung = rung;
  c.tm = 1;
  c.tn = 1;
  c.stages = t.default_stages;
  c.vector_width = t.default_vector_width;
  c.layout = t.layouts[0];
  c.cluster = 1;
  return c;
}

}  // namespace roofcast::kernels
