// roofcast: command-line views on the model.
//   roofcast gpus [--json] [--spec FILE]
//   roofcast occupancy (--gpu ID|FILE.json | --spec FILE) --threads N --regs N [--smem N]
//                      [--dynamic-smem N] [--max-dynamic-smem N] [--carveout PCT]
//                      [--sweep regs|smem|threads [--svg FILE]] [--json]
//   roofcast table [--json] [--spec FILE]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"
#include "views.hpp"

namespace po = boost::program_options;

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitDataError = 1;

/// A command-line mistake; reported with the usage hint and exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* const kUsage =
    "usage: roofcast <command> [options]\n"
    "commands:\n"
    "  gpus        list the GPU spec database\n"
    "  occupancy   resident blocks per SM, the limiting resource and the headroom\n"
    "  table       occupancy of representative SGEMM kernels on every GPU (the main job)\n"
    "run 'roofcast <command> --help' for a command's options\n";

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  return vm;
}

void add_common(po::options_description& desc) {
  desc.add_options()("help,h", "show this help")("json", "print JSON instead of text");
}

std::vector<roofcast::GpuSpec> database_with(const po::variables_map& vm) {
  std::vector<roofcast::GpuSpec> gpus = roofcast::embedded_specs();
  if (vm.count("spec")) {
    for (const std::string& path : vm["spec"].as<std::vector<std::string>>()) {
      gpus.push_back(roofcast::load_spec_file(path));
    }
  }
  return gpus;
}

int run_gpus(const std::vector<std::string>& args) {
  po::options_description desc("roofcast gpus: list the GPU spec database");
  add_common(desc);
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also load this spec file (repeatable)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const auto gpus = database_with(vm);
  if (vm.count("json")) {
    std::cout << roofcast::views::gpus_json(gpus).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::gpus_text(gpus);
  }
  return 0;
}

int run_table(const std::vector<std::string>& args) {
  po::options_description desc("roofcast table: occupancy of representative kernels per GPU");
  add_common(desc);
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also include this spec file (repeatable)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const auto table = roofcast::views::make_occupancy_table(
      database_with(vm), roofcast::views::representative_kernels());
  if (vm.count("json")) {
    std::cout << roofcast::views::occupancy_table_json(table).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::occupancy_table_text(table);
  }
  return 0;
}

/// Runs gnuplot on a script that writes `figure`. gnuplot's own messages go to stderr; it
/// exits 0 even when it cannot open its output, so the file is checked before and after.
void draw_with_gnuplot(const std::string& script, const std::string& figure) {
  if (!std::ofstream(figure)) throw std::runtime_error("cannot write the figure file " + figure);
  FILE* gnuplot = popen("gnuplot 1>&2", "w");
  if (gnuplot == nullptr) throw std::runtime_error("cannot start gnuplot to draw " + figure);
  std::fwrite(script.data(), 1, script.size(), gnuplot);
  const int status = pclose(gnuplot);
  std::error_code error;
  if (status != 0 || std::filesystem::file_size(figure, error) == 0) {
    throw std::runtime_error("gnuplot failed to draw " + figure + " (exit status " +
                             std::to_string(status) +
                             "); is it installed? (Debian: apt-get install gnuplot-nox)");
  }
}

int checked(const po::variables_map& vm, const char* flag, int minimum, int maximum) {
  const int value = vm[flag].as<int>();
  if (value < minimum || value > maximum) {
    throw UsageError("--" + std::string(flag) + " must be within " + std::to_string(minimum) +
                     ".." + std::to_string(maximum) + ", got " + std::to_string(value));
  }
  return value;
}

roofcast::SweepAxis parse_sweep_axis(const std::string& text) {
  for (auto axis : {roofcast::SweepAxis::kRegisters, roofcast::SweepAxis::kSharedMemory,
                    roofcast::SweepAxis::kThreads}) {
    if (text == roofcast::to_string(axis)) return axis;
  }
  throw UsageError("--sweep must be one of regs, smem, threads; got '" + text + "'");
}

int run_occupancy(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast occupancy: resident blocks per SM of a kernel, what limits them, the headroom");
  add_common(desc);
  // clang-format off
  desc.add_options()
      ("gpu", po::value<std::string>(),
       "GPU id (see 'roofcast gpus') or a spec file ending in .json")
      ("spec", po::value<std::string>(), "a spec file for a GPU not in the database (or --gpu)")
      ("threads", po::value<int>(), "threads per block (required)")
      ("regs", po::value<int>(), "registers per thread, as ptxas reports (required)")
      ("smem", po::value<int>()->default_value(0), "static shared memory per block, bytes")
      ("dynamic-smem", po::value<int>()->default_value(0), "dynamic shared memory per block, bytes")
      ("max-dynamic-smem", po::value<int>(),
       "the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize, bytes (default: raised to the "
       "opt-in maximum, as a kernel using more than 48 KiB must)")
      ("carveout", po::value<int>(),
       "cudaFuncAttributePreferredSharedMemoryCarveout, percent 0..100 (default: the maximum)")
      ("sweep", po::value<std::string>(), "also print the staircase over regs, smem or threads")
      ("svg", po::value<std::string>(), "with --sweep: draw the staircase to this SVG file "
       "(needs gnuplot)");
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
  for (const char* required : {"threads", "regs"}) {
    if (!vm.count(required)) {
      throw UsageError("missing required flag --" + std::string(required));
    }
  }
  if (vm.count("svg") && !vm.count("sweep")) throw UsageError("--svg needs --sweep");
  const roofcast::GpuSpec gpu = vm.count("gpu")
                                    ? roofcast::find_spec(vm["gpu"].as<std::string>())
                                    : roofcast::load_spec_file(vm["spec"].as<std::string>());
  const roofcast::SmLimits& sm = gpu.sm;

  roofcast::KernelLaunch launch;
  launch.threads_per_block = checked(vm, "threads", 1, 1 << 20);
  launch.registers_per_thread = checked(vm, "regs", 0, 1 << 16);
  launch.static_shared_memory_bytes = checked(vm, "smem", 0, 1 << 30);
  launch.dynamic_shared_memory_bytes = checked(vm, "dynamic-smem", 0, 1 << 30);
  if (vm.count("max-dynamic-smem")) {
    launch.max_dynamic_shared_memory_bytes = checked(
        vm, "max-dynamic-smem", 0,
        std::max(0, sm.shared_memory_per_block_optin_bytes - launch.static_shared_memory_bytes));
  }
  if (vm.count("carveout")) launch.carveout_percent = checked(vm, "carveout", 0, 100);
  std::optional<roofcast::SweepAxis> axis;
  if (vm.count("sweep")) axis = parse_sweep_axis(vm["sweep"].as<std::string>());

  const auto report = roofcast::views::make_occupancy_report(gpu, launch, axis);
  if (vm.count("svg")) {
    draw_with_gnuplot(
        roofcast::views::staircase_gnuplot_script(report, vm["svg"].as<std::string>()),
        vm["svg"].as<std::string>());
  }
  if (vm.count("json")) {
    std::cout << roofcast::views::occupancy_json(report).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::occupancy_text(report);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    (all.empty() ? std::cerr : std::cout) << kUsage;
    return all.empty() ? kExitUsage : 0;
  }
  const std::string& command = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  try {
    if (command == "gpus") return run_gpus(args);
    if (command == "occupancy") return run_occupancy(args);
    if (command == "table") return run_table(args);
    std::cerr << "roofcast: error: unknown command '" << command << "'\n" << kUsage;
    return kExitUsage;
  } catch (const UsageError& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n"
              << "run 'roofcast " << command << " --help' for its options\n";
    return kExitUsage;
  } catch (const po::error& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n"
              << "run 'roofcast " << command << " --help' for its options\n";
    return kExitUsage;
  } catch (const roofcast::UnknownGpuError& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const roofcast::SpecError& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n";
    return kExitDataError;
  } catch (const std::exception& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n";
    return kExitDataError;
  }
}
