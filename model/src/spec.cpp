#include "roofcast/spec.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded_files.hpp"
#include "roofcast/json_input.hpp"

namespace roofcast {
namespace {

using json_input::describe;
using nlohmann::json;

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

using json_input::ObjectReader;

using spec_bounds::kMaxCycles;
using spec_bounds::kMaxGBps;
using spec_bounds::kMaxTflops;
using spec_bounds::kMinCycles;
using spec_bounds::kMinGBps;
using spec_bounds::kMinTflops;

SmLimits read_sm_limits(ObjectReader sm) {
  SmLimits limits;
  // Bounds: what hardware can mean, with room for GPUs to come (every GPU in data/gpus is far
  // inside them); they also keep every product the occupancy model forms below 2^31.
  limits.warp_size = sm.int32_in("warp_size", 1, 64);
  limits.max_threads_per_sm = sm.int32_in("max_threads_per_sm", 1, 1 << 14);
  limits.max_threads_per_block = sm.int32_in("max_threads_per_block", 1, 1 << 14);
  limits.max_blocks_per_sm = sm.int32_in("max_blocks_per_sm", 1, 1 << 10);
  limits.registers_per_sm = sm.int32_in("registers_per_sm", 1, 1 << 20);
  limits.max_registers_per_block = sm.int32_in("max_registers_per_block", 1, 1 << 20);
  limits.max_registers_per_thread = sm.int32_in("max_registers_per_thread", 1, 1 << 12);
  limits.register_allocation_unit = sm.int32_in("register_allocation_unit", 1, 1 << 16);
  limits.register_file_subpartitions = sm.int32_in("register_file_subpartitions", 1, 64);
  limits.warp_allocation_granularity = sm.int32_in("warp_allocation_granularity", 1, 64);
  limits.shared_memory_per_sm_bytes = sm.int32_in("shared_memory_per_sm_bytes", 1, 1 << 24);
  limits.shared_memory_carveouts_KiB =
      sm.integer_array("shared_memory_carveouts_KiB", 0, (1 << 24) / 1024);
  limits.shared_memory_per_block_default_bytes =
      sm.int32_in("shared_memory_per_block_default_bytes", 1, 1 << 24);
  limits.shared_memory_per_block_optin_bytes =
      sm.int32_in("shared_memory_per_block_optin_bytes", 1, 1 << 24);
  limits.reserved_shared_memory_per_block_bytes =
      sm.int32_in("reserved_shared_memory_per_block_bytes", 0, 1 << 20);
  limits.shared_memory_allocation_granularity_bytes =
      sm.int32_in("shared_memory_allocation_granularity_bytes", 1, 1 << 20);
  limits.shared_memory_banks = sm.int32_in("shared_memory_banks", 1, 64);
  limits.shared_memory_bank_width_bytes = sm.int32_in("shared_memory_bank_width_bytes", 1, 64);
  limits.fp32_lanes_per_sm = sm.int32_in("fp32_lanes_per_sm", 1, 1 << 12);
  sm.reject_unknown_keys();

  // Cross-field rules: each error names the field that breaks it.
  const std::vector<int>& carveouts = limits.shared_memory_carveouts_KiB;
  for (std::size_t i = 1; i < carveouts.size(); ++i) {
    if (carveouts[i] <= carveouts[i - 1]) {
      sm.fail("sm.shared_memory_carveouts_KiB", "strictly ascending carveouts, but " +
                                                    std::to_string(carveouts[i]) + " follows " +
                                                    std::to_string(carveouts[i - 1]));
    }
  }
  const int capacity_KiB = limits.shared_memory_per_sm_bytes / 1024;
  if (limits.shared_memory_per_sm_bytes % 1024 != 0) {
    sm.fail("sm.shared_memory_per_sm_bytes",
            "a whole number of KiB, got " + std::to_string(limits.shared_memory_per_sm_bytes));
  }
  if (carveouts.back() > capacity_KiB) {
    sm.fail("sm.shared_memory_carveouts_KiB",
            "carveouts within the SM's shared memory (" + std::to_string(capacity_KiB) +
                " KiB), but the largest is " + std::to_string(carveouts.back()) + " KiB");
  }
  if (carveouts.back() != capacity_KiB) {
    sm.fail("sm.shared_memory_carveouts_KiB",
            "the largest carveout to equal shared_memory_per_sm_bytes (" +
                std::to_string(capacity_KiB) + " KiB), got " + std::to_string(carveouts.back()) +
                " KiB");
  }
  if (limits.max_threads_per_sm % limits.warp_size != 0) {
    sm.fail("sm.max_threads_per_sm", "a multiple of warp_size (" +
                                         std::to_string(limits.warp_size) + "), got " +
                                         std::to_string(limits.max_threads_per_sm));
  }
  // field <= bound, both named in the error.
  auto require_at_most = [&sm](const char* field, int value, const char* bound_name, int bound) {
    if (value > bound) {
      sm.fail(std::string("sm.") + field, std::string("at most ") + bound_name + " (" +
                                              std::to_string(bound) + "), got " +
                                              std::to_string(value));
    }
  };
  require_at_most("max_threads_per_block", limits.max_threads_per_block, "max_threads_per_sm",
                  limits.max_threads_per_sm);
  if (limits.registers_per_sm % limits.register_file_subpartitions != 0) {
    sm.fail("sm.register_file_subpartitions",
            "a divisor of registers_per_sm (" + std::to_string(limits.registers_per_sm) +
                "), got " + std::to_string(limits.register_file_subpartitions));
  }
  require_at_most("max_registers_per_block", limits.max_registers_per_block, "registers_per_sm",
                  limits.registers_per_sm);
  require_at_most("shared_memory_per_block_optin_bytes", limits.shared_memory_per_block_optin_bytes,
                  "shared_memory_per_sm_bytes", limits.shared_memory_per_sm_bytes);
  require_at_most(
      "shared_memory_per_block_default_bytes", limits.shared_memory_per_block_default_bytes,
      "shared_memory_per_block_optin_bytes", limits.shared_memory_per_block_optin_bytes);
  return limits;
}

ChipFigures read_chip(ObjectReader chip) {
  ChipFigures figures;
  figures.sm_count = chip.int32_in("sm_count", 1, 1 << 12);
  figures.boost_clock_MHz = chip.number_in("boost_clock_MHz", 1, 1e5);
  figures.l2_bytes = chip.integer_in("l2_bytes", 1, std::int64_t{1} << 40);
  figures.dram_bytes = chip.integer_in("dram_bytes", 1, std::int64_t{1} << 50);
  figures.dram_bw_GBps = chip.number_in("dram_bw_GBps", 1e-3, 1e7);
  figures.memory_bus_width_bits = chip.int32_in("memory_bus_width_bits", 1, 1 << 20);
  figures.memory_clock_MHz = chip.number_in("memory_clock_MHz", 1, 1e6);
  chip.reject_unknown_keys();
  return figures;
}

PeakTflops read_peaks(ObjectReader peaks) {
  PeakTflops out;
  out.fp32 = peaks.number_in("fp32", kMinTflops, kMaxTflops);
  out.fp64 = peaks.number_in("fp64", kMinTflops, kMaxTflops);
  out.tf32_tensor_dense = peaks.number_in_or_null("tf32_tensor_dense", kMinTflops, kMaxTflops);
  out.fp16_tensor_dense = peaks.number_in_or_null("fp16_tensor_dense", kMinTflops, kMaxTflops);
  out.bf16_tensor_dense = peaks.number_in_or_null("bf16_tensor_dense", kMinTflops, kMaxTflops);
  out.fp8_tensor_dense = peaks.number_in_or_null("fp8_tensor_dense", kMinTflops, kMaxTflops);
  peaks.reject_unknown_keys();
  return out;
}

/// Calls read(entry) for each object of the non-empty array `key` of `parent`, each entry's
/// reader at "key[i]"; the table has one source, so the array's path is recorded once among the
/// sourced numbers and its entries' numbers are not.
template <class Read>
void for_each_table_entry(ObjectReader& parent, std::string_view key, Read read) {
  const json& table = parent.non_empty_array(key);
  json_input::ReaderOptions options = parent.options();
  if (options.number_paths != nullptr) options.number_paths->push_back(parent.where(key));
  options.number_paths = nullptr;
  for (std::size_t i = 0; i < table.size(); ++i) {
    ObjectReader entry(table[i], parent.where(key) + "[" + std::to_string(i) + "]", options);
    read(entry);
  }
}

/// microarchitecture.l2_read_share: [{"sms", "bytes_per_cycle_per_sm"}, ...], sms strictly
/// ascending within 1..sm_count; one source for the whole table.
std::vector<L2ShareRow> read_l2_read_share(ObjectReader& facts, int sm_count) {
  std::vector<L2ShareRow> out;
  if (!facts.has("l2_read_share")) return out;
  for_each_table_entry(facts, "l2_read_share", [&](ObjectReader& entry) {
    L2ShareRow row;
    row.sms = entry.int32_in("sms", out.empty() ? 1 : out.back().sms + 1, sm_count);
    row.bytes_per_cycle_per_sm =
        entry.number_in("bytes_per_cycle_per_sm", 0.01, 4096, "bytes per cycle");
    entry.reject_unknown_keys();
    out.push_back(row);
  });
  return out;
}

MicroarchitectureFacts read_microarchitecture(ObjectReader facts, int sm_count) {
  MicroarchitectureFacts out;
  out.ffma_latency_cycles = facts.optional_number_in("ffma_latency_cycles", kMinCycles, kMaxCycles);
  out.shared_memory_latency_cycles =
      facts.optional_number_in("shared_memory_latency_cycles", kMinCycles, kMaxCycles);
  out.l2_latency_cycles = facts.optional_number_in("l2_latency_cycles", kMinCycles, kMaxCycles);
  out.dram_latency_cycles = facts.optional_number_in("dram_latency_cycles", kMinCycles, kMaxCycles);
  out.l2_bw_GBps = facts.optional_number_in("l2_bw_GBps", kMinGBps, kMaxGBps);
  out.warp_own_stall_cycles = facts.optional_number_in("warp_own_stall_cycles", 0, 64);
  out.unaligned_copy_stall_cycles = facts.optional_number_in("unaligned_copy_stall_cycles", 0, 64);
  out.instruction_cache_bytes =
      facts.optional_number_in("instruction_cache_bytes", 1024, 16.0 * 1024 * 1024, "bytes");
  out.instruction_fetch_stall_cycles =
      facts.optional_number_in("instruction_fetch_stall_cycles", 0, 64);
  out.local_load_l1_miss_share = facts.optional_number_in("local_load_l1_miss_share", 0, 1);
  out.bulk_copy_stage_wait_cycles =
      facts.optional_number_in("bulk_copy_stage_wait_cycles", 0, kMaxCycles);
  out.fallback_stage_wait_cycles =
      facts.optional_number_in("fallback_stage_wait_cycles", 0, kMaxCycles);
  out.l2_read_share = read_l2_read_share(facts, sm_count);
  facts.reject_unknown_keys();
  return out;
}

/// measured.max_active_clusters: [{"cluster", "blocks_per_sm", "clusters"}, ...], one source for
/// the whole table. Each pair once; clusters at most SMs x blocks_per_sm / cluster.
std::vector<ClusterResidency> read_cluster_residency(ObjectReader& measured, int sm_count) {
  std::vector<ClusterResidency> out;
  if (!measured.has("max_active_clusters")) return out;
  for_each_table_entry(measured, "max_active_clusters", [&](ObjectReader& entry) {
    ClusterResidency r;
    r.cluster = entry.int32_in("cluster", 2, 16);
    r.blocks_per_sm = entry.int32_in("blocks_per_sm", 1, 64);
    r.clusters = entry.int32_in("clusters", 1, sm_count * r.blocks_per_sm / r.cluster);
    entry.reject_unknown_keys();
    for (const ClusterResidency& earlier : out) {
      if (earlier.cluster == r.cluster && earlier.blocks_per_sm == r.blocks_per_sm) {
        entry.fail(entry.where("blocks_per_sm"), "each (cluster, blocks_per_sm) once");
      }
    }
    out.push_back(r);
  });
  return out;
}

MeasuredCeilings read_measured(ObjectReader measured, int sm_count) {
  MeasuredCeilings out;
  out.measurement_run = measured.string("measurement_run");
  out.max_active_clusters = read_cluster_residency(measured, sm_count);
  out.ffma_TFLOPS = measured.optional_number_in("ffma_TFLOPS", kMinTflops, kMaxTflops);
  out.dram_bw_GBps = measured.optional_number_in("dram_bw_GBps", kMinGBps, kMaxGBps);
  out.l2_bw_GBps = measured.optional_number_in("l2_bw_GBps", kMinGBps, kMaxGBps);
  out.shared_memory_bw_GBps =
      measured.optional_number_in("shared_memory_bw_GBps", kMinGBps, kMaxGBps);
  out.dram_latency_cycles =
      measured.optional_number_in("dram_latency_cycles", kMinCycles, kMaxCycles);
  out.l2_latency_cycles = measured.optional_number_in("l2_latency_cycles", kMinCycles, kMaxCycles);
  out.shared_memory_latency_cycles =
      measured.optional_number_in("shared_memory_latency_cycles", kMinCycles, kMaxCycles);
  measured.reject_unknown_keys();
  return out;
}

}  // namespace

std::optional<std::string> gpu_id_problem(std::string_view id) {
  const auto quoted = [&id] { return json_input::quote_for_message(id); };
  if (id.empty() || id.size() > kMaxGpuIdLength) {
    return "an id of 1.." + std::to_string(kMaxGpuIdLength) + " characters, got " + quoted();
  }
  const auto is_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!is_alnum(id.front())) {
    return "an id that starts with a lower-case letter or digit, got " + quoted();
  }
  for (char c : id) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') {
      return "an id of lower-case letters, digits, '-', '_' and '.' (it names files and "
             "folders), got " +
             quoted();
    }
  }
  return std::nullopt;
}

SpecError::SpecError(std::string file, std::string field, std::string expectation)
    : std::runtime_error(file + ": field '" + field + "': expected " + expectation),
      file_(std::move(file)),
      field_(std::move(field)),
      expectation_(std::move(expectation)) {}

namespace {
GpuSpec read_spec(const json& document, const std::string& file);
}  // namespace

GpuSpec parse_spec(std::string_view json_text, std::string_view origin) {
  const std::string file(origin);
  json document;
  try {
    document = json_input::parse_strict(json_text);
  } catch (const json_input::StrictJsonError& strict) {
    throw SpecError(file, strict.field(), strict.expectation());
  }

  try {
    return read_spec(document, file);
  } catch (const json_input::StrictJsonError& error) {
    throw SpecError(file, error.field(), error.expectation());
  }
}

namespace {
GpuSpec read_spec(const json& document, const std::string& file) {
  std::vector<std::string> value_paths;  // every value field read, for the sources rule
  json_input::ReaderOptions options;
  options.unknown_field = "no such field in schema_version " + std::to_string(kSpecSchemaVersion) +
                          " (unknown field; check its spelling)";
  options.number_paths = &value_paths;
  ObjectReader root(document, "", options);

  // The version decides how the rest is read, so it is checked first.
  const json& version = root.raw("schema_version");
  if (!version.is_number_integer()) {
    root.fail("schema_version", "an integer, got " + describe(version));
  }
  if (version.get<std::int64_t>() != kSpecSchemaVersion) {
    root.fail("schema_version", "schema_version " + std::to_string(kSpecSchemaVersion) +
                                    " (the version this build reads), got " + describe(version));
  }

  GpuSpec spec;
  spec.origin = file;
  spec.id = root.string("id");
  if (const auto problem = gpu_id_problem(spec.id)) root.fail("id", *problem);
  spec.name = root.string("name");
  spec.architecture = root.string("architecture");
  {
    ObjectReader cc = root.object("compute_capability");
    spec.compute_capability.major = cc.int32_in("major", 1, 99);
    spec.compute_capability.minor = cc.int32_in("minor", 0, 9);
    cc.reject_unknown_keys();
    // The source is given for the pair, not each half.
    value_paths.resize(value_paths.size() - 2);
    value_paths.push_back("compute_capability");
  }
  spec.sm = read_sm_limits(root.object("sm"));
  spec.chip = read_chip(root.object("chip"));
  spec.peak_TFLOPS = read_peaks(root.object("peak_TFLOPS"));
  if (root.has("measured")) {
    spec.measured = read_measured(root.object("measured"), spec.chip.sm_count);
  }
  if (root.has("microarchitecture")) {
    spec.microarchitecture =
        read_microarchitecture(root.object("microarchitecture"), spec.chip.sm_count);
  }

  // Every value names its source; every source names a reference.
  ObjectReader references = root.object("references");
  std::map<std::string, std::string> citations;
  for (const auto& item : document.at("references").items()) {
    citations[item.key()] = references.string(item.key());
  }
  ObjectReader sources = root.object("sources");
  for (const auto& item : document.at("sources").items()) {
    const std::string reference = sources.string(item.key());
    if (std::find(value_paths.begin(), value_paths.end(), item.key()) == value_paths.end()) {
      root.fail(
          "sources." + item.key(),
          "a source only for a field that exists, but there is no field '" + item.key() + "'");
    }
    const auto citation = citations.find(reference);
    if (citation == citations.end()) {
      std::vector<std::string> known;
      for (const auto& [key, text] : citations) known.push_back(key);
      root.fail("sources." + item.key(),
                "a key of 'references' (" + join(known, ", ") + "), got \"" + reference + "\"");
    }
    spec.sources[item.key()] = citation->second;
  }
  for (const std::string& path : value_paths) {
    if (spec.sources.count(path) == 0) {
      root.fail("sources." + path, "a source for every value, but '" + path + "' has none");
    }
  }
  root.reject_unknown_keys();
  return spec;
}
}  // namespace

namespace {
const std::string& embedded_spec_id(const detail::EmbeddedFile& file);
}  // namespace

GpuSpec load_spec_file(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) {
    throw SpecError(path.string(), "<document>", "a readable file (it is a directory)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw SpecError(path.string(), "<document>", "a readable file (cannot open it)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  GpuSpec spec = parse_spec(text.str(), path.string());
  // An embedded id carries that GPU's calibration and measurements: a user's file may use it
  // only when it is that very file.
  for (std::size_t i = 0; i < detail::kEmbeddedSpecFileCount; ++i) {
    const detail::EmbeddedFile& file = detail::kEmbeddedSpecFiles[i];
    if (embedded_spec_id(file) != spec.id) continue;
    if (std::string_view(file.bytes, file.size) != text.str()) {
      throw SpecError(path.string(), "id",
                      "an id of its own: '" + spec.id +
                          "' is an embedded GPU whose committed calibration and measurements "
                          "would be applied to this file (it differs from data/gpus/" +
                          file.name + ")");
    }
  }
  return spec;
}

namespace {
const GpuSpec& embedded_file_spec(std::size_t index);

/// The id of an embedded spec file.
const std::string& embedded_spec_id(const detail::EmbeddedFile& file) {
  for (std::size_t i = 0; i < detail::kEmbeddedSpecFileCount; ++i) {
    if (&detail::kEmbeddedSpecFiles[i] == &file) return embedded_file_spec(i).id;
  }
  static const std::string none;
  return none;
}
}  // namespace

namespace {

/// One embedded file's spec, parsed on first use (thread-safe): a command that names one GPU
/// parses one file, not the database.
const GpuSpec& embedded_file_spec(std::size_t index) {
  struct Slot {
    std::once_flag once;
    std::optional<GpuSpec> spec;
  };
  static std::vector<Slot> slots(detail::kEmbeddedSpecFileCount);
  Slot& slot = slots[index];
  std::call_once(slot.once, [&slot, index] {
    const detail::EmbeddedFile& file = detail::kEmbeddedSpecFiles[index];
    slot.spec =
        parse_spec(std::string_view(file.bytes, file.size), std::string("embedded:") + file.name);
  });
  return *slot.spec;
}

}  // namespace

const std::vector<GpuSpec>& embedded_specs() {
  static const std::vector<GpuSpec> specs = [] {
    std::vector<GpuSpec> out;
    for (std::size_t i = 0; i < detail::kEmbeddedSpecFileCount; ++i) {
      out.push_back(embedded_file_spec(i));
    }
    std::sort(out.begin(), out.end(),
              [](const GpuSpec& a, const GpuSpec& b) { return a.id < b.id; });
    return out;
  }();
  return specs;
}

const GpuSpec& embedded_spec(std::string_view id) {
  // data/gpus/<id>.json (a test checks every file is named so): only that file is parsed.
  for (std::size_t i = 0; i < detail::kEmbeddedSpecFileCount; ++i) {
    if (std::string_view(detail::kEmbeddedSpecFiles[i].name) == std::string(id) + ".json") {
      const GpuSpec& spec = embedded_file_spec(i);
      if (spec.id == id) return spec;
    }
  }
  const std::vector<GpuSpec>& specs = embedded_specs();
  for (const GpuSpec& spec : specs) {
    if (spec.id == id) return spec;
  }
  std::vector<std::string> known;
  for (const GpuSpec& spec : specs) known.push_back(spec.id);
  const std::string shown = json_input::quote_for_message(id);  // "..." with escapes
  throw UnknownGpuError("unknown GPU '" + shown.substr(1, shown.size() - 2) + "'; known GPUs: " +
                        join(known, ", ") + " (or pass a spec file ending in .json)");
}

GpuSpec find_spec(std::string_view id_or_path) {
  const bool is_file = id_or_path.size() > 5 && id_or_path.substr(id_or_path.size() - 5) == ".json";
  if (is_file) return load_spec_file(std::filesystem::path(std::string(id_or_path)));
  return embedded_spec(id_or_path);
}

int measured_max_active_clusters(const GpuSpec& gpu, int cluster, int blocks_per_sm) {
  if (!gpu.measured) return 0;
  for (const ClusterResidency& r : gpu.measured->max_active_clusters) {
    if (r.cluster == cluster && r.blocks_per_sm == blocks_per_sm) return r.clusters;
  }
  return 0;
}

}  // namespace roofcast
