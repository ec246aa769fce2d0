#include "roofcast/validation/ladder_measurements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "roofcast/gemm_json.hpp"
#include "roofcast/json_input.hpp"

namespace roofcast::validation {
namespace {

using nlohmann::json;

// ---- writing ------------------------------------------------------------------------------

/// x rounded to `digits` significant digits, so the JSON shows 3.1416, not 3.14159265358979.
double significant(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x;
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return std::strtod(text, nullptr);
}

/// A number for JSON: NaN and infinity have no JSON spelling and become null.
json number(double x, int digits = 6) {
  if (!std::isfinite(x)) return nullptr;
  return significant(x, digits);
}

template <typename T>
void put(json& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

void put_number(json& object, const char* key, const std::optional<double>& value, int digits = 6) {
  if (value) object[key] = number(*value, digits);
}

std::string_view role_text(kernels::Role role) {
  switch (role) {
    case kernels::Role::kLadder:
      return "ladder";
    case kernels::Role::kSweep:
      return "sweep";
    case kernels::Role::kSample:
      return "sample";
  }
  return "sweep";
}

json context_json(const LadderContext& c) {
  json out = {{"tool", c.tool},
              {"mode", c.mode},
              {"command_line", c.command_line},
              {"gpu_name", c.gpu_name},
              {"spec_id", c.spec_id},
              {"compute_capability", c.compute_capability},
              {"sm_count", c.sm_count},
              {"sm_clock_max_MHz", number(c.sm_clock_max_MHz)},
              {"memory_clock_MHz", number(c.memory_clock_MHz)},
              {"l2_bytes", c.l2_bytes},
              {"dram_bytes", c.dram_bytes},
              {"driver_version", c.driver_version},
              {"cuda_runtime_version", c.cuda_runtime_version},
              {"cublas_version", c.cublas_version},
              {"git_revision", c.git_revision},
              {"date_utc", c.date_utc},
              {"host", c.host},
              {"clock_source", c.clock_source},
              {"seed", c.seed},
              {"repeats", c.repeats},
              {"warmups", c.warmups},
              {"rotation_min_bytes", c.rotation_min_bytes}};
  put(out, "ncu_version", c.ncu_version);
  put(out, "ncu_status", c.ncu_status);
  return out;
}

json measured_json(const MeasuredCeilings& m) {
  json out = {{"measurement_run", m.measurement_run}};
  put_number(out, "ffma_TFLOPS", m.ffma_TFLOPS, 5);
  put_number(out, "dram_bw_GBps", m.dram_bw_GBps, 5);
  put_number(out, "l2_bw_GBps", m.l2_bw_GBps, 5);
  put_number(out, "shared_memory_bw_GBps", m.shared_memory_bw_GBps, 5);
  put_number(out, "dram_latency_cycles", m.dram_latency_cycles, 5);
  put_number(out, "l2_latency_cycles", m.l2_latency_cycles, 5);
  put_number(out, "shared_memory_latency_cycles", m.shared_memory_latency_cycles, 5);
  return out;
}

json kernel_json(const MeasuredKernel& k) {
  json out = {{"id", k.id}};
  if (k.role != kernels::Role::kSample) out["registry_index"] = k.registry_index;
  out.update(json{{"rung", k.config.rung},
                  {"role", std::string(role_text(k.role))},
                  {"config", gemm::config_json(k.config)},
                  {"threads_per_block", k.threads_per_block},
                  {"registers_per_thread", k.registers_per_thread},
                  {"static_shared_bytes", k.static_shared_bytes},
                  {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                  {"max_dynamic_shared_bytes", k.max_dynamic_shared_bytes},
                  {"local_bytes", k.local_bytes},
                  {"binary_version", k.binary_version},
                  {"runtime_blocks_per_sm", k.runtime_blocks_per_sm}});
  put(out, "preferred_carveout_percent", k.preferred_carveout_percent);
  put(out, "runtime_max_active_clusters", k.runtime_max_active_clusters);
  return out;
}

json ncu_json(const NcuMetrics& n) {
  json out = json::object();
  put_number(out, "l2_hit_rate_pct", n.l2_hit_rate_pct);
  put_number(out, "dram_bytes_read", n.dram_bytes_read, 10);
  put_number(out, "dram_bytes_write", n.dram_bytes_write, 10);
  put_number(out, "l2_sectors_read", n.l2_sectors_read, 10);
  put_number(out, "achieved_occupancy_pct", n.achieved_occupancy_pct);
  put_number(out, "duration_ns", n.duration_ns, 8);
  for (const NcuCount& count : ncu_counts()) put_number(out, count.key, n.*count.field, 12);
  if (!n.stalls.empty()) {
    json stalls = json::object();
    for (const auto& [reason, value] : n.stalls) stalls[reason] = number(value);
    out["stalls"] = stalls;
  }
  out["kernels"] = n.kernels;
  put(out, "error", n.error);
  return out;
}

json case_json(const MeasuredCase& c) {
  json out = {{"kernel", c.kernel},
              {"set", std::string(to_string(c.set))},
              {"m", c.problem.m},
              {"n", c.problem.n},
              {"k", c.problem.k},
              {"raster", c.raster ? json(gemm::to_string(*c.raster)) : json(nullptr)},
              {"outcome", std::string(to_string(c.outcome))}};
  put(out, "detail", c.detail);
  put_number(out, "relative_error", c.relative_error, 4);
  put_number(out, "error_bound", c.error_bound, 4);
  if (c.time_ms) {
    out["time_ms"] = {{"median", number(c.time_ms->median)},
                      {"min", number(c.time_ms->min)},
                      {"max", number(c.time_ms->max)}};
    out["repeats"] = c.repeats;
    out["input_sets"] = c.input_sets;
  }
  put_number(out, "tflops", c.tflops, 5);
  put(out, "grid_blocks", c.grid_blocks);
  put_number(out, "waves", c.waves, 5);
  put_number(out, "sm_clock_MHz_before", c.sm_clock_MHz_before);
  put_number(out, "sm_clock_MHz_after", c.sm_clock_MHz_after);
  if (c.ncu) out["ncu"] = ncu_json(*c.ncu);
  return out;
}

std::string array_lines(const std::vector<json>& rows) {
  if (rows.empty()) return "[]";
  std::string text = "[\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    text += "  " + rows[i].dump() + (i + 1 < rows.size() ? ",\n" : "\n");
  }
  return text + " ]";
}

// ---- reading ------------------------------------------------------------------------------

using Reader = json_input::ObjectReader;

/// A measurement's reader rules: null is an absent optional field; an unknown key points to the
/// schema.
const json_input::ReaderOptions& measurement_reader_options() {
  static const json_input::ReaderOptions options = [] {
    json_input::ReaderOptions o;
    o.null_is_absent = true;
    o.unknown_field = "no such field in schema_version " +
                      std::to_string(kLadderMeasurementSchemaVersion) +
                      " (unknown field; see data/measurements/SCHEMA.md)";
    return o;
  }();
  return options;
}

// ---- what a measurement can mean ----------------------------------------------------------
// Bounds on what the loader accepts (data/measurements/SCHEMA.md, "Bounds"): a value outside
// cannot be meant by a GPU measurement, and a consumer computing with it overflows or divides by
// zero. Every error states the bound.

// One launch's time: 1 ns (far below a CUDA event's ~0.5 us resolution) to 1e7 ms (2.8 hours).
constexpr double kMinTimeMs = 1e-6;
constexpr double kMaxTimeMs = 1e7;
// The ceilings of `measured`: the spec loader's bounds, so that the block copies into
// data/gpus/<id>.json and loads there.
using spec_bounds::kMaxCycles;
using spec_bounds::kMaxGBps;
using spec_bounds::kMaxTflops;
using spec_bounds::kMinCycles;
using spec_bounds::kMinGBps;
using spec_bounds::kMinTflops;
// The device, as the spec loader bounds a chip (read_chip): SMs, clocks, memory sizes.
constexpr int kMaxSmCount = 1 << 12;
constexpr double kMinClockMHz = 1;
constexpr double kMaxSmClockMHz = 1e5;
constexpr double kMaxMemoryClockMHz = 1e6;
constexpr std::int64_t kMaxL2Bytes = std::int64_t{1} << 40;
constexpr std::int64_t kMaxDramBytes = std::int64_t{1} << 50;
// A kernel: CUDA's limits on every GPU so far, with room (255 registers per thread and 1024
// threads per block since compute capability 2.0/3.5, 512 KiB of local memory per thread).
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxRegistersPerThread = 255;
constexpr int kMaxSharedBytes = 1 << 24;  // the spec loader's bound on an SM's shared memory
constexpr int kMaxLocalBytes = 512 * 1024;
constexpr int kMinBinaryVersion = 10;  // ComputeCapability::number(): sm_10
constexpr int kMaxBinaryVersion = 999;
constexpr int kMaxBlocksPerSm = 1 << 10;  // the spec loader's max_blocks_per_sm bound
constexpr int kMaxActiveClusters = kMaxSmCount * kMaxBlocksPerSm;  // one block each, at most
// A case's tflops is 2 M N K over its median time; the file rounds both (6 and 5 digits).
constexpr double kRateTolerance = 1e-3;

/// Whether `text` is a compute capability "MAJOR.MINOR": major 1..99, minor 0..9 (the spec
/// loader's bounds), no leading zero.
bool is_compute_capability(std::string_view text) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 2 || text.size() != dot + 2) return false;
  if (text[0] == '0' || !digit(text[0]) || (dot == 2 && !digit(text[1]))) return false;
  return digit(text[dot + 1]);
}

LadderContext read_context(Reader r) {
  LadderContext c;
  c.tool = r.string("tool");
  c.mode = r.string("mode");
  c.command_line = r.any_string("command_line");
  c.gpu_name = r.string("gpu_name");
  c.spec_id = r.string("spec_id");
  if (const auto problem = gpu_id_problem(c.spec_id)) r.fail(r.where("spec_id"), *problem);
  c.compute_capability = r.string("compute_capability");
  if (!is_compute_capability(c.compute_capability)) {
    r.fail(r.where("compute_capability"),
           "a compute capability MAJOR.MINOR (major 1..99, minor 0..9, as in the spec files)",
           r.raw("compute_capability"));
  }
  c.sm_count = r.int32_in("sm_count", 1, kMaxSmCount);
  c.sm_clock_max_MHz = r.number_in("sm_clock_max_MHz", kMinClockMHz, kMaxSmClockMHz, "MHz");
  c.memory_clock_MHz = r.number_in("memory_clock_MHz", kMinClockMHz, kMaxMemoryClockMHz, "MHz");
  c.l2_bytes = r.integer_in("l2_bytes", 1, kMaxL2Bytes);
  c.dram_bytes = r.integer_in("dram_bytes", 1, kMaxDramBytes);
  c.driver_version = r.string("driver_version");
  c.cuda_runtime_version = r.string("cuda_runtime_version");
  c.cublas_version = r.string("cublas_version");
  c.git_revision = r.string("git_revision");
  c.date_utc = r.string("date_utc");
  c.host = r.any_string("host");
  c.clock_source = r.string("clock_source");
  c.seed = r.unsigned64("seed");
  // 0 in check-only runs; read_document requires >= 1 when a case is timed.
  c.repeats = r.int32_in("repeats", 0, std::numeric_limits<int>::max());
  c.warmups = r.int32_in("warmups", 0, std::numeric_limits<int>::max());
  c.rotation_min_bytes = r.integer_in("rotation_min_bytes", 0, kMaxDramBytes);
  c.ncu_version = r.optional_string("ncu_version");
  c.ncu_status = r.optional_string("ncu_status");
  r.reject_unknown_keys();
  return c;
}

Microbenchmarks read_microbenchmarks(Reader r) {
  Microbenchmarks out;
  Reader m = r.object("measured");
  const auto tflops = [&m](const char* key) {
    return m.optional_number_in(key, kMinTflops, kMaxTflops, "TFLOPS (the spec loader's bounds)");
  };
  const auto bandwidth = [&m](const char* key) {
    return m.optional_number_in(key, kMinGBps, kMaxGBps, "GB/s (the spec loader's bounds)");
  };
  const auto latency = [&m](const char* key) {
    return m.optional_number_in(key, kMinCycles, kMaxCycles, "cycles (the spec loader's bounds)");
  };
  out.measured.measurement_run = m.string("measurement_run");
  out.measured.ffma_TFLOPS = tflops("ffma_TFLOPS");
  out.measured.dram_bw_GBps = bandwidth("dram_bw_GBps");
  out.measured.l2_bw_GBps = bandwidth("l2_bw_GBps");
  out.measured.shared_memory_bw_GBps = bandwidth("shared_memory_bw_GBps");
  out.measured.dram_latency_cycles = latency("dram_latency_cycles");
  out.measured.l2_latency_cycles = latency("l2_latency_cycles");
  out.measured.shared_memory_latency_cycles = latency("shared_memory_latency_cycles");
  m.reject_unknown_keys();
  Reader raw = r.object("raw");
  for (const auto& item : raw.value().items()) {
    Reader bench = raw.object(raw.name(item.key()));
    RawMicrobenchmark entry;
    entry.method = bench.string("method");
    for (const auto& value : bench.value().items()) {
      if (value.key() == "method") continue;
      entry.values[bench.name(value.key())] =
          bench.number(value.key(), -std::numeric_limits<double>::max());
    }
    out.raw[item.key()] = entry;
  }
  r.reject_unknown_keys();
  return out;
}

gemm::TileConfig read_config(Reader r) {
  gemm::TileConfig c;
  c.rung = r.int32("rung", 1);
  const std::string layout = r.string("layout");
  const auto parsed = gemm::parse_smem_layout(layout);
  if (!parsed) r.fail(r.where("layout"), "one of plain, padded, swizzled", layout);
  c.layout = *parsed;
  c.bm = r.int32("bm", 0);
  c.bn = r.int32("bn", 0);
  c.bk = r.int32("bk", 0);
  c.tm = r.int32("tm", 0);
  c.tn = r.int32("tn", 0);
  c.wm = r.int32("wm", 0);
  c.wn = r.int32("wn", 0);
  c.threads = r.int32("threads", 1);
  c.stages = r.int32("stages", 1);
  c.vector_width = r.int32("vector_width", 1);
  c.cluster = r.int32("cluster", 1);
  r.reject_unknown_keys();
  return c;
}

/// A registry kernel (role ladder or sweep): the file's kernel is this build's registry entry,
/// same index, config and role.
void check_registry_kernel(Reader& r, MeasuredKernel& k, const std::string& role) {
  constexpr int kLastIndex = static_cast<int>(kernels::kRegistrySize) - 1;
  k.registry_index = static_cast<int>(r.integer_in(
      "registry_index", 0, kLastIndex,
      "an index into this build's kernel registry, 0.." + std::to_string(kLastIndex) +
          " (kernels::kRegistrySize is " + std::to_string(kernels::kRegistrySize) + ")"));
  const std::size_t listed = kernels::find_kernel(k.id);
  if (listed != static_cast<std::size_t>(k.registry_index)) {
    r.fail(r.where("registry_index"),
           listed == kernels::kRegistrySize
               ? "a registry entry's index, but its config is not in this build's kernel "
                 "registry (a kernel the registry no longer has)"
               : "the index of its config in this build's kernel registry (" +
                     std::to_string(listed) + ")",
           k.registry_index);
  }
  const kernels::RegistryEntry& entry = kernels::kRegistry[listed];
  if (!(entry.config == k.config)) {
    r.fail(r.where("config"), "the config of registry entry " + std::to_string(listed) + " ('" +
                                  kernels::kernel_id(entry.config) + "')");
  }
  if (entry.role != k.role) {
    r.fail(r.where("role"),
           "the role of registry entry " + std::to_string(listed) + ", \"" +
               std::string(role_text(entry.role)) + "\"",
           role);
  }
}

/// A sample kernel (role sample): named by its id alone, so a committed run stays readable when
/// the sample is drawn anew; its config obeys the tile rules and is not a registry config.
void check_sample_kernel(Reader& r, MeasuredKernel& k) {
  if (r.has("registry_index")) {
    r.fail(r.where("registry_index"), "absent for a sample kernel (its id names it)");
  }
  k.registry_index = -1;
  if (const char* rule = kernels::violated_rule(k.config)) {
    r.fail(r.where("config"), std::string("a config that obeys the tile rules (") + rule + ")");
  }
  if (kernels::find_kernel(k.id) != kernels::kRegistrySize) {
    r.fail(r.where("role"), "ladder or sweep: the registry has this config", "sample");
  }
}

MeasuredKernel read_kernel(Reader r) {
  MeasuredKernel k;
  k.id = r.string("id");
  const int rung = r.int32("rung", 1);
  const std::string role = r.string("role");
  if (role != "ladder" && role != "sweep" && role != "sample") {
    r.fail(r.where("role"), "ladder, sweep or sample", role);
  }
  k.role = role == "ladder"  ? kernels::Role::kLadder
           : role == "sweep" ? kernels::Role::kSweep
                             : kernels::Role::kSample;
  k.config = read_config(r.object("config"));
  if (k.config.rung != rung) {
    r.fail(r.where("rung"), "the rung of config (" + std::to_string(k.config.rung) + ")", rung);
  }
  if (kernels::kernel_id(k.config) != k.id) {
    r.fail(r.where("id"), "the id of its config, '" + kernels::kernel_id(k.config) + "'", k.id);
  }
  if (k.role == kernels::Role::kSample) {
    check_sample_kernel(r, k);
  } else {
    check_registry_kernel(r, k, role);
  }
  k.threads_per_block = r.int32_in("threads_per_block", 1, kMaxThreadsPerBlock);
  k.registers_per_thread = r.int32_in("registers_per_thread", 0, kMaxRegistersPerThread);
  k.static_shared_bytes = r.int32_in("static_shared_bytes", 0, kMaxSharedBytes);
  k.dynamic_shared_bytes = r.int32_in("dynamic_shared_bytes", 0, kMaxSharedBytes);
  k.max_dynamic_shared_bytes = r.int32_in("max_dynamic_shared_bytes", 0, kMaxSharedBytes);
  k.preferred_carveout_percent = r.optional_int32_in("preferred_carveout_percent", 0, 100);
  k.local_bytes = r.int32_in("local_bytes", 0, kMaxLocalBytes);
  k.binary_version = r.int32_in("binary_version", kMinBinaryVersion, kMaxBinaryVersion);
  k.runtime_blocks_per_sm = r.int32_in("runtime_blocks_per_sm", 0, kMaxBlocksPerSm);
  k.runtime_max_active_clusters =
      r.optional_int32_in("runtime_max_active_clusters", 0, kMaxActiveClusters);
  r.reject_unknown_keys();
  return k;
}

NcuMetrics read_ncu(Reader r) {
  NcuMetrics n;
  n.l2_hit_rate_pct = r.optional_number("l2_hit_rate_pct", 0);
  n.dram_bytes_read = r.optional_number("dram_bytes_read", 0);
  n.dram_bytes_write = r.optional_number("dram_bytes_write", 0);
  n.l2_sectors_read = r.optional_number("l2_sectors_read", 0);
  n.achieved_occupancy_pct = r.optional_number("achieved_occupancy_pct", 0);
  n.duration_ns = r.optional_number("duration_ns", 0);
  for (const NcuCount& count : ncu_counts()) n.*count.field = r.optional_number(count.key, 0);
  if (auto stalls = r.optional_object("stalls")) {
    for (const auto& item : stalls->value().items()) {
      n.stalls[stalls->name(item.key())] = stalls->number(item.key(), 0);
    }
  }
  n.kernels = r.int32("kernels", 0);
  n.error = r.optional_string("error");
  r.reject_unknown_keys();
  return n;
}

MeasuredCase read_case(Reader r) {
  MeasuredCase c;
  c.kernel = r.string("kernel");
  const std::string set = r.string("set");
  const auto parsed_set = parse_case_set(set);
  if (!parsed_set) r.fail(r.where("set"), "one of ladder, sweep, check", set);
  c.set = *parsed_set;
  const std::string extent = "an integer in 1.." + std::to_string(gemm::kMaxExtent) +
                             " (gemm::kMaxExtent: the kernels index with 32-bit ints)";
  c.problem.m = r.integer_in("m", 1, gemm::kMaxExtent, extent);
  c.problem.n = r.integer_in("n", 1, gemm::kMaxExtent, extent);
  c.problem.k = r.integer_in("k", 1, gemm::kMaxExtent, extent);
  if (const auto raster = r.optional_string("raster")) {
    const auto parsed = gemm::parse_raster_order(*raster);
    if (!parsed) {
      r.fail(r.where("raster"), "row_major, column_major, grouped:G or z_order", *raster);
    }
    c.raster = *parsed;
  }
  const bool is_cublas = c.kernel == kCublasKernel;
  if (is_cublas == c.raster.has_value()) {
    r.fail(r.where("raster"), is_cublas ? "null or absent for cuBLAS"
                                        : "a raster order (only cuBLAS cases have none)");
  }
  const std::string outcome = r.string("outcome");
  const auto parsed_outcome = parse_outcome(outcome);
  if (!parsed_outcome) {
    r.fail(r.where("outcome"), "one of passed, incorrect, not_supported, failed", outcome);
  }
  c.outcome = *parsed_outcome;
  c.detail = r.optional_string("detail");
  c.relative_error = r.optional_number("relative_error", 0);
  c.error_bound = r.optional_number("error_bound", 0);
  if (auto time = r.optional_object("time_ms")) {
    if (c.outcome != Outcome::kPassed) {
      r.fail(r.where("time_ms"), "absent: only passed cases are timed");
    }
    const auto time_of = [&time](const char* key) {
      return time->number_in(key, kMinTimeMs, kMaxTimeMs,
                             "ms (one GPU kernel launch: 1 ns to 2.8 hours)", "a time");
    };
    TimeSummaryMs t;
    t.median = time_of("median");
    t.min = time_of("min");
    t.max = time_of("max");
    if (!(t.min <= t.median && t.median <= t.max)) {
      time->fail(time->path(), "min <= median <= max", time->value());
    }
    time->reject_unknown_keys();
    c.time_ms = t;
    c.repeats = r.int32_in("repeats", 1, std::numeric_limits<int>::max());
    c.input_sets = r.int32_in("input_sets", 1, std::numeric_limits<int>::max());
  }
  if (const auto rate = r.optional_number("tflops", 0)) {
    const json& value = r.raw("tflops");
    const double tflops = *rate;
    if (!(tflops > 0 && tflops <= kMaxTflops)) {
      r.fail(r.where("tflops"),
             "a rate above 0 and at most " + Reader::format(kMaxTflops) + " TFLOPS", value);
    }
    if (!c.time_ms) r.fail(r.where("tflops"), "absent: only timed cases have a rate", value);
    const double expected = tflops_of(c.problem, c.time_ms->median);
    if (!(std::abs(tflops - expected) <= kRateTolerance * expected)) {
      char text[128];
      std::snprintf(text, sizeof text, "2 M N K / median time (%.5g TFLOPS) within %g%%", expected,
                    100 * kRateTolerance);
      r.fail(r.where("tflops"), text, value);
    }
    c.tflops = tflops;
  }
  c.grid_blocks = r.optional_integer("grid_blocks", 1);
  c.waves = r.optional_number("waves", 0);
  c.sm_clock_MHz_before =
      r.optional_number_in("sm_clock_MHz_before", kMinClockMHz, kMaxSmClockMHz, "MHz");
  c.sm_clock_MHz_after =
      r.optional_number_in("sm_clock_MHz_after", kMinClockMHz, kMaxSmClockMHz, "MHz");
  if (auto ncu = r.optional_object("ncu")) c.ncu = read_ncu(*ncu);
  r.reject_unknown_keys();
  return c;
}

/// Why a registry kernel cannot have been launched in `raster`, or empty: rungs 1-6 walk
/// row-major, rungs 7-10 take row-major, column-major and grouped orders, and Z-order is the
/// model's only (gemm::RasterKind::kZOrder).
std::optional<std::string> raster_problem(const gemm::TileConfig& config,
                                          const gemm::RasterOrder& raster) {
  if (!kernels::takes_raster_order(config)) {
    if (raster.kind == gemm::RasterKind::kRowMajor) return std::nullopt;
    return "row_major: rung " + std::to_string(config.rung) + " launches row-major only";
  }
  if (raster.kind == gemm::RasterKind::kZOrder) {
    return std::string("row_major, column_major or grouped:G: z_order is never launched");
  }
  return std::nullopt;
}

LadderMeasurement read_document(const json& document) {
  Reader root(document, "", measurement_reader_options());
  LadderMeasurement m;
  const int version = root.int32("schema_version", 0);
  if (version != kLadderMeasurementSchemaVersion) {
    root.fail("schema_version", std::to_string(kLadderMeasurementSchemaVersion), version);
  }
  m.schema_version = version;
  const std::string kind = root.string("kind");
  if (kind != kLadderMeasurementKind) root.fail("kind", "\"sgemm-ladder\"", kind);
  m.context = read_context(root.object("context"));
  if (auto micro = root.optional_object("microbenchmarks")) {
    m.microbenchmarks = read_microbenchmarks(*micro);
  }
  // Kernel id -> its index in m.kernels, built once: the duplicate check and every case's
  // lookup are one hash lookup each (a scan per kernel or per case is quadratic).
  std::unordered_map<std::string, std::size_t> kernel_index;
  const json& kernels = root.array("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string path = "kernels[" + std::to_string(i) + "]";
    MeasuredKernel kernel = read_kernel(Reader(kernels[i], path, measurement_reader_options()));
    const auto [listed, inserted] = kernel_index.emplace(kernel.id, i);
    if (!inserted) {
      root.fail(path + ".id",
                "an id listed once (kernels[" + std::to_string(listed->second) + "] has it)",
                kernel.id);
    }
    m.kernels.push_back(std::move(kernel));
  }
  const json& cases = root.array("cases");
  std::optional<std::size_t> first_timed;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = "cases[" + std::to_string(i) + "]";
    MeasuredCase c = read_case(Reader(cases[i], path, measurement_reader_options()));
    if (c.kernel != kCublasKernel) {
      const auto found = kernel_index.find(c.kernel);
      if (found == kernel_index.end()) {
        root.fail(path + ".kernel", "\"cublas\" or the id of a kernel in 'kernels'", c.kernel);
      }
      // A case the harness did not launch (not_supported) records the order it was asked for.
      const auto problem = raster_problem(m.kernels[found->second].config, *c.raster);
      if (problem && c.outcome != Outcome::kNotSupported) {
        root.fail(path + ".raster",
                  *problem + " (only a not_supported case may record another order)",
                  gemm::to_string(*c.raster));
      }
    }
    if (c.time_ms && !first_timed) first_timed = i;
    m.cases.push_back(std::move(c));
  }
  if (first_timed && m.context.repeats < 1) {
    root.fail("context.repeats",
              "at least 1 when a case is timed (cases[" + std::to_string(*first_timed) + "] is)",
              m.context.repeats);
  }
  root.reject_unknown_keys();
  return m;
}

}  // namespace

const std::vector<NcuCount>& ncu_counts() {
  static const std::vector<NcuCount> counts = {
      {"warp_instructions", "smsp__inst_executed.sum", &NcuMetrics::warp_instructions},
      {"shared_load_instructions", "smsp__inst_executed_op_shared_ld.sum",
       &NcuMetrics::shared_load_instructions},
      {"shared_store_instructions", "smsp__inst_executed_op_shared_st.sum",
       &NcuMetrics::shared_store_instructions},
      {"shared_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
       &NcuMetrics::shared_wavefronts},
      {"local_load_instructions", "smsp__inst_executed_op_local_ld.sum",
       &NcuMetrics::local_load_instructions},
      {"local_store_instructions", "smsp__inst_executed_op_local_st.sum",
       &NcuMetrics::local_store_instructions},
      {"local_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
       &NcuMetrics::local_load_sectors},
      {"local_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
       &NcuMetrics::local_store_sectors},
      {"local_load_hit_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
       &NcuMetrics::local_load_hit_sectors},
      {"global_load_instructions", "smsp__inst_executed_op_global_ld.sum",
       &NcuMetrics::global_load_instructions},
      {"global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
       &NcuMetrics::global_load_sectors},
      {"global_load_hit_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
       &NcuMetrics::global_load_hit_sectors},
  };
  return counts;
}

LadderMeasurementError::LadderMeasurementError(std::string file, std::string field,
                                               std::string expectation)
    : std::runtime_error(file + ": field '" + field + "': expected " + expectation),
      file_(std::move(file)),
      field_(std::move(field)) {}

KernelLaunch kernel_launch(const MeasuredKernel& kernel) {
  KernelLaunch launch;
  launch.threads_per_block = kernel.threads_per_block;
  launch.registers_per_thread = kernel.registers_per_thread;
  launch.static_shared_memory_bytes = kernel.static_shared_bytes;
  launch.dynamic_shared_memory_bytes = kernel.dynamic_shared_bytes;
  launch.max_dynamic_shared_memory_bytes = kernel.max_dynamic_shared_bytes;
  launch.carveout_percent = kernel.preferred_carveout_percent;
  return launch;
}

std::string_view to_string(CaseSet set) {
  switch (set) {
    case CaseSet::kLadder:
      return "ladder";
    case CaseSet::kSweep:
      return "sweep";
    case CaseSet::kTrainingSweep:
      return "sweep-train";
    case CaseSet::kCheck:
      return "check";
    case CaseSet::kSelection:
      return "selection";
    case CaseSet::kSample:
      return "sample";
  }
  return "ladder";
}

std::optional<CaseSet> parse_case_set(std::string_view text) {
  for (CaseSet set : {CaseSet::kLadder, CaseSet::kSweep, CaseSet::kTrainingSweep, CaseSet::kCheck,
                      CaseSet::kSelection, CaseSet::kSample}) {
    if (text == to_string(set)) return set;
  }
  return std::nullopt;
}

TimeSummaryMs summarize_times(std::vector<double> times_ms) {
  if (times_ms.empty()) throw std::invalid_argument("summarize_times: no times");
  std::sort(times_ms.begin(), times_ms.end());
  const std::size_t n = times_ms.size();
  TimeSummaryMs summary;
  summary.min = times_ms.front();
  summary.max = times_ms.back();
  summary.median = n % 2 == 1 ? times_ms[n / 2] : 0.5 * (times_ms[n / 2 - 1] + times_ms[n / 2]);
  return summary;
}

double tflops_of(const gemm::Problem& problem, double time_ms) {
  return problem.flops() / (time_ms * 1e-3) / 1e12;
}

const MeasuredKernel* LadderMeasurement::find_kernel(std::string_view id) const {
  for (const MeasuredKernel& kernel : kernels) {
    if (kernel.id == id) return &kernel;
  }
  return nullptr;
}

LadderMeasurement parse_ladder_measurement(std::string_view json_text, std::string_view origin) {
  const std::string file(origin);
  json document;
  try {
    document = json_input::parse_strict(json_text);
  } catch (const json_input::StrictJsonError& error) {
    throw LadderMeasurementError(file, error.field(), error.expectation());
  }
  try {
    return read_document(document);
  } catch (const json_input::StrictJsonError& error) {
    throw LadderMeasurementError(file, error.field(), error.expectation());
  }
}

LadderMeasurement load_ladder_measurement(const std::filesystem::path& path) {
  std::error_code code;
  if (std::filesystem::is_directory(path, code)) {
    throw LadderMeasurementError(path.string(), "<document>", "a file, got a directory");
  }
  std::ifstream in(path);
  if (!in) throw LadderMeasurementError(path.string(), "<document>", "a readable file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_ladder_measurement(text.str(), path.string());
}

std::string to_json_text(const LadderMeasurement& m) {
  std::vector<json> kernels;
  for (const MeasuredKernel& k : m.kernels) kernels.push_back(kernel_json(k));
  std::vector<json> cases;
  for (const MeasuredCase& c : m.cases) cases.push_back(case_json(c));
  std::ostringstream out;
  out << "{\n";
  out << " \"schema_version\": " << m.schema_version << ",\n";
  out << " \"kind\": " << json(kLadderMeasurementKind).dump() << ",\n";
  out << " \"context\": " << context_json(m.context).dump() << ",\n";
  if (m.microbenchmarks) {
    json raw = json::object();
    for (const auto& [name, bench] : m.microbenchmarks->raw) {
      json entry = {{"method", bench.method}};
      for (const auto& [key, value] : bench.values) entry[key] = number(value, 12);
      raw[name] = entry;
    }
    out << " \"microbenchmarks\": {\n  \"measured\": "
        << measured_json(m.microbenchmarks->measured).dump() << ",\n  \"raw\": {\n";
    std::size_t i = 0;
    for (const auto& item : raw.items()) {
      out << "   " << json(item.key()).dump() << ": " << item.value().dump()
          << (++i < raw.size() ? ",\n" : "\n");
    }
    out << "  }\n },\n";
  }
  out << " \"kernels\": " << array_lines(kernels) << ",\n";
  out << " \"cases\": " << array_lines(cases) << "\n";
  out << "}\n";
  return out.str();
}

std::vector<std::string> committed_measurement_paths(const std::filesystem::path& gpu_directory) {
  std::vector<std::string> paths{(gpu_directory / "sgemm-ladder.json").string()};
  const std::filesystem::path sample = gpu_directory / "sample";
  std::vector<std::string> parts;
  if (std::filesystem::is_directory(sample)) {
    for (const auto& entry : std::filesystem::directory_iterator(sample)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("sgemm-sample-", 0) == 0 && entry.path().extension() == ".json") {
        parts.push_back(entry.path().string());
      }
    }
  }
  std::sort(parts.begin(), parts.end());
  paths.insert(paths.end(), parts.begin(), parts.end());
  return paths;
}

}  // namespace roofcast::validation
