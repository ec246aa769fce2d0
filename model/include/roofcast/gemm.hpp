// The GEMM tile vocabulary shared by the model, the kernel registry, validation and reports.
// C = alpha * A * B + beta * C, FP32, row-major: A is M x K, B is K x N, C is M x N.
//
// This header is C++17 and free of CUDA so that nvcc-compiled kernels (C++17) and the C++20
// model read the same types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "roofcast/ceil_div.hpp"
#include "roofcast/register_count.hpp"

#if defined(__CUDACC__)
#define ROOFCAST_HOST_DEVICE __host__ __device__
#else
#define ROOFCAST_HOST_DEVICE
#endif

namespace roofcast::gemm {

/// A problem's shape. FLOPs = 2 * M * N * K (one FFMA = 2 FLOPs).
struct Problem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;

  constexpr double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
  constexpr bool operator==(const Problem& other) const {
    return m == other.m && n == other.n && k == other.k;
  }
};

/// Largest M, N or K anywhere (CLI flags, problems files, measurement files, Python): the
/// kernels index rows and columns with 32-bit ints, so 2^31 - 1. Every grid product of extents
/// this large still fits 64 bits (tiles_m * tiles_n <= 2^62).
inline constexpr std::int64_t kMaxExtent = (std::int64_t{1} << 31) - 1;

/// Whether every extent of `problem` is within 1..kMaxExtent.
constexpr bool extents_in_range(const Problem& problem) {
  return problem.m >= 1 && problem.m <= kMaxExtent && problem.n >= 1 && problem.n <= kMaxExtent &&
         problem.k >= 1 && problem.k <= kMaxExtent;
}

/// The ladder's rungs, numbered as the kernels/ladder/NN_*.cuh files.
enum class Rung : int {
  kNaive = 1,           // one thread per output element, coalesced along N
  kSharedTiling = 2,    // BM x BK and BK x BN tiles in shared memory
  kThreadTiling1d = 3,  // each thread computes TM outputs of one column
  kThreadTiling2d = 4,  // each thread computes a TM x TN outer product
  kVectorized = 5,      // float4 global and shared loads, A transposed in shared memory
  kConflictFree = 6,    // padded or XOR-swizzled shared layout
  kWarpTiling = 7,      // warp tile WM x WN split into thread tiles
  kDoubleBuffered = 8,  // two shared buffers across K tiles, two register fragments
  kCpAsync = 9,         // cp.async pipeline of `stages` shared buffers
  kHopperCluster = 10,  // sm_90: thread-block cluster sharing operand tiles (DSMEM)
};
inline constexpr int kRungCount = 10;

/// How shared-memory tiles are laid out.
enum class SmemLayout : int {
  kPlain = 0,     // row-major, no padding
  kPadded = 1,    // each row padded by one vector width
  kSwizzled = 2,  // vector column index XOR-ed with the row
};

/// The order in which blocks (C tiles) are assigned to the linear block index.
enum class RasterKind : int {
  kRowMajor = 0,     // consecutive blocks walk along N: tile (pid / tiles_n, pid % tiles_n)
  kColumnMajor = 1,  // consecutive blocks walk along M
  kGrouped = 2,      // groups of `group` tile rows walked column by column (Triton's swizzle)
  kZOrder = 3,       // Morton order over the tile grid (model only; kernels do not launch it)
};

struct RasterOrder {
  RasterKind kind = RasterKind::kRowMajor;
  /// Tile rows per group for kGrouped (>= 1); ignored otherwise.
  int group = 1;

  constexpr bool operator==(const RasterOrder& other) const {
    return kind == other.kind && (kind != RasterKind::kGrouped || group == other.group);
  }
};

/// A kernel configuration: one tile vocabulary for every rung. Fields a rung does not use are
/// zero (see each rung's file for what it reads).
struct TileConfig {
  int rung = 0;
  SmemLayout layout = SmemLayout::kPlain;
  int bm = 0;            // block tile rows (M)
  int bn = 0;            // block tile columns (N)
  int bk = 0;            // K depth of one shared-memory tile
  int tm = 0;            // thread tile rows
  int tn = 0;            // thread tile columns
  int wm = 0;            // warp tile rows (rungs >= 7)
  int wn = 0;            // warp tile columns (rungs >= 7)
  int threads = 0;       // threads per block
  int stages = 1;        // shared-memory buffers along K (2 = double buffering)
  int vector_width = 1;  // elements per global/shared load (1 or 4)
  int cluster = 1;       // blocks per thread-block cluster (rung 10)

  constexpr bool operator==(const TileConfig& o) const {
    return rung == o.rung && layout == o.layout && bm == o.bm && bn == o.bn && bk == o.bk &&
           tm == o.tm && tn == o.tn && wm == o.wm && wn == o.wn && threads == o.threads &&
           stages == o.stages && vector_width == o.vector_width && cluster == o.cluster;
  }
};

/// Why a config's fields are outside what any rung can mean, or nullptr: BM, BN 1..4096; BK,
/// TM, TN, WM, WN, threads >= 0 (0: not used or derived) and BK <= 1024, TM, TN <= 64, WM, WN <=
/// 4096, threads <= 16384; stages 1..16; vector width 1..4; cluster 1..16. Checked before any
/// tile rule or anatomy, so that no product of these fields overflows an int.
constexpr const char* tile_bounds_problem(const TileConfig& c) {
  if (c.bm < 1 || c.bm > 4096 || c.bn < 1 || c.bn > 4096) return "BM and BN must be 1..4096";
  if (c.bk < 0 || c.bk > 1024) return "BK must be 0..1024";
  if (c.tm < 0 || c.tm > 64 || c.tn < 0 || c.tn > 64) return "TM and TN must be 0..64";
  if (c.wm < 0 || c.wm > 4096 || c.wn < 0 || c.wn > 4096) return "WM and WN must be 0..4096";
  if (c.threads < 0 || c.threads > 16384) return "threads must be 0..16384 (0: derived)";
  if (c.stages < 1 || c.stages > 16) return "stages must be 1..16";
  if (c.vector_width < 1 || c.vector_width > 4) return "vector width must be 1..4";
  if (c.cluster < 1 || c.cluster > 16) return "cluster must be 1..16";
  return nullptr;
}

/// Number of C tiles along M and N, and in total (one block per tile).
constexpr std::int64_t tiles_m(const Problem& p, const TileConfig& c) {
  return ceil_div(p.m, c.bm);
}
constexpr std::int64_t tiles_n(const Problem& p, const TileConfig& c) {
  return ceil_div(p.n, c.bn);
}
constexpr std::int64_t tile_count(const Problem& p, const TileConfig& c) {
  return tiles_m(p, c) * tiles_n(p, c);
}

/// A C tile's coordinates in tiles.
struct TileCoord {
  int m = 0;
  int n = 0;
};

/// The tile that linear block `pid` (0 <= pid < tiles_m * tiles_n) computes under a raster
/// order. Shared by the kernels (device) and the model (host). kZOrder is not a launch order:
/// it maps like kRowMajor here, and launchers refuse it.
/// Grouped (Triton's grouped ordering): group g covers tile rows [g*G, g*G + rows_g) with
/// rows_g = min(G, tiles_m - g*G); inside a group, pid walks down the rows first.
ROOFCAST_HOST_DEVICE constexpr TileCoord tile_of_block(int pid, int tiles_m, int tiles_n,
                                                       RasterKind kind, int group) {
  if (kind == RasterKind::kColumnMajor) return TileCoord{pid % tiles_m, pid / tiles_m};
  if (kind == RasterKind::kGrouped) {
    const int blocks_per_group = group * tiles_n;
    const int group_id = pid / blocks_per_group;
    const int first_m = group_id * group;
    const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int in_group = pid - group_id * blocks_per_group;
    return TileCoord{first_m + in_group % rows, in_group / rows};
  }
  return TileCoord{pid / tiles_n, pid % tiles_n};
}

std::string_view to_string(SmemLayout layout);
std::string_view to_string(RasterKind kind);
/// "row_major", "column_major", "grouped:8", "z_order".
std::string to_string(const RasterOrder& order);
std::optional<SmemLayout> parse_smem_layout(std::string_view text);
/// Accepts the forms to_string writes; "grouped" alone means group 8 is NOT assumed: empty.
std::optional<RasterOrder> parse_raster_order(std::string_view text);

}  // namespace roofcast::gemm
