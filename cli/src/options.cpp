// The options layer shared by the commands (options.hpp).
#include "options.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "output_files.hpp"
#include "roofcast/json_input.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"

namespace roofcast::cli {

namespace {

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

}  // namespace

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

roofcast::gemm::Problem problem_from(const po::variables_map& vm) {
  for (const char* required : {"m", "n", "k"}) {
    if (!vm.count(required)) throw UsageError("missing required flag --" + std::string(required));
  }
  return {checked64(vm, "m", 1, roofcast::gemm::kMaxExtent),
          checked64(vm, "n", 1, roofcast::gemm::kMaxExtent),
          checked64(vm, "k", 1, roofcast::gemm::kMaxExtent)};
}

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

void refuse_with_kernel(const po::variables_map& vm, std::initializer_list<const char*> flags) {
  for (const char* flag : flags) {
    if (vm.count(flag) && !vm[flag].defaulted()) {
      throw UsageError("give --kernel ID or --" + std::string(flag) +
                       ", not both (the id names the whole config)");
    }
  }
}

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

int checked(const po::variables_map& vm, const char* flag, int minimum, int maximum) {
  const int value = vm[flag].as<int>();
  if (value < minimum || value > maximum) {
    throw UsageError("--" + std::string(flag) + " must be within " + std::to_string(minimum) +
                     ".." + std::to_string(maximum) + ", got " + std::to_string(value));
  }
  return value;
}

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

int flag_or(const po::variables_map& vm, const char* flag, int minimum, int maximum, int fallback) {
  return vm.count(flag) ? checked(vm, flag, minimum, maximum) : fallback;
}

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

const roofcast::StoredCalibration* calibration_of_option(const po::variables_map& vm,
                                                         const roofcast::GpuSpec& gpu) {
  if (!vm.count("calibration-of")) return nullptr;
  const std::string from = vm["calibration-of"].as<std::string>();
  const roofcast::StoredCalibration* stored = roofcast::embedded_calibration(from);
  if (stored == nullptr) {
    throw UsageError("--calibration-of '" + from +
                     "': no committed calibration of that GPU id (data/calibration/)");
  }
  if (from == gpu.id) {
    throw UsageError("--calibration-of '" + from + "' is the GPU measured: give another GPU's id");
  }
  return stored;
}

void require_same_gpu(const roofcast::GpuSpec& gpu,
                      const roofcast::validation::LadderMeasurement& measurement,
                      const std::string& path) {
  if (measurement.context.spec_id != gpu.id) {
    throw UsageError(path + " was measured on '" + measurement.context.spec_id + "' (" +
                     measurement.context.gpu_name + "), not on '" + gpu.id +
                     "': a measurement is used only with its own GPU's spec");
  }
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

void add_root_option(po::options_description& desc) {
  desc.add_options()("root", po::value<std::string>(),
                     "the folder holding data/ (a checkout's root; default: $ROOFCAST_ROOT, the "
                     "installed PREFIX/share/roofcast, or the working directory)");
}

DataRoot data_root_from(const po::variables_map& vm) {
  namespace fs = std::filesystem;
  const auto holds_data = [](const fs::path& folder) {
    std::error_code ignored;
    return fs::is_directory(folder / "data", ignored);
  };
  const auto found = [](const fs::path& folder) {
    std::error_code ignored;
    return DataRoot{folder, fs::is_directory(folder / "reports", ignored)};
  };
  if (vm.count("root")) {
    const fs::path root = vm["root"].as<std::string>();
    if (!holds_data(root)) {
      throw UsageError("--root: " + json_input::quote_for_message(root.string()) +
                       " has no data/ folder (give the repository root)");
    }
    return found(root);
  }
  std::vector<std::string> tried;
  if (const char* env = std::getenv("ROOFCAST_ROOT"); env != nullptr && *env != '\0') {
    if (!holds_data(env)) {
      throw UsageError("ROOFCAST_ROOT=" + json_input::quote_for_message(env) +
                       " has no data/ folder");
    }
    return found(env);
  }
  tried.push_back("ROOFCAST_ROOT (not set)");
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path share = executable.parent_path().parent_path() / "share" / "roofcast";
    if (holds_data(share)) return found(share);
    tried.push_back(share.string());
#ifdef ROOFCAST_BUILD_DIR
    // A roofcast run from its own build tree reads the checkout it was built from.
    const fs::path build_dir = ROOFCAST_BUILD_DIR;
    const auto [mismatch, unused] =
        std::mismatch(build_dir.begin(), build_dir.end(), executable.begin(), executable.end());
    if (mismatch == build_dir.end() && holds_data(ROOFCAST_SOURCE_DIR)) {
      return found(ROOFCAST_SOURCE_DIR);
    }
#endif
  }
  if (holds_data(".")) return found(".");
  tried.push_back("the working directory");
  std::string places;
  for (const std::string& place : tried) places += (places.empty() ? "" : ", ") + place;
  throw UsageError("cannot find roofcast's data/ folder (tried " + places +
                   "): give --root DIR or set ROOFCAST_ROOT");
}

}  // namespace roofcast::cli
