#include "roofcast/validation/validate_plan.hpp"

#include <algorithm>
#include <charconv>
#include <regex>
#include <stdexcept>
#include <tuple>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/tune/sample.hpp"
#include "roofcast/validation/model_accuracy.hpp"

namespace roofcast::validation {
namespace {

using gemm::Problem;
using gemm::RasterKind;
using gemm::RasterOrder;

Problem cube(std::int64_t n) { return {n, n, n}; }

bool contains(const std::vector<Problem>& problems, const Problem& p) {
  return std::find(problems.begin(), problems.end(), p) != problems.end();
}

/// Matches a kernel name against an optional regex (absent: everything matches).
class NameFilter {
 public:
  explicit NameFilter(const std::string& pattern) {
    if (!pattern.empty()) regex_.emplace(pattern, std::regex::ECMAScript);
  }
  bool operator()(const std::string& name) const {
    return !regex_ || std::regex_search(name, *regex_);
  }
  bool set() const { return regex_.has_value(); }

 private:
  std::optional<std::regex> regex_;
};

bool is_pow2(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// The cases profiled for the model's mechanisms: the whole training sweep and every ladder case
/// at the square power-of-two sizes (512..8192). Not the fit's split (tune::case_held_out, which
/// takes three quarters of every set): Nsight Compute on all of those would cost more device
/// time than the timing itself.
bool mechanism_case(CaseSet set, const Problem& p) {
  if (set == CaseSet::kTrainingSweep) return true;
  return set == CaseSet::kLadder && p.m == p.n && p.n == p.k && is_pow2(p.m);
}

/// The default Nsight Compute subset: ladder configs of rungs 7-10 at the ncu sizes, each raster
/// order (the L2 model's validation), rungs 1-6 and cuBLAS at 4096^3 (1024^3 with quick): the
/// stall reasons that explain each rung's place on the ladder; rung 8's sweep configs at
/// 256x4096x4096; and mechanism_case.
bool default_profile(const PlannedCase& c, bool quick) {
  if (!quick && mechanism_case(c.set, c.spec.problem)) return true;
  // Rung 8's whole sweep at the skinny shape: the latency-bound regime of few blocks per SM.
  if (c.set == CaseSet::kSweep && c.spec.registry_index && !quick &&
      c.spec.problem == Problem{256, 4096, 4096}) {
    return kernels::kRegistry[*c.spec.registry_index].config.rung == 8;
  }
  if (c.set != CaseSet::kLadder || !contains(ncu_problems(quick), c.spec.problem)) return false;
  const bool headline_size = c.spec.problem == cube(quick ? 1024 : 4096);
  if (!c.spec.registry_index) return headline_size;
  const kernels::RegistryEntry& entry = kernels::kRegistry[*c.spec.registry_index];
  return entry.role == kernels::Role::kLadder && (entry.config.rung >= 7 || headline_size);
}

void add_ladder_set(const PlanOptions& options, const NameFilter& kernels_filter,
                    std::vector<PlannedCase>& plan) {
  const CaseSet set = options.check_only && options.quick ? CaseSet::kCheck : CaseSet::kLadder;
  const std::vector<Problem> problems =
      set == CaseSet::kCheck ? check_problems() : ladder_problems(options.quick);
  for (const Problem& problem : problems) {
    if (set == CaseSet::kLadder && kernels_filter(std::string(kCublasKernel))) {
      plan.push_back({CaseSpec{std::nullopt, problem, RasterOrder{}}, set, false});
    }
    for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
      const kernels::RegistryEntry& entry = kernels::kRegistry[i];
      // The check set covers every registered config; the ladder set each rung's headline one.
      if (set == CaseSet::kLadder && entry.role != kernels::Role::kLadder) continue;
      if (!kernels_filter(kernels::kernel_id(entry.config))) continue;
      for (const RasterOrder& raster : ladder_rasters(entry.config)) {
        plan.push_back({CaseSpec{i, problem, raster}, set, false});
      }
    }
  }
}

/// Every registered config of rung `first_rung` and up at each problem, in its sweep raster
/// order; cuBLAS first at each problem when `with_cublas`.
void add_sweep_set(const std::vector<Problem>& problems, CaseSet set,
                   const NameFilter& kernels_filter, std::vector<PlannedCase>& plan,
                   int first_rung = 4, bool with_cublas = false) {
  for (const Problem& problem : problems) {
    if (with_cublas && kernels_filter(std::string(kCublasKernel))) {
      plan.push_back({CaseSpec{std::nullopt, problem, RasterOrder{}}, set, false});
    }
    for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
      const kernels::TileConfig& config = kernels::kRegistry[i].config;
      if (config.rung < first_rung || !kernels_filter(kernels::kernel_id(config))) continue;
      plan.push_back({CaseSpec{i, problem, sweep_raster(config)}, set, false});
    }
  }
}

/// The sample set: cuBLAS, every registry config of rungs 4-10 and every sample config (compiled
/// indices kRegistrySize..kCompiledSize-1) at each problem, in the sweep raster order.
void add_sample_set(const std::vector<Problem>& problems, const NameFilter& kernels_filter,
                    std::vector<PlannedCase>& plan) {
  add_sweep_set(problems, CaseSet::kSample, kernels_filter, plan, 4, true);
  for (const Problem& problem : problems) {
    for (std::size_t i = kernels::kRegistrySize; i < kernels::kCompiledSize; ++i) {
      const kernels::TileConfig& config = kernels::compiled_config(i);
      if (!kernels_filter(kernels::kernel_id(config))) continue;
      plan.push_back({CaseSpec{i, problem, sweep_raster(config)}, CaseSet::kSample, false});
    }
  }
}

std::optional<std::int64_t> parse_dimension(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > (std::int64_t{1} << 20)) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

int input_sets_for(std::int64_t set_bytes, std::int64_t rotation_min_bytes) {
  if (set_bytes <= 0) return 1;
  return static_cast<int>(std::max<std::int64_t>(1, rotation_min_bytes / set_bytes + 1));
}

std::vector<Problem> ladder_problems(bool quick) {
  if (quick) return {cube(1000), cube(1024), {300, 512, 256}};
  return {cube(512),  cube(1024),        cube(2048),         cube(4096),
          cube(8192), {300, 4096, 4096}, {8192, 1024, 4096}, cube(4097),
          cube(1000), {4096, 4096, 256}, {128, 8192, 4096}};
}

std::vector<Problem> sweep_problems(bool quick) {
  if (quick) return {cube(1024)};
  return {cube(4096), {256, 4096, 4096}};
}

std::vector<Problem> training_sweep_problems(bool quick) {
  if (quick) return {};
  // 2049^3: K and N not multiples of 4, so every kernel runs its scalar and guarded paths; no
  // other training case does.
  return {cube(2048), {512, 2048, 4096}, cube(2049)};
}

std::vector<Problem> selection_problems(bool quick) {
  if (quick) return {cube(1000), {256, 1024, 1024}};
  return {cube(512),         cube(1024),        cube(2048),         cube(4096),
          {256, 4096, 4096}, {4096, 256, 4096}, {8192, 1024, 1024}, {4096, 4096, 256},
          {128, 128, 16384}, cube(1000),        {1999, 3001, 1537}};
}

std::vector<Problem> sample_problems(bool quick) {
  std::vector<Problem> problems = tune::sample_shapes();
  if (quick) return {problems.begin(), problems.begin() + 2};
  for (const std::vector<Problem>& existing :
       {sweep_problems(false), training_sweep_problems(false)}) {
    for (const Problem& p : existing) {
      if (!contains(problems, p)) problems.push_back(p);
    }
  }
  return problems;
}

std::vector<Problem> check_problems() {
  return {cube(1), cube(17), {127, 129, 131}, {300, 512, 1000}};
}

std::vector<RasterOrder> ladder_rasters(const gemm::TileConfig& config) {
  if (!kernels::takes_raster_order(config)) return {RasterOrder{}};
  return {RasterOrder{RasterKind::kRowMajor, 1}, RasterOrder{RasterKind::kColumnMajor, 1},
          RasterOrder{RasterKind::kGrouped, 8}, RasterOrder{RasterKind::kGrouped, 4}};
}

RasterOrder sweep_raster(const gemm::TileConfig& config) {
  return kernels::takes_raster_order(config) ? RasterOrder{RasterKind::kGrouped, 8} : RasterOrder{};
}

std::vector<Problem> sample_ncu_problems() {
  return {cube(2048), {512, 2048, 4096}, {1459, 2313, 162}};
}

bool sample_ncu_config(std::size_t compiled_index) {
  return compiled_index >= kernels::kRegistrySize && compiled_index < kernels::kCompiledSize &&
         (compiled_index - kernels::kRegistrySize) % 10 == 0;
}

std::optional<SampleNcuSubset> parse_sample_ncu_subset(std::string_view text) {
  if (text == "tenth") return SampleNcuSubset::kEveryTenth;
  if (text == "local") return SampleNcuSubset::kLocalMemory;
  if (text == "all") return SampleNcuSubset::kEveryConfig;
  return std::nullopt;
}

std::vector<Problem> ncu_problems(bool quick) {
  if (quick) return {cube(1024)};
  return {cube(2048), cube(4096), cube(8192), {4096, 4096, 256}};
}

std::vector<PlannedCase> build_plan(const PlanOptions& options) {
  const NameFilter kernels_filter(options.kernels_regex);
  const NameFilter ncu_filter(options.ncu_kernels_regex);
  std::vector<PlannedCase> plan;
  const bool alone = options.selection || options.sample;  // a set run without the others
  if (options.selection) {
    add_sweep_set(selection_problems(options.quick), CaseSet::kSelection, kernels_filter, plan, 1,
                  true);
  } else if (options.sample && options.sample_ncu) {
    const SampleNcuSubset subset = options.sample_ncu_subset;
    if (subset == SampleNcuSubset::kLocalMemory && !options.uses_local_memory) {
      throw std::invalid_argument("build_plan: the local-memory subset needs uses_local_memory");
    }
    if (options.sample_ncu_problem && subset != SampleNcuSubset::kEveryConfig) {
      throw std::invalid_argument(
          "build_plan: a sample ncu problem is for the every-config subset only");
    }
    const std::vector<Problem> problems =
        subset == SampleNcuSubset::kEveryConfig
            ? std::vector<Problem>{options.sample_ncu_problem.value_or(cube(2048))}
            : sample_ncu_problems();
    for (const Problem& problem : problems) {
      for (std::size_t i = 0; i < kernels::kCompiledSize; ++i) {
        const kernels::TileConfig& config = kernels::compiled_config(i);
        bool in_subset = sample_ncu_config(i);
        if (subset == SampleNcuSubset::kLocalMemory) {
          in_subset = config.rung >= 4 && options.uses_local_memory(i);
        } else if (subset == SampleNcuSubset::kEveryConfig) {
          in_subset = config.rung >= 4;
        }
        if (!in_subset || !kernels_filter(kernels::kernel_id(config))) continue;
        plan.push_back({CaseSpec{i, problem, sweep_raster(config)}, CaseSet::kSample, false});
      }
    }
  } else if (options.sample) {
    add_sample_set(sample_problems(options.quick), kernels_filter, plan);
  } else {
    add_ladder_set(options, kernels_filter, plan);
  }
  if (!alone && !(options.check_only && options.quick)) {
    add_sweep_set(sweep_problems(options.quick), CaseSet::kSweep, kernels_filter, plan);
    add_sweep_set(training_sweep_problems(options.quick), CaseSet::kTrainingSweep, kernels_filter,
                  plan);
  }
  if (options.sample && options.sample_ncu) {
    for (PlannedCase& c : plan) c.profile = true;  // the stated subset: every case
  } else if (options.ncu && !options.check_only) {
    for (PlannedCase& c : plan) {
      c.profile = ncu_filter.set() ? c.set == CaseSet::kLadder &&
                                         contains(ncu_problems(options.quick), c.spec.problem) &&
                                         ncu_filter(kernel_name(c.spec))
                                   : default_profile(c, options.quick);
    }
  }
  std::stable_sort(plan.begin(), plan.end(), [](const PlannedCase& a, const PlannedCase& b) {
    const Problem& p = a.spec.problem;
    const Problem& q = b.spec.problem;
    if (p.flops() != q.flops()) return p.flops() < q.flops();
    return std::tie(p.m, p.n, p.k) < std::tie(q.m, q.n, q.k);
  });
  return plan;
}

std::int64_t grid_blocks_of(const Problem& problem, const gemm::TileConfig& config) {
  const std::int64_t cluster = std::max(config.cluster, 1);
  return cluster * ceil_div(gemm::tiles_m(problem, config), cluster) *
         gemm::tiles_n(problem, config);
}

std::string kernel_name(const CaseSpec& spec) {
  return spec.registry_index ? kernels::kernel_id(kernels::compiled_config(*spec.registry_index))
                             : std::string(kCublasKernel);
}

std::string problem_text(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

std::optional<Problem> parse_problem(std::string_view text) {
  const std::vector<std::string_view> parts = split(text, 'x');
  if (parts.size() != 1 && parts.size() != 3) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (std::string_view part : parts) {
    const auto value = parse_dimension(part);
    if (!value) return std::nullopt;
    dims.push_back(*value);
  }
  if (dims.size() == 1) return cube(dims[0]);
  return Problem{dims[0], dims[1], dims[2]};
}

std::string encode_profile_case(const CaseSpec& spec) {
  return kernel_name(spec) + "," + std::to_string(spec.problem.m) + "," +
         std::to_string(spec.problem.n) + "," + std::to_string(spec.problem.k) + "," +
         gemm::to_string(spec.registry_index ? spec.raster : RasterOrder{});
}

std::optional<CaseSpec> decode_profile_case(std::string_view text, std::string* error) {
  const std::vector<std::string_view> parts = split(text, ',');
  auto fail = [&](const std::string& why) -> std::optional<CaseSpec> {
    if (error != nullptr) *error = "--profile-one '" + std::string(text) + "': " + why;
    return std::nullopt;
  };
  if (parts.size() != 5) return fail("expected KERNEL,M,N,K,RASTER");
  CaseSpec spec;
  if (parts[0] != kCublasKernel) {
    const std::size_t index = kernels::find_compiled_kernel(parts[0]);
    if (index == kernels::kCompiledSize) return fail("no registry or sample kernel with that id");
    spec.registry_index = index;
  }
  const auto m = parse_dimension(parts[1]), n = parse_dimension(parts[2]),
             k = parse_dimension(parts[3]);
  if (!m || !n || !k) return fail("M, N and K must be integers in 1..1048576");
  spec.problem = Problem{*m, *n, *k};
  const auto raster = gemm::parse_raster_order(parts[4]);
  if (!raster) return fail("unknown raster order");
  spec.raster = *raster;
  return spec;
}

}  // namespace roofcast::validation
