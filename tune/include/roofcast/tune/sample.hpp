// The measured sample of the whole space (issue 15): tile configs drawn with a fixed seed from
// the enumerated space of rungs 4-10 (enumerate_configs: the kernels' tile rules), stratified by
// rung and tile shape, and problem shapes drawn from a stated distribution; plus the one split
// into training and held-out cases. docs/sample.md states the distributions and the split.
//
// Every draw uses roofcast's own generator (SampleRandom: splitmix64), never a standard
// distribution, whose results differ between standard libraries: the same seed gives the same
// sample on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::tune {

/// The seed of the committed sample (kernels/include/roofcast/kernels/sample_configs.inc and the
/// shapes).
inline constexpr std::uint64_t kSampleSeed = 20261202;

/// splitmix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by the golden-ratio constant
/// and mixed; passes BigCrush, one multiply-xorshift round per draw.
class SampleRandom {
 public:
  explicit SampleRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in 0..bound-1 (next() mod bound: the bias is below bound / 2^64).
  std::uint64_t below(std::uint64_t bound);
  /// Uniform in [0, 1) with 53 bits.
  double unit();

 private:
  std::uint64_t state_;
};

/// A tile's shape class, from its aspect ratio max/min: square (1), wide (2), thin (4 and more).
/// Rungs 7-10: the warp tile WM x WN (what each warp computes); rungs 4-6: the block tile BM x BN.
enum class TileShape : int { kSquare = 0, kWide = 1, kThin = 2 };
std::string_view to_string(TileShape shape);
TileShape tile_shape(const gemm::TileConfig& config);

/// What sample_configs draws.
struct ConfigSampleOptions {
  std::uint64_t seed = kSampleSeed;
  /// Configs drawn per stratum (rung x tile shape; all of a stratum when it has fewer).
  std::size_t per_stratum = 20;
  /// The sample's size at least: when the strata give fewer, the rest is drawn uniformly from
  /// the configs not yet drawn.
  std::size_t minimum = 400;
  std::vector<int> rungs = {4, 5, 6, 7, 8, 9, 10};
};

/// Configs of `gpu`'s enumerated space (enumerate_configs with the default bounds), none of them a
/// registry config (those are compiled and measured already), in stratum order (rung, then
/// shape), each stratum in drawing order. Deterministic in (gpu, options, the tile rules).
std::vector<gemm::TileConfig> sample_configs(const GpuSpec& gpu,
                                             const ConfigSampleOptions& options = {});

/// What sample_shapes draws: M, N and K log-uniform over [minimum, maximum] (x = round(minimum *
/// (maximum / minimum)^u), u uniform in [0, 1)), for `plain` shapes; then `small_k` shapes with K
/// log-uniform over [minimum, small_maximum] and `small_m` shapes with M so, the other two
/// extents as before. A shape of more than max_flops (2 M N K) is drawn again from the same
/// stream: the whole sample is measured at every shape, and one 16384^2 x 4096 shape would take
/// more device time than all the others together.
struct ShapeSampleOptions {
  std::uint64_t seed = kSampleSeed;
  std::int64_t minimum = 32;
  std::int64_t maximum = 16384;
  std::int64_t small_maximum = 128;
  int plain = 14;
  int small_k = 3;
  int small_m = 3;
  double max_flops = 0x1p39;  // 5.5e11 FLOPs: about 20 ms at 27 TFLOPS
};

std::vector<gemm::Problem> sample_shapes(const ShapeSampleOptions& options = {});

/// The one split of the sample's cases, fixed before any fit: a config is held out when the
/// FNV-1a hash of its kernel id is 0 mod 4 (a quarter), a shape when the hash of "MxNxK" is 0
/// mod 4; a case (config, shape) is held out when its config or its shape is. Registry configs
/// follow the same rule.
bool config_held_out(const gemm::TileConfig& config);
bool shape_held_out(const gemm::Problem& shape);
bool case_held_out(const gemm::TileConfig& config, const gemm::Problem& shape);

/// 64-bit FNV-1a of `text` (offset basis 14695981039346656037, prime 1099511628211).
std::uint64_t fnv1a(std::string_view text);

}  // namespace roofcast::tune
