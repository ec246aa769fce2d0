#include "roofcast/validation/ncu_pass.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace roofcast::validation {
namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";

/// Splits one CSV line: fields separated by commas, optionally quoted ("" is a quote).
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

/// "1,234,567.5" -> 1234567.5; empty for "n/a" and other non-numbers.
std::optional<double> metric_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

int column(const std::vector<std::string>& header, const char* name) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) {
    throw std::runtime_error(std::string("ncu CSV header lacks the column \"") + name + "\"");
  }
  return static_cast<int>(it - header.begin());
}

/// The metric in base units; empty when absent or in a unit base_value does not know (then
/// `unknown_units` gets the reason, so the case records why the number is missing).
std::optional<double> metric(const NcuKernelRecord& kernel, const std::string& name,
                             std::vector<std::string>* unknown_units = nullptr) {
  const auto it = kernel.metrics.find(name);
  if (it == kernel.metrics.end()) return std::nullopt;
  try {
    return base_value(name, it->second.first, it->second.second);
  } catch (const std::runtime_error& error) {
    if (unknown_units != nullptr) unknown_units->push_back(error.what());
    return std::nullopt;
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string tail(const std::string& text, std::size_t chars) {
  return text.size() <= chars ? text : "..." + text.substr(text.size() - chars);
}

bool executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

/// Runs argv with stdout and stderr into `log_path`, in its own process group; returns the
/// exit status (128 + signal when killed), or -1 when it could not start.
int run_process(const std::vector<std::string>& argv, const std::string& log_path, int timeout_s,
                bool* timed_out) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  *timed_out = false;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      *timed_out = true;
      kill(-pid, SIGKILL);  // the process group this call started: ncu and the profiled child
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool ncu_has_option(const std::string& ncu, const std::string& option) {
  const std::string log = "/tmp/roofcast-ncu-help-" + std::to_string(getpid()) + ".txt";
  bool timed_out = false;
  run_process({ncu, "--help"}, log, 60, &timed_out);
  const std::string help = read_file(log);
  std::remove(log.c_str());
  return help.find(option) != std::string::npos;
}

}  // namespace

const std::vector<std::string>& ncu_stall_reasons() {
  static const std::vector<std::string> reasons = {"barrier",
                                                   "branch_resolving",
                                                   "dispatch_stall",
                                                   "drain",
                                                   "imc_miss",
                                                   "lg_throttle",
                                                   "long_scoreboard",
                                                   "math_pipe_throttle",
                                                   "membar",
                                                   "mio_throttle",
                                                   "misc",
                                                   "no_instruction",
                                                   "not_selected",
                                                   "selected",
                                                   "short_scoreboard",
                                                   "sleeping",
                                                   "tex_throttle",
                                                   "wait"};
  return reasons;
}

std::vector<std::string> ncu_metric_names() {
  std::vector<std::string> names = {"lts__t_sector_hit_rate.pct",
                                    "dram__bytes_read.sum",
                                    "dram__bytes_write.sum",
                                    "lts__t_sectors_srcunit_tex_op_read.sum",
                                    "sm__warps_active.avg.pct_of_peak_sustained_active",
                                    "gpu__time_duration.sum"};
  for (const NcuCount& count : ncu_counts()) names.push_back(count.metric);
  for (const std::string& reason : ncu_stall_reasons()) {
    names.push_back(std::string(kStallPrefix) + reason + std::string(kStallSuffix));
  }
  return names;
}

std::vector<NcuKernelRecord> parse_ncu_csv(std::string_view text) {
  std::vector<NcuKernelRecord> kernels;
  std::vector<std::string> header;
  int id_column = 0, name_column = 0, metric_column = 0, unit_column = 0, value_column = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.front() != '"') continue;  // ==PROF== lines, program output
    const std::vector<std::string> fields = csv_fields(line);
    if (header.empty()) {
      if (fields.front() != "ID") continue;
      header = fields;
      id_column = column(header, "ID");
      name_column = column(header, "Kernel Name");
      metric_column = column(header, "Metric Name");
      unit_column = column(header, "Metric Unit");
      value_column = column(header, "Metric Value");
      continue;
    }
    if (fields.size() != header.size()) continue;
    const std::string& id = fields[id_column];
    if (kernels.empty() || kernels.back().id != id) {
      const auto known = std::find_if(kernels.begin(), kernels.end(),
                                      [&](const NcuKernelRecord& k) { return k.id == id; });
      if (known == kernels.end()) kernels.push_back({id, fields[name_column], {}});
    }
    NcuKernelRecord& kernel = *std::find_if(kernels.begin(), kernels.end(),
                                            [&](const NcuKernelRecord& k) { return k.id == id; });
    if (const auto value = metric_number(fields[value_column])) {
      kernel.metrics[fields[metric_column]] = {fields[unit_column], *value};
    }
  }
  if (header.empty()) throw std::runtime_error("no ncu CSV header (a line starting \"ID\")");
  return kernels;
}

double base_value(const std::string& metric_name, const std::string& unit, double value) {
  static const std::array<std::pair<const char*, double>, 22> kScales = {{
      {"", 1},          {"%", 1},        {"byte", 1},      {"Kbyte", 1e3},   {"Mbyte", 1e6},
      {"Gbyte", 1e9},   {"Tbyte", 1e12}, {"sector", 1},    {"Ksector", 1e3}, {"Msector", 1e6},
      {"Gsector", 1e9}, {"nsecond", 1},  {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9},
      {"ns", 1},        {"us", 1e3},     {"ms", 1e6},      {"inst", 1},      {"cycle", 1},
      {"warp", 1},      {"ratio", 1},
  }};
  for (const auto& [name, scale] : kScales) {
    if (unit == name) return value * scale;
  }
  throw std::runtime_error("ncu metric " + metric_name + ": unknown unit '" + unit + "'");
}

NcuMetrics summarize_ncu(const std::vector<NcuKernelRecord>& kernels) {
  NcuMetrics out;
  out.kernels = static_cast<int>(kernels.size());
  if (kernels.empty()) {
    out.error = "ncu profiled no kernel for this case";
    return out;
  }
  std::vector<std::string> unknown_units;
  auto sum = [&](const std::string& name) -> std::optional<double> {
    std::optional<double> total;
    for (const NcuKernelRecord& k : kernels) {
      if (const auto v = metric(k, name, &unknown_units)) total = total.value_or(0) + *v;
    }
    return total;
  };
  const NcuKernelRecord* longest = &kernels.front();
  for (const NcuKernelRecord& k : kernels) {
    if (metric(k, "gpu__time_duration.sum").value_or(0) >
        metric(*longest, "gpu__time_duration.sum").value_or(0)) {
      longest = &k;
    }
  }
  out.dram_bytes_read = sum("dram__bytes_read.sum");
  out.dram_bytes_write = sum("dram__bytes_write.sum");
  out.l2_sectors_read = sum("lts__t_sectors_srcunit_tex_op_read.sum");
  out.duration_ns = sum("gpu__time_duration.sum");
  for (const NcuCount& count : ncu_counts()) out.*count.field = sum(count.metric);
  out.l2_hit_rate_pct = metric(*longest, "lts__t_sector_hit_rate.pct");
  out.achieved_occupancy_pct =
      metric(*longest, "sm__warps_active.avg.pct_of_peak_sustained_active");
  for (const std::string& reason : ncu_stall_reasons()) {
    const std::string name = std::string(kStallPrefix) + reason + std::string(kStallSuffix);
    if (const auto v = metric(*longest, name)) out.stalls[reason] = *v;
  }
  if (!out.l2_hit_rate_pct && !out.dram_bytes_read && out.stalls.empty()) {
    out.error = "ncu reported none of the requested metrics";
  } else if (!unknown_units.empty()) {
    std::sort(unknown_units.begin(), unknown_units.end());
    unknown_units.erase(std::unique(unknown_units.begin(), unknown_units.end()),
                        unknown_units.end());
    std::string why;
    for (const std::string& u : unknown_units) why += (why.empty() ? "" : "; ") + u;
    out.error = why + " (left out, the other numbers kept)";
  }
  return out;
}

std::optional<std::string> find_ncu(std::string* why) {
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      if (!dir.empty() && executable(dir + "/ncu")) return dir + "/ncu";
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (executable("/usr/local/cuda/bin/ncu")) return std::string("/usr/local/cuda/bin/ncu");
  if (why != nullptr) *why = "ncu not found on PATH nor at /usr/local/cuda/bin/ncu";
  return std::nullopt;
}

std::string ncu_version_text(const std::string& ncu) {
  const std::string log = "/tmp/roofcast-ncu-version-" + std::to_string(getpid()) + ".txt";
  bool timed_out = false;
  const int status = run_process({ncu, "--version"}, log, 60, &timed_out);
  std::string text = read_file(log);
  std::remove(log.c_str());
  if (status != 0) return "unknown";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const std::size_t last = text.rfind('\n');
  return last == std::string::npos ? text : text.substr(last + 1);
}

std::vector<NcuMetrics> run_ncu_batch(const std::string& ncu, const std::string& self_exe,
                                      const NcuBatch& batch, std::uint64_t seed,
                                      const std::string& log_dir, int batch_number, int timeout_s) {
  static const bool metric_name_option = ncu_has_option(ncu, "--print-metric-name");
  const std::string stem = log_dir + "/ncu-" + std::to_string(batch_number);
  const std::string csv_path = stem + ".csv";
  const std::string log_path = stem + ".log";
  std::string metrics;
  for (const std::string& name : ncu_metric_names()) metrics += (metrics.empty() ? "" : ",") + name;
  std::vector<std::string> argv = {
      ncu,     "--clock-control", "none", "--profile-from-start", "off",   "--metrics", metrics,
      "--csv", "--print-units",   "base", "--log-file",           csv_path};
  if (metric_name_option) {
    argv.push_back("--print-metric-name");
    argv.push_back("name");
  }
  argv.push_back(self_exe);
  argv.push_back("--seed");
  argv.push_back(std::to_string(seed));
  for (const std::string& c : batch.profile_cases) {
    argv.push_back("--profile-one");
    argv.push_back(c);
  }
  std::vector<NcuMetrics> out(batch.profile_cases.size());
  auto fail_all = [&](const std::string& why) {
    for (NcuMetrics& m : out) m.error = why;
    return out;
  };
  bool timed_out = false;
  const int status = run_process(argv, log_path, timeout_s, &timed_out);
  const std::string log = read_file(log_path);
  if (status == -1) return fail_all("could not start " + ncu);
  if (timed_out) return fail_all("ncu ran past " + std::to_string(timeout_s) + " s and was killed");
  std::string csv = read_file(csv_path);
  if (csv.find("\"ID\"") == std::string::npos) csv = log;  // an ncu that printed to stdout
  std::vector<NcuKernelRecord> kernels;
  try {
    kernels = parse_ncu_csv(csv);
  } catch (const std::exception& error) {
    return fail_all(std::string(error.what()) + "; ncu exit status " + std::to_string(status) +
                    "; log tail: " + tail(log + read_file(csv_path), 1500));
  }
  if (out.size() == 1) {
    out[0] = summarize_ncu(kernels);
  } else if (kernels.size() == out.size()) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = summarize_ncu({kernels[i]});
  } else {
    return fail_all("ncu reported " + std::to_string(kernels.size()) + " kernels for " +
                    std::to_string(out.size()) + " cases (exit status " + std::to_string(status) +
                    "); log tail: " + tail(log, 1500));
  }
  if (status != 0) {
    for (NcuMetrics& m : out) {
      if (!m.error) m.error = "ncu exit status " + std::to_string(status) + " (numbers kept)";
    }
  }
  return out;
}

}  // namespace roofcast::validation
