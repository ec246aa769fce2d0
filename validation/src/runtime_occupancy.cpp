#include "roofcast/validation/runtime_occupancy.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "roofcast/json_input.hpp"
#include "roofcast/occupancy.hpp"

namespace roofcast::validation {
namespace {

using nlohmann::json;

using json_input::ObjectReader;

/// carveout -1 is the default; an empty max_dynamic is raised to the opt-in maximum.
KernelLaunch launch_of(ObjectReader& kernel, int threads, int dynamic_bytes,
                       std::optional<int> max_dynamic, int carveout) {
  KernelLaunch launch;
  launch.threads_per_block = threads;
  launch.registers_per_thread = kernel.int32_in("registers_per_thread", 0, 1 << 12);
  launch.static_shared_memory_bytes = kernel.int32_in("static_shared_memory_bytes", 0, 1 << 24);
  launch.dynamic_shared_memory_bytes = dynamic_bytes;
  launch.max_dynamic_shared_memory_bytes = max_dynamic;
  if (carveout >= 0) launch.carveout_percent = carveout;
  return launch;
}

/// Column `column` of a queries row: an integer in minimum..maximum.
int row_integer(const json& row, std::size_t column, const std::string& where, int minimum,
                int maximum) {
  const json& value = row[column];
  const std::string at = where + "[" + std::to_string(column) + "]";
  if (!value.is_number_integer() || value.get<std::int64_t>() < minimum ||
      value.get<std::int64_t>() > maximum) {
    throw json_input::StrictJsonError(at, "an integer in " + std::to_string(minimum) + ".." +
                                              std::to_string(maximum) + ", got " +
                                              json_input::describe(value));
  }
  return value.get<int>();
}

void note(RuntimeOccupancyComparison& comparison, const std::string& text) {
  if (comparison.first_mismatches.size() < 20) comparison.first_mismatches.push_back(text);
}

void compare_property(RuntimeOccupancyComparison& comparison, ObjectReader& device,
                      const char* device_key, long long spec_value, const char* spec_field) {
  const json& value = device.raw(device_key);
  if (!value.is_number_integer() || value.get<long long>() != spec_value) {
    comparison.spec_disagreements.push_back(std::string(spec_field) + ": spec " +
                                            std::to_string(spec_value) + ", device " +
                                            json_input::describe(value));
  }
}

void compare_clock(RuntimeOccupancyComparison& comparison, ObjectReader& device,
                   const char* device_key, double spec_MHz, const char* spec_field) {
  const json& value = device.raw(device_key);
  if (!value.is_number() || std::fabs(value.get<double>() - spec_MHz) > 0.5) {
    comparison.spec_disagreements.push_back(std::string(spec_field) + ": spec " +
                                            std::to_string(spec_MHz) + " MHz, device " +
                                            json_input::describe(value));
  }
}

}  // namespace

namespace {

/// The comparison of one measurement; reads only the fields it compares (the document's other
/// blocks are the report's), each through the strict reader.
RuntimeOccupancyComparison compare_document(const json& measurement, const GpuSpec& spec) {
  const json_input::ReaderOptions options;
  ObjectReader root(measurement, "", options);
  root.integer_in("schema_version", kRuntimeOccupancySchemaVersion, kRuntimeOccupancySchemaVersion,
                  "schema_version " + std::to_string(kRuntimeOccupancySchemaVersion));
  RuntimeOccupancyComparison comparison;
  const json& kernel_list = root.non_empty_array("kernels");
  const int kernel_count = static_cast<int>(kernel_list.size());
  std::vector<ObjectReader> kernels;
  std::vector<std::string> names;
  for (int i = 0; i < kernel_count; ++i) {
    kernels.emplace_back(kernel_list[i], "kernels[" + std::to_string(i) + "]", options);
    names.push_back(kernels.back().string("name"));
  }
  ObjectReader queries = root.object("queries");
  const json& rows = queries.array("rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // Row: kernel, threads, dynamic bytes, max dynamic bytes, carveout, runtime blocks, error.
    const json& row = rows[i];
    const std::string at = "queries.rows[" + std::to_string(i) + "]";
    if (!row.is_array() || row.size() != 7) {
      throw json_input::StrictJsonError(at,
                                        "an array of 7 columns, got " + json_input::describe(row));
    }
    const int kernel = row_integer(row, 0, at, 0, kernel_count - 1);
    const KernelLaunch launch = launch_of(
        kernels[kernel], row_integer(row, 1, at, 1, 1 << 14), row_integer(row, 2, at, 0, 1 << 24),
        row_integer(row, 3, at, 0, 1 << 24), row_integer(row, 4, at, -1, 100));
    const int runtime_blocks = row_integer(row, 5, at, 0, 1 << 14);
    const int model_blocks = compute_occupancy_limits(spec.sm, launch).blocks_per_sm;
    ++comparison.queries;
    if (model_blocks != runtime_blocks) {
      ++comparison.query_mismatches;
      note(comparison, names[kernel] + " threads " + json_input::describe(row[1]) + " dynamic " +
                           json_input::describe(row[2]) + " max dynamic " +
                           json_input::describe(row[3]) + " carveout " +
                           json_input::describe(row[4]) + ": runtime " +
                           json_input::describe(row[5]) + " (" + json_input::describe(row[6]) +
                           "), model " + std::to_string(model_blocks));
    }
  }
  const json& runs = root.array("residency");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ObjectReader run(runs[i], "residency[" + std::to_string(i) + "]", options);
    const int kernel = run.int32_in("kernel", 0, kernel_count - 1);
    const int threads = run.int32_in("threads_per_block", 1, 1 << 14);
    const int dynamic = run.int32_in("dynamic_shared_memory_bytes", 0, 1 << 24);
    // The residency runs raise the kernel's dynamic limit to the opt-in maximum.
    const KernelLaunch launch = launch_of(kernels[kernel], threads, dynamic, std::nullopt, -1);
    const int model_blocks = compute_occupancy_limits(spec.sm, launch).blocks_per_sm;
    const int peak = run.int32_in("peak_blocks_on_any_sm", 0, 1 << 14);
    ++comparison.residency_runs;
    if (peak != model_blocks) {
      ++comparison.residency_mismatches;
      note(comparison, "residency " + names[kernel] + " threads " + std::to_string(threads) +
                           " dynamic " + std::to_string(dynamic) + ": hardware peak " +
                           std::to_string(peak) + ", model " + std::to_string(model_blocks));
    }
  }

  ObjectReader device = root.object("device_properties");
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

}  // namespace

RuntimeOccupancyComparison compare_runtime_occupancy(const json& measurement, const GpuSpec& spec) {
  try {
    return compare_document(measurement, spec);
  } catch (const json_input::StrictJsonError& error) {
    throw std::runtime_error("runtime-occupancy measurement: " + std::string(error.what()));
  }
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
