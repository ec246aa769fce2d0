// roofcast predict: one config on one GPU and problem, every term of its predicted time.
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/rung_defaults.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/views/views.hpp"

namespace roofcast::cli {

namespace {

/// A warp tile for a rung 7-10 config without --wm/--wn: the warp's 32 threads as 4 x 8
/// thread tiles (WM = 4 TM, WN = 8 TN), else 8 x 4, 2 x 16, 16 x 2, 1 x 32, 32 x 1, the first
/// that divides the block tile; 0 x 0 when none does (the tile rules then say why).
std::pair<int, int> derived_warp_tile(const roofcast::gemm::TileConfig& c) {
  static constexpr std::pair<int, int> kShapes[] = {{4, 8},  {8, 4},  {2, 16},
                                                    {16, 2}, {1, 32}, {32, 1}};
  for (const auto& [rows, cols] : kShapes) {
    const int wm = rows * c.tm;
    const int wn = cols * c.tn;
    if (wm >= 1 && wn >= 1 && c.bm % wm == 0 && c.bn % wn == 0) return {wm, wn};
  }
  return {0, 0};
}

/// The config of --rung, --bm, --bn, ... --cluster, the parameters left out derived (each
/// derivation noted in `notes`); a config that breaks a tile rule is a usage error naming it.
void config_from_flags(const po::variables_map& vm, roofcast::gemm::TileConfig& c,
                       std::vector<std::string>& notes) {
  namespace gemm = roofcast::gemm;
  for (const char* required : {"rung", "bm", "bn"}) {
    if (!vm.count(required)) {
      throw UsageError("missing required flag --" + std::string(required) + " (or --kernel ID)");
    }
  }
  c.rung = checked(vm, "rung", 1, gemm::kRungCount);
  c.bm = checked(vm, "bm", 1, 4096);
  c.bn = checked(vm, "bn", 1, 4096);
  const roofcast::kernels::RungTraits traits = roofcast::kernels::rung_traits(c.rung);
  const gemm::TileConfig defaults = roofcast::kernels::default_config(c.rung);
  if (traits.needs_bk && !vm.count("bk")) {
    throw UsageError("missing required flag --bk (rung " + std::to_string(c.rung) + ")");
  }
  if (traits.needs_tm && !vm.count("tm")) {
    throw UsageError("missing required flag --tm (rung " + std::to_string(c.rung) + ")");
  }
  if (traits.needs_tn && !vm.count("tn")) {
    throw UsageError("missing required flag --tn (rung " + std::to_string(c.rung) + ")");
  }
  c.bk = flag_or(vm, "bk", 0, 1024, defaults.bk);
  c.tm = flag_or(vm, "tm", 1, 64, defaults.tm);
  c.tn = flag_or(vm, "tn", 1, 64, defaults.tn);
  c.stages = flag_or(vm, "stages", 1, 16, defaults.stages);
  c.vector_width = flag_or(vm, "vector", 1, 4, defaults.vector_width);
  c.cluster = flag_or(vm, "cluster", 1, 16, defaults.cluster);
  c.layout = defaults.layout;
  if (vm.count("layout")) {
    const auto layout = gemm::parse_smem_layout(vm["layout"].as<std::string>());
    if (!layout) {
      throw UsageError("--layout must be one of plain, padded, swizzled; got '" +
                       vm["layout"].as<std::string>() + "'");
    }
    c.layout = *layout;
  }
  if (traits.warp_tiled && (vm.count("wm") || vm.count("wn"))) {
    if (!vm.count("wm") || !vm.count("wn")) throw UsageError("give both --wm and --wn");
    c.wm = checked(vm, "wm", 1, 4096);
    c.wn = checked(vm, "wn", 1, 4096);
  } else if (traits.warp_tiled) {
    std::tie(c.wm, c.wn) = derived_warp_tile(c);
    notes.push_back("warp tile " + std::to_string(c.wm) + " x " + std::to_string(c.wn) +
                    " derived (no --wm, --wn)");
  } else if (vm.count("wm") || vm.count("wn")) {
    throw UsageError("--wm and --wn are for rungs 7-10 (warp tiling)");
  }
  if (vm.count("threads")) {
    c.threads = checked(vm, "threads", 1, 1 << 20);
  } else {
    c.threads = roofcast::kernels::derived_threads(c);
    notes.push_back("threads " + std::to_string(c.threads) + " derived from the tile");
  }
  if (const char* rule = roofcast::kernels::violated_rule(c)) {
    throw UsageError("the config breaks a tile rule of rung " + std::to_string(c.rung) + ": " +
                     rule);
  }
}

}  // namespace

int run_predict(const std::vector<std::string>& args) {
  namespace gemm = roofcast::gemm;
  po::options_description desc(
      "roofcast predict: predicted time and TFLOPS of an SGEMM ladder config on a GPU, the "
      "binding term and every term, occupancy, waves, L2 hit rate, traffic and roofline");
  add_common(desc);
  add_gpu_options(desc);
  // clang-format off
  desc.add_options()
      ("m", po::value<long long>(), "rows of A and C (required)")
      ("n", po::value<long long>(), "columns of B and C (required)")
      ("k", po::value<long long>(), "columns of A, rows of B (required)")
      ("kernel", po::value<std::string>(), "the config by its kernel id, as rank, ladder and "
       "the measurement files print it (e.g. r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-"
       "padded), registered or not; instead of --rung, --bm, ... --cluster")
      ("rung", po::value<int>(), "ladder rung 1..10 (required without --kernel)")
      ("bm", po::value<int>(), "block tile rows (required without --kernel)")
      ("bn", po::value<int>(), "block tile columns (required without --kernel)")
      ("bk", po::value<int>(), "K depth of a shared tile (required for rungs 2-10)")
      ("tm", po::value<int>(), "thread tile rows (required for rungs 3-10; rungs 1-2: 1)")
      ("tn", po::value<int>(), "thread tile columns (required for rungs 4-10; rungs 1-3: 1)")
      ("wm", po::value<int>(), "warp tile rows (rungs 7-10; default: 4 x 8 threads of TM x TN)")
      ("wn", po::value<int>(), "warp tile columns (rungs 7-10)")
      ("threads", po::value<int>(), "threads per block (default: derived from the tile)")
      ("stages", po::value<int>(), "shared stages (default: 2 for rung 8, 3 for rungs 9-10, "
       "else 1)")
      ("vector", po::value<int>(), "floats per load (default: 4 for rungs 5-10, else 1)")
      ("layout", po::value<std::string>(), "shared layout plain|padded|swizzled (default: "
       "plain for rungs 1-5, padded for 6-10)")
      ("cluster", po::value<int>(), "blocks per cluster (rung 10; default 1)")
      ("raster", po::value<std::string>()->default_value("row_major"),
       "block order row_major|column_major|grouped:G|z_order, as rank prints it (or grouped, "
       "alias swizzle, with --group G)")
      ("group", po::value<int>(), "tile rows per group, with --raster grouped")
      ("regs", po::value<int>(), "registers per thread as ptxas reports (default: estimated)")
      ("spill-bytes", po::value<int>(), "with --regs: spill bytes per thread as ptxas reports")
      ("beta", po::value<double>()->default_value(0.0), "beta of C = alpha A B + beta C "
       "(non-zero reads C)")
      ("l2-model", po::value<std::string>()->default_value("roofcast"),
       "L2 hit-rate model: roofcast|published")
      ("uncalibrated", "ignore the GPU's committed calibration (data/calibration)");
  // clang-format on
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const roofcast::GpuSpec gpu = gpu_from(vm);
  for (const char* required : {"m", "n", "k"}) {
    if (!vm.count(required)) throw UsageError("missing required flag --" + std::string(required));
  }
  roofcast::PredictInput in;
  in.problem = problem_from(vm);
  gemm::TileConfig& c = in.config;
  std::vector<std::string> notes;  // how unspecified tile parameters were derived
  if (vm.count("kernel")) {
    refuse_with_kernel(vm, {"rung", "bm", "bn", "bk", "tm", "tn", "wm", "wn", "threads", "stages",
                            "vector", "layout", "cluster"});
    c = kernel_from(vm);
  } else {
    config_from_flags(vm, c, notes);
  }

  in.raster = raster_from(vm);
  const auto l2_model = roofcast::parse_l2_model(vm["l2-model"].as<std::string>());
  if (!l2_model) {
    throw UsageError("--l2-model must be one of roofcast, published; got '" +
                     vm["l2-model"].as<std::string>() + "'");
  }
  in.l2_model = *l2_model;
  if (vm.count("regs")) in.registers_per_thread = checked(vm, "regs", 0, 1 << 16);
  if (vm.count("spill-bytes")) {
    if (!vm.count("regs")) throw UsageError("--spill-bytes needs --regs");
    in.spill_bytes_per_thread = checked(vm, "spill-bytes", 0, 1 << 20);
  }
  in.c_is_read = vm["beta"].as<double>() != 0.0;
  in.shared_memory_bytes = roofcast::kernels::shared_memory_bytes(c);
  in.min_blocks_per_sm = roofcast::kernels::launch_bounds_min_blocks(c);
  const roofcast::views::PredictReport report = roofcast::views::make_predict_report(
      gpu, in, vm.count("uncalibrated") == 0U, std::move(notes));
  if (vm.count("json")) {
    std::cout << roofcast::views::predict_json(report).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::predict_text(report);
  }
  return 0;
}

}  // namespace roofcast::cli
