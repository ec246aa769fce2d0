// roofcast: command-line views on the model.
//   roofcast gpus [--json|--csv] [--spec FILE]
//   roofcast occupancy (--gpu ID|FILE.json | --spec FILE) (--threads N --regs N [--smem N]
//                      [--dynamic-smem N] | --kernel ID [--regs N]) [--max-dynamic-smem N]
//                      [--carveout PCT] [--sweep regs|smem|threads [--svg FILE] [--csv]] [--json]
//   roofcast table [--json|--csv] [--spec FILE]
//   roofcast ladder [--gpu ID] [--m M --n N --k K] [--uncalibrated] [--json|--csv]
//   roofcast predict (--gpu ID|FILE.json | --spec FILE) --m M --n N --k K (--kernel ID |
//                    --rung R --bm BM --bn BN [--bk BK --tm TM --tn TN --wm WM --wn WN
//                    --threads T --stages S --vector V --layout plain|padded|swizzled
//                    --cluster C]) [--raster row_major|column_major|grouped:G|z_order (or
//                    grouped --group G)] [--regs N [--spill-bytes B]] [--beta X]
//                    [--l2-model roofcast|published] [--json]
//   roofcast roofline (--gpu ID|FILE.json | --spec FILE) [--json]
//   roofcast selection (--gpu ID|FILE.json | --spec FILE) [--measurements FILE]
//                      [--training FILE] [--report DIR] [--json]
//   roofcast rank (--gpu ID|FILE.json | --spec FILE) (--problems FILE | --m M --n N --k K)
//                 [--top N] [--space enumerated|registry] [--rungs 7,8,9]
//                 [--rasters row_major,grouped:8] [--min-occupancy X] [--min-blocks N]
//                 [--drop-spilling] [--all-rasters] [--uncalibrated] [--json|--csv]
//   roofcast report (--gpu ID|FILE.json | --spec FILE | --measurements FILE) [--root DIR]
//                   [--out DIR] [--measurements FILE] [--keep-scripts]
// A kernel ID is what kernels::kernel_id writes (rank, ladder, predict and the measurement
// files print it); kernels::parse_kernel_id reads it back.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "accuracy_views.hpp"
#include "cli.hpp"
#include "ladder_views.hpp"
#include "output_files.hpp"
#include "rank_views.hpp"
#include "report_views.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/json_input.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/problems.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/tune/space.hpp"
#include "roofcast/validation/selection.hpp"
#include "selection_views.hpp"
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
    "  table       occupancy of representative SGEMM kernels on every GPU\n"
    "  ladder      every rung's headline SGEMM config predicted on every GPU (the main job)\n"
    "  predict     predicted time and TFLOPS of an SGEMM ladder config, with every term\n"
    "  roofline    a GPU's roofline ceilings (spec and measured) and ridge points\n"
    "  accuracy    the model against a committed measurement: fit, errors, ranking, L2\n"
    "  rank        rank a config space for a batch of problems (the tuner API)\n"
    "  selection   the selection experiment: roofcast's and three baselines' first choices\n"
    "              against the measured best config per shape\n"
    "  report      a GPU's validation report (Markdown and SVG figures) from the committed\n"
    "              measurements and the model; prediction-only for a GPU never measured\n"
    "run 'roofcast <command> --help' for a command's options; 'roofcast --version' for the "
    "version\n";

/// A Boost.Program_options error as a sentence, without calling its what().
std::string option_error_message(const po::error_with_option_name& error) {
  const std::string option = roofcast::json_input::quote_for_message(error.get_option_name());
  if (dynamic_cast<const po::unknown_option*>(&error) != nullptr) {
    return "unrecognised option " + option;
  }
  if (dynamic_cast<const po::multiple_occurrences*>(&error) != nullptr) {
    return "option " + option + " is given more than once";
  }
  if (dynamic_cast<const po::required_option*>(&error) != nullptr) {
    return "missing required option " + option;
  }
  if (dynamic_cast<const po::invalid_command_line_syntax*>(&error) != nullptr) {
    return "option " + option + " needs a value (or takes none)";
  }
  if (dynamic_cast<const po::validation_error*>(&error) != nullptr) {
    return "invalid value for option " + option;
  }
  return "cannot parse option " + option;
}

/// Parses a command's options: every token must be an option of `desc` spelled in full (no
/// unique-prefix guessing) and no positional argument is taken; --help (-h) anywhere wins over
/// every other token, valid or not.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc) {
  po::variables_map vm;
  const bool help = std::any_of(args.begin(), args.end(),
                                [](const std::string& a) { return a == "--help" || a == "-h"; });
  const std::vector<std::string> parsed = help ? std::vector<std::string>{"--help"} : args;
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    po::store(po::command_line_parser(parsed)
                  .options(desc)
                  .style(style)
                  .positional(po::positional_options_description())
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error_with_option_name& error) {
    // Boost's what() substitutes the option and value into its message in a loop that never
    // ends when a value holds a placeholder ("--threads x%value%y" hung, found by cli_fuzzer):
    // the message is built here from the option's name, never from what().
    throw UsageError(option_error_message(error));
  }
  return vm;
}

void add_common(po::options_description& desc) {
  desc.add_options()("help,h", "show this help")("json", "print JSON instead of text");
}

/// What a command prints: its text, --json, or --csv (a command with a table).
enum class Output { kText, kJson, kCsv };

void add_csv(po::options_description& desc, const char* what) { desc.add_options()("csv", what); }

Output output_of(const po::variables_map& vm) {
  if (vm.count("json") && vm.count("csv")) throw UsageError("give --json or --csv, not both");
  return vm.count("json") ? Output::kJson : vm.count("csv") ? Output::kCsv : Output::kText;
}

std::vector<roofcast::GpuSpec> database_with(const po::variables_map& vm) {
  std::vector<roofcast::GpuSpec> gpus = roofcast::embedded_specs();
  if (vm.count("spec")) {
    for (const std::string& path : vm["spec"].as<std::vector<std::string>>()) {
      roofcast::GpuSpec spec = roofcast::load_spec_file(path);
      for (const roofcast::GpuSpec& known : gpus) {
        if (known.id == spec.id) {
          throw UsageError("--spec " + path + ": GPU id '" + spec.id + "' is already in the " +
                           "list (" + known.origin + ")");
        }
      }
      gpus.push_back(std::move(spec));
    }
  }
  return gpus;
}

int run_gpus(const std::vector<std::string>& args) {
  po::options_description desc("roofcast gpus: list the GPU spec database");
  add_common(desc);
  add_csv(desc, "print CSV (a header row, one row per GPU) instead of text");
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also load this spec file (repeatable)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const Output output = output_of(vm);
  const auto gpus = database_with(vm);
  if (output == Output::kJson) {
    std::cout << roofcast::views::gpus_json(gpus).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::gpus_csv(gpus);
  } else {
    std::cout << roofcast::views::gpus_text(gpus);
  }
  return 0;
}

int run_table(const std::vector<std::string>& args) {
  po::options_description desc("roofcast table: occupancy of representative kernels per GPU");
  add_common(desc);
  add_csv(desc, "print CSV (a header row, one row per GPU and kernel) instead of text");
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also include this spec file (repeatable)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const Output output = output_of(vm);
  const auto table = roofcast::views::make_occupancy_table(
      database_with(vm), roofcast::views::representative_kernels());
  if (output == Output::kJson) {
    std::cout << roofcast::views::occupancy_table_json(table).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::occupancy_table_csv(table);
  } else {
    std::cout << roofcast::views::occupancy_table_text(table);
  }
  return 0;
}

/// "10.1%".
std::string format_percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", value);
  return text;
}

std::int64_t checked64(const po::variables_map& vm, const char* flag, std::int64_t minimum,
                       std::int64_t maximum) {
  const long long value = vm[flag].as<long long>();
  if (value < minimum || value > maximum) {
    throw UsageError("--" + std::string(flag) + " must be within " + std::to_string(minimum) +
                     ".." + std::to_string(maximum) + ", got " + std::to_string(value));
  }
  return value;
}

/// The problem of --m, --n, --k, each within 1..gemm::kMaxExtent.
roofcast::gemm::Problem problem_from(const po::variables_map& vm) {
  for (const char* required : {"m", "n", "k"}) {
    if (!vm.count(required)) throw UsageError("missing required flag --" + std::string(required));
  }
  return {checked64(vm, "m", 1, roofcast::gemm::kMaxExtent),
          checked64(vm, "n", 1, roofcast::gemm::kMaxExtent),
          checked64(vm, "k", 1, roofcast::gemm::kMaxExtent)};
}

/// The config of --kernel ID, an id as kernels::kernel_id writes it (rank, ladder, predict and the
/// measurement files print them), registered or not; a malformed id or one whose config breaks
/// a tile rule is a usage error that says which part or rule.
roofcast::gemm::TileConfig kernel_from(const po::variables_map& vm) {
  const std::string& id = vm["kernel"].as<std::string>();
  std::string problem;
  const std::optional<roofcast::gemm::TileConfig> config =
      roofcast::kernels::parse_kernel_id(id, &problem);
  if (!config) {
    throw UsageError("--kernel " + roofcast::json_input::quote_for_message(id) + ": " + problem);
  }
  return *config;
}

/// --kernel gives the whole config: none of `flags` may be given with it.
void refuse_with_kernel(const po::variables_map& vm, std::initializer_list<const char*> flags) {
  for (const char* flag : flags) {
    if (vm.count(flag) && !vm[flag].defaulted()) {
      throw UsageError("give --kernel ID or --" + std::string(flag) +
                       ", not both (the id names the whole config)");
    }
  }
}

/// Writes `figure` through a staging file beside it, moved into place once gnuplot succeeded.
void draw_figure_file(const std::string& script, const std::filesystem::path& figure, bool force,
                      const std::string& flag) {
  roofcast::cli::check_may_overwrite(figure, force, flag);
  std::filesystem::path staging = figure;
  staging += ".roofcast-staging";
  try {
    roofcast::cli::draw_with_gnuplot(script, staging);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(staging, ignored);
    throw;
  }
  std::filesystem::rename(staging, figure);
}

int run_ladder(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast ladder: every rung's headline SGEMM config (the kernel registry) predicted on "
      "every GPU of the database");
  add_common(desc);
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also include this spec file (repeatable)")("gpu", po::value<std::string>(),
                                                                 "only this GPU (id or spec file)")(
      "m", po::value<long long>()->default_value(4096), "rows of A and C")(
      "n", po::value<long long>()->default_value(4096), "columns of B and C")(
      "k", po::value<long long>()->default_value(4096), "the shared dimension")(
      "uncalibrated", "ignore the GPUs' committed calibrations (data/calibration)");
  add_csv(desc, "print CSV (a header row, one row per GPU and headline config) instead of text");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const Output output = output_of(vm);
  const roofcast::gemm::Problem problem = problem_from(vm);
  std::vector<roofcast::GpuSpec> gpus = database_with(vm);
  if (vm.count("gpu")) gpus = {roofcast::find_spec(vm["gpu"].as<std::string>())};
  const auto table =
      roofcast::views::make_ladder_table(gpus, problem, vm.count("uncalibrated") == 0U);
  if (output == Output::kJson) {
    std::cout << roofcast::views::ladder_table_json(table).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::ladder_table_csv(table);
  } else {
    std::cout << roofcast::views::ladder_table_text(table);
  }
  return 0;
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
      const int needed = roofcast::estimate_registers(config, anatomy).total;
      const int cap =
          std::max(1, roofcast::register_cap(sm, config.threads,
                                             roofcast::kernels::launch_bounds_min_blocks(config)));
      launch.registers_per_thread = std::min(needed, cap);
      notes.push_back("registers estimated by the model for an aligned problem (no --regs): " +
                      std::to_string(needed) + " needed" +
                      (needed > cap ? ", capped at " + std::to_string(cap) + " (" +
                                          std::to_string(needed - cap) + " spilled)"
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

/// The GPU of --gpu (an id or a .json file) or --spec FILE, exactly one of them.
roofcast::GpuSpec gpu_from(const po::variables_map& vm) {
  if (vm.count("gpu") == vm.count("spec")) {
    throw UsageError(vm.count("gpu") ? "give --gpu or --spec, not both"
                                     : "missing required flag --gpu (or --spec FILE)");
  }
  return vm.count("gpu") ? roofcast::find_spec(vm["gpu"].as<std::string>())
                         : roofcast::load_spec_file(vm["spec"].as<std::string>());
}

void add_gpu_options(po::options_description& desc) {
  desc.add_options()("gpu", po::value<std::string>(),
                     "GPU id (see 'roofcast gpus') or a spec file ending in .json")(
      "spec", po::value<std::string>(), "a spec file for a GPU not in the database (or --gpu)");
}

int run_roofline(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast roofline: a GPU's roofline ceilings per level (spec, measured, in effect) and "
      "ridge points");
  add_common(desc);
  add_gpu_options(desc);
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const auto report = roofcast::views::make_roofline_report(gpu_from(vm));
  if (vm.count("json")) {
    std::cout << roofcast::views::roofline_json(report).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::roofline_text(report);
  }
  return 0;
}

/// --flag's value when given, else `fallback`.
int flag_or(const po::variables_map& vm, const char* flag, int minimum, int maximum, int fallback) {
  return vm.count(flag) ? checked(vm, flag, minimum, maximum) : fallback;
}

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
  if (c.rung >= 2 && !vm.count("bk")) {
    throw UsageError("missing required flag --bk (rung " + std::to_string(c.rung) + ")");
  }
  if (c.rung >= 3 && !vm.count("tm")) {
    throw UsageError("missing required flag --tm (rung " + std::to_string(c.rung) + ")");
  }
  if (c.rung >= 4 && !vm.count("tn")) {
    throw UsageError("missing required flag --tn (rung " + std::to_string(c.rung) + ")");
  }
  c.bk = flag_or(vm, "bk", 0, 1024, 0);
  c.tm = flag_or(vm, "tm", 1, 64, 1);
  c.tn = flag_or(vm, "tn", 1, 64, 1);
  c.stages = flag_or(vm, "stages", 1, 16, c.rung == 8 ? 2 : (c.rung >= 9 ? 3 : 1));
  c.vector_width = flag_or(vm, "vector", 1, 4, c.rung >= 5 ? 4 : 1);
  c.cluster = flag_or(vm, "cluster", 1, 16, 1);
  c.layout = c.rung <= 5 ? gemm::SmemLayout::kPlain : gemm::SmemLayout::kPadded;
  if (vm.count("layout")) {
    const auto layout = gemm::parse_smem_layout(vm["layout"].as<std::string>());
    if (!layout) {
      throw UsageError("--layout must be one of plain, padded, swizzled; got '" +
                       vm["layout"].as<std::string>() + "'");
    }
    c.layout = *layout;
  }
  if (c.rung >= 7 && (vm.count("wm") || vm.count("wn"))) {
    if (!vm.count("wm") || !vm.count("wn")) throw UsageError("give both --wm and --wn");
    c.wm = checked(vm, "wm", 1, 4096);
    c.wn = checked(vm, "wn", 1, 4096);
  } else if (c.rung >= 7) {
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

/// The launch order of --raster: row_major, column_major, z_order, grouped:G as rank prints it,
/// or grouped (alias swizzle) with --group G; G within 1..2^20.
roofcast::gemm::RasterOrder raster_from(const po::variables_map& vm) {
  namespace gemm = roofcast::gemm;
  constexpr int kMaxGroup = 1 << 20;
  const std::string raster_name = vm["raster"].as<std::string>();
  // "swizzle" is the name the grouped order often goes by (a grouped swizzle of G tile rows).
  if (raster_name == "grouped" || raster_name == "swizzle") {
    if (!vm.count("group")) {
      throw UsageError("--raster " + raster_name + " needs --group G (or --raster grouped:G)");
    }
    return {gemm::RasterKind::kGrouped, checked(vm, "group", 1, kMaxGroup)};
  }
  const auto raster = gemm::parse_raster_order(raster_name);
  if (!raster) {
    throw UsageError(
        "--raster must be one of row_major, column_major, grouped:G, z_order (or grouped "
        "--group G); got " +
        roofcast::json_input::quote_for_message(raster_name));
  }
  if (vm.count("group")) {
    throw UsageError(raster->kind == gemm::RasterKind::kGrouped
                         ? "give --raster grouped:G or --group G, not both"
                         : "--group needs --raster grouped");
  }
  if (raster->kind == gemm::RasterKind::kGrouped && raster->group > kMaxGroup) {
    throw UsageError("--raster grouped:G: G must be within 1.." + std::to_string(kMaxGroup) +
                     ", got " + std::to_string(raster->group));
  }
  return *raster;
}

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
  roofcast::views::PredictReport report;
  if (vm.count("kernel")) {
    refuse_with_kernel(vm, {"rung", "bm", "bn", "bk", "tm", "tn", "wm", "wn", "threads", "stages",
                            "vector", "layout", "cluster"});
    c = kernel_from(vm);
  } else {
    config_from_flags(vm, c, report.notes);
  }

  in.raster = raster_from(vm);
  if (in.raster.kind == gemm::RasterKind::kZOrder) {
    report.notes.push_back("Z-order is modelled only: the ladder kernels do not launch it");
  } else if (in.raster.kind != gemm::RasterKind::kRowMajor &&
             !roofcast::kernels::takes_raster_order(c)) {
    report.notes.push_back("rungs 1-6 launch row-major only: this is what " +
                           gemm::to_string(in.raster) + " would give");
  }
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
  const int needed_cc = roofcast::kernels::minimum_compute_capability(c);
  if (gpu.compute_capability.number() < needed_cc) {
    report.notes.push_back("the ladder kernel needs compute capability " +
                           std::to_string(needed_cc / 10) + "." + std::to_string(needed_cc % 10) +
                           ": it does not run on " + gpu.id);
  }

  report.gpu = gpu;
  report.input = in;
  report.kernel_id = roofcast::kernels::kernel_id(c);
  report.rung_name = std::string(roofcast::kernels::rung_name(c.rung));
  report.in_registry =
      roofcast::kernels::find_kernel(report.kernel_id) < roofcast::kernels::kRegistrySize;
  roofcast::Calibration calibration;
  if (vm.count("uncalibrated") == 0U) {
    if (const auto stored = roofcast::embedded_calibration(gpu.id)) {
      calibration = stored->parameters;
      report.notes.push_back("calibrated: data/calibration/" + gpu.id + ".json, fitted on " +
                             stored->measurement + " (" + stored->training_split + " split; MAPE " +
                             format_percent(stored->training_mape_percent) + " training, " +
                             format_percent(stored->held_out_mape_percent) + " held-out)");
    }
  }
  report.prediction = roofcast::kernels::predict(gpu, in, calibration);
  if (vm.count("json")) {
    std::cout << roofcast::views::predict_json(report).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::predict_text(report);
  }
  return 0;
}

}  // namespace

/// A measurement is evidence about the GPU it was run on only.
void require_same_gpu(const roofcast::GpuSpec& gpu,
                      const roofcast::validation::LadderMeasurement& measurement,
                      const std::string& path) {
  if (measurement.context.spec_id != gpu.id) {
    throw UsageError(path + " was measured on '" + measurement.context.spec_id + "' (" +
                     measurement.context.gpu_name + "), not on '" + gpu.id +
                     "': a measurement is used only with its own GPU's spec");
  }
}

int run_accuracy(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast accuracy: the prediction model against a GPU's committed SGEMM ladder measurement "
      "(calibration on the training split, MAPE on training and held-out cases, per rung, the "
      "tile sweep's ranking, L2 hit rates against Nsight Compute)");
  add_common(desc);
  add_gpu_options(desc);
  desc.add_options()(
      "measurements", po::value<std::string>(),
      "the sgemm-ladder JSON (default: data/measurements/<gpu id>/sgemm-ladder.json)")(
      "l2-model", po::value<std::string>()->default_value("roofcast"),
      "L2 model of the time model: roofcast or published")("cases", "list every case")(
      "write-calibration", po::value<std::string>(),
      "write the fitted parameters as a calibration file (data/calibration/<gpu id>.json)")(
      "force", "with --write-calibration: overwrite a file that is not a calibration");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const roofcast::GpuSpec gpu = gpu_from(vm);
  const std::string l2_text = vm["l2-model"].as<std::string>();
  if (l2_text != "roofcast" && l2_text != "published") {
    throw UsageError("--l2-model must be roofcast or published, got '" + l2_text + "'");
  }
  const std::string path = vm.count("measurements")
                               ? vm["measurements"].as<std::string>()
                               : "data/measurements/" + gpu.id + "/sgemm-ladder.json";
  const auto measurement = roofcast::validation::load_ladder_measurement(path);
  require_same_gpu(gpu, measurement, path);
  if (vm.count("write-calibration")) {
    roofcast::cli::check_may_overwrite(vm["write-calibration"].as<std::string>(),
                                       vm.count("force") != 0U, "--write-calibration");
  }
  const auto accuracy = roofcast::validation::evaluate_model(
      gpu, measurement,
      l2_text == "roofcast" ? roofcast::L2Model::kRoofcast : roofcast::L2Model::kPublished);
  if (vm.count("write-calibration")) {
    roofcast::StoredCalibration stored;
    stored.gpu_id = gpu.id;
    stored.measurement = path;
    stored.measurement_revision = measurement.context.git_revision;
    stored.training_split = accuracy.training_split;
    stored.training_cases = accuracy.training.cases;
    stored.held_out_cases = accuracy.held_out.cases;
    stored.training_mape_percent = accuracy.training.mape_percent;
    stored.held_out_mape_percent = accuracy.held_out.mape_percent;
    stored.parameters = accuracy.fit.calibration;
    const std::string out_path = vm["write-calibration"].as<std::string>();
    std::ofstream out(out_path);
    if (!(out << roofcast::calibration_json(stored))) {
      throw std::runtime_error("cannot write the calibration file " + out_path);
    }
    std::cerr << "wrote " << out_path << "\n";
  }
  if (vm.count("json")) {
    std::cout << roofcast::views::accuracy_json(accuracy).dump(1) << "\n";
  } else {
    std::cout << roofcast::views::accuracy_text(accuracy, vm.count("cases") != 0U);
  }
  return 0;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char ch : text + ",") {
    if (ch == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (ch != ' ') {
      item += ch;
    }
  }
  return out;
}

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
  report.gpu_id = gpu.id;
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
  for (const auto& problem : report.problems) {
    report.rankings.push_back(roofcast::tune::rank(gpu, problem.problem, candidates, options));
  }
  if (vm.count("uncalibrated")) {
    for (auto& ranking : report.rankings) ranking.calibrated = false;
  }
  if (output == Output::kJson) {
    std::cout << roofcast::views::rank_json(report).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::rank_csv(report);
  } else {
    std::cout << roofcast::views::rank_text(report);
  }
  return 0;
}

struct SelectionReports {
  roofcast::validation::SelectionReport estimated;
  roofcast::validation::SelectionReport ptxas;
};

/// The selection experiment from the files `sources` names (repository paths under `root`),
/// ranked with the GPU's committed calibration, registers estimated and from ptxas.
SelectionReports evaluate_selection_files(const roofcast::GpuSpec& gpu,
                                          const roofcast::views::SelectionSources& sources,
                                          const std::filesystem::path& root) {
  const auto stored = roofcast::embedded_calibration(gpu.id);
  if (!stored) {
    throw std::runtime_error("no committed calibration for " + gpu.id + " (" +
                             sources.calibration_path +
                             "): the selection experiment ranks with the calibrated model");
  }
  const auto selection =
      roofcast::validation::load_ladder_measurement(root / sources.measurement_path);
  const auto training = roofcast::validation::load_ladder_measurement(root / sources.training_path);
  return {
      roofcast::validation::evaluate_selection(gpu, selection, stored->parameters, &training,
                                               roofcast::validation::RegisterSource::kEstimated),
      roofcast::validation::evaluate_selection(gpu, selection, stored->parameters, &training,
                                               roofcast::validation::RegisterSource::kPtxas)};
}

/// selection.md and its two figures, staged in `out` (committed by the caller).
void write_selection_report(const SelectionReports& reports,
                            const roofcast::views::SelectionSources& sources,
                            roofcast::cli::StagedFolder& out) {
  const std::string top1 = "selection-top1.svg";
  const std::string scatter = "selection-predicted-vs-measured.svg";
  roofcast::cli::draw_with_gnuplot(roofcast::views::selection_top1_gnuplot(reports.estimated),
                                   out.file(top1));
  roofcast::cli::draw_with_gnuplot(roofcast::views::selection_scatter_gnuplot(reports.estimated),
                                   out.file(scatter));
  const std::filesystem::path md_path = out.file("selection.md");
  std::ofstream md(md_path);
  if (!(md << roofcast::views::selection_markdown(reports.estimated, reports.ptxas, sources, top1,
                                                  scatter))) {
    throw std::runtime_error("cannot write " + md_path.string());
  }
}

/// The selection report's inputs for `gpu`, as repository paths.
roofcast::views::SelectionSources selection_sources(const std::string& gpu_id) {
  roofcast::views::SelectionSources sources;
  const std::string dir = "data/measurements/" + gpu_id + "/";
  sources.measurement_path = dir + "sgemm-selection.json";
  sources.training_path = dir + "sgemm-ladder.json";
  sources.calibration_path = "data/calibration/" + gpu_id + ".json";
  return sources;
}

int run_selection(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast selection: for each shape of a selection measurement (roofcast-validate "
      "--selection), the first choice of roofcast's ranking and of three baselines (highest "
      "occupancy, largest tile, Triton's former formula) against the measured best");
  add_common(desc);
  add_gpu_options(desc);
  desc.add_options()(
      "measurements", po::value<std::string>(),
      "the selection JSON (default: data/measurements/<gpu id>/sgemm-selection.json)")(
      "training", po::value<std::string>(),
      "the measurement the calibration was fitted on, to count trained cases (default: "
      "data/measurements/<gpu id>/sgemm-ladder.json)")(
      "report", po::value<std::string>(), "write DIR/selection.md and its SVG figures (gnuplot)")(
      "force", "with --report: overwrite files in DIR that roofcast did not write");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const roofcast::GpuSpec gpu = gpu_from(vm);
  roofcast::views::SelectionSources sources = selection_sources(gpu.id);
  if (vm.count("measurements")) sources.measurement_path = vm["measurements"].as<std::string>();
  if (vm.count("training")) sources.training_path = vm["training"].as<std::string>();
  const SelectionReports reports = evaluate_selection_files(gpu, sources, ".");
  if (vm.count("report")) {
    roofcast::cli::StagedFolder out(vm["report"].as<std::string>(), vm.count("force") != 0U,
                                    "--report");
    write_selection_report(reports, sources, out);
    out.commit();
    std::cerr << "wrote " << (out.destination() / "selection.md").string() << "\n";
  }
  const auto& estimated = reports.estimated;
  const auto& ptxas = reports.ptxas;
  if (vm.count("json")) {
    std::cout << roofcast::views::selection_json(estimated, ptxas).dump(1) << "\n";
  } else {
    std::cout << roofcast::views::selection_text(estimated, ptxas);
  }
  return 0;
}

/// gnuplot's "gnuplot 5.4 patchlevel 4", or an error saying how to install it.
std::string gnuplot_version() {
  FILE* pipe = popen("gnuplot --version 2>/dev/null", "r");
  std::string text;
  if (pipe != nullptr) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) text += buffer;
    pclose(pipe);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.rfind("gnuplot", 0) != 0) {
    throw std::runtime_error(
        "gnuplot not found: the report's figures need it (Debian: apt-get install gnuplot-nox)");
  }
  return text;
}

int run_report(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast report: the validation report of a GPU, reports/<gpu>/README.md and its SVG "
      "figures (gnuplot), from the committed measurements (data/measurements/<gpu>/), the "
      "model and data/reference; a prediction-only report under a banner when the GPU has no "
      "measurement. Also rewrites selection.md when a selection measurement exists");
  add_common(desc);
  add_gpu_options(desc);
  desc.add_options()("root", po::value<std::string>()->default_value("."),
                     "the repository root (the inputs are read under it)")(
      "out", po::value<std::string>(), "output folder (default: ROOT/reports/<gpu id>)")(
      "keep-scripts", "also write each figure's gnuplot script (data inline) beside it, FIGURE.gp")(
      "force", "overwrite files in the output folder that roofcast did not write")(
      "measurements", po::value<std::string>(),
      "a ladder run outside the repository (e.g. build/sgemm-ladder.json from scripts/main.sh) "
      "instead of data/measurements/<gpu>/sgemm-ladder.json; without --gpu, the GPU it names");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  std::optional<std::string> measurements;
  if (vm.count("measurements")) measurements = vm["measurements"].as<std::string>();
  const roofcast::GpuSpec gpu =
      measurements && !vm.count("gpu") && !vm.count("spec")
          ? roofcast::find_spec(
                roofcast::validation::load_ladder_measurement(*measurements).context.spec_id)
          : gpu_from(vm);
  const std::filesystem::path root = vm["root"].as<std::string>();
  if (!std::filesystem::is_directory(root / "data")) {
    throw UsageError("--root: '" + root.string() +
                     "' has no data/ folder (give the repository root)");
  }
  const std::filesystem::path out_dir = vm.count("out")
                                            ? std::filesystem::path(vm["out"].as<std::string>())
                                            : root / "reports" / gpu.id;
  if (vm.count("json")) {
    // The report's numbers only: no files, no figures (no gnuplot needed).
    const auto report =
        roofcast::views::make_gpu_report(gpu, root, ROOFCAST_MODEL_DIGEST, "", measurements);
    std::cout << roofcast::views::gpu_report_json(report).dump(1) << "\n";
    return 0;
  }
  const std::string version = gnuplot_version();
  const roofcast::views::GpuReport report =
      roofcast::views::make_gpu_report(gpu, root, ROOFCAST_MODEL_DIGEST, version, measurements);
  // Everything is written to a staging folder first and moved into place when complete.
  roofcast::cli::StagedFolder out(out_dir, vm.count("force") != 0U, "--out");
  const auto figures = roofcast::views::gpu_report_figures(report);
  for (std::size_t i = 0; i < figures.size(); ++i) {
    std::cerr << "[" << i + 1 << "/" << figures.size() << "] drawing " << figures[i].file << "\n";
    roofcast::cli::draw_with_gnuplot(figures[i].script, out.file(figures[i].file));
    if (vm.count("keep-scripts")) {
      const std::string script_name =
          std::filesystem::path(figures[i].file).replace_extension(".gp").string();
      if (!(std::ofstream(out.file(script_name)) << figures[i].script)) {
        throw std::runtime_error("cannot write " + script_name);
      }
    }
  }
  {
    std::ofstream md(out.file("README.md"));
    if (!(md << roofcast::views::gpu_report_markdown(report))) {
      throw std::runtime_error("cannot write " + (out_dir / "README.md").string());
    }
  }
  std::size_t figure_count = figures.size();
  if (report.selection) {
    const auto sources = selection_sources(gpu.id);
    write_selection_report(evaluate_selection_files(gpu, sources, root), sources, out);
    figure_count += 2;
  }
  out.commit();
  const std::string md_path = (out_dir / "README.md").string();
  std::cerr << "wrote " << md_path << "\n";
  std::cout << (report.validated ? "validation" : "prediction-only") << " report of " << gpu.id
            << ": " << md_path << " and " << figure_count << " figures\n";
  return 0;
}

namespace roofcast::cli {

int run(const std::vector<std::string>& all) {
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    (all.empty() ? std::cerr : std::cout) << kUsage;
    return all.empty() ? kExitUsage : 0;
  }
  if (all[0] == "--version") {
    std::cout << "roofcast " << ROOFCAST_VERSION << " (model sources " << ROOFCAST_MODEL_DIGEST
              << ")\n";
    return 0;
  }
  const std::string& command = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  try {
    if (command == "gpus") return run_gpus(args);
    if (command == "occupancy") return run_occupancy(args);
    if (command == "table") return run_table(args);
    if (command == "ladder") return run_ladder(args);
    if (command == "predict") return run_predict(args);
    if (command == "roofline") return run_roofline(args);
    if (command == "accuracy") return run_accuracy(args);
    if (command == "rank") return run_rank(args);
    if (command == "selection") return run_selection(args);
    if (command == "report") return run_report(args);
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

}  // namespace roofcast::cli
