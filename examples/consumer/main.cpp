// Ranks roofcast's config space for one SGEMM problem on the H200 and prints the three
// fastest predicted configs with the reasons for their times. Built against an installed
// roofcast, through find_package(roofcast) or pkg-config.
//
// Usage: roofcast-consumer M N K
// Exit status: 0 on success, 1 when ranking fails or gives an implausible result, 2 on bad
// arguments.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/roofline.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/tune/space.hpp"

namespace {

/// A positive integer argument, or -1.
std::int64_t parse_extent(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1) return -1;
  return value;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "roofcast-consumer: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s M N K\n", argc > 0 ? argv[0] : "roofcast-consumer");
    return 2;
  }
  roofcast::gemm::Problem problem;
  problem.m = parse_extent(argv[1]);
  problem.n = parse_extent(argv[2]);
  problem.k = parse_extent(argv[3]);
  if (problem.m < 1 || problem.n < 1 || problem.k < 1) {
    std::fprintf(stderr, "roofcast-consumer: M, N and K must be positive integers\n");
    return 2;
  }
  try {
    const roofcast::GpuSpec& gpu = roofcast::embedded_spec("h200-sxm");
    const std::vector<roofcast::tune::Candidate> candidates =
        roofcast::tune::enumerate_candidates(gpu);
    roofcast::tune::RankOptions options;
    options.top = 3;
    options.list_pruned = false;
    options.best_raster_only = true;  // three different tile configs
    const roofcast::tune::Ranking ranking = roofcast::tune::rank(gpu, problem, candidates, options);

    std::printf("%s (%s), problem %lldx%lldx%lld: %zu candidates, %zu kept, %s\n", gpu.name.c_str(),
                ranking.gpu_id.c_str(), static_cast<long long>(problem.m),
                static_cast<long long>(problem.n), static_cast<long long>(problem.k),
                ranking.candidates, ranking.kept,
                ranking.calibrated ? "calibrated" : "uncalibrated");
    if (candidates.empty() || ranking.ranked.size() != 3) {
      return fail("expected 3 ranked configs, got " + std::to_string(ranking.ranked.size()));
    }
    double previous_s = 0;
    int place = 0;
    for (const roofcast::tune::Ranked& r : ranking.ranked) {
      const roofcast::tune::Explanation& why = r.why;
      std::printf("%d. %s %s: %.4g ms, %.2f TFLOPS\n", ++place,
                  roofcast::kernels::kernel_id(r.candidate.config).c_str(),
                  roofcast::gemm::to_string(r.candidate.raster).c_str(), r.time_s * 1e3, r.tflops);
      std::printf(
          "   occupancy %.3f (%d blocks/SM, limited by %s), %lld blocks in %lld waves "
          "(tail %.2f), L2 hit %.1f%%, bound by %s (roofline level %s, %.1f TFLOPS), "
          "%d registers%s\n",
          why.occupancy, why.blocks_per_sm, roofcast::limiter_names(why.occupancy_limiters).c_str(),
          static_cast<long long>(why.grid_blocks), static_cast<long long>(why.waves),
          why.tail_efficiency, 100 * why.l2_operand_hit_rate,
          std::string(roofcast::to_string(why.binding_term)).c_str(),
          std::string(roofcast::to_string(why.binding_level)).c_str(), why.roofline_TFLOPS,
          why.registers_per_thread, why.registers_estimated ? " (estimated)" : "");
      if (!(r.time_s > 0) || r.time_s < previous_s) {
        return fail("times must be positive and ascending");
      }
      if (!(r.tflops > 0) || r.tflops > gpu.peak_TFLOPS.fp32 * 1.001) {
        return fail("predicted TFLOPS outside (0, FP32 peak]");
      }
      previous_s = r.time_s;
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
