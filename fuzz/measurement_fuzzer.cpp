// libFuzzer target: the measurement reader (roofcast::validation::parse_ladder_measurement,
// what `roofcast report` and `roofcast accuracy` load from data/measurements/<gpu>/*.json).
//
// Input: one sgemm-ladder measurement document. LadderMeasurementError is the expected refusal;
// any other exception escapes and is a finding. A document that parses must survive the
// writer: to_json_text's output parses again and writes the same text (the reader and the
// writer agree on the format). Each listed kernel's launch goes through the occupancy model on
// the embedded H200 spec, and the model is evaluated on the measurement (evaluate_model, which
// refuses a measurement without a timed registry case with std::invalid_argument): every
// launchable case prediction has a finite, positive time.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/model_accuracy.hpp"

namespace {

using roofcast::fuzz::check;
namespace validation = roofcast::validation;

void check_round_trip(const validation::LadderMeasurement& measurement) {
  const std::string written = validation::to_json_text(measurement);
  validation::LadderMeasurement again;
  try {
    again = validation::parse_ladder_measurement(written, "fuzz-rewritten.json");
  } catch (const validation::LadderMeasurementError&) {
    check(false, "the reader accepts what the writer writes of a document it accepted");
  }
  check(validation::to_json_text(again) == written,
        "writing a re-read document gives the same text");
  check(again.kernels.size() == measurement.kernels.size() &&
            again.cases.size() == measurement.cases.size(),
        "a re-read document has the same kernels and cases");
}

void check_model(const validation::LadderMeasurement& measurement) {
  const roofcast::GpuSpec& gpu = roofcast::embedded_spec("h200-sxm");
  for (const validation::MeasuredKernel& kernel : measurement.kernels) {
    try {
      const roofcast::OccupancyResult r =
          roofcast::compute_occupancy(gpu.sm, validation::kernel_launch(kernel));
      check(r.occupancy >= 0 && r.occupancy <= 1, "occupancy within 0..1");
    } catch (const std::invalid_argument&) {
      // Documented: a size the runtime would refuse (the reader does not know the GPU's limits).
    }
  }
  validation::ModelAccuracy accuracy;
  try {
    accuracy = validation::evaluate_model(gpu, measurement);
  } catch (const std::invalid_argument& error) {
    // Documented: no timed case, an unknown kernel, nothing to fit on.
    roofcast::fuzz::refused(error);
    return;
  }
  for (const validation::CaseAccuracy& c : accuracy.cases) {
    roofcast::fuzz::check_prediction(c.prediction);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  validation::LadderMeasurement measurement;
  try {
    measurement = validation::parse_ladder_measurement(text, "fuzz-measurement.json");
  } catch (const validation::LadderMeasurementError& error) {
    roofcast::fuzz::refused(error);
    return 0;
  }
  roofcast::fuzz::accepted("a measurement");
  for (const validation::MeasuredCase& c : measurement.cases) {
    check(c.kernel == validation::kCublasKernel || measurement.find_kernel(c.kernel) != nullptr,
          "every case names cuBLAS or a listed kernel");
  }
  check_round_trip(measurement);
  check_model(measurement);
  return 0;
}
