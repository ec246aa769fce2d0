// roofcast-validate: one run measures everything the model is judged against on this GPU:
// microbenchmarks (FFMA rate, DRAM/L2/shared-memory bandwidth and latency), cuBLAS SGEMM and
// every registry kernel over the ladder sizes and raster orders, the tile-config sweep, each
// case checked against cuBLAS before it is timed, and optionally an Nsight Compute pass.
//   roofcast-validate --out FILE [--git-revision REV] [--kernels REGEX] [--quick]
//                     [--check-only] [--repeats N] [--warmups N] [--seed S]
//                     [--ncu] [--ncu-kernels REGEX] [--ncu-log-dir DIR]
// Output: JSON in data/measurements/SCHEMA.md's format; progress on stdout.
// Exit codes: 0 every case passed or was not supported, 1 a case was incorrect or failed (the
// JSON is still written) or the run broke, 2 usage, 77 no GPU (skipped).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "microbench.hpp"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/ncu_pass.hpp"
#include "roofcast/validation/run_context.hpp"
#include "roofcast/validation/runtime_occupancy.hpp"
#include "roofcast/validation/validate_plan.hpp"
#include "roofcast/validation/validate_runner.hpp"
#include "sgemm_check.hpp"
#include "validate_clock.hpp"

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace roofcast;
using namespace roofcast::validation;

constexpr int kExitSkipped = 77;
constexpr int kNcuBatchCases = 16;
constexpr int kNcuBatchTimeoutS = 300;

struct Options {
  std::string out;
  std::string expect_gpu;  // a spec id: refuse to measure any other GPU
  std::string git_revision = "unknown";
  std::string kernels_regex;
  bool quick = false;
  bool check_only = false;
  bool selection = false;
  int repeats = 20;
  int warmups = 3;
  std::optional<std::uint64_t> seed;
  bool ncu = false;
  std::string ncu_kernels_regex;
  std::string ncu_log_dir;
  bool sample = false;
  bool sample_ncu = false;
  std::string sample_ncu_subset;           // empty: every tenth config
  std::string sample_ncu_problem;          // empty: 2048^3 (subset all only)
  std::vector<std::string> profile_cases;  // hidden: the child run under ncu
};

std::string self_executable() {
  std::error_code code;
  const fs::path path = fs::read_symlink("/proc/self/exe", code);
  return code ? std::string() : path.string();
}

int usage_error(const std::string& message) {
  std::cerr << "roofcast-validate: error: " << message << "\n"
            << "usage: roofcast-validate --out FILE [options]; --help lists the options\n";
  return 2;
}

/// Parses argv into `options`; returns an exit code when the run should stop (usage: 2).
std::optional<int> parse_options(int argc, char** argv, Options& options) {
  po::options_description visible("options");
  visible.add_options()("help,h", "show this help")(
      "out", po::value(&options.out), "write the measurement JSON to FILE (required)")(
      "git-revision", po::value(&options.git_revision), "the source revision measured")(
      "expect-gpu", po::value(&options.expect_gpu),
      "the spec id the device must match (e.g. h200-sxm); another GPU is an error")(
      "kernels", po::value(&options.kernels_regex),
      "only kernels whose id matches this ECMAScript regex ('cublas' names cuBLAS)")(
      "quick", po::bool_switch(&options.quick), "a few small sizes (smoke test)")(
      "check-only", po::bool_switch(&options.check_only),
      "correctness against cuBLAS only, no microbenchmarks or timing; with --quick at sizes "
      "1, 17, 127x129x131, 300x512x1000 for every registered config")(
      "selection", po::bool_switch(&options.selection),
      "the selection experiment alone: cuBLAS and every registered config at the selection "
      "shapes (no ladder or sweep sets, no microbenchmarks)")(
      "sample", po::bool_switch(&options.sample),
      "the measured sample alone (docs/sample.md): cuBLAS, the registry's rungs 4-10 and the "
      "sample's configs at the sample shapes and the sweep shapes; needs a build with "
      "-DROOFCAST_BUILD_SAMPLE=ON")(
      "sample-ncu", po::bool_switch(&options.sample_ncu),
      "the sample's stated Nsight Compute subset alone (docs/sample.md): every tenth sample "
      "config at 2048^3, 512x2048x4096 and 1459x2313x162, timed and profiled; needs a sample "
      "build")("sample-ncu-subset", po::value(&options.sample_ncu_subset),
               "with --sample-ncu, which subset (docs/sample.md): tenth (the default), local "
               "(every config of the sample and of rungs 4-10 whose kernel uses local memory, "
               "at the same three shapes) or all (every such config at 2048^3)")(
      "sample-ncu-problem", po::value(&options.sample_ncu_problem),
      "with --sample-ncu-subset all, the one shape MxNxK (or N for N^3) instead of 2048^3")(
      "repeats", po::value(&options.repeats), "timed launches per case (default 20)")(
      "warmups", po::value(&options.warmups), "untimed launches before them (default 3)")(
      "seed", po::value<std::uint64_t>(), "base seed of the random inputs (default: the time)")(
      "ncu", po::bool_switch(&options.ncu),
      "Nsight Compute pass over a subset: L2 hit rate, DRAM bytes, occupancy, stall reasons")(
      "ncu-kernels", po::value(&options.ncu_kernels_regex),
      "profile these kernels (regex) at the ncu sizes instead of the default subset")(
      "ncu-log-dir", po::value(&options.ncu_log_dir),
      "keep ncu's CSV and logs in DIR (default: a fresh directory under /tmp)");
  po::options_description hidden;
  hidden.add_options()("profile-one", po::value(&options.profile_cases)->composing(),
                       "child mode under ncu: run KERNEL,M,N,K,RASTER once");
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map values;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    return usage_error(error.what());
  }
  if (values.count("help")) {
    std::cout << "usage: roofcast-validate --out FILE [options]\n" << visible;
    return 0;
  }
  if (values.count("seed")) options.seed = values["seed"].as<std::uint64_t>();
  if (!options.profile_cases.empty()) return std::nullopt;
  if (options.out.empty()) return usage_error("missing required option '--out'");
  if (options.repeats < 1) {
    return usage_error("--repeats must be at least 1, got " + std::to_string(options.repeats));
  }
  if (options.warmups < 0) {
    return usage_error("--warmups must be at least 0, got " + std::to_string(options.warmups));
  }
  if (!options.sample_ncu_subset.empty()) {
    if (!options.sample_ncu) {
      return usage_error("--sample-ncu-subset chooses the subset of --sample-ncu; give both");
    }
    if (!parse_sample_ncu_subset(options.sample_ncu_subset)) {
      return usage_error("--sample-ncu-subset: tenth, local or all, got '" +
                         options.sample_ncu_subset + "'");
    }
  }
  if (!options.sample_ncu_problem.empty()) {
    if (options.sample_ncu_subset != "all") {
      return usage_error("--sample-ncu-problem is the shape of --sample-ncu-subset all; give both");
    }
    if (!parse_problem(options.sample_ncu_problem)) {
      return usage_error("--sample-ncu-problem: MxNxK or N (positive extents), got '" +
                         options.sample_ncu_problem + "'");
    }
  }
  if (options.sample_ncu) {
    options.sample = true;
    options.ncu = true;
  }
  if (options.sample && options.selection) {
    return usage_error("--sample and --selection are two runs; give one");
  }
  if (options.sample && !kernels::sample_kernels_compiled()) {
    return usage_error(
        "--sample: this build has no sample kernels (configure with -DROOFCAST_BUILD_SAMPLE=ON)");
  }
  if (options.selection && options.check_only) {
    return usage_error("--selection times its cases; it cannot go with --check-only");
  }
  if ((options.ncu || !options.ncu_kernels_regex.empty()) && options.check_only) {
    return usage_error("--ncu profiles timed cases; it cannot go with --check-only");
  }
  for (const auto& [flag, pattern] : {std::pair{"--kernels", options.kernels_regex},
                                      std::pair{"--ncu-kernels", options.ncu_kernels_regex}}) {
    try {
      std::regex check(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      return usage_error(std::string(flag) + ": '" + pattern + "' is not a valid regex (" +
                         error.what() + ")");
    }
  }
  return std::nullopt;
}

/// The hidden child mode: each --profile-one case launched once inside the profiler range.
int profile_cases(const Options& options) {
  std::vector<CaseSpec> specs;
  for (const std::string& text : options.profile_cases) {
    std::string error;
    const auto spec = decode_profile_case(text, &error);
    if (!spec) {
      std::cerr << "roofcast-validate: error: " << error << "\n";
      return 2;
    }
    specs.push_back(*spec);
  }
  try {
    CaseRunner runner([] { return std::optional<double>(); });
    for (std::size_t i = 0; i < specs.size(); ++i) {
      runner.profile_once(specs[i], options.seed.value_or(1) + 1000 * i);
    }
  } catch (const std::exception& error) {
    std::cerr << "roofcast-validate: profile error: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

MeasuredKernel measured_kernel(std::size_t index, const KernelResources& r) {
  MeasuredKernel k;
  // Compiled index `index`: a registry entry, or a sample config (kernels/sample.hpp).
  const bool registered = index < kernels::kRegistrySize;
  k.config = kernels::compiled_config(index);
  k.id = kernels::kernel_id(k.config);
  k.registry_index = registered ? static_cast<int>(index) : -1;
  k.role = registered ? kernels::kRegistry[index].role : kernels::Role::kSample;
  k.threads_per_block = r.threads_per_block;
  k.registers_per_thread = r.registers_per_thread;
  k.static_shared_bytes = r.static_shared_bytes;
  k.dynamic_shared_bytes = r.dynamic_shared_bytes;
  k.max_dynamic_shared_bytes = r.max_dynamic_shared_bytes;
  if (r.preferred_carveout_percent >= 0)
    k.preferred_carveout_percent = r.preferred_carveout_percent;
  k.local_bytes = r.local_bytes;
  k.binary_version = r.binary_version;
  k.runtime_blocks_per_sm = r.runtime_blocks_per_sm;
  k.runtime_max_active_clusters = r.runtime_max_active_clusters;
  return k;
}

Microbenchmarks microbenchmarks_of(const MicrobenchResults& results, const std::string& run) {
  Microbenchmarks m;
  m.measured.measurement_run = run;
  m.measured.ffma_TFLOPS = results.ffma_TFLOPS;
  m.measured.dram_bw_GBps = results.dram_bw_GBps;
  m.measured.l2_bw_GBps = results.l2_bw_GBps;
  m.measured.shared_memory_bw_GBps = results.shared_memory_bw_GBps;
  m.measured.dram_latency_cycles = results.dram_latency_cycles;
  m.measured.l2_latency_cycles = results.l2_latency_cycles;
  m.measured.shared_memory_latency_cycles = results.shared_memory_latency_cycles;
  for (const MicrobenchResult& r : results.raw) {
    RawMicrobenchmark raw;
    raw.method = r.method;
    for (const auto& [key, value] : r.values) {
      if (std::isfinite(value)) raw.values[key] = value;  // JSON has no NaN or infinity
    }
    m.raw[r.name] = raw;
  }
  return m;
}

MeasuredCase measured_case(const PlannedCase& planned, const CaseRun& run,
                           const std::map<std::size_t, MeasuredKernel>& kernels, int sm_count) {
  MeasuredCase c;
  c.kernel = kernel_name(planned.spec);
  c.set = planned.set;
  c.problem = planned.spec.problem;
  if (planned.spec.registry_index) c.raster = planned.spec.raster;
  c.outcome = run.outcome;
  if (!run.detail.empty() && run.outcome != Outcome::kPassed) c.detail = run.detail;
  c.relative_error = run.relative_error;
  c.error_bound = run.error_bound;
  if (!run.times_ms.empty()) {
    c.time_ms = summarize_times(run.times_ms);
    c.repeats = static_cast<int>(run.times_ms.size());
    c.input_sets = run.input_sets;
    c.tflops = tflops_of(c.problem, c.time_ms->median);
  }
  if (planned.spec.registry_index) {
    const gemm::TileConfig& config = kernels::compiled_config(*planned.spec.registry_index);
    c.grid_blocks = grid_blocks_of(c.problem, config);
    const int blocks_per_sm = kernels.at(*planned.spec.registry_index).runtime_blocks_per_sm;
    if (blocks_per_sm > 0) {
      c.waves =
          static_cast<double>(*c.grid_blocks) / (static_cast<double>(blocks_per_sm) * sm_count);
    }
  }
  c.sm_clock_MHz_before = run.sm_clock_MHz_before;
  c.sm_clock_MHz_after = run.sm_clock_MHz_after;
  return c;
}

std::string progress_line(std::size_t i, std::size_t total, const MeasuredCase& c) {
  char text[400];
  const std::string raster = c.raster ? gemm::to_string(*c.raster) : std::string("-");
  std::snprintf(text, sizeof text, "[%*zu/%zu] %-6s %-48s %-16s %-13s %-13s",
                static_cast<int>(std::to_string(total).size()), i + 1, total,
                std::string(to_string(c.set)).c_str(), c.kernel.c_str(),
                problem_text(c.problem).c_str(), raster.c_str(),
                std::string(to_string(c.outcome)).c_str());
  std::string line = text;
  if (c.tflops) {
    std::snprintf(text, sizeof text, " %8.2f TFLOPS  median %.4f ms", *c.tflops, c.time_ms->median);
    line += text;
  }
  if (c.relative_error) {
    std::snprintf(text, sizeof text, "  err %.2e (bound %.2e)", *c.relative_error,
                  c.error_bound.value_or(0));
    line += text;
  }
  if (c.sm_clock_MHz_before && c.sm_clock_MHz_after) {
    std::snprintf(text, sizeof text, "  clock %.0f/%.0f MHz", *c.sm_clock_MHz_before,
                  *c.sm_clock_MHz_after);
    line += text;
  }
  if (c.detail) line += "  (" + *c.detail + ")";
  return line;
}

void write_measurement(const LadderMeasurement& m, const std::string& path) {
  std::ofstream out(path);
  out << to_json_text(m);
  if (!out) throw std::runtime_error("cannot write " + path);
}

/// The Nsight Compute pass: profiled cases in batches (up to kNcuBatchCases of roofcast's kernels,
/// cuBLAS alone), merged into `m.cases`.
void run_ncu_pass(const Options& options, const std::vector<PlannedCase>& plan,
                  LadderMeasurement& m, std::uint64_t seed) {
  std::string why;
  const auto ncu = find_ncu(&why);
  if (!ncu) {
    m.context.ncu_status = "not run: " + why;
    std::cout << "ncu: " << *m.context.ncu_status << "\n";
    return;
  }
  m.context.ncu_version = ncu_version_text(*ncu);
  std::string log_dir = options.ncu_log_dir;
  if (log_dir.empty()) {
    char pattern[] = "/tmp/roofcast-ncu-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      m.context.ncu_status = "not run: mkdtemp failed";
      return;
    }
    log_dir = pattern;
  } else {
    fs::create_directories(log_dir);
  }
  // Batches of case indices: roofcast's kernels (one launch per case, so ncu's records map
  // onto the cases in order) up to kNcuBatchCases a batch in plan order, one ncu process per
  // batch; cuBLAS alone (it may launch more than one kernel).
  std::vector<std::vector<std::size_t>> batches;
  std::optional<std::size_t> open_batch;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!plan[i].profile || m.cases[i].outcome != Outcome::kPassed) continue;
    if (kernel_name(plan[i].spec) == kCublasKernel) {
      batches.push_back({i});
    } else if (open_batch &&
               batches[*open_batch].size() < static_cast<std::size_t>(kNcuBatchCases)) {
      batches[*open_batch].push_back(i);
    } else {
      open_batch = batches.size();
      batches.push_back({i});
    }
  }
  const std::string self = self_executable();
  int profiled = 0, missing = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t b = 0; b < batches.size(); ++b) {
    NcuBatch batch;
    for (std::size_t i : batches[b])
      batch.profile_cases.push_back(encode_profile_case(plan[i].spec));
    const std::vector<NcuMetrics> metrics =
        run_ncu_batch(*ncu, self, batch, seed, log_dir, static_cast<int>(b), kNcuBatchTimeoutS);
    for (std::size_t j = 0; j < batches[b].size(); ++j) {
      m.cases[batches[b][j]].ncu = metrics[j];
      (metrics[j].error && metrics[j].stalls.empty() ? missing : profiled) += 1;
    }
    std::cout << "[ncu " << b + 1 << "/" << batches.size() << "] "
              << kernel_name(plan[batches[b].front()].spec) << ": " << batches[b].size()
              << " case(s)" << (metrics.front().error ? ", " + *metrics.front().error : ", ok")
              << std::endl;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char text[200];
  std::snprintf(text, sizeof text,
                "%d case(s) profiled, %d without numbers, %zu ncu run(s), %.0f s", profiled,
                missing, batches.size(), seconds);
  m.context.ncu_status = std::string(text) + "; logs in " + log_dir;
  std::cout << "ncu: " << *m.context.ncu_status << "\n";
}

std::string join_arguments(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i > 0 ? " " : "") + std::string(argv[i]);
  return text;
}

int run(const Options& options, const std::string& command_line) {
  const DeviceReport device = read_device_report();
  const GpuSpec& spec =
      match_spec(device.cc_major, device.cc_minor, device.sm_count, device.dram_bytes, device.name);
  if (!options.expect_gpu.empty() && spec.id != options.expect_gpu) {
    std::cerr << "roofcast-validate: error: --expect-gpu " << options.expect_gpu
              << ": the device is " << device.name << ", which matches the spec '" << spec.id
              << "'\n";
    return 2;
  }
  const SmClock clock(device.pci_bus_id);
  const std::uint64_t seed = options.seed.value_or(
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));

  PlanOptions plan_options;
  plan_options.quick = options.quick;
  plan_options.check_only = options.check_only;
  plan_options.selection = options.selection;
  plan_options.sample = options.sample;
  plan_options.sample_ncu = options.sample_ncu;
  if (!options.sample_ncu_subset.empty()) {
    plan_options.sample_ncu_subset = *parse_sample_ncu_subset(options.sample_ncu_subset);
  }
  if (!options.sample_ncu_problem.empty()) {
    plan_options.sample_ncu_problem = parse_problem(options.sample_ncu_problem);
  }
  if (plan_options.sample_ncu_subset == SampleNcuSubset::kLocalMemory) {
    plan_options.uses_local_memory = [](std::size_t compiled_index) {
      const KernelResources r = read_kernel_resources(compiled_index);
      if (!r.error.empty()) {
        throw std::runtime_error("--sample-ncu-local: the resources of kernel " +
                                 kernels::kernel_id(kernels::compiled_config(compiled_index)) +
                                 ": " + r.error);
      }
      return r.local_bytes > 0;
    };
  }
  plan_options.ncu = options.ncu || !options.ncu_kernels_regex.empty();
  plan_options.kernels_regex = options.kernels_regex;
  plan_options.ncu_kernels_regex = options.ncu_kernels_regex;
  const std::vector<PlannedCase> plan = build_plan(plan_options);

  LadderMeasurement m;
  LadderContext& c = m.context;
  c.tool = "roofcast-validate";
  c.mode =
      std::string(options.quick ? "quick" : "full") + (options.check_only ? " check-only" : "");
  if (c.mode == "full check-only") c.mode = "check-only";
  if (options.selection) c.mode = options.quick ? "quick selection" : "selection";
  if (options.sample) c.mode = options.quick ? "quick sample" : "sample";
  if (!options.sample_ncu_subset.empty()) c.mode = "sample ncu-" + options.sample_ncu_subset;
  c.command_line = command_line;
  c.gpu_name = device.name;
  c.spec_id = spec.id;
  c.compute_capability = std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor);
  c.sm_count = device.sm_count;
  c.sm_clock_max_MHz = device.sm_clock_max_MHz;
  c.memory_clock_MHz = device.memory_clock_MHz;
  c.l2_bytes = device.l2_bytes;
  c.dram_bytes = device.dram_bytes;
  c.driver_version =
      clock.driver_version().value_or("CUDA " + cuda_version_text(device.driver_api_version));
  c.cuda_runtime_version = cuda_version_text(device.runtime_version);
  c.cublas_version = device.cublas_version;
  c.git_revision = options.git_revision;
  c.date_utc = utc_now();
  c.host = host_name();
  c.clock_source = clock.usable() ? "nvml"
                                  : clock.source() +
                                        "; no per-case clock: the maximum clock is in "
                                        "sm_clock_max_MHz (cudaDevAttrClockRate)";
  c.seed = seed;
  c.repeats = options.check_only ? 0 : options.repeats;
  c.warmups = options.check_only ? 0 : options.warmups;
  c.rotation_min_bytes = 2 * device.l2_bytes;
  std::cout << "roofcast-validate: " << device.name << " (spec " << spec.id << ", cc "
            << c.compute_capability << ", " << device.sm_count << " SMs), " << plan.size()
            << " cases, mode " << c.mode << ", clock source: " << clock.source() << std::endl;

  if (!options.check_only && !options.selection && !options.sample) {
    const MicrobenchResults results =
        run_microbenchmarks([](const std::string& line) { std::cout << line << std::endl; });
    m.microbenchmarks =
        microbenchmarks_of(results, "roofcast-validate " + options.git_revision + " " + c.date_utc +
                                        " (" + fs::path(options.out).filename().string() + ")");
  }

  std::map<std::size_t, MeasuredKernel> kernels;
  for (const PlannedCase& p : plan) {
    if (!p.spec.registry_index || kernels.count(*p.spec.registry_index)) continue;
    const KernelResources r = read_kernel_resources(*p.spec.registry_index);
    if (!r.error.empty()) {
      std::cout << "warning: " << kernel_name(p.spec) << ": " << r.error << std::endl;
    }
    kernels[*p.spec.registry_index] = measured_kernel(*p.spec.registry_index, r);
  }
  for (const auto& [index, kernel] : kernels) m.kernels.push_back(kernel);

  CaseRunner runner([&clock] { return clock.current_MHz(); });
  RunOptions run_options;
  run_options.time = !options.check_only;
  run_options.repeats = options.repeats;
  run_options.warmups = options.warmups;
  run_options.rotation_min_bytes = c.rotation_min_bytes;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    run_options.seed = seed + 7919 * (i + 1);
    const CaseRun result = runner.run(plan[i].spec, run_options);
    m.cases.push_back(measured_case(plan[i], result, kernels, device.sm_count));
    std::cout << progress_line(i, plan.size(), m.cases.back()) << std::endl;
  }
  write_measurement(m, options.out);

  if (plan_options.ncu && !runner.context_lost()) {
    run_ncu_pass(options, plan, m, seed);
    write_measurement(m, options.out);
  }

  std::map<Outcome, int> counts;
  for (const MeasuredCase& mc : m.cases) ++counts[mc.outcome];
  std::cout << "wrote " << options.out << ": " << m.cases.size() << " cases";
  for (Outcome o : kAllOutcomes) std::cout << ", " << counts[o] << " " << to_string(o);
  std::cout << "\n";
  return counts[Outcome::kIncorrect] + counts[Outcome::kFailed] > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const auto stop = parse_options(argc, argv, options)) return *stop;
  std::string why;
  if (!gpu_present(&why)) {
    std::cout << "SKIPPED: no usable CUDA device (" << why << ")\n";
    return kExitSkipped;
  }
  if (!options.profile_cases.empty()) return profile_cases(options);
  try {
    return run(options, join_arguments(argc, argv));
  } catch (const std::exception& error) {
    std::cerr << "roofcast-validate: error: " << error.what() << "\n";
    return 1;
  }
}
