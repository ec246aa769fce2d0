// Reads ptxas's resource report (nvcc --resource-usage), captured at build time into
// <build>/kernels/ptxas-resource-usage.txt, and maps each ladder kernel back to its registry
// entry through the registry index that is every kernel's first template argument.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::kernels {

struct PtxasKernelUsage {
  std::string mangled_name;
  std::size_t registry_index = 0;
  int sm = 0;  // 90 for sm_90
  int registers = 0;
  int stack_frame_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
};

/// Parses the report text. Kernels whose name carries no registry index (not ladder kernels)
/// are skipped. Throws std::runtime_error naming the line when a ladder entry is malformed.
std::vector<PtxasKernelUsage> parse_ptxas_report(std::string_view text);

}  // namespace roofcast::kernels
