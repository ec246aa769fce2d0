#include "roofcast/validation/ladder_measurements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

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

json config_json(const gemm::TileConfig& c) {
  return {{"rung", c.rung},      {"layout", std::string(gemm::to_string(c.layout))},
          {"bm", c.bm},          {"bn", c.bn},
          {"bk", c.bk},          {"tm", c.tm},
          {"tn", c.tn},          {"wm", c.wm},
          {"wn", c.wn},          {"threads", c.threads},
          {"stages", c.stages},  {"vector_width", c.vector_width},
          {"cluster", c.cluster}};
}

std::string_view role_text(kernels::Role role) {
  return role == kernels::Role::kLadder ? "ladder" : "sweep";
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
  json out = {{"id", k.id},
              {"registry_index", k.registry_index},
              {"rung", k.config.rung},
              {"role", std::string(role_text(k.role))},
              {"config", config_json(k.config)},
              {"threads_per_block", k.threads_per_block},
              {"registers_per_thread", k.registers_per_thread},
              {"static_shared_bytes", k.static_shared_bytes},
              {"dynamic_shared_bytes", k.dynamic_shared_bytes},
              {"max_dynamic_shared_bytes", k.max_dynamic_shared_bytes},
              {"local_bytes", k.local_bytes},
              {"binary_version", k.binary_version},
              {"runtime_blocks_per_sm", k.runtime_blocks_per_sm}};
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

/// Reads one JSON object's fields, remembering the keys it consumed so that unknown keys
/// (typos, fields of another schema version) are reported instead of ignored.
class Reader {
 public:
  Reader(const json& object, std::string path, const std::string* file)
      : object_(object), path_(std::move(path)), file_(file) {
    if (!object_.is_object()) fail(path_.empty() ? "<document>" : path_, "a JSON object", object_);
  }

  [[noreturn]] void fail(const std::string& field, const std::string& expectation,
                         const json& got) const {
    throw LadderMeasurementError(*file_, field, expectation + ", got " + got.dump());
  }
  [[noreturn]] void fail(const std::string& field, const std::string& expectation) const {
    throw LadderMeasurementError(*file_, field, expectation);
  }

  std::string where(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  /// The value of `key`; null counts as absent.
  bool has(std::string_view key) const {
    const auto it = object_.find(std::string(key));
    return it != object_.end() && !it->is_null();
  }

  const json& raw(std::string_view key) {
    const std::string name(key);
    consumed_.insert(name);
    if (!object_.contains(name)) fail(where(key), "a value (the field is missing)");
    return object_.at(name);
  }

  std::string string(std::string_view key) {
    const json& value = raw(key);
    if (!value.is_string() || value.get<std::string>().empty()) {
      fail(where(key), "a non-empty string", value);
    }
    return value.get<std::string>();
  }

  /// A string that may be empty (an unknown host, say).
  std::string any_string(std::string_view key) {
    const json& value = raw(key);
    if (!value.is_string()) fail(where(key), "a string", value);
    return value.get<std::string>();
  }

  std::optional<std::string> optional_string(std::string_view key) {
    consumed_.insert(std::string(key));
    if (!has(key)) return std::nullopt;
    return string(key);
  }

  std::int64_t integer(std::string_view key, std::int64_t minimum) {
    const json& value = raw(key);
    if (!value.is_number_integer()) fail(where(key), "an integer", value);
    const std::int64_t number =
        value.is_number_unsigned()
            ? static_cast<std::int64_t>(std::min<std::uint64_t>(
                  value.get<std::uint64_t>(), std::numeric_limits<std::int64_t>::max()))
            : value.get<std::int64_t>();
    if (number < minimum) {
      fail(where(key), "an integer >= " + std::to_string(minimum), value);
    }
    return number;
  }

  int int32(std::string_view key, int minimum) {
    const std::int64_t number = integer(key, minimum);
    if (number > std::numeric_limits<int>::max()) {
      fail(where(key), "an integer below 2^31", raw(key));
    }
    return static_cast<int>(number);
  }

  std::optional<int> optional_int32(std::string_view key, int minimum) {
    consumed_.insert(std::string(key));
    if (!has(key)) return std::nullopt;
    return int32(key, minimum);
  }

  std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t minimum) {
    consumed_.insert(std::string(key));
    if (!has(key)) return std::nullopt;
    return integer(key, minimum);
  }

  std::uint64_t unsigned64(std::string_view key) {
    const json& value = raw(key);
    if (!value.is_number_unsigned() &&
        !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
      fail(where(key), "a non-negative integer", value);
    }
    return value.get<std::uint64_t>();
  }

  double number(std::string_view key, double minimum) {
    const json& value = raw(key);
    if (!value.is_number()) fail(where(key), "a number", value);
    const double x = value.get<double>();
    if (!(x >= minimum)) fail(where(key), "a number >= " + format(minimum), value);
    return x;
  }

  std::optional<double> optional_number(std::string_view key, double minimum) {
    consumed_.insert(std::string(key));
    if (!has(key)) return std::nullopt;
    return number(key, minimum);
  }

  Reader object(std::string_view key) { return Reader(raw(key), where(key), file_); }

  std::optional<Reader> optional_object(std::string_view key) {
    consumed_.insert(std::string(key));
    if (!has(key)) return std::nullopt;
    return object(key);
  }

  const json& array(std::string_view key) {
    const json& value = raw(key);
    if (!value.is_array()) fail(where(key), "an array", value);
    return value;
  }

  const json& value() const { return object_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }

  void reject_unknown_keys() const {
    for (const auto& item : object_.items()) {
      if (consumed_.count(item.key()) == 0) {
        fail(where(item.key()), "no such field in schema_version " +
                                    std::to_string(kLadderMeasurementSchemaVersion) +
                                    " (unknown field; see data/measurements/SCHEMA.md)");
      }
    }
  }

 private:
  static std::string format(double x) {
    std::ostringstream out;
    out << x;
    return out.str();
  }

  const json& object_;
  std::string path_;
  const std::string* file_;
  std::set<std::string> consumed_;
};

LadderContext read_context(Reader r) {
  LadderContext c;
  c.tool = r.string("tool");
  c.mode = r.string("mode");
  c.command_line = r.any_string("command_line");
  c.gpu_name = r.string("gpu_name");
  c.spec_id = r.string("spec_id");
  c.compute_capability = r.string("compute_capability");
  c.sm_count = r.int32("sm_count", 1);
  c.sm_clock_max_MHz = r.number("sm_clock_max_MHz", 0);
  c.memory_clock_MHz = r.number("memory_clock_MHz", 0);
  c.l2_bytes = r.integer("l2_bytes", 1);
  c.dram_bytes = r.integer("dram_bytes", 1);
  c.driver_version = r.string("driver_version");
  c.cuda_runtime_version = r.string("cuda_runtime_version");
  c.cublas_version = r.string("cublas_version");
  c.git_revision = r.string("git_revision");
  c.date_utc = r.string("date_utc");
  c.host = r.any_string("host");
  c.clock_source = r.string("clock_source");
  c.seed = r.unsigned64("seed");
  c.repeats = r.int32("repeats", 0);
  c.warmups = r.int32("warmups", 0);
  c.rotation_min_bytes = r.integer("rotation_min_bytes", 0);
  c.ncu_version = r.optional_string("ncu_version");
  c.ncu_status = r.optional_string("ncu_status");
  r.reject_unknown_keys();
  return c;
}

Microbenchmarks read_microbenchmarks(Reader r) {
  Microbenchmarks out;
  Reader m = r.object("measured");
  out.measured.measurement_run = m.string("measurement_run");
  out.measured.ffma_TFLOPS = m.optional_number("ffma_TFLOPS", 0);
  out.measured.dram_bw_GBps = m.optional_number("dram_bw_GBps", 0);
  out.measured.l2_bw_GBps = m.optional_number("l2_bw_GBps", 0);
  out.measured.shared_memory_bw_GBps = m.optional_number("shared_memory_bw_GBps", 0);
  out.measured.dram_latency_cycles = m.optional_number("dram_latency_cycles", 0);
  out.measured.l2_latency_cycles = m.optional_number("l2_latency_cycles", 0);
  out.measured.shared_memory_latency_cycles = m.optional_number("shared_memory_latency_cycles", 0);
  m.reject_unknown_keys();
  Reader raw = r.object("raw");
  for (const auto& item : raw.value().items()) {
    Reader bench = raw.object(item.key());
    RawMicrobenchmark entry;
    entry.method = bench.string("method");
    for (const auto& value : bench.value().items()) {
      if (value.key() == "method") continue;
      entry.values[value.key()] = bench.number(value.key(), -std::numeric_limits<double>::max());
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

MeasuredKernel read_kernel(Reader r) {
  MeasuredKernel k;
  k.id = r.string("id");
  k.registry_index = r.int32("registry_index", 0);
  const int rung = r.int32("rung", 1);
  const std::string role = r.string("role");
  if (role != "ladder" && role != "sweep") r.fail(r.where("role"), "ladder or sweep", role);
  k.role = role == "ladder" ? kernels::Role::kLadder : kernels::Role::kSweep;
  k.config = read_config(r.object("config"));
  if (k.config.rung != rung) {
    r.fail(r.where("rung"), "the rung of config (" + std::to_string(k.config.rung) + ")", rung);
  }
  if (kernels::kernel_id(k.config) != k.id) {
    r.fail(r.where("id"), "the id of its config, '" + kernels::kernel_id(k.config) + "'", k.id);
  }
  k.threads_per_block = r.int32("threads_per_block", 1);
  k.registers_per_thread = r.int32("registers_per_thread", 0);
  k.static_shared_bytes = r.int32("static_shared_bytes", 0);
  k.dynamic_shared_bytes = r.int32("dynamic_shared_bytes", 0);
  k.max_dynamic_shared_bytes = r.int32("max_dynamic_shared_bytes", 0);
  k.preferred_carveout_percent = r.optional_int32("preferred_carveout_percent", 0);
  k.local_bytes = r.int32("local_bytes", 0);
  k.binary_version = r.int32("binary_version", 0);
  k.runtime_blocks_per_sm = r.int32("runtime_blocks_per_sm", 0);
  k.runtime_max_active_clusters = r.optional_int32("runtime_max_active_clusters", 0);
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
  if (auto stalls = r.optional_object("stalls")) {
    for (const auto& item : stalls->value().items()) {
      n.stalls[item.key()] = stalls->number(item.key(), 0);
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
  c.problem.m = r.integer("m", 1);
  c.problem.n = r.integer("n", 1);
  c.problem.k = r.integer("k", 1);
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
    TimeSummaryMs t;
    t.median = time->number("median", 0);
    t.min = time->number("min", 0);
    t.max = time->number("max", 0);
    if (!(t.min <= t.median && t.median <= t.max)) {
      time->fail(time->path(), "min <= median <= max", time->value());
    }
    time->reject_unknown_keys();
    c.time_ms = t;
    c.repeats = r.int32("repeats", 1);
    c.input_sets = r.int32("input_sets", 1);
  }
  c.tflops = r.optional_number("tflops", 0);
  c.grid_blocks = r.optional_integer("grid_blocks", 1);
  c.waves = r.optional_number("waves", 0);
  c.sm_clock_MHz_before = r.optional_number("sm_clock_MHz_before", 0);
  c.sm_clock_MHz_after = r.optional_number("sm_clock_MHz_after", 0);
  if (auto ncu = r.optional_object("ncu")) c.ncu = read_ncu(*ncu);
  r.reject_unknown_keys();
  return c;
}

LadderMeasurement read_document(const json& document, const std::string& file) {
  Reader root(document, "", &file);
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
  const json& kernels = root.array("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    m.kernels.push_back(
        read_kernel(Reader(kernels[i], "kernels[" + std::to_string(i) + "]", &file)));
    for (std::size_t j = 0; j + 1 < m.kernels.size(); ++j) {
      if (m.kernels[j].id == m.kernels.back().id) {
        root.fail("kernels[" + std::to_string(i) + "].id", "an id listed once", m.kernels[j].id);
      }
    }
  }
  const json& cases = root.array("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = "cases[" + std::to_string(i) + "]";
    MeasuredCase c = read_case(Reader(cases[i], path, &file));
    if (c.kernel != kCublasKernel && m.find_kernel(c.kernel) == nullptr) {
      root.fail(path + ".kernel", "\"cublas\" or the id of a kernel in 'kernels'", c.kernel);
    }
    m.cases.push_back(std::move(c));
  }
  root.reject_unknown_keys();
  return m;
}

}  // namespace

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
  }
  return "ladder";
}

std::optional<CaseSet> parse_case_set(std::string_view text) {
  for (CaseSet set : {CaseSet::kLadder, CaseSet::kSweep, CaseSet::kTrainingSweep, CaseSet::kCheck,
                      CaseSet::kSelection}) {
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
    document = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& error) {
    throw LadderMeasurementError(file, "<document>",
                                 std::string("valid JSON (") + error.what() + ")");
  }
  return read_document(document, file);
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

}  // namespace roofcast::validation
