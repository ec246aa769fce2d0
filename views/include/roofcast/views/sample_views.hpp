// Renderers of the measured sample (tune/sample.hpp): text, the "sample" JSON document
// (docs/schema.md) and the C++ include that compiles the sample's configs into the validation
// binary (kernels/include/roofcast/kernels/sample_configs.inc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofcast/gemm.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::views {

struct SampleReport {
  std::string gpu_id;  // the space the configs were drawn from
  std::uint64_t seed = 0;
  std::vector<gemm::TileConfig> configs;
  std::vector<gemm::Problem> shapes;
};

/// The committed sample: tune::sample_configs(gpu) and tune::sample_shapes() with kSampleSeed.
SampleReport make_sample_report(const GpuSpec& gpu);

/// Configs per stratum (rung x tile shape), held-out counts, then every shape.
std::string sample_text(const SampleReport& report);
/// kind "sample": gpu, seed, configs [{kernel_id, config, tile_shape, held_out}], shapes
/// [{m, n, k, held_out}].
nlohmann::json sample_json(const SampleReport& report);
/// One brace-initialised gemm::TileConfig per line, in sample order, under a header naming the
/// generator, seed and GPU: the body of kernels::kSampleConfigs.
std::string sample_include(const SampleReport& report);

}  // namespace roofcast::views
