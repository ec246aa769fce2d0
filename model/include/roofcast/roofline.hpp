// Hierarchical roofline: a compute ceiling (FP32 FFMA) and a bandwidth ceiling per memory level
// (shared memory / L1, L2, DRAM), from the spec or, when present, from the spec's `measured`
// block; the bound at each level (intensity x bandwidth), the binding level and ridge points.
// Design: docs/model.md#roofline.
#pragma once

#include <optional>
#include <string_view>

#include "roofcast/spec.hpp"

namespace roofcast {

/// Where a ceiling's value comes from.
enum class CeilingSource : int {
  kSpec = 0,             // a vendor figure in the spec file
  kDerivedFromSpec = 1,  // computed from spec fields (the formula is in roofline_ceilings)
  kMeasured = 2,         // the spec's `measured` block (roofcast's microbenchmarks)
  kMissing = 3,          // neither: the level has no ceiling
};

/// "spec", "derived from spec", "measured", "missing".
std::string_view to_string(CeilingSource source);

/// One level's ceiling: the spec's value (or 0 when the spec has none) and the measured one.
/// The value in effect is the measured one when present, else the spec's.
struct LevelCeiling {
  double spec = 0;
  CeilingSource spec_source = CeilingSource::kMissing;
  std::optional<double> measured;

  double value() const { return measured ? *measured : spec; }
  CeilingSource source() const { return measured ? CeilingSource::kMeasured : spec_source; }
  bool known() const { return value() > 0; }
};

/// Ceilings of one GPU. Units: TFLOPS = 1e12 FLOP/s, GBps = 1e9 bytes/s.
struct Ceilings {
  LevelCeiling ffma_TFLOPS;         // spec: peak_TFLOPS.fp32; measured: ffma_TFLOPS
  LevelCeiling shared_memory_GBps;  // derived: banks * bank_width * sm_count * boost clock
  LevelCeiling l2_GBps;             // spec: microarchitecture.l2_bw_GBps; measured: l2_bw_GBps
  LevelCeiling dram_GBps;           // spec: chip.dram_bw_GBps; measured: dram_bw_GBps
  int sm_count = 0;
  double boost_clock_MHz = 0;
  /// The SM clock that the FFMA ceiling in effect implies:
  /// ffma_TFLOPS * 1e6 / (2 * fp32_lanes_per_sm * sm_count) MHz (the boost clock for the spec
  /// peak; lower when the measured FFMA rate is lower). Latencies in cycles convert with it.
  double issue_clock_MHz = 0;
};

/// The ceilings of `gpu`. Shared-memory bandwidth from the spec is derived: one wavefront of
/// banks * bank_width bytes per SM per clock, banks * bank_width * sm_count * boost_clock.
Ceilings roofline_ceilings(const GpuSpec& gpu);

/// The same ceilings with the measured values dropped (what the spec alone says).
Ceilings spec_only(const Ceilings& ceilings);

/// Ridge points, FLOP per byte: compute ceiling / bandwidth ceiling per level (0 when that
/// level has no ceiling). Below a ridge point the level bounds; above it, compute does.
struct RidgePoints {
  double shared_memory = 0;
  double l2 = 0;
  double dram = 0;
};

/// ridge = ffma_TFLOPS * 1e12 / (bandwidth_GBps * 1e9), with the values in effect.
RidgePoints ridge_points(const Ceilings& ceilings);

enum class RooflineLevel : int {
  kCompute = 0,
  kSharedMemory = 1,
  kL2 = 2,
  kDram = 3,
};

/// "compute", "shared_memory", "l2", "dram".
std::string_view to_string(RooflineLevel level);

/// One memory level of a kernel's roofline.
struct LevelBound {
  double bytes = 0;
  double intensity = 0;       // FLOP per byte: flops / bytes (0 when no bytes move)
  double bandwidth_GBps = 0;  // 0 = no ceiling known: the level does not bound
  double bound_TFLOPS = 0;    // intensity * bandwidth (0 when unbounded)

  bool bounds() const { return bandwidth_GBps > 0 && bytes > 0; }
};

struct Roofline {
  double flops = 0;
  double compute_TFLOPS = 0;  // the FFMA ceiling
  LevelBound shared_memory;
  LevelBound l2;
  LevelBound dram;
  RooflineLevel binding = RooflineLevel::kCompute;
  double attainable_TFLOPS = 0;  // min(compute, every level's bound)
};

/// bound(level) = (flops / bytes(level)) * bandwidth(level); attainable = min(compute, bounds);
/// binding = the level attaining the minimum (compute on ties). Bytes: shared_memory = bytes
/// through the L1/shared data path (wavefronts * 128, replays included), l2 = bytes requested
/// from L2, dram = bytes from DRAM.
Roofline evaluate_roofline(const Ceilings& ceilings, double flops, double shared_memory_bytes,
                           double l2_bytes, double dram_bytes);

}  // namespace roofcast
