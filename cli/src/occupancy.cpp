// roofcast occupancy: resident blocks per SM, the limiter, the headroom, the staircases.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/views/views.hpp"

namespace roofcast::cli {

namespace {

roofcast::SweepAxis parse_sweep_axis(const std::string& text) {
  for (auto axis : {roofcast::SweepAxis::kRegisters, roofcast::SweepAxis::kSharedMemory,
                    roofcast::SweepAxis::kThreads}) {
    if (text == roofcast::to_string(axis)) return axis;
  }
  throw UsageError("--sweep must be one of regs, smem, threads; got '" + text + "'");
}

}  // namespace

int run_occupancy(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast occupancy: resident blocks per SM of a kernel, what limits them, the headroom");
  add_common(desc);
  // clang-format off
  desc.add_options()
      ("gpu", po::value<std::string>(),
       "GPU id (see 'roofcast gpus') or a spec file ending in .json")
      ("spec", po::value<std::string>(), "a spec file for a GPU not in the database (or --gpu)")
      ("kernel", po::value<std::string>(), "a ladder kernel by its id (as rank, ladder and "
       "predict print it): its threads, its shared memory (dynamic) and, unless --regs, the "
       "model's register estimate; instead of --threads, --smem, --dynamic-smem")
      ("threads", po::value<int>(), "threads per block (required without --kernel)")
      ("regs", po::value<int>(), "registers per thread, as ptxas reports (required without "
       "--kernel)")
      ("smem", po::value<int>()->default_value(0), "static shared memory per block, bytes")
      ("dynamic-smem", po::value<int>()->default_value(0), "dynamic shared memory per block, bytes")
      ("max-dynamic-smem", po::value<int>(),
       "the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize, bytes (default: raised to the "
       "opt-in maximum, as a kernel using more than 48 KiB must)")
      ("carveout", po::value<int>(),
       "cudaFuncAttributePreferredSharedMemoryCarveout, percent 0..100 (default: the maximum)")
      ("sweep", po::value<std::string>(), "also print the staircase over regs, smem or threads")
      ("svg", po::value<std::string>(), "with --sweep: draw the staircase to this SVG file "
       "(needs gnuplot)")
      ("force", "with --svg: overwrite the file even if roofcast did not write it")
      ("csv", "with --sweep: print the staircase as CSV (a header row, one row per step)");
  // clang-format on
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (vm.count("gpu") == vm.count("spec")) {
    throw UsageError(vm.count("gpu") ? "give --gpu or --spec, not both"
                                     : "missing required flag --gpu (or --spec FILE)");
  }
  const bool of_kernel = vm.count("kernel") != 0U;
  if (of_kernel) {
    refuse_with_kernel(vm, {"threads", "smem", "dynamic-smem"});
  } else {
    for (const char* required : {"threads", "regs"}) {
      if (!vm.count(required)) {
        throw UsageError("missing required flag --" + std::string(required) + " (or --kernel ID)");
      }
    }
  }
  if (vm.count("svg") && !vm.count("sweep")) throw UsageError("--svg needs --sweep");
  const Output output = output_of(vm);
  if (output == Output::kCsv && !vm.count("sweep")) {
    throw UsageError("--csv prints the staircase: it needs --sweep");
  }
  const roofcast::gemm::TileConfig config =
      of_kernel ? kernel_from(vm) : roofcast::gemm::TileConfig{};
  const roofcast::GpuSpec gpu = vm.count("gpu")
                                    ? roofcast::find_spec(vm["gpu"].as<std::string>())
                                    : roofcast::load_spec_file(vm["spec"].as<std::string>());
  const roofcast::SmLimits& sm = gpu.sm;

  roofcast::KernelLaunch launch;
  std::vector<std::string> notes;
  if (of_kernel) {
    launch.threads_per_block = config.threads;
    launch.dynamic_shared_memory_bytes = roofcast::kernels::shared_memory_bytes(config);
    if (vm.count("regs")) {
      launch.registers_per_thread = checked(vm, "regs", 0, 1 << 16);
    } else {
      // As predict, ladder and rank estimate them: estimate_registers, capped where the
      // kernel's __launch_bounds__ makes ptxas cap them (the rest spills). Occupancy has no
      // problem: the estimate is that of an aligned one (M, N, K multiples of 4; the unaligned
      // copies of rungs 7-10 stage more registers), the ladder's 4096^3.
      const roofcast::KernelAnatomy anatomy =
          roofcast::kernels::anatomy({4096, 4096, 4096}, config, gpu.sm.shared_memory_banks);
      // The GPU's fitted register model where a calibration is committed.
      const roofcast::StoredCalibration* stored = roofcast::embedded_calibration(gpu.id);
      const roofcast::RegisterModel model =
          stored != nullptr ? stored->parameters.registers : roofcast::RegisterModel{};
      const int needed = roofcast::estimate_registers(config, anatomy, model).total;
      const int cap =
          std::max(1, roofcast::register_cap(sm, config.threads,
                                             roofcast::kernels::launch_bounds_min_blocks(config)));
      launch.registers_per_thread = std::min(needed, cap);
      notes.push_back("registers estimated by the model for an aligned problem (no --regs): " +
                      std::to_string(needed) + " needed" +
                      (needed > cap + model.spill_margin
                           ? ", capped at " + std::to_string(cap) + " (" +
                                 std::to_string(needed - cap) + " spilled)"
                       : needed > cap ? ", fitted into the cap of " + std::to_string(cap)
                                      : ""));
    }
    if (const char* why = roofcast::kernels::not_runnable_reason(gpu, config)) {
      notes.push_back(std::string("the kernel does not run on ") + gpu.id + ": " + why);
    }
  } else {
    launch.threads_per_block = checked(vm, "threads", 1, 1 << 20);
    launch.registers_per_thread = checked(vm, "regs", 0, 1 << 16);
    launch.static_shared_memory_bytes = checked(vm, "smem", 0, 1 << 30);
    launch.dynamic_shared_memory_bytes = checked(vm, "dynamic-smem", 0, 1 << 30);
  }
  if (vm.count("max-dynamic-smem")) {
    launch.max_dynamic_shared_memory_bytes = checked(
        vm, "max-dynamic-smem", 0,
        std::max(0, sm.shared_memory_per_block_optin_bytes - launch.static_shared_memory_bytes));
  }
  if (vm.count("carveout")) launch.carveout_percent = checked(vm, "carveout", 0, 100);
  std::optional<roofcast::SweepAxis> axis;
  if (vm.count("sweep")) axis = parse_sweep_axis(vm["sweep"].as<std::string>());

  auto report = roofcast::views::make_occupancy_report(gpu, launch, axis);
  if (of_kernel) {
    report.kernel_id = roofcast::kernels::kernel_id(config);
    report.registers_estimated = vm.count("regs") == 0U;
    report.notes = std::move(notes);
  }
  if (vm.count("svg")) {
    draw_figure_file(roofcast::views::staircase_gnuplot_script(report), vm["svg"].as<std::string>(),
                     vm.count("force") != 0U, "--svg");
  }
  if (output == Output::kJson) {
    std::cout << roofcast::views::occupancy_json(report).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::occupancy_sweep_csv(report);
  } else {
    std::cout << roofcast::views::occupancy_text(report);
  }
  return 0;
}

}  // namespace roofcast::cli
