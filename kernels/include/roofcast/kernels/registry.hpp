// THE kernel registry: the only list of SGEMM ladder kernels. Tests, validation, reports and the
// model's config enumeration read kRegistry; the CUDA launch table (launch.hpp) is generated
// from it at compile time, so a config exists here exactly when it is compiled and launchable.
//
// Pure C++17, no CUDA: the model (no GPU, no toolkit) includes it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/rules_rungs_1_6.hpp"
#include "roofcast/kernels/rules_rungs_7_10.hpp"

namespace roofcast::kernels {

using gemm::SmemLayout;
using gemm::TileConfig;

/// Why a config is in the registry.
enum class Role : int {
  kLadder = 0,  // the rung's headline config: the ladder table shows it
  kSweep = 1,   // one point of the rung's tile-parameter sweep
  kSample = 2,  // a config of the measured sample (kernels/sample.hpp), not in the registry
};

struct RegistryEntry {
  TileConfig config;
  Role role = Role::kSweep;
};

/// A TileConfig from its fields in the registry's column order:
/// tile(rung, layout, BM, BN, BK, TM, TN, WM, WN, threads, stages, vector, cluster).
constexpr TileConfig tile(int rung, SmemLayout layout, int bm, int bn, int bk, int tm, int tn,
                          int wm, int wn, int threads, int stages, int vector_width,
                          int cluster = 1) {
  TileConfig c{};
  c.rung = rung;
  c.layout = layout;
  c.bm = bm;
  c.bn = bn;
  c.bk = bk;
  c.tm = tm;
  c.tn = tn;
  c.wm = wm;
  c.wn = wn;
  c.threads = threads;
  c.stages = stages;
  c.vector_width = vector_width;
  c.cluster = cluster;
  return c;
}

/// Compact constructor so the table below stays readable:
/// entry(role, rung, layout, BM, BN, BK, TM, TN, WM, WN, threads, stages, vector, cluster).
constexpr RegistryEntry entry(Role role, int rung, SmemLayout layout, int bm, int bn, int bk,
                              int tm, int tn, int wm, int wn, int threads, int stages,
                              int vector_width, int cluster) {
  return RegistryEntry{
      tile(rung, layout, bm, bn, bk, tm, tn, wm, wn, threads, stages, vector_width, cluster), role};
}

// clang-format off
inline constexpr RegistryEntry kRegistry[] = {
    // ---- rungs 1-6 ----------------------------------------------------------------------
    // rung 1, naive: 32 x 32 threads (1024) or 8 x 32 (256)
    entry(Role::kLadder, 1, SmemLayout::kPlain, 32, 32, 0, 1, 1, 0, 0, 1024, 1, 1, 1),
    entry(Role::kSweep, 1, SmemLayout::kPlain, 8, 32, 0, 1, 1, 0, 0, 256, 1, 1, 1),
    // RUNGS_2_TO_6
    // rung 2, shared-memory tiling: square T x T tile, one thread per output
    entry(Role::kLadder, 2, SmemLayout::kPlain, 32, 32, 32, 1, 1, 0, 0, 1024, 1, 1, 1),
    // rung 3, 1D thread tiling: TM outputs of one column per thread
    entry(Role::kLadder, 3, SmemLayout::kPlain, 64, 64, 8, 8, 1, 0, 0, 512, 1, 1, 1),
    // rung 4, 2D thread tiling: the classic 128x128x8, 8x8 per thread, 256 threads; the sweep
    // runs from low reuse (32x32, 2x2) to one 256-thread block per SM (256x128, 16x8)
    entry(Role::kLadder, 4, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 1, 1),
    entry(Role::kSweep, 4, SmemLayout::kPlain, 32, 32, 8, 2, 2, 0, 0, 256, 1, 1, 1),
    entry(Role::kSweep, 4, SmemLayout::kPlain, 64, 64, 8, 4, 4, 0, 0, 256, 1, 1, 1),
    entry(Role::kSweep, 4, SmemLayout::kPlain, 64, 64, 8, 8, 8, 0, 0, 64, 1, 1, 1),
    entry(Role::kSweep, 4, SmemLayout::kPlain, 128, 128, 16, 8, 8, 0, 0, 256, 1, 1, 1),
    entry(Role::kSweep, 4, SmemLayout::kPlain, 128, 128, 8, 4, 4, 0, 0, 1024, 1, 1, 1),
    entry(Role::kSweep, 4, SmemLayout::kPlain, 256, 128, 8, 16, 8, 0, 0, 256, 1, 1, 1),
    // rung 5, float4 loads, A transposed: BK 8..32, threads 64..1024
    entry(Role::kLadder, 5, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 32, 32, 8, 4, 4, 0, 0, 64, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 64, 64, 8, 4, 4, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 64, 64, 16, 8, 8, 0, 0, 64, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 128, 64, 8, 8, 4, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 128, 128, 8, 8, 4, 0, 0, 512, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 128, 128, 16, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 128, 128, 32, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 128, 128, 8, 4, 4, 0, 0, 1024, 1, 4, 1),
    entry(Role::kSweep, 5, SmemLayout::kPlain, 256, 128, 8, 16, 8, 0, 0, 256, 1, 4, 1),
    // rung 6, bank-conflict-free: one headline per layout; the sweep ends at 256x256 with
    // 16x16 per thread (256 accumulators: more than 255 registers, so it spills by design)
    entry(Role::kLadder, 6, SmemLayout::kPadded, 128, 128, 8, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kLadder, 6, SmemLayout::kSwizzled, 128, 128, 8, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kPadded, 64, 64, 8, 4, 4, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kPadded, 128, 128, 16, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kPadded, 256, 128, 8, 16, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 32, 32, 8, 4, 4, 0, 0, 64, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 64, 64, 8, 4, 4, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 128, 64, 8, 8, 8, 0, 0, 128, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 128, 128, 16, 8, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 128, 256, 8, 8, 16, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 256, 128, 8, 16, 8, 0, 0, 256, 1, 4, 1),
    entry(Role::kSweep, 6, SmemLayout::kSwizzled, 256, 256, 8, 16, 16, 0, 0, 256, 1, 4, 1),

    // ---- rungs 7-10 ---------------------------------------------------------------------
    // RUNGS_7_TO_10 (filled by the rungs 7-10 work)
    // Rungs 7-10 share one tile vocabulary (rules_rungs_7_10.hpp); every config stores A
    // transposed and padded (layout kPadded). vector_width is the width of A's global loads:
    // 4 = float4 through registers, 1 = 4-byte cp.async straight into A^T (rungs 9, 10).
    // Each headline is the fastest config of its rung in a development timing at 4096^3 on the
    // H200 (roofcast-ladder-check --time); the sweeps run from low reuse (32x32 tiles, 4x4 per
    // thread) through 128x128 (8x8 at two blocks per SM, 8x16 at 128 threads) to 256x128 and
    // 128x256 tiles with 128 accumulators per thread (one block per SM).
    // entry(role, rung, layout, BM, BN, BK, TM, TN, WM, WN, threads, stages, vector, cluster)
    // rung 7, warp tiling: one shared stage
    entry(Role::kLadder, 7, SmemLayout::kPadded, 128, 128, 16, 8, 8, 64, 32, 256, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 32, 32, 8, 4, 4, 32, 16, 64, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 32, 64, 8, 4, 8, 32, 32, 64, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 64, 64, 8, 4, 8, 32, 32, 128, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 64, 128, 8, 8, 8, 32, 64, 128, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 128, 128, 8, 4, 8, 32, 32, 512, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 128, 128, 8, 8, 8, 64, 32, 256, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 128, 128, 32, 8, 8, 64, 32, 256, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 128, 256, 8, 8, 16, 64, 64, 256, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 1, 4, 1),
    entry(Role::kSweep, 7, SmemLayout::kPadded, 256, 128, 16, 16, 8, 64, 64, 256, 1, 4, 1),
    // rung 8, double buffering: two shared stages, register-staged prefetch, two fragments
    entry(Role::kLadder, 8, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 32, 32, 8, 4, 4, 32, 16, 64, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 64, 64, 8, 4, 8, 32, 32, 128, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 64, 64, 16, 8, 4, 32, 32, 128, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 64, 8, 8, 8, 64, 32, 128, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 128, 8, 8, 8, 64, 32, 256, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 128, 8, 16, 8, 64, 64, 128, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 128, 16, 8, 16, 64, 64, 128, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 256, 8, 8, 16, 64, 64, 256, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 128, 256, 8, 16, 8, 64, 64, 256, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 256, 128, 8, 8, 16, 64, 64, 256, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 256, 128, 8, 16, 8, 128, 32, 256, 2, 4, 1),
    entry(Role::kSweep, 8, SmemLayout::kPadded, 256, 128, 16, 16, 8, 64, 64, 256, 2, 4, 1),
    // rung 9, cp.async pipeline: 2..4 stages; A through registers (v4) or 4-byte cp.async (v1)
    entry(Role::kLadder, 9, SmemLayout::kPadded, 256, 128, 16, 16, 8, 64, 64, 256, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 32, 32, 8, 4, 4, 32, 16, 64, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 64, 64, 8, 4, 8, 32, 32, 128, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 64, 128, 8, 8, 8, 32, 64, 128, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 128, 8, 8, 8, 64, 32, 256, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 128, 16, 8, 16, 64, 64, 128, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 256, 16, 8, 16, 64, 64, 256, 4, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 2, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 256, 128, 8, 16, 8, 128, 32, 256, 3, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 256, 128, 16, 16, 8, 64, 64, 256, 4, 4, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 2, 1, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 1, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 128, 256, 16, 8, 16, 64, 64, 256, 4, 1, 1),
    entry(Role::kSweep, 9, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 3, 1, 1),
    // rung 10, Hopper cluster: B stages multicast by bulk copies to a cluster of 2 (1, 4) blocks
    entry(Role::kLadder, 10, SmemLayout::kPadded, 128, 256, 16, 8, 16, 64, 64, 256, 4, 4, 2),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 4, 2),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 1, 1),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 1, 2),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 3, 4, 1),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 3, 4, 2),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 256, 128, 8, 16, 8, 64, 64, 256, 4, 4, 4),
    entry(Role::kSweep, 10, SmemLayout::kPadded, 256, 128, 16, 16, 8, 64, 64, 256, 3, 4, 2),
};
// clang-format on

inline constexpr std::size_t kRegistrySize = sizeof(kRegistry) / sizeof(kRegistry[0]);

/// Human name of a rung: "naive", "shared-memory tiling", ...
std::string_view rung_name(int rung);

/// Stable id of a config, e.g. "r07-warp-128x128x16-w64x32-t8x8-256t-v4-padded" or
/// "r10-cluster-128x256x16-w64x64-t8x16-256t-s4-v4-padded-c2": rung and its short name,
/// BMxBNxBK, the warp tile wWMxWN only when WM > 0, the thread tile tTMxTN, the threads, then
/// -sS only when stages != 1, -vV only when vector_width != 1, the layout only when it is not
/// plain, -cC only when cluster != 1. Unique over the registry (a test checks it).
std::string kernel_id(const TileConfig& config);

/// The config whose kernel_id is `id`, or empty. Strict: every part is checked (the rung's
/// short name, canonical decimal numbers without sign or leading zeros, the optional parts in
/// kernel_id's order and only when kernel_id would write them), the fields are within
/// gemm::tile_bounds_problem and the config follows its rung's tile rules (violated_rule); so
/// kernel_id(*parse_kernel_id(id)) == id for every id it accepts, registered or not. `problem`
/// (optional) receives why an id is refused: the part, or the rule the config breaks.
std::optional<TileConfig> parse_kernel_id(std::string_view id, std::string* problem = nullptr);

/// Index of the entry whose kernel_id is `id`; kRegistrySize when there is none.
std::size_t find_kernel(std::string_view id);

/// Rungs 7-10 take the block raster order as a launch parameter; rungs 1-6 walk row-major.
constexpr bool takes_raster_order(const TileConfig& config) { return config.rung >= 7; }

/// Shared memory a config's block uses, bytes (its kernel allocates exactly this, dynamically).
/// Formulas in rules_rungs_*.hpp; the validation run records cudaFuncGetAttributes beside it.
constexpr int shared_memory_bytes(const TileConfig& c) {
  return c.rung <= 6 ? rules::shared_memory_bytes_rungs_1_6(c)
                     : rules::shared_memory_bytes_rungs_7_10(c);
}

/// The first tile rule a config breaks, as a sentence; nullptr when the config is valid.
/// The kernels static_assert the same predicates, so a valid config always compiles.
constexpr const char* violated_rule(const TileConfig& c) {
  if (c.rung < 1 || c.rung > gemm::kRungCount) return "rung must be 1..10";
  if (const char* out_of_bounds = gemm::tile_bounds_problem(c)) return out_of_bounds;
  return c.rung <= 6 ? rules::violated_rule_rungs_1_6(c) : rules::violated_rule_rungs_7_10(c);
}

/// The minimum blocks per SM a config's kernel declares in __launch_bounds__ (0: none); ptxas
/// keeps its registers low enough for that many blocks.
constexpr int launch_bounds_min_blocks(const TileConfig& c) {
  if (c.rung >= 4 && c.rung <= 6) {
    return rules::tiling_min_blocks_per_sm(c.bm, c.bn, c.bk, c.tm, c.tn, c.threads);
  }
  if (c.rung >= 7) return rules::min_blocks_per_sm_rungs_7_10(c);
  return 0;
}

/// Minimum compute capability (major*10+minor) the config's kernel needs: thread-block
/// clusters 9.0 (rung 10), cp.async 8.0 (rung 9), plain CUDA otherwise (7.0). This build's
/// binaries target sm_80 and sm_90 only (CUDA 13 cannot target sm_70), so a V100 is predicted
/// but not measured.
constexpr int minimum_compute_capability(const TileConfig& c) {
  return c.rung == 10 ? 90 : c.rung == 9 ? 80 : 70;
}

}  // namespace roofcast::kernels
