// roofcast._core: the Python binding of the model (specs, occupancy, predict) and the tuner API
// (config space, rank). Results come back as plain dicts and lists; GPU specs, tile configs,
// candidates and space bounds are small classes. C++ errors surface as Python exceptions with
// their message: std::invalid_argument -> ValueError, SpecError -> roofcast.SpecError (a
// ValueError with .file, .field, .expectation), UnknownGpuError -> roofcast.UnknownGpuError (a
// LookupError).
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "roofcast/calibration.hpp"
#include "roofcast/gemm.hpp"
#include "roofcast/gemm_json.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/roofline.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/traffic.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/tune/space.hpp"
#include "roofcast/views/rank_views.hpp"
#include "roofcast/views/views.hpp"

namespace py = pybind11;

namespace roofcast::python {
namespace {

using gemm::TileConfig;
using tune::Candidate;
using tune::SpaceBounds;

// ---- arguments --------------------------------------------------------------------------------

/// A `gpu` argument: a GpuSpec, an embedded id, or a path to a spec file ending in ".json".
/// Embedded specs are referenced, not copied; a file is loaded into `storage`.
const GpuSpec& as_spec(const py::handle& gpu, std::optional<GpuSpec>& storage) {
  if (py::isinstance<GpuSpec>(gpu)) return gpu.cast<const GpuSpec&>();
  if (py::isinstance<py::str>(gpu)) {
    const std::string text = gpu.cast<std::string>();
    if (text.size() > 5 && text.compare(text.size() - 5, 5, ".json") == 0) {
      storage = load_spec_file(text);
      return *storage;
    }
    return embedded_spec(text);
  }
  throw py::type_error("gpu: expected a GpuSpec, an embedded GPU id or a path to a .json spec");
}

/// (M, N, K), each within 1..gemm::kMaxExtent as everywhere else (CLI, files).
gemm::Problem as_problem(const std::array<std::int64_t, 3>& mnk) {
  const gemm::Problem problem{mnk[0], mnk[1], mnk[2]};
  if (!gemm::extents_in_range(problem)) {
    throw std::invalid_argument("problem: M, N and K must be within 1.." +
                                std::to_string(gemm::kMaxExtent) + ", got (" +
                                std::to_string(problem.m) + ", " + std::to_string(problem.n) +
                                ", " + std::to_string(problem.k) + ")");
  }
  return problem;
}

gemm::RasterOrder as_raster(const std::string& text) {
  const std::optional<gemm::RasterOrder> raster = gemm::parse_raster_order(text);
  if (!raster) {
    throw std::invalid_argument("raster: '" + text +
                                "' is not a raster order (row_major, column_major, grouped:G, "
                                "z_order)");
  }
  return *raster;
}

gemm::SmemLayout as_layout(const std::string& text) {
  const std::optional<gemm::SmemLayout> layout = gemm::parse_smem_layout(text);
  if (!layout) {
    throw std::invalid_argument("layout: '" + text + "' is not a layout (plain, padded, swizzled)");
  }
  return *layout;
}

Calibration calibration_for(const GpuSpec& gpu, bool calibrated, bool* used) {
  if (!calibrated) {
    *used = false;
    return Calibration{};
  }
  return tune::default_calibration(gpu, used);
}

// ---- results as the documents of docs/schema.md ---------------------------------------------

/// A JSON value as the Python object json.loads would give (dict, list, str, int, float, bool,
/// None): the documents are written once, by the views, and Python receives them as they are.
py::object to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = to_python(item);
      return std::move(out);
    }
    case nlohmann::json::value_t::array: {
      py::list out(value.size());
      for (std::size_t i = 0; i < value.size(); ++i) out[i] = to_python(value[i]);
      return std::move(out);
    }
    case nlohmann::json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(value.get<double>());
    default:
      return py::none();
  }
}

/// roofcast.predict's result: the "prediction" document, built when first read. time_s, tflops,
/// launchable and kernel_id are attributes that need no document (the tuner's hot path); item
/// access, keys(), to_dict() and to_json() give the document, the same as `roofcast predict
/// --json` prints for the same inputs.
class PythonPrediction {
 public:
  /// `gpu` stays alive with `owner` (the Python GpuSpec it came from), or is shared (a loaded
  /// file), or is an embedded spec (static): a prediction never copies a spec.
  PythonPrediction(std::shared_ptr<const GpuSpec> gpu, py::object owner, const PredictInput& input,
                   Prediction prediction, const StoredCalibration* stored)
      : gpu_(std::move(gpu)),
        owner_(std::move(owner)),
        input_(input),
        prediction_(std::move(prediction)),
        stored_(stored) {}

  py::object time_s() const {
    return prediction_.launchable ? py::object(py::float_(prediction_.time_s)) : py::none();
  }
  py::object tflops() const {
    return prediction_.launchable ? py::object(py::float_(prediction_.tflops)) : py::none();
  }
  bool launchable() const { return prediction_.launchable; }
  std::string kernel_id() const { return kernels::kernel_id(prediction_.config); }

  const nlohmann::json& document() const {
    if (!document_) {
      document_ =
          views::predict_json(views::predict_report_of(*gpu_, input_, prediction_, stored_));
    }
    return *document_;
  }
  const py::dict& dict() const {
    if (!dict_) dict_ = to_python(document()).cast<py::dict>();
    return *dict_;
  }

 private:
  std::shared_ptr<const GpuSpec> gpu_;
  py::object owner_;
  PredictInput input_;
  Prediction prediction_;
  const StoredCalibration* stored_;  // embedded: lives as long as the program
  mutable std::optional<nlohmann::json> document_;
  mutable std::optional<py::dict> dict_;
};

/// A problem without a name is named "MxNxK", as in a problems file and `rank --m --n --k`.
std::string problem_name(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

// ---- functions --------------------------------------------------------------------------------

py::object occupancy(const py::object& gpu, int threads, int registers_per_thread,
                     int shared_memory_bytes, int dynamic_shared_memory_bytes,
                     std::optional<int> carveout_percent) {
  std::optional<GpuSpec> storage;
  const GpuSpec& spec = as_spec(gpu, storage);
  KernelLaunch launch;
  launch.threads_per_block = threads;
  launch.registers_per_thread = registers_per_thread;
  launch.static_shared_memory_bytes = shared_memory_bytes;
  launch.dynamic_shared_memory_bytes = dynamic_shared_memory_bytes;
  launch.carveout_percent = carveout_percent;
  return to_python(views::occupancy_json(views::make_occupancy_report(spec, launch, std::nullopt)));
}

PythonPrediction predict_config(const py::object& gpu, const std::array<std::int64_t, 3>& problem,
                                const TileConfig& config, const std::string& raster,
                                std::optional<int> registers_per_thread, int spill_bytes_per_thread,
                                bool c_is_read, bool calibrated) {
  std::optional<GpuSpec> storage;
  const GpuSpec* found = &as_spec(gpu, storage);
  // A loaded file is shared by the prediction; otherwise the spec outlives it (embedded, or held
  // through `owner`), and the pointer does not own it.
  const std::shared_ptr<const GpuSpec> held =
      storage ? std::make_shared<const GpuSpec>(std::move(*storage))
              : std::shared_ptr<const GpuSpec>(std::shared_ptr<const GpuSpec>(), found);
  const GpuSpec& spec = *held;
  py::object owner =
      py::isinstance<GpuSpec>(gpu) ? py::reinterpret_borrow<py::object>(gpu) : py::none();
  const Candidate candidate{config, as_raster(raster), registers_per_thread,
                            spill_bytes_per_thread};
  const PredictInput input = tune::predict_input(candidate, as_problem(problem), c_is_read);
  if (const char* rule = kernels::violated_rule(input.config)) {
    throw std::invalid_argument("config " + kernels::kernel_id(input.config) +
                                " breaks a tile rule: " + rule);
  }
  const StoredCalibration* stored = calibrated ? calibration_for_gpu(spec) : nullptr;
  // The GIL stays held: one prediction takes about a microsecond, and releasing and taking it
  // back costs a tenth of that (rank, which runs long, releases it).
  Prediction p = kernels::predict(spec, input, stored ? stored->parameters : Calibration{});
  return PythonPrediction(held, std::move(owner), input, std::move(p), stored);
}

py::object rank_candidates(const py::object& gpu, const std::array<std::int64_t, 3>& problem,
                           const std::optional<std::vector<Candidate>>& candidates,
                           const std::optional<SpaceBounds>& bounds, std::size_t top,
                           double min_occupancy, int min_blocks_per_sm, bool drop_spilling,
                           bool best_raster_only, bool c_is_read, bool calibrated,
                           bool list_pruned) {
  std::optional<GpuSpec> storage;
  const GpuSpec& spec = as_spec(gpu, storage);
  if (candidates && bounds) {
    throw std::invalid_argument("rank: give candidates or bounds, not both");
  }
  tune::RankOptions options;
  bool used = false;
  options.calibration = calibration_for(spec, calibrated, &used);
  options.prune.min_occupancy = min_occupancy;
  options.prune.min_blocks_per_sm = min_blocks_per_sm;
  options.prune.drop_spilling = drop_spilling;
  options.top = top;
  options.list_pruned = list_pruned;
  options.best_raster_only = best_raster_only;
  options.c_is_read = c_is_read;
  tune::Ranking ranking;
  {
    py::gil_scoped_release release;
    if (candidates) {
      ranking = tune::rank(spec, as_problem(problem), *candidates, options);
    } else {
      const std::vector<Candidate> space =
          tune::enumerate_candidates(spec, bounds ? *bounds : SpaceBounds{});
      ranking = tune::rank(spec, as_problem(problem), space, options);
    }
  }
  if (!used) ranking.calibrated = false;
  views::RankReport report;
  report.gpu = spec;
  report.space = candidates ? "candidates" : "enumerated";
  report.problems = {{problem_name(ranking.problem), ranking.problem}};
  report.rankings = {std::move(ranking)};
  return to_python(views::rank_json(report));
}

// ---- classes ----------------------------------------------------------------------------------

/// SpaceBounds' integer lists by keyword name.
using IntList = std::vector<int> SpaceBounds::*;
const std::map<std::string, IntList>& bound_fields() {
  static const std::map<std::string, IntList> fields = {
      {"rungs", &SpaceBounds::rungs},
      {"block_tiles", &SpaceBounds::block_tiles},
      {"naive_rows", &SpaceBounds::naive_rows},
      {"naive_columns", &SpaceBounds::naive_columns},
      {"shared_tiles", &SpaceBounds::shared_tiles},
      {"k_tiles", &SpaceBounds::k_tiles},
      {"thread_tiles", &SpaceBounds::thread_tiles},
      {"warp_tiles", &SpaceBounds::warp_tiles},
      {"stages", &SpaceBounds::stages},
      {"vector_widths", &SpaceBounds::vector_widths},
      {"clusters", &SpaceBounds::clusters},
  };
  return fields;
}

std::vector<std::string> raster_names(const std::vector<gemm::RasterOrder>& rasters) {
  std::vector<std::string> names;
  names.reserve(rasters.size());
  for (const gemm::RasterOrder& r : rasters) names.push_back(gemm::to_string(r));
  return names;
}

std::vector<gemm::RasterOrder> parse_rasters(const std::vector<std::string>& names) {
  std::vector<gemm::RasterOrder> rasters;
  rasters.reserve(names.size());
  for (const std::string& name : names) rasters.push_back(as_raster(name));
  return rasters;
}

void set_bound(SpaceBounds& bounds, const std::string& name, const py::handle& value) {
  if (name == "rasters") {
    bounds.rasters = parse_rasters(value.cast<std::vector<std::string>>());
    return;
  }
  const auto it = bound_fields().find(name);
  if (it == bound_fields().end()) {
    throw py::type_error("SpaceBounds: unknown field '" + name + "'");
  }
  bounds.*(it->second) = value.cast<std::vector<int>>();
}

void bind_specs(py::module_& m) {
  py::class_<SmLimits>(m, "SmLimits", "Per-SM resource limits (units in the names).")
      .def_readonly("warp_size", &SmLimits::warp_size)
      .def_readonly("max_threads_per_sm", &SmLimits::max_threads_per_sm)
      .def_readonly("max_threads_per_block", &SmLimits::max_threads_per_block)
      .def_readonly("max_blocks_per_sm", &SmLimits::max_blocks_per_sm)
      .def_readonly("registers_per_sm", &SmLimits::registers_per_sm)
      .def_readonly("max_registers_per_block", &SmLimits::max_registers_per_block)
      .def_readonly("max_registers_per_thread", &SmLimits::max_registers_per_thread)
      .def_readonly("register_allocation_unit", &SmLimits::register_allocation_unit)
      .def_readonly("register_file_subpartitions", &SmLimits::register_file_subpartitions)
      .def_readonly("warp_allocation_granularity", &SmLimits::warp_allocation_granularity)
      .def_readonly("shared_memory_per_sm_bytes", &SmLimits::shared_memory_per_sm_bytes)
      .def_readonly("shared_memory_carveouts_KiB", &SmLimits::shared_memory_carveouts_KiB)
      .def_readonly("shared_memory_per_block_default_bytes",
                    &SmLimits::shared_memory_per_block_default_bytes)
      .def_readonly("shared_memory_per_block_optin_bytes",
                    &SmLimits::shared_memory_per_block_optin_bytes)
      .def_readonly("reserved_shared_memory_per_block_bytes",
                    &SmLimits::reserved_shared_memory_per_block_bytes)
      .def_readonly("shared_memory_allocation_granularity_bytes",
                    &SmLimits::shared_memory_allocation_granularity_bytes)
      .def_readonly("shared_memory_banks", &SmLimits::shared_memory_banks)
      .def_readonly("shared_memory_bank_width_bytes", &SmLimits::shared_memory_bank_width_bytes)
      .def_readonly("fp32_lanes_per_sm", &SmLimits::fp32_lanes_per_sm)
      .def_property_readonly("max_warps_per_sm", &SmLimits::max_warps_per_sm);
  py::class_<ChipFigures>(m, "ChipFigures", "Whole-chip figures. GB is 1e9 bytes.")
      .def_readonly("sm_count", &ChipFigures::sm_count)
      .def_readonly("boost_clock_MHz", &ChipFigures::boost_clock_MHz)
      .def_readonly("l2_bytes", &ChipFigures::l2_bytes)
      .def_readonly("dram_bytes", &ChipFigures::dram_bytes)
      .def_readonly("dram_bw_GBps", &ChipFigures::dram_bw_GBps)
      .def_readonly("memory_bus_width_bits", &ChipFigures::memory_bus_width_bits)
      .def_readonly("memory_clock_MHz", &ChipFigures::memory_clock_MHz);
  py::class_<PeakTflops>(m, "PeakTflops", "Vendor peak rates, TFLOPS; None: no such unit.")
      .def_readonly("fp32", &PeakTflops::fp32)
      .def_readonly("fp64", &PeakTflops::fp64)
      .def_readonly("tf32_tensor_dense", &PeakTflops::tf32_tensor_dense)
      .def_readonly("fp16_tensor_dense", &PeakTflops::fp16_tensor_dense)
      .def_readonly("bf16_tensor_dense", &PeakTflops::bf16_tensor_dense)
      .def_readonly("fp8_tensor_dense", &PeakTflops::fp8_tensor_dense);
  py::class_<MeasuredCeilings>(m, "MeasuredCeilings",
                               "Ceilings measured by roofcast's microbenchmarks; None: not "
                               "measured.")
      .def_readonly("measurement_run", &MeasuredCeilings::measurement_run)
      .def_readonly("ffma_TFLOPS", &MeasuredCeilings::ffma_TFLOPS)
      .def_readonly("dram_bw_GBps", &MeasuredCeilings::dram_bw_GBps)
      .def_readonly("l2_bw_GBps", &MeasuredCeilings::l2_bw_GBps)
      .def_readonly("shared_memory_bw_GBps", &MeasuredCeilings::shared_memory_bw_GBps)
      .def_readonly("dram_latency_cycles", &MeasuredCeilings::dram_latency_cycles)
      .def_readonly("l2_latency_cycles", &MeasuredCeilings::l2_latency_cycles)
      .def_readonly("shared_memory_latency_cycles",
                    &MeasuredCeilings::shared_memory_latency_cycles);
  py::class_<GpuSpec>(m, "GpuSpec", "Validated facts about one GPU product (read-only).")
      .def_readonly("id", &GpuSpec::id)
      .def_readonly("name", &GpuSpec::name)
      .def_readonly("architecture", &GpuSpec::architecture)
      .def_property_readonly("compute_capability",
                             [](const GpuSpec& g) {
                               return py::make_tuple(g.compute_capability.major,
                                                     g.compute_capability.minor);
                             })
      .def_readonly("sm", &GpuSpec::sm)
      .def_readonly("chip", &GpuSpec::chip)
      .def_readonly("peak_TFLOPS", &GpuSpec::peak_TFLOPS)
      .def_readonly("measured", &GpuSpec::measured)
      .def_readonly("sources", &GpuSpec::sources)
      .def_readonly("origin", &GpuSpec::origin)
      .def("__repr__", [](const GpuSpec& g) {
        return "<GpuSpec " + g.id + ": " + g.name + ", " + g.origin + ">";
      });

  m.def(
      "embedded_ids",
      [] {
        std::vector<std::string> ids;
        for (const GpuSpec& g : embedded_specs()) ids.push_back(g.id);
        return ids;
      },
      "Ids of the GPU specs embedded at build time, sorted.");
  m.def(
      "spec", [](const std::string& id) -> const GpuSpec& { return embedded_spec(id); },
      py::arg("id"), py::return_value_policy::reference,
      "The embedded spec with this id; UnknownGpuError lists the known ids.");
  m.def(
      "load_spec", [](const std::string& path) { return load_spec_file(path); }, py::arg("path"),
      "Reads and validates a spec file; SpecError names the file, the field and the expectation.");
  m.def(
      "find_spec", [](const std::string& id_or_path) { return find_spec(id_or_path); },
      py::arg("id_or_path"), "An embedded id, or a path to a spec file ending in .json.");
}

void bind_configs(py::module_& m) {
  py::class_<TileConfig>(m, "TileConfig",
                         "A kernel configuration in the ladder's tile vocabulary. Fields a rung "
                         "does not use are 0; threads = 0 is replaced by the threads the tile "
                         "implies (derived_threads). TileConfig(**config_dict) rebuilds one from "
                         "the dicts that predict() and rank() return.")
      .def(
          py::init([](int rung, int bm, int bn, int bk, int tm, int tn, int wm, int wn, int threads,
                      int stages, int vector_width, int cluster, const std::string& layout) {
            TileConfig c = kernels::tile(rung, as_layout(layout), bm, bn, bk, tm, tn, wm, wn,
                                         threads, stages, vector_width, cluster);
            if (c.threads <= 0) c.threads = kernels::derived_threads(c);
            return c;
          }),
          py::kw_only(), py::arg("rung"), py::arg("bm"), py::arg("bn"), py::arg("bk") = 0,
          py::arg("tm") = 0, py::arg("tn") = 0, py::arg("wm") = 0, py::arg("wn") = 0,
          py::arg("threads") = 0, py::arg("stages") = 1, py::arg("vector_width") = 1,
          py::arg("cluster") = 1, py::arg("layout") = "plain")
      .def_readwrite("rung", &TileConfig::rung)
      .def_property(
          "layout", [](const TileConfig& c) { return std::string(gemm::to_string(c.layout)); },
          [](TileConfig& c, const std::string& layout) { c.layout = as_layout(layout); })
      .def_readwrite("bm", &TileConfig::bm)
      .def_readwrite("bn", &TileConfig::bn)
      .def_readwrite("bk", &TileConfig::bk)
      .def_readwrite("tm", &TileConfig::tm)
      .def_readwrite("tn", &TileConfig::tn)
      .def_readwrite("wm", &TileConfig::wm)
      .def_readwrite("wn", &TileConfig::wn)
      .def_readwrite("threads", &TileConfig::threads)
      .def_readwrite("stages", &TileConfig::stages)
      .def_readwrite("vector_width", &TileConfig::vector_width)
      .def_readwrite("cluster", &TileConfig::cluster)
      .def_property_readonly("kernel_id", [](const TileConfig& c) { return kernels::kernel_id(c); })
      .def_property_readonly(
          "violated_rule",
          [](const TileConfig& c) -> std::optional<std::string> {
            const char* rule = kernels::violated_rule(c);
            return rule ? std::optional<std::string>(rule) : std::nullopt;
          },
          "The first tile rule the config breaks (the kernels static_assert it), or None.")
      .def_property_readonly("shared_memory_bytes",
                             [](const TileConfig& c) { return kernels::shared_memory_bytes(c); })
      .def_property_readonly("derived_threads",
                             [](const TileConfig& c) { return kernels::derived_threads(c); })
      .def("to_dict", [](const TileConfig& c) { return to_python(gemm::config_json(c)); })
      .def_static(
          "from_id",
          [](const std::string& id) {
            std::string error;
            const std::optional<TileConfig> c = kernels::parse_kernel_id(id, &error);
            if (!c) throw std::invalid_argument("kernel id '" + id + "': " + error);
            return *c;
          },
          py::arg("id"),
          "The config a kernel id names (the ids that rank, ladder and the measurement files "
          "print); ValueError says what in the id is wrong.")
      .def(py::self == py::self)  // NOLINT(misc-redundant-expression)
      .def("__hash__",
           [](const TileConfig& c) {
             return py::hash(py::make_tuple(c.rung, static_cast<int>(c.layout), c.bm, c.bn, c.bk,
                                            c.tm, c.tn, c.wm, c.wn, c.threads, c.stages,
                                            c.vector_width, c.cluster));
           })
      .def("__repr__",
           [](const TileConfig& c) { return "<TileConfig " + kernels::kernel_id(c) + ">"; });

  py::class_<Candidate>(m, "Candidate",
                        "A tile config with the raster order it launches with; registers from "
                        "ptxas when known (None: estimated).")
      .def(py::init([](const TileConfig& config, const std::string& raster,
                       std::optional<int> registers_per_thread, int spill_bytes_per_thread) {
             return Candidate{config, as_raster(raster), registers_per_thread,
                              spill_bytes_per_thread};
           }),
           py::arg("config"), py::arg("raster") = "row_major",
           py::arg("registers_per_thread") = py::none(), py::arg("spill_bytes_per_thread") = 0)
      .def_readwrite("config", &Candidate::config)
      .def_property(
          "raster", [](const Candidate& c) { return gemm::to_string(c.raster); },
          [](Candidate& c, const std::string& raster) { c.raster = as_raster(raster); })
      .def_readwrite("registers_per_thread", &Candidate::registers_per_thread)
      .def_readwrite("spill_bytes_per_thread", &Candidate::spill_bytes_per_thread)
      .def(py::self == py::self)  // NOLINT(misc-redundant-expression)
      .def("__repr__", [](const Candidate& c) {
        return "<Candidate " + kernels::kernel_id(c.config) + " " + gemm::to_string(c.raster) + ">";
      });

  py::class_<SpaceBounds> bounds(
      m, "SpaceBounds",
      "The values each tile parameter takes in the enumerated space; keyword arguments replace "
      "the defaults, e.g. SpaceBounds(rungs=[9], k_tiles=[16]).");
  bounds.def(py::init([](const py::kwargs& kwargs) {
    SpaceBounds b;
    for (const auto& item : kwargs) set_bound(b, item.first.cast<std::string>(), item.second);
    return b;
  }));
  for (const auto& [name, member] : bound_fields()) {
    const IntList field = member;
    bounds.def_property(
        name.c_str(), [field](const SpaceBounds& b) { return b.*field; },
        [field](SpaceBounds& b, const std::vector<int>& values) { b.*field = values; });
  }
  bounds.def_property(
      "rasters", [](const SpaceBounds& b) { return raster_names(b.rasters); },
      [](SpaceBounds& b, const std::vector<std::string>& names) {
        b.rasters = parse_rasters(names);
      });

  m.def(
      "enumerate_configs",
      [](const py::object& gpu, const std::optional<SpaceBounds>& bounds) {
        std::optional<GpuSpec> storage;
        return tune::enumerate_configs(as_spec(gpu, storage), bounds ? *bounds : SpaceBounds{});
      },
      py::arg("gpu"), py::arg("bounds") = py::none(),
      "Every valid tile config of the bounds for the GPU (tile rules, compute capability, "
      "threads, shared memory, clusters), threads filled in.");
  m.def(
      "enumerate_candidates",
      [](const py::object& gpu, const std::optional<SpaceBounds>& bounds) {
        std::optional<GpuSpec> storage;
        return tune::enumerate_candidates(as_spec(gpu, storage), bounds ? *bounds : SpaceBounds{});
      },
      py::arg("gpu"), py::arg("bounds") = py::none(),
      "enumerate_configs, each rung-7..10 config once per raster order of the bounds.");
  m.def(
      "with_raster_orders",
      [](const std::vector<TileConfig>& configs, const std::optional<SpaceBounds>& bounds) {
        return tune::with_raster_orders(configs, bounds ? *bounds : SpaceBounds{});
      },
      py::arg("configs"), py::arg("bounds") = py::none());
  m.def(
      "exclusion",
      [](const py::object& gpu, const TileConfig& config) {
        std::optional<GpuSpec> storage;
        std::string detail;
        const tune::Exclusion e = tune::exclusion(as_spec(gpu, storage), config, &detail);
        return py::make_tuple(std::string(tune::to_string(e)), detail);
      },
      py::arg("gpu"), py::arg("config"),
      "(reason, detail): why the config is not in the GPU's space; ('none', '') when it is.");
}

void bind_results(py::module_& m) {
  py::class_<PythonPrediction>(
      m, "Prediction",
      "One prediction: the 'prediction' document of docs/schema.md (what `roofcast predict "
      "--json` prints), read like a dict; time_s and tflops are None when the GPU cannot run "
      "the kernel (cannot_launch_reason says why).")
      .def_property_readonly("time_s", &PythonPrediction::time_s, "Predicted seconds, or None.")
      .def_property_readonly("tflops", &PythonPrediction::tflops, "Predicted TFLOPS, or None.")
      .def_property_readonly("launchable", &PythonPrediction::launchable)
      .def_property_readonly("kernel_id", &PythonPrediction::kernel_id)
      .def("__getitem__",
           [](const PythonPrediction& p, const py::object& key) { return p.dict()[key]; })
      .def("__contains__",
           [](const PythonPrediction& p, const py::object& key) { return p.dict().contains(key); })
      .def("__iter__", [](const PythonPrediction& p) { return py::iter(p.dict()); })
      .def("__len__", [](const PythonPrediction& p) { return py::len(p.dict()); })
      .def("keys", [](const PythonPrediction& p) { return p.dict().attr("keys")(); })
      .def("values", [](const PythonPrediction& p) { return p.dict().attr("values")(); })
      .def("items", [](const PythonPrediction& p) { return p.dict().attr("items")(); })
      .def(
          "get",
          [](const PythonPrediction& p, const py::object& key, const py::object& fallback) {
            return p.dict().attr("get")(key, fallback);
          },
          py::arg("key"), py::arg("default") = py::none())
      .def(
          "to_dict", [](const PythonPrediction& p) { return to_python(p.document()); },
          "The document as a new dict.")
      .def(
          "to_json",
          [](const PythonPrediction& p, int indent) { return p.document().dump(indent); },
          py::arg("indent") = 2, "The document as JSON text, as the CLI prints it.")
      .def("__repr__", [](const PythonPrediction& p) {
        return "<Prediction " + p.kernel_id() + ": " +
               (p.launchable() ? py::repr(p.tflops()).cast<std::string>() + " TFLOPS"
                               : std::string("cannot launch")) +
               ">";
      });
}

void register_exceptions(py::module_& m) {
  py::register_exception<SpecError>(m, "SpecError", PyExc_ValueError);
  py::register_exception<UnknownGpuError>(m, "UnknownGpuError", PyExc_LookupError);
  // Registered last, so tried first: a SpecError also carries its parts as attributes; a value
  // of the wrong Python type is a TypeError (pybind11 would raise RuntimeError).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::cast_error& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const SpecError& e) {
      const py::object type = py::module_::import("roofcast._core").attr("SpecError");
      py::object error = type(e.what());
      error.attr("file") = e.file();
      error.attr("field") = e.field();
      error.attr("expectation") = e.expectation();
      PyErr_SetObject(type.ptr(), error.ptr());
    }
  });
}

}  // namespace
}  // namespace roofcast::python

PYBIND11_MODULE(_core, m) {
  using namespace roofcast::python;
  m.doc() = "roofcast's C++ model and tuner API (specs, occupancy, predict, space, rank)";
  register_exceptions(m);
  bind_specs(m);
  bind_configs(m);
  bind_results(m);
  m.def("occupancy", &occupancy, py::arg("gpu"), py::arg("threads"),
        py::arg("registers_per_thread"), py::arg("shared_memory_bytes") = 0,
        py::arg("dynamic_shared_memory_bytes") = 0, py::arg("carveout_percent") = py::none(),
        "Resident blocks per SM of a kernel (threads, registers, static and dynamic shared "
        "memory), the limits that bind, the occupancy and the headroom: the 'occupancy' "
        "document (docs/schema.md) as a dict, as `roofcast occupancy --json` prints it.");
  m.def("predict", &predict_config, py::arg("gpu"), py::arg("problem"), py::arg("config"),
        py::arg("raster") = "row_major", py::arg("registers_per_thread") = py::none(),
        py::arg("spill_bytes_per_thread") = 0, py::arg("c_is_read") = false,
        py::arg("calibrated") = true,
        "Predicted time and TFLOPS of a tile config for problem (M, N, K): a Prediction, the "
        "'prediction' document (docs/schema.md) that `roofcast predict --json` prints, with "
        "time_s, tflops, launchable and kernel_id as attributes. calibrated: the GPU's "
        "committed calibration when it has one.");
  m.def("rank", &rank_candidates, py::arg("gpu"), py::arg("problem"),
        py::arg("candidates") = py::none(), py::arg("bounds") = py::none(), py::arg("top") = 0,
        py::arg("min_occupancy") = 0.0, py::arg("min_blocks_per_sm") = 0,
        py::arg("drop_spilling") = false, py::arg("best_raster_only") = false,
        py::arg("c_is_read") = false, py::arg("calibrated") = true, py::arg("list_pruned") = false,
        "Ranks candidates (default: the enumerated space of `bounds`) for problem (M, N, K), "
        "fastest first, after pruning: the 'ranking' document (docs/schema.md) as a dict, its "
        "one problem's 'ranked' entries with candidate_index, kernel_id, raster, config, time_s, "
        "tflops and explanation (and 'pruned' when list_pruned).");
  m.attr("__version__") = ROOFCAST_VERSION;
}
