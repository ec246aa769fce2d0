#include "roofcast/tune/sample.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/tune/space.hpp"

namespace roofcast::tune {

std::uint64_t SampleRandom::next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t SampleRandom::below(std::uint64_t bound) { return next() % bound; }

double SampleRandom::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::string_view to_string(TileShape shape) {
  switch (shape) {
    case TileShape::kSquare:
      return "square";
    case TileShape::kWide:
      return "wide";
    case TileShape::kThin:
      return "thin";
  }
  return "?";
}

TileShape tile_shape(const gemm::TileConfig& config) {
  const bool warp_tiled = config.wm > 0 && config.wn > 0;
  const int a = warp_tiled ? config.wm : config.bm;
  const int b = warp_tiled ? config.wn : config.bn;
  const int aspect = std::max(a, b) / std::max(1, std::min(a, b));
  if (aspect <= 1) return TileShape::kSquare;
  if (aspect < 4) return TileShape::kWide;
  return TileShape::kThin;
}

namespace {

/// Fisher-Yates: a uniformly random order of `items`.
template <class T>
void shuffle(std::vector<T>& items, SampleRandom& random) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[random.below(i)]);
}

bool registered(const gemm::TileConfig& config) {
  return std::any_of(std::begin(kernels::kRegistry), std::end(kernels::kRegistry),
                     [&](const kernels::RegistryEntry& e) { return e.config == config; });
}

}  // namespace

std::vector<gemm::TileConfig> sample_configs(const GpuSpec& gpu,
                                             const ConfigSampleOptions& options) {
  SpaceBounds bounds;
  bounds.rungs = options.rungs;
  constexpr int kShapes = 3;
  // Strata in order: rung, then shape; each holds its configs in enumeration order.
  std::vector<std::array<std::vector<gemm::TileConfig>, kShapes>> strata(options.rungs.size());
  for (const gemm::TileConfig& config : enumerate_configs(gpu, bounds)) {
    if (registered(config)) continue;
    const auto rung = std::find(options.rungs.begin(), options.rungs.end(), config.rung);
    strata[static_cast<std::size_t>(rung - options.rungs.begin())]
          [static_cast<std::size_t>(tile_shape(config))]
              .push_back(config);
  }
  SampleRandom random(options.seed);
  std::vector<gemm::TileConfig> sample;
  std::vector<gemm::TileConfig> rest;  // what the strata left, for the top-up
  for (auto& rung : strata) {
    for (std::vector<gemm::TileConfig>& stratum : rung) {
      shuffle(stratum, random);
      const std::size_t take = std::min(options.per_stratum, stratum.size());
      sample.insert(sample.end(), stratum.begin(), stratum.begin() + take);
      rest.insert(rest.end(), stratum.begin() + take, stratum.end());
    }
  }
  if (sample.size() < options.minimum) {
    shuffle(rest, random);
    const std::size_t take = std::min(options.minimum - sample.size(), rest.size());
    sample.insert(sample.end(), rest.begin(), rest.begin() + take);
  }
  return sample;
}

std::vector<gemm::Problem> sample_shapes(const ShapeSampleOptions& options) {
  SampleRandom random(options.seed ^ 0x5348415045ULL);  // "SHAPE": apart from the configs' draws
  const auto log_uniform = [&](std::int64_t low, std::int64_t high) {
    const double ratio = static_cast<double>(high) / static_cast<double>(low);
    const double x = static_cast<double>(low) * std::pow(ratio, random.unit());
    return std::clamp<std::int64_t>(std::llround(x), low, high);
  };
  std::vector<gemm::Problem> shapes;
  const int total = options.plain + options.small_k + options.small_m;
  for (int i = 0; i < total; ++i) {
    const bool small_k = i >= options.plain && i < options.plain + options.small_k;
    const bool small_m = i >= options.plain + options.small_k;
    gemm::Problem p;
    do {
      p.m = log_uniform(options.minimum, small_m ? options.small_maximum : options.maximum);
      p.n = log_uniform(options.minimum, options.maximum);
      p.k = log_uniform(options.minimum, small_k ? options.small_maximum : options.maximum);
    } while (p.flops() > options.max_flops);
    shapes.push_back(p);
  }
  return shapes;
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

bool config_held_out(const gemm::TileConfig& config) {
  return fnv1a(kernels::kernel_id(config)) % 4 == 0;
}

bool shape_held_out(const gemm::Problem& shape) {
  const std::string name =
      std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
  return fnv1a(name) % 4 == 0;
}

bool case_held_out(const gemm::TileConfig& config, const gemm::Problem& shape) {
  return config_held_out(config) || shape_held_out(shape);
}

}  // namespace roofcast::tune
