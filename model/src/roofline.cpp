#include "roofcast/roofline.hpp"

#include <utility>

namespace roofcast {
namespace {

constexpr double kFlopsPerFfma = 2;
constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr double kMega = 1e6;

LevelBound level_bound(double flops, double bytes, const LevelCeiling& ceiling) {
  LevelBound b;
  b.bytes = bytes;
  b.intensity = bytes > 0 ? flops / bytes : 0.0;
  b.bandwidth_GBps = ceiling.known() ? ceiling.value() : 0.0;
  b.bound_TFLOPS = b.bounds() ? b.intensity * b.bandwidth_GBps * kGiga / kTera : 0.0;
  return b;
}

double ridge(const LevelCeiling& compute, const LevelCeiling& bandwidth) {
  return bandwidth.known() ? compute.value() * kTera / (bandwidth.value() * kGiga) : 0.0;
}

}  // namespace

std::string_view to_string(CeilingSource source) {
  switch (source) {
    case CeilingSource::kSpec:
      return "spec";
    case CeilingSource::kDerivedFromSpec:
      return "derived from spec";
    case CeilingSource::kMeasured:
      return "measured";
    case CeilingSource::kMissing:
      return "missing";
  }
  return "unknown";
}

std::string_view to_string(RooflineLevel level) {
  switch (level) {
    case RooflineLevel::kCompute:
      return "compute";
    case RooflineLevel::kSharedMemory:
      return "shared_memory";
    case RooflineLevel::kL2:
      return "l2";
    case RooflineLevel::kDram:
      return "dram";
  }
  return "unknown";
}

Ceilings roofline_ceilings(const GpuSpec& gpu) {
  Ceilings c;
  c.sm_count = gpu.chip.sm_count;
  c.boost_clock_MHz = gpu.chip.boost_clock_MHz;
  c.ffma_TFLOPS.spec = gpu.peak_TFLOPS.fp32;
  c.ffma_TFLOPS.spec_source = CeilingSource::kSpec;
  c.shared_memory_GBps.spec = static_cast<double>(gpu.sm.shared_memory_banks) *
                              gpu.sm.shared_memory_bank_width_bytes * gpu.chip.sm_count *
                              gpu.chip.boost_clock_MHz * kMega / kGiga;
  c.shared_memory_GBps.spec_source = CeilingSource::kDerivedFromSpec;
  c.dram_GBps.spec = gpu.chip.dram_bw_GBps;
  c.dram_GBps.spec_source = CeilingSource::kSpec;
  if (gpu.microarchitecture.l2_bw_GBps) {  // a vendor or published figure, with its source
    c.l2_GBps.spec = *gpu.microarchitecture.l2_bw_GBps;
    c.l2_GBps.spec_source = CeilingSource::kSpec;
  }
  if (gpu.measured) {
    const MeasuredCeilings& m = *gpu.measured;
    c.ffma_TFLOPS.measured = m.ffma_TFLOPS;
    c.shared_memory_GBps.measured = m.shared_memory_bw_GBps;
    c.l2_GBps.measured = m.l2_bw_GBps;
    c.dram_GBps.measured = m.dram_bw_GBps;
  }
  const double ffma_per_clock = kFlopsPerFfma * gpu.sm.fp32_lanes_per_sm * gpu.chip.sm_count;
  c.issue_clock_MHz =
      ffma_per_clock > 0 ? c.ffma_TFLOPS.value() * kTera / ffma_per_clock / kMega : 0.0;
  return c;
}

Ceilings spec_only(const Ceilings& ceilings) {
  Ceilings c = ceilings;
  for (LevelCeiling* level : {&c.ffma_TFLOPS, &c.shared_memory_GBps, &c.l2_GBps, &c.dram_GBps}) {
    level->measured.reset();
  }
  if (ceilings.ffma_TFLOPS.value() > 0) {
    c.issue_clock_MHz =
        ceilings.issue_clock_MHz * c.ffma_TFLOPS.value() / ceilings.ffma_TFLOPS.value();
  }
  return c;
}

RidgePoints ridge_points(const Ceilings& c) {
  return RidgePoints{ridge(c.ffma_TFLOPS, c.shared_memory_GBps), ridge(c.ffma_TFLOPS, c.l2_GBps),
                     ridge(c.ffma_TFLOPS, c.dram_GBps)};
}

Roofline evaluate_roofline(const Ceilings& ceilings, double flops, double shared_memory_bytes,
                           double l2_bytes, double dram_bytes) {
  Roofline r;
  r.flops = flops;
  r.compute_TFLOPS = ceilings.ffma_TFLOPS.value();
  r.shared_memory = level_bound(flops, shared_memory_bytes, ceilings.shared_memory_GBps);
  r.l2 = level_bound(flops, l2_bytes, ceilings.l2_GBps);
  r.dram = level_bound(flops, dram_bytes, ceilings.dram_GBps);
  r.attainable_TFLOPS = r.compute_TFLOPS;
  r.binding = RooflineLevel::kCompute;
  const std::pair<const LevelBound*, RooflineLevel> levels[] = {
      {&r.shared_memory, RooflineLevel::kSharedMemory},
      {&r.l2, RooflineLevel::kL2},
      {&r.dram, RooflineLevel::kDram}};
  for (const auto& [bound, level] : levels) {
    if (bound->bounds() && bound->bound_TFLOPS < r.attainable_TFLOPS) {
      r.attainable_TFLOPS = bound->bound_TFLOPS;
      r.binding = level;
    }
  }
  return r;
}

}  // namespace roofcast
