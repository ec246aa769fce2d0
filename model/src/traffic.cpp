#include "roofcast/traffic.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace roofcast {
namespace {

constexpr int kWarpLanes = 32;
constexpr int kVectorFloats = 4;  // float4
constexpr int kWordsPerLine = kL1LineBytes / kFloatBytes;
// Integer instructions per global load (address and edge predicate) and per main-loop
// iteration (K offset, pointer increments, compare and branch). Read off the kernels' loops;
// the issue-rate calibration absorbs what the compiler does differently.
constexpr double kIntegerPerGlobalLoad = 2;
constexpr double kLoopInstructionsPerTile = 4;

int ceil_div_int(int a, int b) { return (a + b - 1) / b; }

/// Iterations per warp, averaged over the block's warps, of a copy loop
/// `for (e = tid; e < items; e += threads)`: ceil(items / 32) / ceil(threads / 32). A warp
/// whose lanes all start beyond `items` skips the loop, so with fewer items than threads
/// (64 x 8 A tile as float4 = 128 copies for 256 threads) half the warps copy nothing: 0.5, not
/// the per-thread maximum 1. Whole warps count: the warp instructions the SM issues.
double copies_per_warp(int items, int threads) {
  return static_cast<double>(ceil_div_int(items, kWarpLanes)) / ceil_div_int(threads, kWarpLanes);
}

/// Distinct values of a small array (<= 128 entries) without allocation: O(n) when the values
/// do not decrease (lanes walking a row-major tile), else O(n^2).
int distinct_count(const std::int64_t* values, int n) {
  bool sorted = true;
  int changes = n > 0 ? 1 : 0;
  for (int i = 1; i < n && sorted; ++i) {
    sorted = values[i] >= values[i - 1];
    changes += values[i] != values[i - 1] ? 1 : 0;
  }
  if (sorted) return changes;
  int distinct = 0;
  for (int i = 0; i < n; ++i) {
    bool seen = false;
    for (int j = 0; j < i && !seen; ++j) seen = values[j] == values[i];
    distinct += seen ? 0 : 1;
  }
  return distinct;
}

/// The lanes of warp 0 walking a row-major index space of `per_row` entries per row:
/// lane l -> (row, col) = (l / per_row, l % per_row), computed by stepping (no division).
template <typename Visit>
void walk_lanes(int lanes, int per_row, Visit visit) {
  int row = 0;
  int col = 0;
  for (int lane = 0; lane < lanes; ++lane) {
    visit(lane, row, col);
    if (++col == per_row) {
      col = 0;
      ++row;
    }
  }
}

}  // namespace

int padded_row_floats(int cols) {
  const int s = cols + kVectorFloats * (cols / 32);
  return (s / kVectorFloats) % 2 == 1 ? s : s + kVectorFloats;
}

int shared_tile_offset(gemm::SmemLayout layout, int rows, int cols, int row, int col) {
  switch (layout) {
    case gemm::SmemLayout::kPadded:
      return row * padded_row_floats(cols) + col + kVectorFloats * (col >> 5);
    case gemm::SmemLayout::kSwizzled: {
      const int v = col >> 2;
      const int x = ((v >> 3) + (row >> 2) * (rows > 0 && 32 % rows == 0 ? 32 / rows : 1)) & 7;
      return row * cols + ((v ^ x) << 2) + (col & 3);
    }
    case gemm::SmemLayout::kPlain:
      break;
  }
  return row * cols + col;
}

int shared_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int banks,
                      int* ideal) {
  // Work in units of `width` words: an aligned unit covers `width` consecutive banks, so the
  // banks form `groups` groups and a unit's group is unit % groups. Distinct units in a group
  // conflict; the same unit is a broadcast. Each group keeps the list of distinct rows
  // (unit / groups) it has seen: at most 32 lanes, so at most 32 entries in all. Widths and
  // bank counts are powers of two (shifts, no division); x & (x - 1) clears the lowest set bit
  // (std::has_single_bit is a library popcount call without -mpopcnt).
  const int groups = std::max(1, banks / width);
  const bool powers_of_two =
      width > 0 && (width & (width - 1)) == 0 && (groups & (groups - 1)) == 0;
  int worst = 0;
  int distinct = 0;
  std::int64_t low = INT64_MAX;
  std::int64_t high = INT64_MIN;
  for (int l = 0; l < lanes; ++l) {
    low = std::min(low, word_offsets[l]);
    high = std::max(high, word_offsets[l]);
  }
  if (powers_of_two && groups <= 32 && lanes <= 32 && high - low < (std::int64_t{1} << 30)) {
    const int width_shift = std::countr_zero(static_cast<unsigned>(width));
    const int group_shift = std::countr_zero(static_cast<unsigned>(groups));
    const std::int64_t group_mask = groups - 1;
    // Rows relative to lane 0's (a warp's accesses lie within a few KiB) keep the lists small.
    const std::int64_t base = word_offsets[0] >> width_shift >> group_shift;
    std::int32_t rows[32][32];
    int count[32] = {};
    for (int l = 0; l < lanes; ++l) {
      const std::int64_t unit = word_offsets[l] >> width_shift;
      const auto g = static_cast<int>(unit & group_mask);
      const auto row = static_cast<std::int32_t>((unit >> group_shift) - base);
      bool seen = false;
      for (int i = 0; i < count[g] && !seen; ++i) seen = rows[g][i] == row;
      if (!seen) {
        rows[g][count[g]++] = row;
        worst = std::max(worst, count[g]);
        ++distinct;
      }
    }
    if (ideal != nullptr) *ideal = ceil_div_int(distinct, groups);
    return worst;
  }
  // Odd sizes: count pairwise.
  std::int64_t units[32] = {};
  for (int l = 0; l < lanes; ++l) units[l] = word_offsets[l] / width;
  distinct = distinct_count(units, lanes);
  for (int g = 0; g < groups; ++g) {
    std::int64_t in_group[32] = {};
    int n = 0;
    for (int l = 0; l < lanes; ++l) {
      if (units[l] % groups == g) in_group[n++] = units[l];
    }
    worst = std::max(worst, distinct_count(in_group, n));
  }
  if (ideal != nullptr) *ideal = ceil_div_int(distinct, groups);
  return worst;
}

int shared_load_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int banks,
                           int* ideal) {
  if (width <= 1) return shared_wavefronts(word_offsets, lanes, width, banks, ideal);
  const auto paired = [&](int mask) {
    for (int l = 0; l < lanes; ++l) {
      const int partner = l ^ mask;
      if (partner < lanes && word_offsets[partner] != word_offsets[l]) return false;
    }
    return true;
  };
  const int phase = std::max(1, banks / width) * (paired(1) || paired(2) ? 2 : 1);
  int wavefronts = 0;
  int ideal_sum = 0;
  for (int first = 0; first < lanes; first += phase) {
    int phase_ideal = 0;
    wavefronts += shared_wavefronts(word_offsets + first, std::min(phase, lanes - first), width,
                                    banks, &phase_ideal);
    ideal_sum += std::max(1, phase_ideal);
  }
  if (ideal != nullptr) *ideal = ideal_sum;
  return wavefronts;
}

int global_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int* ideal,
                      int* sectors) {
  constexpr int kWordsPerSector = kSectorBytes / kFloatBytes;
  // Lanes walking a row-major tile have non-decreasing addresses: then distinct lines,
  // vectors and sectors are the changes from one lane to the next (one pass). Otherwise count
  // pairwise. A vector of `width` aligned words lies in one sector (width <= 4 < 8 words).
  static_assert(kWordsPerLine == 32 && kWordsPerSector == 8, "shifts below");
  int lines = lanes > 0 ? 1 : 0;
  int units = lines;
  int sector_count = lines;
  bool sorted = (width & (width - 1)) == 0;  // the one-pass count shifts by log2(width)
  const int width_shift = std::countr_zero(static_cast<unsigned>(width));
  for (int l = 1; l < lanes && sorted; ++l) {
    const std::int64_t a = word_offsets[l - 1];
    const std::int64_t b = word_offsets[l];
    sorted = b >= a && a >= 0;
    lines += (b >> 5) != (a >> 5) ? 1 : 0;
    units += (b >> width_shift) != (a >> width_shift) ? 1 : 0;
    sector_count += (b >> 3) != (a >> 3) ? 1 : 0;
  }
  if (!sorted) {
    std::int64_t line_ids[32];
    std::int64_t unit_ids[32];
    std::int64_t sector_ids[32];
    for (int l = 0; l < lanes; ++l) {
      line_ids[l] = word_offsets[l] / kWordsPerLine;
      unit_ids[l] = word_offsets[l] / width;
      sector_ids[l] = word_offsets[l] / kWordsPerSector;
    }
    lines = distinct_count(line_ids, lanes);
    units = distinct_count(unit_ids, lanes);
    sector_count = distinct_count(sector_ids, lanes);
  }
  const int minimum = ceil_div_int(units * width * kFloatBytes, kL1LineBytes);
  if (ideal != nullptr) *ideal = minimum;
  if (sectors != nullptr) *sectors = sector_count;
  return std::max(minimum, lines);
}

double unaligned_copy_integer(UnalignedCopy path) {
  switch (path) {
    case UnalignedCopy::kScalarLoad:
      return kUnalignedScalarLoadInteger;
    case UnalignedCopy::kByteCopy:
      return kUnalignedByteCopyInteger;
  }
  return 0.0;
}

int chain_prefetch_tiles(const gemm::TileConfig& c, int prefetch_tiles) {
  const bool a_in_registers = c.rung >= 9 && c.vector_width == kVectorFloats;
  return a_in_registers ? std::min(1, prefetch_tiles) : prefetch_tiles;
}

int serial_load_groups(int rung) { return rung == 5 || rung == 6 ? 2 : 1; }

int fragment_read_floats_a(const gemm::TileConfig& c) {
  return c.rung == 4 && c.bk % 2 == 0 ? 2 : 1;
}

int fragment_read_floats_b(const gemm::TileConfig& c) {
  if (c.rung != 4) return 1;
  return c.tn % kVectorFloats == 0 ? kVectorFloats : c.tn % 2 == 0 ? 2 : 1;
}

int fragment_round_trips(const gemm::TileConfig& c) {
  return c.rung == 4 ? std::max(1, c.bk / fragment_read_floats_a(c)) : 1;
}

int derived_threads(const gemm::TileConfig& c) {
  if (c.rung <= 2) return c.bm * c.bn;
  if (c.rung >= 7 && c.wm > 0 && c.wn > 0) return kWarpLanes * (c.bm / c.wm) * (c.bn / c.wn);
  if (c.tm < 1 || c.tn < 1) return 0;
  return (c.bm / c.tm) * (c.bn / c.tn);
}

namespace {

using gemm::SmemLayout;
using gemm::TileConfig;

struct Shape {
  int lanes = kWarpLanes;
  int banks = 32;
};

/// Global loads of a rows x cols tile of a row-major matrix with leading dimension `ld`,
/// `threads` threads each taking `width`-float vectors e, e + threads, ...:
/// lane e -> (row, col) = (e / (cols / width), e % (cols / width) * width).
WarpAccess tile_global_load(const Shape& s, int rows, int cols, std::int64_t ld, int threads,
                            int width, bool vector_path) {
  WarpAccess a;
  const int vectors = rows * cols / width;
  const double per_warp = copies_per_warp(vectors, threads);
  // Without the float4 path a vector is four predicated scalar loads.
  a.instructions = vector_path ? per_warp : per_warp * width;
  a.vector_floats = vector_path ? width : 1;
  std::int64_t words[kWarpLanes] = {};
  const int lanes = std::min(s.lanes, std::max(1, vectors));
  walk_lanes(lanes, cols / width, [&](int lane, int row, int v) {
    words[lane] = row * ld + static_cast<std::int64_t>(v) * width;
  });
  a.wavefronts = global_wavefronts(words, lanes, width, &a.wavefronts_ideal, &a.sectors);
  if (!vector_path) {  // each scalar load of the four touches a quarter of the bytes
    a.wavefronts_ideal = std::max(1, ceil_div_int(a.wavefronts_ideal, width));
    a.wavefronts = std::max(a.wavefronts_ideal, a.wavefronts);
  }
  return a;
}

/// Scalar or float4 stores of consecutive elements: dst[e * width], conflict-free.
WarpAccess contiguous_store(const Shape& s, double instructions, int width) {
  WarpAccess a;
  a.instructions = instructions;
  a.vector_floats = width;
  std::int64_t words[kWarpLanes] = {};
  for (int l = 0; l < s.lanes; ++l) words[l] = static_cast<std::int64_t>(l) * width;
  a.wavefronts = shared_wavefronts(words, s.lanes, width, s.banks, &a.wavefronts_ideal);
  return a;
}

/// C elements per thread: BM * BN / threads (TM * TN for a config that follows its rules;
/// the work decides, so an inconsistent TM x TN cannot create or lose FLOPs).
int outputs_per_thread(const TileConfig& c, int threads) {
  return std::max(1, c.bm * c.bn / std::max(1, threads));
}

/// Rung 1 (01_naive.cuh): thread (m, n) = (t / BN, t % BN); per k one A load (a warp shares
/// its row: broadcast) and one B load (32 consecutive n), no shared memory.
void naive_anatomy(const gemm::Problem& p, const TileConfig& c, const Shape& s, KernelAnatomy& a) {
  a.k_tile = 1;
  a.outputs_per_thread = 1;
  a.a_fragment = 1;
  a.b_fragment = 1;
  a.ffma = 1;
  std::int64_t words[kWarpLanes] = {};
  walk_lanes(s.lanes, c.bn, [&](int lane, int row, int) { words[lane] = row * p.k; });
  a.global_a.instructions = 1;
  a.global_a.wavefronts =
      global_wavefronts(words, s.lanes, 1, &a.global_a.wavefronts_ideal, &a.global_a.sectors);
  walk_lanes(s.lanes, c.bn, [&](int lane, int, int col) { words[lane] = col; });
  a.global_b.instructions = 1;
  a.global_b.wavefronts =
      global_wavefronts(words, s.lanes, 1, &a.global_b.wavefronts_ideal, &a.global_b.sectors);
  // Per k: the B pointer advances by N and the loop counts; the A address is k itself.
  a.integer_overhead = 2;
  a.epilogue_instructions = 2;  // alpha * sum, store
}

/// Rung 2 (02_shared_tiling.cuh): T x T tiles, thread (ty, tx); per K tile one A and one B
/// element loaded and stored; per k as[ty*T + k] and bs[k*T + tx].
void shared_tiling_anatomy(const gemm::Problem& p, const TileConfig& c, const Shape& s,
                           KernelAnatomy& a) {
  const int t = c.bm;
  a.k_tile = t;
  a.outputs_per_thread = 1;
  a.a_fragment = 1;
  a.b_fragment = 1;
  a.ffma = t;
  a.global_a = tile_global_load(s, t, t, p.k, a.threads, 1, true);
  a.global_b = tile_global_load(s, t, t, p.n, a.threads, 1, true);
  a.store_a = contiguous_store(s, 1, 1);
  a.store_b = contiguous_store(s, 1, 1);
  a.staging_registers = 2;
  std::int64_t words[kWarpLanes] = {};
  a.load_a.instructions = t;
  walk_lanes(s.lanes, t, [&](int lane, int ty, int) { words[lane] = ty * t; });
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, 1, s.banks, &a.load_a.wavefronts_ideal);
  a.load_b.instructions = t;
  walk_lanes(s.lanes, t, [&](int lane, int, int tx) { words[lane] = tx; });
  a.load_b.wavefronts =
      shared_load_wavefronts(words, s.lanes, 1, s.banks, &a.load_b.wavefronts_ideal);
  a.barriers = 2;
  a.integer_overhead = 2 * kIntegerPerGlobalLoad + kLoopInstructionsPerTile;
  a.epilogue_instructions = 2;
}

/// The work of a register-tiled thread (rungs 3-10): a BK-deep K tile, TM x TN outputs (TM
/// A values and TN B values per k), outputs x BK FFMAs per K tile.
void register_tile_work(const TileConfig& c, KernelAnatomy& a) {
  a.k_tile = c.bk;
  a.outputs_per_thread = outputs_per_thread(c, a.threads);
  a.a_fragment = c.tm;
  a.b_fragment = c.tn;
  a.ffma = static_cast<double>(a.outputs_per_thread) * c.bk;
}

/// Rungs 3-4 (03_thread_tiling_1d.cuh, 04_thread_tiling_2d.cuh): scalar tile copies
/// (load_tile_scalar: element e -> (e / cols, e % cols)), As[m][k] and Bs[k][n] plain; thread
/// (tr, tc) = (t / (BN/TN), t % (BN/TN)) reads TM values as[(tr*TM + i)*BK + k] and TN values
/// bs[k*BN + tc*TN + j] per k.
void thread_tiling_anatomy(const gemm::Problem& p, const TileConfig& c, const Shape& s,
                           KernelAnatomy& a) {
  register_tile_work(c, a);
  a.global_a = tile_global_load(s, c.bm, c.bk, p.k, a.threads, 1, true);
  a.global_b = tile_global_load(s, c.bk, c.bn, p.n, a.threads, 1, true);
  a.store_a = contiguous_store(s, a.global_a.instructions, 1);
  a.store_b = contiguous_store(s, a.global_b.instructions, 1);
  a.staging_registers = ceil_div_int(c.bm * c.bk, a.threads) + ceil_div_int(c.bk * c.bn, a.threads);
  const int threads_per_row = c.bn / c.tn;
  std::int64_t words[kWarpLanes] = {};
  const int a_width = fragment_read_floats_a(c);
  const int b_width = fragment_read_floats_b(c);
  a.load_a.instructions = static_cast<double>(c.tm) * c.bk / a_width;
  a.load_a.vector_floats = a_width;
  walk_lanes(s.lanes, threads_per_row,
             [&](int lane, int tr, int) { words[lane] = tr * c.tm * c.bk; });
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, a_width, s.banks, &a.load_a.wavefronts_ideal);
  a.load_b.instructions = static_cast<double>(c.tn) * c.bk / b_width;
  a.load_b.vector_floats = b_width;
  walk_lanes(s.lanes, threads_per_row, [&](int lane, int, int tc) { words[lane] = tc * c.tn; });
  a.load_b.wavefronts =
      shared_load_wavefronts(words, s.lanes, b_width, s.banks, &a.load_b.wavefronts_ideal);
  a.fragment_round_trips = fragment_round_trips(c);
  a.barriers = 2;
  a.integer_overhead = kIntegerPerGlobalLoad * (a.global_a.instructions + a.global_b.instructions) +
                       kLoopInstructionsPerTile;
  a.epilogue_instructions = 2.0 * c.tm * c.tn;
}

/// Rungs 5-6 (05_vectorized.cuh, 06_conflict_free.cuh): float4 global loads; A stored
/// transposed As[k][m] by four scalar stores per float4 (element e -> m = e / (BK/4),
/// k = e % (BK/4) * 4); B stored as float4 at Bs[k][n]; thread (tr, tc) reads TM/4 and TN/4
/// float4 fragments of row k; tiles laid out by shared_tile_offset(layout).
void vectorized_anatomy(const gemm::Problem& p, const TileConfig& c, const Shape& s,
                        KernelAnatomy& a) {
  register_tile_work(c, a);
  a.a_vector = p.k % kVectorFloats == 0;
  a.b_vector = p.n % kVectorFloats == 0;
  a.global_a = tile_global_load(s, c.bm, c.bk, p.k, a.threads, kVectorFloats, a.a_vector);
  a.global_b = tile_global_load(s, c.bk, c.bn, p.n, a.threads, kVectorFloats, a.b_vector);
  const double a_vectors_per_thread = copies_per_warp(c.bm * c.bk / kVectorFloats, a.threads);
  const double b_vectors_per_thread = copies_per_warp(c.bk * c.bn / kVectorFloats, a.threads);
  std::int64_t words[kWarpLanes] = {};
  // A: four scalar stores per float4, transposed; the store of component 0 stands for all.
  walk_lanes(s.lanes, c.bk / kVectorFloats, [&](int lane, int m, int kq) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bm, kq * kVectorFloats, m);
  });
  a.store_a.instructions = kVectorFloats * a_vectors_per_thread;
  a.store_a.wavefronts = shared_wavefronts(words, s.lanes, 1, s.banks, &a.store_a.wavefronts_ideal);
  // B: float4 stores in place.
  walk_lanes(s.lanes, c.bn / kVectorFloats, [&](int lane, int k, int nq) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bn, k, nq * kVectorFloats);
  });
  a.store_b.instructions = b_vectors_per_thread;
  a.store_b.vector_floats = kVectorFloats;
  a.store_b.wavefronts =
      shared_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.store_b.wavefronts_ideal);
  a.staging_registers = kVectorFloats * (ceil_div_int(c.bm * c.bk / kVectorFloats, a.threads) +
                                         ceil_div_int(c.bk * c.bn / kVectorFloats, a.threads));
  // Fragments at k = 0, first float4.
  const int threads_per_row = c.bn / c.tn;
  walk_lanes(s.lanes, threads_per_row, [&](int lane, int tr, int) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bm, 0, tr * c.tm);
  });
  a.load_a.instructions = static_cast<double>(c.tm) / kVectorFloats * c.bk;
  a.load_a.vector_floats = kVectorFloats;
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.load_a.wavefronts_ideal);
  walk_lanes(s.lanes, threads_per_row, [&](int lane, int, int tc) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bn, 0, tc * c.tn);
  });
  a.load_b.instructions = static_cast<double>(c.tn) / kVectorFloats * c.bk;
  a.load_b.vector_floats = kVectorFloats;
  a.load_b.wavefronts =
      shared_load_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.load_b.wavefronts_ideal);
  a.barriers = 2;
  a.integer_overhead = kIntegerPerGlobalLoad * (a.global_a.instructions + a.global_b.instructions) +
                       kLoopInstructionsPerTile;
  const int c_vectors = a.outputs_per_thread / kVectorFloats;
  a.epilogue_instructions =
      a.outputs_per_thread + 2.0 * (a.b_vector ? c_vectors : kVectorFloats * c_vectors);
}

/// Padding after each A^T row of rungs 7-10 (rules::kWarpTilingPadFloatsA).
constexpr int kWarpTilingPadFloats = 4;

/// Rungs 7-10 (warp_common.cuh). Stage layout: A^T, BK rows of BM + 4 floats, then B, BK rows
/// of BN. Warp w holds warp tile (w / (BN/WN), w % (BN/WN)); lane l is thread
/// (l / (WN/TN), l % (WN/TN)) of the warp's grid and reads, per k, TM/4 float4 of A^T row k at
/// a_col = warp_m*WM + (l / (WN/TN))*4 + i*4*(WM/TM) and TN/4 float4 of B row k likewise.
/// Global copies:
///   A, vector_width 4 (every rung): float4 pairs through registers, thread t at row
///     (t/2) % BM, K-column 8*((t/2) / BM) + 4*(t%2), stored transposed by four 4-byte stores;
///   A, vector_width 1 (rungs 9, 10): 4-byte cp.async copies straight into A^T, thread t at
///     row (t/8) % BM, K-column 8*((t/8) / BM) + t%8;
///   B: float4 along rows, through registers (rungs 7, 8), by 16-byte cp.async (rung 9) or by
///     bulk copies of whole rows issued by the lanes of warp 0 and multicast to the cluster
///     (rung 10; cp.async where B's rows are not 16-byte aligned).
void warp_tiled_anatomy(const gemm::Problem& p, const TileConfig& c, const Shape& s,
                        KernelAnatomy& a) {
  const int lda = c.bm + kWarpTilingPadFloats;
  const int thread_cols = std::max(1, c.wn / c.tn);  // a warp's threads along N
  register_tile_work(c, a);
  a.a_vector = p.k % kVectorFloats == 0;
  a.b_vector = p.n % kVectorFloats == 0;
  // Prefetch distance: rung 8 one stage; rung 9 and rung 10 without a cluster S - 1; rung 10
  // with a cluster S - 2 (one stage of slack before a multicast overwrites a peer's buffer).
  a.prefetch_tiles =
      c.rung == 7 ? 0 : std::max(1, c.stages - (c.rung == 10 && c.cluster > 1 ? 2 : 1));
  a.chain_prefetch_tiles = chain_prefetch_tiles(c, a.prefetch_tiles);
  a.fragment_double_buffer = c.rung >= 8;
  const bool a_in_registers = c.rung <= 8 || c.vector_width == kVectorFloats;
  a.a_async_copy = !a_in_registers;
  a.b_async_copy = c.rung >= 9;
  a.b_bulk_copy = c.rung == 10 && a.b_vector;
  const double a_vectors = copies_per_warp(c.bm * c.bk / kVectorFloats, a.threads);
  const double b_vectors = copies_per_warp(c.bk * c.bn / kVectorFloats, a.threads);
  const double a_elements = copies_per_warp(c.bm * c.bk, a.threads);
  std::int64_t words[kWarpLanes] = {};
  std::int64_t shared[kWarpLanes] = {};
  // Lane l's copy position: (row, col) = ((l / per) % BM, 8 * ((l / per) / BM) + ...), walked
  // by stepping (per = 2 float4 per chunk row, or 8 floats for the 4-byte copies).
  auto walk_chunks = [&](int per, int col_step) {
    int row = 0;
    int chunk = 0;
    int in_row = 0;
    for (int l = 0; l < s.lanes; ++l) {
      const int col = 8 * chunk + col_step * in_row;
      words[l] = static_cast<std::int64_t>(row) * p.k + col;
      shared[l] = static_cast<std::int64_t>(col) * lda + row;
      if (++in_row == per) {
        in_row = 0;
        if (++row == c.bm) {
          row = 0;
          ++chunk;
        }
      }
    }
  };
  if (a_in_registers) {
    walk_chunks(2, kVectorFloats);
    a.global_a.instructions = a.a_vector ? a_vectors : kVectorFloats * a_vectors;
    a.global_a.vector_floats = a.a_vector ? kVectorFloats : 1;
    a.global_a.wavefronts = global_wavefronts(words, s.lanes, kVectorFloats,
                                              &a.global_a.wavefronts_ideal, &a.global_a.sectors);
    if (!a.a_vector) a.global_a.wavefronts_ideal = std::max(1, a.global_a.wavefronts_ideal / 4);
    a.store_a.instructions = kVectorFloats * a_vectors;
    a.store_a.wavefronts =
        shared_wavefronts(shared, s.lanes, 1, s.banks, &a.store_a.wavefronts_ideal);
    a.staging_registers =
        kVectorFloats *
        (ceil_div_int(c.bm * c.bk / kVectorFloats, a.threads) +
         (a.b_async_copy ? 0 : ceil_div_int(c.bk * c.bn / kVectorFloats, a.threads)));
  } else {
    walk_chunks(8, 1);
    a.global_a.instructions = a_elements;
    a.global_a.wavefronts =
        global_wavefronts(words, s.lanes, 1, &a.global_a.wavefronts_ideal, &a.global_a.sectors);
    a.store_a.instructions = a_elements;  // the copies' shared-memory writes
    a.store_a.wavefronts =
        shared_wavefronts(shared, s.lanes, 1, s.banks, &a.store_a.wavefronts_ideal);
  }
  // B: float4 along rows (thread t at row t / (BN/4), column 4 * (t % (BN/4))).
  walk_lanes(s.lanes, c.bn / kVectorFloats, [&](int lane, int row, int v) {
    words[lane] = static_cast<std::int64_t>(row) * p.n + v * kVectorFloats;
    shared[lane] = static_cast<std::int64_t>(row) * c.bn + v * kVectorFloats;
  });
  if (a.b_bulk_copy) {
    // The bulk-copy engine writes whole B rows into shared memory: BK * BN * 4 bytes per
    // block per stage, spread over the warps here; no thread instructions, no L1.
    a.store_b.instructions =
        static_cast<double>(c.bk) * c.bn * kFloatBytes / kWavefrontBytes / a.warps;
    a.store_b.vector_floats = kVectorFloats;
    a.store_b.wavefronts = 1;
    a.store_b.wavefronts_ideal = 1;
  } else if (a.b_async_copy && !a.b_vector) {
    // Rungs 9-10 with unaligned B rows: 4-byte cp.async (BElementCopies), thread t at row
    // t / BN, column t % BN, a warp's 32 consecutive floats of a row.
    walk_lanes(s.lanes, c.bn, [&](int lane, int row, int col) {
      words[lane] = static_cast<std::int64_t>(row) * p.n + col;
      shared[lane] = static_cast<std::int64_t>(row) * c.bn + col;
    });
    a.global_b.instructions = copies_per_warp(c.bk * c.bn, a.threads);
    a.global_b.wavefronts =
        global_wavefronts(words, s.lanes, 1, &a.global_b.wavefronts_ideal, &a.global_b.sectors);
    a.store_b.instructions = a.global_b.instructions;
    a.store_b.wavefronts =
        shared_wavefronts(shared, s.lanes, 1, s.banks, &a.store_b.wavefronts_ideal);
  } else {
    a.global_b = tile_global_load(s, c.bk, c.bn, p.n, a.threads, kVectorFloats, a.b_vector);
    a.store_b.instructions = b_vectors;
    a.store_b.vector_floats = kVectorFloats;
    a.store_b.wavefronts =
        shared_wavefronts(shared, s.lanes, kVectorFloats, s.banks, &a.store_b.wavefronts_ideal);
  }
  // Fragments at k = 0, first sub-tile.
  walk_lanes(s.lanes, thread_cols, [&](int lane, int tr, int tc) {
    words[lane] = static_cast<std::int64_t>(tr) * kVectorFloats;
    shared[lane] = static_cast<std::int64_t>(c.bk) * lda + tc * kVectorFloats;
  });
  a.load_a.instructions = static_cast<double>(c.tm) / kVectorFloats * c.bk;
  a.load_a.vector_floats = kVectorFloats;
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.load_a.wavefronts_ideal);
  a.load_b.instructions = static_cast<double>(c.tn) / kVectorFloats * c.bk;
  a.load_b.vector_floats = kVectorFloats;
  a.load_b.wavefronts =
      shared_load_wavefronts(shared, s.lanes, kVectorFloats, s.banks, &a.load_b.wavefronts_ideal);
  // Barriers per stage: two with one buffer (rung 7), one once the next stage lands in
  // another buffer (rungs 8, 10: one __syncthreads per K tile after thread 0's wait on the
  // stage's full barrier); rung 9 also waits for its cp.async groups: one more.
  a.barriers = c.rung == 7 || c.rung == 9 ? 2 : 1;
  // Rung 9's interior blocks (every stage inside A and B: K % BK == 0 and float4 rows; the
  // model takes every block as interior) copy B, and with vector_width 4 A, from per-thread
  // pointers advanced once per stage: no address or predicate per copy, one add per pointer.
  const bool interior = c.rung == 9 && p.k % c.bk == 0 && a.a_vector && a.b_vector;
  // Unaligned rows (unaligned_copy_integer): A through registers with K % 4 != 0 and B through
  // registers with N % 4 != 0 take the guarded scalar fallback of load4; B by cp.async with
  // N % 4 != 0 takes guarded 4-byte copies.
  const double scalar_a = a_in_registers && !a.a_vector ? a.global_a.instructions : 0.0;
  const double scalar_b =
      !a.b_bulk_copy && !a.b_vector && !a.b_async_copy ? a.global_b.instructions : 0.0;
  const double byte_b = a.b_async_copy && !a.b_vector ? a.global_b.instructions : 0.0;
  const double predicated_loads =
      interior ? (a_in_registers ? 0.0 : a.global_a.instructions)
               : a.global_a.instructions + a.global_b.instructions - scalar_a - scalar_b - byte_b;
  const double pointer_advances = interior ? (a_in_registers ? 2 : 1) : 0;
  const double unaligned_integer =
      unaligned_copy_integer(UnalignedCopy::kScalarLoad) * (scalar_a + scalar_b) +
      unaligned_copy_integer(UnalignedCopy::kByteCopy) * byte_b;
  a.unaligned_copy_instructions = unaligned_integer + scalar_a + scalar_b + byte_b;
  a.integer_overhead = kIntegerPerGlobalLoad * predicated_loads + unaligned_integer +
                       pointer_advances + kLoopInstructionsPerTile;
  const int c_vectors = a.outputs_per_thread / kVectorFloats;
  a.epilogue_instructions =
      a.outputs_per_thread + 2.0 * (a.b_vector ? c_vectors : kVectorFloats * c_vectors);
}

[[gnu::cold, gnu::noinline]] void throw_bad_config(const char* what) {
  throw std::invalid_argument(std::string("kernel_anatomy: ") + what);
}

}  // namespace

KernelAnatomy kernel_anatomy(const gemm::Problem& problem, const TileConfig& config, int banks) {
  KernelAnatomy a;
  a.rung = config.rung;
  a.threads = config.threads > 0 ? config.threads : derived_threads(config);
  if (config.rung < 1 || config.rung > gemm::kRungCount) [[unlikely]] {
    throw_bad_config("rung must be 1..10");
  }
  if (const char* out_of_bounds = gemm::tile_bounds_problem(config)) [[unlikely]] {
    throw_bad_config(out_of_bounds);
  }
  if (banks < 1 || banks > 64) [[unlikely]] throw_bad_config("banks must be 1..64");
  if (a.threads < 1 || config.bm < 1 || config.bn < 1 ||
      (config.rung >= 2 && (config.bk < 1 || config.tm < 1 || config.tn < 1))) [[unlikely]] {
    throw_bad_config("BM, BN, BK, TM, TN and threads must be >= 1");
  }
  a.warps = ceil_div_int(a.threads, kWarpLanes);
  a.serial_load_groups = serial_load_groups(config.rung);
  const Shape shape{std::min(kWarpLanes, a.threads), banks};
  if (config.rung == 1) {
    naive_anatomy(problem, config, shape, a);
  } else if (config.rung == 2) {
    shared_tiling_anatomy(problem, config, shape, a);
  } else if (config.rung <= 4) {
    thread_tiling_anatomy(problem, config, shape, a);
  } else if (config.rung <= 6) {
    vectorized_anatomy(problem, config, shape, a);
  } else {
    warp_tiled_anatomy(problem, config, shape, a);
  }
  return a;
}

Traffic compute_traffic(const gemm::Problem& p, const TileConfig& c, const KernelAnatomy& a,
                        const TileWaste& w, bool c_is_read) {
  Traffic t;
  const double m = static_cast<double>(p.m);
  const double n = static_cast<double>(p.n);
  const double k = static_cast<double>(p.k);
  t.flops = p.flops();
  t.issued_flops = 2.0 * static_cast<double>(w.launched_m) * static_cast<double>(w.launched_n) *
                   static_cast<double>(w.launched_k);
  const double cluster_share = c.rung == 10 && a.b_bulk_copy ? std::max(1, c.cluster) : 1.0;
  t.a_l2_bytes = static_cast<double>(w.tiles_n) * m * k * kFloatBytes;
  t.b_l2_bytes = static_cast<double>(w.launched_tiles_m) * n * k * kFloatBytes / cluster_share;
  t.c_write_bytes = m * n * kFloatBytes;
  t.c_read_bytes = c_is_read ? m * n * kFloatBytes : 0.0;
  t.compulsory_dram_bytes = (m * k + k * n) * kFloatBytes + t.c_write_bytes + t.c_read_bytes;
  const double warp_tiles =
      static_cast<double>(w.grid_blocks()) * a.warps * static_cast<double>(w.k_tiles);
  t.shared_wavefronts = warp_tiles * a.shared_wavefronts();
  t.shared_wavefronts_ideal = warp_tiles * a.shared_wavefronts_ideal();
  t.l1_global_wavefronts =
      warp_tiles * (a.global_a.wavefronts_per_tile() + a.global_b.wavefronts_per_tile());
  t.l1_global_bytes =
      warp_tiles * kSectorBytes *
      (a.global_a.instructions * a.global_a.sectors + a.global_b.instructions * a.global_b.sectors);
  t.ffma_warp_instructions = warp_tiles * a.ffma;
  t.warp_instructions = warp_tiles * a.instructions() +
                        static_cast<double>(w.grid_blocks()) * a.warps * a.epilogue_instructions;
  t.ffma_per_loaded_value = a.ffma_per_loaded_value();
  return t;
}

double dram_bytes(const Traffic& t, const gemm::Problem& p, double operand_hit_rate) {
  const double compulsory_operands =
      (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n) * kFloatBytes;
  const double misses = (1.0 - operand_hit_rate) * t.operand_l2_bytes();
  return std::max(misses, compulsory_operands) + t.c_write_bytes + t.c_read_bytes;
}

}  // namespace roofcast
