// What the fuzz targets share: a check that stops the run (a finding) with the broken property
// named, and the prediction input of a registry config as `roofcast predict` fills it.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/predict.hpp"

namespace roofcast::fuzz {

/// Stops the run when `condition` is false: libFuzzer records the input as a crash. The message
/// reaches the terminal when the reproducer is run by hand (scripts/fuzz.sh closes stdout and
/// stderr of the target while fuzzing).
inline void check(bool condition, const char* property) {
  if (condition) return;
  std::fprintf(stderr, "roofcast fuzz: property broken: %s\n", property);
  std::abort();
}

/// Called where a loader refuses the input (the expected outcome). With ROOFCAST_FUZZ_VERBOSE
/// set in the environment it prints why, to check by hand that a seed is accepted:
///   ROOFCAST_FUZZ_VERBOSE=1 build-fuzz/fuzz/spec_fuzzer fuzz/corpus/spec/*.json
inline void refused(const std::exception& error) {
  static const bool verbose = std::getenv("ROOFCAST_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "roofcast fuzz: refused: %s\n", error.what());
}

/// Called where a loader accepts the input; prints so with ROOFCAST_FUZZ_VERBOSE set.
inline void accepted(const char* what) {
  static const bool verbose = std::getenv("ROOFCAST_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "roofcast fuzz: accepted: %s\n", what);
}

/// PredictInput for a registry kernel, as cli/src/predict.cpp run_predict fills it: the
/// kernel's shared memory from its formula, its __launch_bounds__ minimum, registers estimated.
inline PredictInput registry_input(const gemm::TileConfig& config, const gemm::Problem& problem,
                                   gemm::RasterOrder raster, L2Model l2_model, bool c_is_read) {
  PredictInput in;
  in.problem = problem;
  in.config = config;
  in.raster = raster;
  in.shared_memory_bytes = kernels::shared_memory_bytes(config);
  in.min_blocks_per_sm = kernels::launch_bounds_min_blocks(config);
  in.c_is_read = c_is_read;
  in.l2_model = l2_model;
  return in;
}

/// A prediction with a time has a finite, positive one (and a finite, positive rate).
inline void check_prediction(const Prediction& prediction) {
  if (!prediction.launchable) return;
  check(std::isfinite(prediction.time_s) && prediction.time_s > 0,
        "a launchable prediction's time_s is finite and positive");
  check(std::isfinite(prediction.tflops) && prediction.tflops > 0,
        "a launchable prediction's tflops is finite and positive");
  check(prediction.occupancy.blocks_per_sm > 0, "a launchable prediction has a resident block");
}

}  // namespace roofcast::fuzz
