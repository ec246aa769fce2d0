#include "roofcast/validation/runtime_occupancy.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "roofcast/json_input.hpp"
#include "roofcast/occupancy.hpp"

namespace roofcast::validation {
namespace {

using nlohmann::json;

const json& field(const json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw std::runtime_error("runtime-occupancy measurement: missing field '" + where + "." + key +
                             "'");
  }
  return object.at(key);
}

int int_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_number_integer()) {
    throw std::runtime_error("runtime-occupancy measurement: field '" + where + "." + key +
                             "' must be an integer, got " + json_input::describe(value));
  }
  return value.get<int>();
}

/// carveout -1 is the default; an empty max_dynamic is raised to the opt-in maximum.
KernelLaunch launch_of(const json& kernel, int threads, int dynamic_bytes,
                       std::optional<int> max_dynamic, int carveout) {
  KernelLaunch launch;
  launch.threads_per_block = threads;
  launch.registers_per_thread = int_field(kernel, "registers_per_thread", "kernels[]");
  launch.static_shared_memory_bytes = int_field(kernel, "static_shared_memory_bytes", "kernels[]");
  launch.dynamic_shared_memory_bytes = dynamic_bytes;
  launch.max_dynamic_shared_memory_bytes = max_dynamic;
  if (carveout >= 0) launch.carveout_percent = carveout;
  return launch;
}

void note(RuntimeOccupancyComparison& comparison, const std::string& text) {
  if (comparison.first_mismatches.size() < 20) comparison.first_mismatches.push_back(text);
}

void compare_property(RuntimeOccupancyComparison& comparison, const json& device,
                      const char* device_key, long long spec_value, const char* spec_field) {
  const json& value = field(device, device_key, "device_properties");
  if (value.get<long long>() != spec_value) {
    comparison.spec_disagreements.push_back(std::string(spec_field) + ": spec " +
                                            std::to_string(spec_value) + ", device " +
                                            json_input::describe(value));
  }
}

void compare_clock(RuntimeOccupancyComparison& comparison, const json& device,
                   const char* device_key, double spec_MHz, const char* spec_field) {
  const json& value = field(device, device_key, "device_properties");
  if (!value.is_number() || std::fabs(value.get<double>() - spec_MHz) > 0.5) {
    comparison.spec_disagreements.push_back(std::string(spec_field) + ": spec " +
                                            std::to_string(spec_MHz) + " MHz, device " +
                                            json_input::describe(value));
  }
}

}  // namespace

RuntimeOccupancyComparison compare_runtime_occupancy(const json& measurement, const GpuSpec& spec) {
  if (int_field(measurement, "schema_version", "") != kRuntimeOccupancySchemaVersion) {
    throw std::runtime_error("runtime-occupancy measurement: schema_version " +
                             std::to_string(kRuntimeOccupancySchemaVersion) + " expected");
  }
  RuntimeOccupancyComparison comparison;
  const json& kernels = field(measurement, "kernels", "");
  const json& rows = field(field(measurement, "queries", ""), "rows", "queries");
  for (const json& row : rows) {
    // Row: kernel, threads, dynamic bytes, max dynamic bytes, carveout, runtime blocks, error.
    if (!row.is_array() || row.size() != 7) {
      throw std::runtime_error(
          "runtime-occupancy measurement: each queries.rows entry must have "
          "7 columns, got " +
          json_input::describe(row));
    }
    const json& kernel = kernels.at(row[0].get<std::size_t>());
    const KernelLaunch launch = launch_of(kernel, row[1].get<int>(), row[2].get<int>(),
                                          row[3].get<int>(), row[4].get<int>());
    const int runtime_blocks = row[5].get<int>();
    const int model_blocks = compute_occupancy_limits(spec.sm, launch).blocks_per_sm;
    ++comparison.queries;
    if (model_blocks != runtime_blocks) {
      ++comparison.query_mismatches;
      note(comparison,
           field(kernel, "name", "kernels[]").get<std::string>() + " threads " +
               json_input::describe(row[1]) + " dynamic " + json_input::describe(row[2]) +
               " max dynamic " + json_input::describe(row[3]) + " carveout " +
               json_input::describe(row[4]) + ": runtime " + json_input::describe(row[5]) + " (" +
               json_input::describe(row[6]) + "), model " + std::to_string(model_blocks));
    }
  }
  for (const json& run : field(measurement, "residency", "")) {
    const json& kernel = kernels.at(int_field(run, "kernel", "residency[]"));
    const int threads = int_field(run, "threads_per_block", "residency[]");
    const int dynamic = int_field(run, "dynamic_shared_memory_bytes", "residency[]");
    // The residency runs raise the kernel's dynamic limit to the opt-in maximum.
    const KernelLaunch launch = launch_of(kernel, threads, dynamic, std::nullopt, -1);
    const int model_blocks = compute_occupancy_limits(spec.sm, launch).blocks_per_sm;
    const int peak = int_field(run, "peak_blocks_on_any_sm", "residency[]");
    ++comparison.residency_runs;
    if (peak != model_blocks) {
      ++comparison.residency_mismatches;
      note(comparison, "residency " + field(kernel, "name", "kernels[]").get<std::string>() +
                           " threads " + std::to_string(threads) + " dynamic " +
                           std::to_string(dynamic) + ": hardware peak " + std::to_string(peak) +
                           ", model " + std::to_string(model_blocks));
    }
  }

  const json& device = field(measurement, "device_properties", "");
  compare_property(comparison, device, "sm_count", spec.chip.sm_count, "chip.sm_count");
  compare_property(comparison, device, "max_threads_per_sm", spec.sm.max_threads_per_sm,
                   "sm.max_threads_per_sm");
  compare_property(comparison, device, "max_threads_per_block", spec.sm.max_threads_per_block,
                   "sm.max_threads_per_block");
  compare_property(comparison, device, "max_blocks_per_sm", spec.sm.max_blocks_per_sm,
                   "sm.max_blocks_per_sm");
  compare_property(comparison, device, "registers_per_sm", spec.sm.registers_per_sm,
                   "sm.registers_per_sm");
  compare_property(comparison, device, "registers_per_block", spec.sm.max_registers_per_block,
                   "sm.max_registers_per_block");
  compare_property(comparison, device, "warp_size", spec.sm.warp_size, "sm.warp_size");
  compare_property(comparison, device, "shared_memory_per_sm_bytes",
                   spec.sm.shared_memory_per_sm_bytes, "sm.shared_memory_per_sm_bytes");
  compare_property(comparison, device, "shared_memory_per_block_bytes",
                   spec.sm.shared_memory_per_block_default_bytes,
                   "sm.shared_memory_per_block_default_bytes");
  compare_property(comparison, device, "shared_memory_per_block_optin_bytes",
                   spec.sm.shared_memory_per_block_optin_bytes,
                   "sm.shared_memory_per_block_optin_bytes");
  compare_property(comparison, device, "reserved_shared_memory_per_block_bytes",
                   spec.sm.reserved_shared_memory_per_block_bytes,
                   "sm.reserved_shared_memory_per_block_bytes");
  compare_property(comparison, device, "l2_bytes", spec.chip.l2_bytes, "chip.l2_bytes");
  compare_property(comparison, device, "memory_bus_width_bits", spec.chip.memory_bus_width_bits,
                   "chip.memory_bus_width_bits");
  compare_property(comparison, device, "dram_bytes", spec.chip.dram_bytes, "chip.dram_bytes");
  // Clocks are reported in kHz by the device; the spec keeps MHz.
  compare_clock(comparison, device, "sm_clock_max_MHz", spec.chip.boost_clock_MHz,
                "chip.boost_clock_MHz");
  compare_clock(comparison, device, "memory_clock_MHz", spec.chip.memory_clock_MHz,
                "chip.memory_clock_MHz");
  return comparison;
}

const GpuSpec& match_spec(int cc_major, int cc_minor, int sm_count, long long dram_bytes,
                          const std::string& device_name) {
  const GpuSpec* best = nullptr;
  for (const GpuSpec& spec : embedded_specs()) {
    if (spec.compute_capability.major != cc_major || spec.compute_capability.minor != cc_minor ||
        spec.chip.sm_count != sm_count) {
      continue;
    }
    if (best == nullptr || std::llabs(spec.chip.dram_bytes - dram_bytes) <
                               std::llabs(best->chip.dram_bytes - dram_bytes)) {
      best = &spec;
    }
  }
  if (best == nullptr) {
    throw UnknownGpuError("no spec in the database matches '" + device_name + "' (cc " +
                          std::to_string(cc_major) + "." + std::to_string(cc_minor) + ", " +
                          std::to_string(sm_count) + " SMs); add data/gpus/<id>.json");
  }
  return *best;
}

}  // namespace roofcast::validation
