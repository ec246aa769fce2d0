// L2 hit rate of the operand loads (A and B tiles) of a tiled GEMM under a block raster order,
// given how many blocks are resident at once and the L2 capacity. Two named models:
//
//  published  hit = 1 - Wm*Wn / (Wm*Wn + Wm*Nblock + Wn*Mblock)
//             (shared/reference/gemm-ladder.txt, "Wave 模型与 L2 命中率"). roofcast reads its
//             symbols as: Wm x Wn = the footprint of the resident wave in tiles (the distinct
//             tile rows and columns the W resident blocks cover under the raster order,
//             window_footprint below), Mblock = BM and Nblock = BN, the block tile's extent
//             in elements ("Block Tile 在 M/N 方向上的排布"). Kept as the reference's candidate;
//             why it is not roofcast's: docs/model.md#the-published-formula.
//
//  roofcast   reuse distance per operand panel (see roofcast_hit_rate).
//
// Both cost O(1) in K and in the grid size (Z-order: a loop over the bits of the grid side).
// Reasoning and measurements: docs/model.md#l2-hit-rate-under-raster-orders.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "roofcast/gemm.hpp"

namespace roofcast {

/// H100/H200 split the L2 into two partitions; a line that SMs on both sides read is cached in
/// both (the near partition keeps a copy of far data), so shared operand data has half the
/// L2 to live in. Chosen from the data (see the report in validation/tests/l2_agreement_test
/// and docs/model.md#partitions-and-miss-lookups).
inline constexpr double kL2CopiesOfSharedData = 2;

/// L2 lookups that miss per operand sector that DRAM supplies: 1 when the requesting SM's
/// near partition homes the line, 2 when it does not (a near miss, then the far partition's
/// lookup at the line's home), so 1.5 for lines homed evenly over the two partitions, plus near
/// misses that the far partition serves (no DRAM read, one more missing lookup). C stores count
/// as hits (write-back, full sectors: no fill). One global constant in [1, 2], chosen in steps
/// of 0.1 as the minimum mean |error| on the training split of measurement ad17452, with the
/// set-LRU survival below; the errors and the ncu cross-check:
/// docs/model.md#partitions-and-miss-lookups.
inline constexpr double kMissLookupsPerDramSector = 1.6;

/// Ways per L2 set, for set_lru_survival. NOT measured on the H200: 16 is the associativity
/// that microbenchmark studies report for the L2 of earlier NVIDIA data-centre GPUs; how much
/// it matters: docs/model.md#set-lru-survival.
inline constexpr int kL2Ways = 16;

/// Share of cached lines that survive until their next use when `distance_over_capacity`
/// (x = D / C) times the capacity of distinct data is requested in between, for an L2 whose
/// addresses are hashed over many sets of kL2Ways (a) ways, each set LRU: the lines the
/// window brings into one set are Poisson with mean lambda = a * x, and a line survives when
/// fewer than a others land in its set:
///   survival(x) = P(Poisson(a x) < a) = exp(-a x) * sum_{j=0}^{a-1} (a x)^j / j!
/// (1 at x = 0, ~0.47 at x = 1, ~0 beyond x = 2: a cyclic footprint larger than the cache
/// thrashes, as LRU does, instead of keeping C / D of it). O(a), independent of K and grid.
double set_lru_survival(double distance_over_capacity);

enum class L2Model : int {
  kPublished = 0,
  kRoofcast = 1,
};

/// "published", "roofcast".
std::string_view to_string(L2Model model);
std::optional<L2Model> parse_l2_model(std::string_view text);

/// What the L2 models read.
struct L2Input {
  std::int64_t tiles_m = 0;          // C tiles along M (rows of the tile grid)
  std::int64_t tiles_n = 0;          // C tiles along N
  gemm::RasterOrder raster;          // how linear block ids map to tiles
  std::int64_t resident_blocks = 0;  // blocks running at once: min(blocks per wave, grid)
  int bm = 0;                        // block tile, elements
  int bn = 0;
  double a_panel_bytes = 0;  // one A row panel over all K: (M / tiles_m) * K * 4
  double b_panel_bytes = 0;  // one B column panel over all K: (N / tiles_n) * K * 4
  double a_slab_bytes = 0;   // one K tile of an A panel: BM * BK * 4
  double b_slab_bytes = 0;   // one K tile of a B panel: BK * BN * 4
  int slabs_in_flight = 1;   // K tiles per block in flight (the stages)
  double l2_bytes = 0;       // effective L2 capacity
};

/// Distinct tile rows and columns that a window of `window` consecutive block ids covers
/// under a raster order, in expectation over the window's start (the closed forms below).
struct WindowFootprint {
  double rows = 0;
  double cols = 0;
};

/// Expected footprint of `window` consecutive block ids (1 <= window; capped by the grid):
///   grouped with g = min(G, tiles_m) rows per group (row-major is g = 1, column-major is
///   g = tiles_m), S = g * tiles_n ids per group:
///     rows = min(tiles_m, min(window, g) * (1 + (window - 1) / S))
///     cols = min(tiles_n, 1 + (window - 1) / g)
///   (row-major: rows = 1 + (window - 1) / tiles_n, cols = min(tiles_n, window)).
///   Z-order: a near-square patch, rows = min(tiles_m, sqrt(window)),
///     cols = min(tiles_n, window / rows), rows = min(tiles_m, window / cols).
WindowFootprint window_footprint(std::int64_t tiles_m, std::int64_t tiles_n,
                                 const gemm::RasterOrder& raster, double window);

/// The hit rate and the parts it came from.
struct L2Result {
  L2Model model = L2Model::kRoofcast;
  double hit_rate = 0;   // operand loads (A and B), bytes-weighted
  double wave_rows = 0;  // Wm: distinct tile rows of the resident wave
  double wave_cols = 0;  // Wn: distinct tile columns
  // roofcast only (0 for published):
  double a_hit_rate = 0;
  double b_hit_rate = 0;
  double in_flight_bytes = 0;       // (Wm * a_slab + Wn * b_slab) * slabs_in_flight
  double in_flight_retention = 0;   // set_lru_survival(in_flight_bytes / C)
  double wave_footprint_bytes = 0;  // Wm * a_panel + Wn * b_panel (the wave over all K)
  double cross_wave_retention = 0;  // set_lru_survival(wave_footprint_bytes / C)
};

/// The published formula: hit = 1 - Wm*Wn / (Wm*Wn + Wm*BN + Wn*BM), with (Wm, Wn) =
/// window_footprint(resident_blocks).
L2Result published_hit_rate(const L2Input& in);

/// roofcast's model. Each block requests, per K tile, one slab of its A row panel and one of
/// its B column panel. A panel's first request misses (compulsory); each later request of the
/// same panel, `gap` block ids after the previous one, hits with probability
///   h(gap) = (1 - s) * rho_in + s * rho(D),   s = min(1, gap / W)
/// where W = resident_blocks: with probability 1 - s both requests fall in the same wave and
/// meet while the wave's in-flight slabs are in L2, rho_in = survival(I / C),
/// I = (Wm * a_slab + Wn * b_slab) * slabs_in_flight; with probability s they fall in
/// different waves and the panel must survive the distinct data requested in between, the
/// footprint of max(gap, W) consecutive block ids over all K,
/// D = rows(x) * a_panel + cols(x) * b_panel + x * C tile, x = max(gap, W),
/// rho(D) = survival(D / C) (set_lru_survival), C = L2 / kL2CopiesOfSharedData. Blocks of one
/// wave start together and run alike, so waves stay nearly in step: a panel used by the next
/// wave has the whole wave's footprint over all K in between; once that exceeds C it is gone
/// (measured at 4096^3, and the form it replaced: docs/model.md#set-lru-survival).
/// The gaps of each raster order, in closed form (Tm x Tn tile grid):
///   grouped g (row-major g = 1, column-major g = Tm): A panels: Tn - 1 gaps of g per row
///     (of the last, shorter group: its height); B panels: g - 1 gaps of 1 inside each group
///     and one gap of g * Tn - g + 1 between consecutive groups, per column;
///   Z-order (Morton over the next power-of-two square, ids skipping tiles outside the grid):
///     moving from column j to j + 1 with t trailing one bits is a Morton step of
///     (2 * 4^t + 1) / 3 (from row i to i + 1: twice that), for floor((L + 2^t) / 2^(t+1))
///     of the L = Tn - 1 (Tm - 1) steps, scaled by the share of the enclosing 2^(t+1) square
///     that lies inside the grid.
/// hit = sum over panels of count * h(gap) / requests, A and B weighted by their bytes.
L2Result roofcast_hit_rate(const L2Input& in);

/// The named model.
L2Result l2_hit_rate(const L2Input& in, L2Model model);

/// Hit rate of every L2 sector access of the kernel (what Nsight Compute's
/// lts__t_sector_hit_rate counts) from the operand hit rate: C writes allocate in L2 without
/// a fill and count as hits; each operand or C-read sector that DRAM supplies costs
/// kMissLookupsPerDramSector missing lookups (near and far partition); local-memory (spill)
/// traffic that L1 does not keep (local_l2_bytes) hits too: a thread's spill slots are written
/// (full sectors, no fill, like C) before they are read, and the resident threads' local
/// footprint (bytes per thread x resident threads) stays in L2:
///   1 - d * ((1 - hit) * operand_bytes + c_read_bytes) / (operand_bytes + c_write_bytes +
///   c_read_bytes + local_l2_bytes), d = kMissLookupsPerDramSector, clamped to [0, 1].
/// Evidence (Nsight Compute on a spilling training case): docs/model.md#kernel-sector-hit-rate.
double kernel_sector_hit_rate(double operand_hit_rate, double operand_bytes, double c_write_bytes,
                              double c_read_bytes, double local_l2_bytes = 0);

}  // namespace roofcast
