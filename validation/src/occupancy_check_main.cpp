// roofcast-occupancy-check: asks the CUDA runtime for the occupancy of probe kernels over a
// grid of launch settings, launches them to count resident blocks per SM, compares both with
// the model, and writes the measurement as JSON with its context.
//   roofcast-occupancy-check --out FILE [--git-revision REV] [--check]
// Exit codes: 0 ok, 1 mismatch (with --check) or failure, 2 usage, 77 no GPU (skipped).

#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "occupancy_probe_runner.hpp"
#include "roofcast/validation/run_context.hpp"
#include "roofcast/validation/runtime_occupancy.hpp"

namespace {

using nlohmann::json;
using namespace roofcast::validation;

constexpr int kExitSkipped = 77;

json to_json(const ProbeResults& results, const roofcast::GpuSpec& spec,
             const std::string& git_revision) {
  const DeviceFacts& d = results.device;
  json out;
  out["schema_version"] = kRuntimeOccupancySchemaVersion;
  out["kind"] = "runtime_occupancy";
  out["context"] = {
      {"tool", "roofcast-occupancy-check"},
      {"date_utc", utc_now()},
      {"git_revision", git_revision},
      {"gpu", d.name},
      {"spec_id", spec.id},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"sm_count", d.sm_count},
      {"sm_clock_max_MHz", d.sm_clock_max_MHz},
      {"memory_clock_MHz", d.memory_clock_MHz},
      {"cuda_driver_version", cuda_version_text(d.driver_version)},
      {"cuda_runtime_version", cuda_version_text(d.runtime_version)},
      {"host", host_name()}};
  out["device_properties"] = {
      {"name", d.name},
      {"sm_count", d.sm_count},
      {"max_threads_per_sm", d.max_threads_per_sm},
      {"max_threads_per_block", d.max_threads_per_block},
      {"max_blocks_per_sm", d.max_blocks_per_sm},
      {"registers_per_sm", d.registers_per_sm},
      {"registers_per_block", d.registers_per_block},
      {"warp_size", d.warp_size},
      {"shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes},
      {"shared_memory_per_block_bytes", d.shared_memory_per_block_bytes},
      {"shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin_bytes},
      {"reserved_shared_memory_per_block_bytes", d.reserved_shared_memory_per_block_bytes},
      {"l2_bytes", d.l2_bytes},
      {"dram_bytes", d.dram_bytes},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"sm_clock_max_MHz", d.sm_clock_max_MHz},
      {"memory_clock_MHz", d.memory_clock_MHz}};
  json kernels = json::array();
  for (const ProbeKernelFacts& k : results.kernels) {
    kernels.push_back(
        {{"name", k.name},
         {"live_values", k.live_values},
         {"registers_per_thread", k.registers_per_thread},
         {"static_shared_memory_bytes", k.static_shared_memory_bytes},
         {"local_memory_bytes", k.local_memory_bytes},
         {"default_max_dynamic_shared_memory_bytes", k.default_max_dynamic_shared_memory_bytes}});
  }
  out["kernels"] = kernels;
  json rows = json::array();
  for (const RuntimeQuery& q : results.queries) {
    rows.push_back({q.kernel, q.threads_per_block, q.dynamic_shared_memory_bytes,
                    q.max_dynamic_shared_memory_bytes, q.carveout_percent, q.runtime_blocks_per_sm,
                    q.runtime_error});
  }
  out["queries"] = {
      {"about",
       "cudaOccupancyMaxActiveBlocksPerMultiprocessor per kernel and launch; carveout -1 is the "
       "default; runtime_error is the CUDA error name when the call failed (blocks then 0)"},
      {"columns",
       {"kernel", "threads_per_block", "dynamic_shared_memory_bytes",
        "max_dynamic_shared_memory_bytes", "carveout_percent", "runtime_blocks_per_sm",
        "runtime_error"}},
      {"rows", rows}};
  json residency = json::array();
  for (const ResidencyRun& r : results.residency) {
    residency.push_back({{"kernel", r.kernel},
                         {"threads_per_block", r.threads_per_block},
                         {"dynamic_shared_memory_bytes", r.dynamic_shared_memory_bytes},
                         {"runtime_blocks_per_sm", r.runtime_blocks_per_sm},
                         {"grid_blocks", r.grid_blocks},
                         {"peak_blocks_on_any_sm", r.peak_blocks_on_any_sm},
                         {"peak_blocks_on_least_busy_sm", r.peak_blocks_on_least_busy_sm}});
  }
  out["residency"] = residency;
  return out;
}

int usage(const std::string& message) {
  std::cerr << "roofcast-occupancy-check: error: " << message << "\n"
            << "usage: roofcast-occupancy-check --out FILE [--git-revision REV] [--check]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path;
  std::string git_revision = "unknown";
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check") {
      check = true;
    } else if ((arg == "--out" || arg == "--git-revision") && i + 1 < argc) {
      (arg == "--out" ? out_path : git_revision) = argv[++i];
    } else {
      return usage("unknown or incomplete argument '" + arg + "'");
    }
  }
  if (out_path.empty()) return usage("missing required flag --out");

  std::string why;
  if (!cuda_device_available(why)) {
    std::cout << "SKIPPED: no usable CUDA device (" << why << ")\n";
    return kExitSkipped;
  }
  try {
    std::cout << "roofcast-occupancy-check: querying the runtime and launching probes\n";
    const ProbeResults results =
        run_occupancy_probes([](const std::string& line) { std::cout << line << std::endl; });
    const DeviceFacts& d = results.device;
    const roofcast::GpuSpec& spec =
        match_spec(d.cc_major, d.cc_minor, d.sm_count, d.dram_bytes, d.name);
    const json measurement = to_json(results, spec, git_revision);
    std::ofstream(out_path) << measurement.dump(1) << "\n";
    std::cout << "wrote " << out_path << " (" << d.name << ", spec " << spec.id << ")\n";

    const RuntimeOccupancyComparison comparison = compare_runtime_occupancy(measurement, spec);
    std::cout << "runtime queries: " << comparison.queries << ", model mismatches "
              << comparison.query_mismatches << "\n"
              << "residency runs: " << comparison.residency_runs << ", hardware peak != model "
              << comparison.residency_mismatches << "\n";
    for (const std::string& line : comparison.first_mismatches) std::cout << "  " << line << "\n";
    for (const std::string& line : comparison.spec_disagreements) {
      std::cout << "  spec disagrees with the device: " << line << "\n";
    }
    const bool agree = comparison.query_mismatches == 0 && comparison.residency_mismatches == 0 &&
                       comparison.spec_disagreements.empty();
    return check && !agree ? 1 : 0;
  } catch (const std::exception& error) {
    std::cerr << "roofcast-occupancy-check: error: " << error.what() << "\n";
    return 1;
  }
}
