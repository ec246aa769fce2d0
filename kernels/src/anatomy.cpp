// The ladder's anatomy dispatch: which family builds a rung's anatomy, the facts shared by the
// families, and the ladder's prediction entry point.
#include "roofcast/kernels/anatomy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "../ladder/anatomy_families.hpp"

namespace roofcast::kernels {

namespace ladder {

/// C elements per thread: BM * BN / threads (TM * TN for a config that follows its rules;
/// the work decides, so an inconsistent TM x TN cannot create or lose FLOPs).
int outputs_per_thread(const TileConfig& c, int threads) {
  return std::max(1, c.bm * c.bn / std::max(1, threads));
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

double compiled_overhead_instructions(const TileConfig& c, const KernelAnatomy& a) {
  const CompiledOverhead o = kernels::compiled_overhead(c.rung);
  // Copy sites: rung 4's scalar loads; rungs 5-6's load4_or_zero float4s, whose unaligned
  // fallback issues four scalar loads per site (counted by unaligned rows' own instructions).
  const double site_floats = c.rung == 5 || c.rung == 6 ? kVectorFloats : 1;
  auto sites = [&](const WarpAccess& w) { return w.instructions * w.vector_floats / site_floats; };
  const double swizzle_patterns =
      c.layout == gemm::SmemLayout::kSwizzled
          ? (c.bk / static_cast<double>(kVectorFloats) - 1) * (c.tm + c.tn) / kVectorFloats
          : 0.0;
  return std::max(0.0, o.per_k_tile + o.per_k_step * c.bk +
                           o.per_global_load * (sites(a.global_a) + sites(a.global_b)) +
                           o.per_swizzle_pattern * swizzle_patterns);
}

}  // namespace ladder

using gemm::TileConfig;
using ladder::kVectorFloats;

CompiledOverhead compiled_overhead(int rung) {
  // {per_k_tile, per_k_step, per_global_load, per_swizzle_pattern}; the fit's configs per rung
  // in the comment.
  switch (rung) {
    case 2:
      return {18, 0, 0};  // SASS, 32x32x32: 104 instructions per K tile, the anatomy 86
    case 3:
      return {29, 0, 0};  // SASS, 64x64x8 t8x1: 139 per K tile, the anatomy 110
    case 4:
      return {15.06, 3.67, 11.98};  // 42 configs
    case 5:
      return {8.59, 0.05, 13.05};  // 49 configs
    case 6:
      return {6.04, -0.60, 16.06, 9.73};  // 48 configs (25 swizzled)
    case 7:
      return {22.98, -0.21, 0};  // 51 configs
    case 8:
      return {37.59, -0.38, 0};  // 58 configs
    case 9:
      return {34.15, 0.12, 0};  // 61 configs
    case 10:
      return {76.65, 0.91, 0};  // 57 configs
    default:
      return {};
  }
}

int serial_load_groups(int rung) { return rung == 5 || rung == 6 ? 2 : 1; }

int derived_threads(const gemm::TileConfig& c) {
  if (c.rung <= 2) return c.bm * c.bn;
  if (c.rung >= 7 && c.wm > 0 && c.wn > 0)
    return roofcast::kWarpLanes * (c.bm / c.wm) * (c.bn / c.wn);
  if (c.tm < 1 || c.tn < 1) return 0;
  return (c.bm / c.tm) * (c.bn / c.tn);
}

int padded_row_floats(int cols) {
  const int s = cols + ladder::kVectorFloats * (cols / 32);
  return (s / ladder::kVectorFloats) % 2 == 1 ? s : s + ladder::kVectorFloats;
}

int shared_tile_offset(gemm::SmemLayout layout, int rows, int cols, int row, int col) {
  switch (layout) {
    case gemm::SmemLayout::kPadded:
      return row * padded_row_floats(cols) + col + ladder::kVectorFloats * (col >> 5);
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

namespace {

[[gnu::cold, gnu::noinline]] void throw_bad_config(const char* what) {
  throw std::invalid_argument(std::string("kernels::anatomy: ") + what);
}

}  // namespace

KernelAnatomy anatomy(const gemm::Problem& problem, const TileConfig& config, int banks) {
  KernelAnatomy a;
  a.threads = config.threads > 0 ? config.threads : derived_threads(config);
  if (config.rung < 1 || config.rung > gemm::kRungCount) [[unlikely]] {
    throw_bad_config("rung must be 1..10");
  }
  if (const char* out_of_bounds = gemm::tile_bounds_problem(config)) [[unlikely]] {
    throw_bad_config(out_of_bounds);
  }
  if (banks < 1 || banks > 64) [[unlikely]]
    throw_bad_config("banks must be 1..64");
  if (a.threads < 1 || config.bm < 1 || config.bn < 1 ||
      (config.rung >= 2 && (config.bk < 1 || config.tm < 1 || config.tn < 1))) [[unlikely]] {
    throw_bad_config("BM, BN, BK, TM, TN and threads must be >= 1");
  }
  a.warps = ceil_div(a.threads, kWarpLanes);
  a.serial_load_groups = serial_load_groups(config.rung);
  const WarpShape shape{std::min(kWarpLanes, a.threads), banks};
  if (config.rung == 1) {
    ladder::naive_anatomy(problem, config, shape, a);
  } else if (config.rung == 2) {
    ladder::shared_tiling_anatomy(problem, config, shape, a);
  } else if (config.rung <= 4) {
    ladder::thread_tiling_anatomy(problem, config, shape, a);
  } else if (config.rung <= 6) {
    ladder::vectorized_anatomy(problem, config, shape, a);
  } else {
    ladder::warp_tiled_anatomy(problem, config, shape, a);
  }
  return a;
}

const char* not_runnable_reason(const GpuSpec& gpu, const gemm::TileConfig& config) {
  if (gpu.compute_capability.number() >= minimum_compute_capability(config)) return nullptr;
  return config.rung == 10  ? "thread-block clusters and bulk copies need compute capability 9.0"
         : config.rung == 9 ? "cp.async needs compute capability 8.0"
                            : "the kernel needs a newer compute capability";
}

Prediction predict(const GpuSpec& gpu, const PredictInput& input, const Calibration& calibration) {
  gemm::TileConfig config = input.config;
  if (config.threads <= 0) config.threads = derived_threads(config);
  Prediction p = roofcast::predict(gpu, input, calibration,
                                   anatomy(input.problem, config, gpu.sm.shared_memory_banks));
  if (const char* reason = not_runnable_reason(gpu, config)) {
    // The parts (occupancy, traffic, the roofline) stay for the explanation; no time.
    p.launchable = false;
    p.not_runnable = reason;
    p.time_s = 0;
    p.tflops = 0;
  }
  return p;
}

}  // namespace roofcast::kernels
