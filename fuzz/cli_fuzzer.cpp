// libFuzzer target: the roofcast command line (roofcast::cli::run) with the model behind it.
//
// Input: the arguments after the program name, separated by NUL or newline bytes (one at the
// end is dropped; at most kMaxArguments of at most kMaxArgumentBytes each, or the input is
// skipped). Only commands without file side effects run: gpus, occupancy, table, ladder,
// predict, roofline and rank (--problems, --gpu and --spec read files, which is harmless; rank
// only over a narrowed space, see narrow_rank). An input naming a flag or a command that writes
// files is skipped, and so is one naming a device or kernel file system (reading /dev/zero
// never ends). run() catches the expected errors itself (exit 1 or 2); a crash, a sanitizer
// report or an exception out of run() is a finding.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "roofcast/cli/cli.hpp"

namespace {

constexpr std::size_t kMaxArguments = 24;
constexpr std::size_t kMaxArgumentBytes = 256;

constexpr std::array<std::string_view, 7> kAllowedCommands = {
    "gpus", "occupancy", "table", "ladder", "predict", "roofline", "rank"};

/// Substrings that skip an input: flags and commands that write files (or that make sense only
/// with one), and paths into device and kernel file systems.
constexpr std::array<std::string_view, 12> kRefused = {
    "--svg",    "--out",          "--report", "--write-calibration",
    "--force",  "--keep-scripts", "report",   "selection",
    "accuracy", "dev/",           "proc/",    "sys/"};

bool split(std::string_view input, std::vector<std::string>& args) {
  std::size_t start = 0;
  while (start < input.size()) {
    std::size_t end = input.find_first_of(std::string_view("\0\n", 2), start);
    if (end == std::string_view::npos) end = input.size();
    if (args.size() == kMaxArguments || end - start > kMaxArgumentBytes) return false;
    args.emplace_back(input.substr(start, end - start));
    start = end + 1;
  }
  return true;
}

/// `rank` over the enumerated space (its default) takes about 2 s per problem under the
/// sanitizers, a hundred times the other commands, and the registry's every rung a few hundred
/// predictions: it runs only over the registry and named rungs (--space registry --rungs R,..).
/// `ladder` runs only for one GPU (--gpu): every GPU is the same code eight times over. Both
/// keep each path the command has and let the campaign reach its executions (fuzz/README.md).
bool has_flag(const std::vector<std::string>& args, std::string_view flag) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == flag || args[i].starts_with(std::string(flag) + "=")) return true;
  }
  return false;
}

bool narrow_rank(const std::vector<std::string>& args) {
  bool registry = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--space=registry") registry = true;
    if (args[i] == "--space" && i + 1 < args.size() && args[i + 1] == "registry") registry = true;
  }
  return registry && has_flag(args, "--rungs");
}

bool allowed(const std::vector<std::string>& args) {
  if (args.empty()) return true;  // prints the usage, exit 2
  if (std::find(kAllowedCommands.begin(), kAllowedCommands.end(), args[0]) ==
          kAllowedCommands.end() &&
      args[0] != "--help" && args[0] != "-h" && args[0] != "help") {
    return false;
  }
  for (const std::string& arg : args) {
    for (std::string_view refused : kRefused) {
      if (arg.find(refused) != std::string::npos) return false;
    }
  }
  if (args[0] == "ladder" && !has_flag(args, "--gpu")) return false;
  return args[0] != "rank" || narrow_rank(args);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  if (!split(input, args) || !allowed(args)) return -1;  // -1: not added to the corpus
  const int status = roofcast::cli::run(args);
  roofcast::fuzz::check(status == 0 || status == 1 || status == 2, "run() returns 0, 1 or 2");
  return 0;
}
