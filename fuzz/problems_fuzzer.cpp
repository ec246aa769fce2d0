// libFuzzer target: the problems loader (roofcast::tune::parse_problems, `roofcast rank
// --problems FILE`) and the model behind it.
//
// Input: one problems document. SpecError is the expected refusal; any other exception escapes
// and is a finding. A document that parses keeps the loader's promises (names non-empty and
// unique, every extent within 1..kMaxExtent), and each problem is predicted on the embedded H200
// spec with its committed calibration for one registry config, picked from the problem's
// extents so that the fuzzer steers it: a launchable prediction has a finite, positive time.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/gemm.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/problems.hpp"

namespace {

using roofcast::fuzz::check;

struct Gpu {
  const roofcast::GpuSpec& spec;
  roofcast::Calibration calibration;
};

const Gpu& h200() {
  static const Gpu gpu = [] {
    const roofcast::GpuSpec& spec = roofcast::embedded_spec("h200-sxm");
    const auto stored = roofcast::embedded_calibration(spec.id);
    return Gpu{spec, stored ? stored->parameters : roofcast::Calibration{}};
  }();
  return gpu;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace gemm = roofcast::gemm;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<roofcast::tune::NamedProblem> problems;
  try {
    problems = roofcast::tune::parse_problems(text, "fuzz-problems.json");
  } catch (const roofcast::SpecError& error) {
    roofcast::fuzz::refused(error);
    return 0;
  }
  roofcast::fuzz::accepted("a problems file");
  const Gpu& gpu = h200();
  std::set<std::string> names;
  std::uint64_t index = 0;
  for (const roofcast::tune::NamedProblem& named : problems) {
    check(!named.name.empty(), "a problem's name is not empty");
    check(names.insert(named.name).second, "problem names are unique");
    check(gemm::extents_in_range(named.problem), "extents within 1..kMaxExtent");
    const gemm::Problem& p = named.problem;
    const std::uint64_t pick = (static_cast<std::uint64_t>(p.m) + static_cast<std::uint64_t>(p.n) +
                                static_cast<std::uint64_t>(p.k) + index) %
                               roofcast::kernels::kRegistrySize;
    const gemm::TileConfig& config = roofcast::kernels::kRegistry[pick].config;
    gemm::RasterOrder raster;
    if (roofcast::kernels::takes_raster_order(config) && index % 2 == 1) {
      raster = {gemm::RasterKind::kGrouped, static_cast<int>(1 + p.k % 16)};
    }
    const roofcast::L2Model l2 =
        index % 3 == 2 ? roofcast::L2Model::kPublished : roofcast::L2Model::kRoofcast;
    const roofcast::PredictInput in =
        roofcast::fuzz::registry_input(config, p, raster, l2, index % 4 == 3);
    const roofcast::Prediction prediction =
        roofcast::kernels::predict(gpu.spec, in, gpu.calibration);
    roofcast::fuzz::check_prediction(prediction);
    check(prediction.problem == p, "the prediction is of the problem asked for");
    ++index;
  }
  return 0;
}
