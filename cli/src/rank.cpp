// roofcast rank: a config space ranked for a batch of problems (the tuner API).
#include <algorithm>
#include <cstddef>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/tune/problems.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/tune/space.hpp"
#include "roofcast/views/rank_views.hpp"

namespace roofcast::cli {

int run_rank(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast rank: every valid config of the space (the kernels' tile rules, or the kernel "
      "registry) predicted for each problem of a batch, pruned and ranked fastest first with "
      "the reasons (occupancy, waves, L2, binding term); configs of the same predicted time are "
      "marked tied and listed by fewer shared-memory bytes, threads, stages, then kernel id");
  add_common(desc);
  add_gpu_options(desc);
  desc.add_options()("problems", po::value<std::string>(),
                     "problems file: {\"schema_version\": 1, \"problems\": [{\"name\", \"m\", "
                     "\"n\", \"k\"}]}")("m", po::value<long long>(),
                                        "one problem instead of --problems: rows of A and C")(
      "n", po::value<long long>(), "with --m, --k: columns of B and C")(
      "k", po::value<long long>(), "with --m, --n: the shared dimension")(
      "top", po::value<int>()->default_value(10), "configs shown per problem (0: all)")(
      "space", po::value<std::string>()->default_value("enumerated"),
      "enumerated (every config the tile rules allow) or registry (the compiled kernels)")(
      "rungs", po::value<std::string>(), "only these rungs, e.g. 7,8,9 (default: all)")(
      "rasters", po::value<std::string>(),
      "raster orders of rungs 7-10, e.g. row_major,grouped:8 (default: row_major, "
      "column_major, grouped:4, grouped:8, grouped:16)")(
      "min-occupancy", po::value<double>()->default_value(0), "drop configs below this (0..1)")(
      "min-blocks", po::value<int>()->default_value(0), "drop configs with fewer blocks per SM")(
      "drop-spilling", "drop configs whose estimated registers spill")(
      "all-rasters", "list every raster order of a config (default: only its fastest)")(
      "uncalibrated", "ignore the GPU's committed calibration (data/calibration)");
  add_csv(desc, "print CSV (a header row, one row per ranked config of every problem)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const roofcast::GpuSpec gpu = gpu_from(vm);
  const bool one_problem = vm.count("m") || vm.count("n") || vm.count("k");
  if (one_problem && vm.count("problems")) {
    throw UsageError("give --problems FILE or --m, --n, --k (one problem), not both");
  }
  if (!one_problem && !vm.count("problems")) {
    throw UsageError("missing required flag --problems FILE (or --m M --n N --k K)");
  }
  const Output output = output_of(vm);
  const int top = checked(vm, "top", 0, 1 << 30);
  const double min_occupancy = vm["min-occupancy"].as<double>();
  if (!(min_occupancy >= 0 && min_occupancy <= 1)) {
    throw UsageError("--min-occupancy must be within 0..1, got " + std::to_string(min_occupancy));
  }
  const int min_blocks = checked(vm, "min-blocks", 0, 1 << 16);
  const std::string space = vm["space"].as<std::string>();
  if (space != "enumerated" && space != "registry") {
    throw UsageError("--space must be enumerated or registry, got '" + space + "'");
  }
  roofcast::tune::SpaceBounds bounds;
  if (vm.count("rungs")) {
    bounds.rungs.clear();
    for (const std::string& item : split_list(vm["rungs"].as<std::string>())) {
      std::size_t used = 0;
      int rung = 0;
      try {
        rung = std::stoi(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size() || rung < 1 || rung > roofcast::gemm::kRungCount) {
        throw UsageError("--rungs: '" + item + "' is not a rung number 1..10");
      }
      bounds.rungs.push_back(rung);
    }
    if (bounds.rungs.empty()) throw UsageError("--rungs: empty list");
  }
  if (vm.count("rasters")) {
    bounds.rasters.clear();
    for (const std::string& item : split_list(vm["rasters"].as<std::string>())) {
      const auto raster = roofcast::gemm::parse_raster_order(item);
      if (!raster || raster->kind == roofcast::gemm::RasterKind::kZOrder) {
        throw UsageError("--rasters: '" + item +
                         "' is not a launch order (row_major, column_major, grouped:G)");
      }
      bounds.rasters.push_back(*raster);
    }
    if (bounds.rasters.empty()) throw UsageError("--rasters: empty list");
  }
  std::vector<roofcast::tune::Candidate> candidates;
  if (space == "enumerated") {
    candidates = roofcast::tune::enumerate_candidates(gpu, bounds);
  } else {
    std::vector<roofcast::gemm::TileConfig> configs;
    for (const auto& entry : roofcast::kernels::kRegistry) {
      const bool wanted = std::find(bounds.rungs.begin(), bounds.rungs.end(), entry.config.rung) !=
                          bounds.rungs.end();
      if (wanted &&
          roofcast::tune::exclusion(gpu, entry.config) == roofcast::tune::Exclusion::kNone) {
        configs.push_back(entry.config);
      }
    }
    candidates = roofcast::tune::with_raster_orders(configs, bounds);
  }
  roofcast::tune::RankOptions options;
  if (vm.count("uncalibrated")) options.calibration = roofcast::Calibration{};
  options.top = static_cast<std::size_t>(top);
  options.list_pruned = false;
  options.prune.min_occupancy = min_occupancy;
  options.prune.min_blocks_per_sm = min_blocks;
  options.prune.drop_spilling = vm.count("drop-spilling") != 0U;
  options.best_raster_only = vm.count("all-rasters") == 0U;
  roofcast::views::RankReport report;
  report.gpu = gpu;
  report.space = space;
  if (one_problem) {
    // Named as a problems file names a problem without a name: "MxNxK".
    const roofcast::gemm::Problem problem = problem_from(vm);
    report.problems = {{std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
                            std::to_string(problem.k),
                        problem}};
  } else {
    report.problems = roofcast::tune::load_problems(vm["problems"].as<std::string>());
  }
  // Each problem is printed as soon as it is ranked (text and CSV; a JSON document is written
  // whole at the end), and a terminal sees a progress line on stderr.
  const bool progress = ::isatty(STDERR_FILENO) != 0 && report.problems.size() > 1;
  if (output == Output::kCsv) std::cout << roofcast::views::rank_csv_header();
  for (std::size_t i = 0; i < report.problems.size(); ++i) {
    if (progress) {
      std::cerr << "\r[" << i + 1 << "/" << report.problems.size() << "] ranking "
                << report.problems[i].name << "\x1b[K" << std::flush;
    }
    report.rankings.push_back(
        roofcast::tune::rank(gpu, report.problems[i].problem, candidates, options));
    if (vm.count("uncalibrated")) report.rankings.back().calibrated = false;
    if (output == Output::kCsv) {
      std::cout << roofcast::views::rank_problem_csv(report, i) << std::flush;
    } else if (output == Output::kText) {
      std::cout << roofcast::views::rank_problem_text(report, i) << std::flush;
    }
  }
  if (progress) std::cerr << "\r\x1b[K" << std::flush;
  if (output == Output::kJson) std::cout << roofcast::views::rank_json(report).dump(2) << "\n";
  return 0;
}

}  // namespace roofcast::cli
