#include "roofcast/traffic.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace roofcast {
namespace {

constexpr int kWordsPerLine = kL1LineBytes / kFloatBytes;

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

}  // namespace

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
    if (ideal != nullptr) *ideal = ceil_div(distinct, groups);
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
  if (ideal != nullptr) *ideal = ceil_div(distinct, groups);
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
  const int minimum = ceil_div(units * width * kFloatBytes, kL1LineBytes);
  if (ideal != nullptr) *ideal = minimum;
  if (sectors != nullptr) *sectors = sector_count;
  return std::max(minimum, lines);
}

double copies_per_warp(int items, int threads) {
  return static_cast<double>(ceil_div(items, kWarpLanes)) / ceil_div(threads, kWarpLanes);
}

WarpAccess tile_global_load(const WarpShape& s, int rows, int cols, std::int64_t ld, int threads,
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
    a.wavefronts_ideal = std::max(1, ceil_div(a.wavefronts_ideal, width));
    a.wavefronts = std::max(a.wavefronts_ideal, a.wavefronts);
  }
  return a;
}

WarpAccess contiguous_store(const WarpShape& s, double instructions, int width) {
  WarpAccess a;
  a.instructions = instructions;
  a.vector_floats = width;
  std::int64_t words[kWarpLanes] = {};
  for (int l = 0; l < s.lanes; ++l) words[l] = static_cast<std::int64_t>(l) * width;
  a.wavefronts = shared_wavefronts(words, s.lanes, width, s.banks, &a.wavefronts_ideal);
  return a;
}

Traffic compute_traffic(const gemm::Problem& p, const KernelAnatomy& a, const TileWaste& w,
                        bool c_is_read) {
  Traffic t;
  const double m = static_cast<double>(p.m);
  const double n = static_cast<double>(p.n);
  const double k = static_cast<double>(p.k);
  t.flops = p.flops();
  t.issued_flops = 2.0 * static_cast<double>(w.launched_m) * static_cast<double>(w.launched_n) *
                   static_cast<double>(w.launched_k);
  const double cluster_share = std::max(1, a.b_multicast_blocks);
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

double c_store_sectors_per_warp(int lanes, int lanes_along_n, int tm, int tn, int vector_floats,
                                std::int64_t row_words) {
  if (lanes <= 0 || lanes > 32 || lanes_along_n <= 0 || tm <= 0 || tn <= 0 || vector_floats <= 0) {
    return 0.0;
  }
  std::int64_t words[32];
  double sectors = 0;
  for (int i = 0; i < tm; ++i) {
    for (int q = 0; q * vector_floats < tn; ++q) {
      for (int lane = 0; lane < lanes; ++lane) {
        const std::int64_t row = static_cast<std::int64_t>(lane / lanes_along_n) * tm + i;
        const std::int64_t col = static_cast<std::int64_t>(lane % lanes_along_n) * tn +
                                 static_cast<std::int64_t>(q) * vector_floats;
        words[lane] = row * row_words + col;
      }
      int touched = 0;
      global_wavefronts(words, lanes, vector_floats, nullptr, &touched);
      sectors += touched;
    }
  }
  return sectors;
}

}  // namespace roofcast
