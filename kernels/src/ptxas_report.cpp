#include "roofcast/kernels/ptxas_report.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>

namespace roofcast::kernels {

// ptxas prints, per kernel and architecture:
//   ptxas info    : Compiling entry function '<mangled>' for 'sm_90'
//   ptxas info    : Function properties for <mangled>
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 32 registers, used 0 barriers
// Ladder kernels live in roofcast::kernels::ladder and take the registry index (size_t,
// mangled "m") as their first template argument: ...ladderNN<name>IL m <index> E...
std::vector<PtxasKernelUsage> parse_ptxas_report(std::string_view text) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)' for 'sm_(\d+)a?')");
  static const std::regex kIndex(R"(^_ZN8roofcast7kernels6ladder\d+\w+?ILm(\d+)E)");
  static const std::regex kFrame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kRegisters(R"(Used (\d+) registers)");
  std::vector<PtxasKernelUsage> kernels;
  std::istringstream lines{std::string(text)};
  std::string line;
  PtxasKernelUsage* current = nullptr;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_search(line, match, kEntry)) {
      current = nullptr;
      std::smatch index;
      const std::string name = match[1];
      if (!std::regex_search(name, index, kIndex)) continue;
      PtxasKernelUsage usage;
      usage.mangled_name = name;
      usage.registry_index = std::stoul(index[1]);
      usage.sm = std::stoi(match[2]);
      kernels.push_back(usage);
      current = &kernels.back();
    } else if (current != nullptr && std::regex_search(line, match, kFrame)) {
      current->stack_frame_bytes = std::stoi(match[1]);
      current->spill_store_bytes = std::stoi(match[2]);
      current->spill_load_bytes = std::stoi(match[3]);
    } else if (current != nullptr && std::regex_search(line, match, kRegisters)) {
      current->registers = std::stoi(match[1]);
      current = nullptr;
    }
  }
  for (const PtxasKernelUsage& k : kernels) {
    if (k.registers == 0) {
      throw std::runtime_error("ptxas report: no 'Used N registers' line for " + k.mangled_name);
    }
  }
  return kernels;
}

}  // namespace roofcast::kernels
