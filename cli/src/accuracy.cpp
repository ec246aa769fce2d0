// roofcast accuracy: the model against a committed measurement of the GPU.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "output_files.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/validation/model_accuracy.hpp"
#include "roofcast/views/accuracy_views.hpp"

namespace roofcast::cli {

int run_accuracy(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast accuracy: the prediction model against a GPU's committed SGEMM ladder measurement "
      "(calibration on the training split, MAPE on training and held-out cases, per rung, the "
      "tile sweep's ranking, L2 hit rates against Nsight Compute)");
  add_common(desc);
  add_gpu_options(desc);
  add_root_option(desc);
  desc.add_options()(
      "measurements", po::value<std::vector<std::string>>()->multitoken(),
      "measurement JSON files of the GPU (default: ROOT/data/measurements/<gpu id>/"
      "sgemm-ladder.json and, where present, the sample's sample/sgemm-sample-*.json)")(
      "l2-model", po::value<std::string>()->default_value("roofcast"),
      "L2 model of the time model: roofcast or published")("cases", "list every case")(
      "write-calibration", po::value<std::string>(),
      "write the fitted parameters as a calibration file (data/calibration/<gpu id>.json)")(
      "force", "with --write-calibration: overwrite a file that is not a calibration")(
      "calibration-of", po::value<std::string>(),
      "predict with this other GPU's committed calibration (register model included) instead of "
      "fitting one on these measurements: how the parameters hold on a GPU they were never "
      "fitted on");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const roofcast::GpuSpec gpu = gpu_from(vm);
  const std::string l2_text = vm["l2-model"].as<std::string>();
  if (l2_text != "roofcast" && l2_text != "published") {
    throw UsageError("--l2-model must be roofcast or published, got '" + l2_text + "'");
  }
  const std::vector<std::string> paths =
      vm.count("measurements") ? vm["measurements"].as<std::vector<std::string>>()
                               : roofcast::validation::committed_measurement_paths(
                                     data_root_from(vm).path / "data" / "measurements" / gpu.id);
  std::vector<roofcast::validation::LadderMeasurement> measurements;
  for (const std::string& path : paths) {
    measurements.push_back(roofcast::validation::load_ladder_measurement(path));
    require_same_gpu(gpu, measurements.back(), path);
  }
  std::vector<const roofcast::validation::LadderMeasurement*> pointers;
  std::string joined_paths;
  // Committed files are recorded by their repository path (relative to the data root).
  const std::filesystem::path root = data_root_from(vm).path;
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    pointers.push_back(&measurements[i]);
    const std::filesystem::path relative = std::filesystem::path(paths[i]).lexically_relative(root);
    const bool inside = !relative.empty() && *relative.begin() != "..";
    joined_paths += (i > 0 ? " + " : "") + (inside ? relative.generic_string() : paths[i]);
  }
  std::optional<roofcast::Calibration> transferred;
  std::string transferred_from;
  if (const roofcast::StoredCalibration* stored = calibration_of_option(vm, gpu)) {
    transferred_from = stored->gpu_id;
    if (vm.count("write-calibration")) {
      throw UsageError("--calibration-of and --write-calibration: nothing is fitted to write");
    }
    transferred = stored->parameters;
  }
  if (vm.count("write-calibration")) {
    roofcast::cli::check_may_overwrite(vm["write-calibration"].as<std::string>(),
                                       vm.count("force") != 0U, "--write-calibration");
  }
  const auto accuracy = roofcast::validation::evaluate_model(
      gpu, pointers,
      l2_text == "roofcast" ? roofcast::L2Model::kRoofcast : roofcast::L2Model::kPublished,
      transferred, transferred_from);
  if (vm.count("write-calibration")) {
    roofcast::StoredCalibration stored;
    stored.gpu_id = gpu.id;
    stored.measurement = joined_paths;
    stored.measurement_revision = accuracy.measurement_revision;
    stored.training_split = accuracy.training_split;
    stored.training_cases = accuracy.training.cases;
    stored.held_out_cases = accuracy.held_out.cases;
    stored.training_mape_percent = accuracy.training.mape_percent;
    stored.held_out_mape_percent = accuracy.held_out.mape_percent;
    stored.parameters = accuracy.fit.calibration;
    const std::string out_path = vm["write-calibration"].as<std::string>();
    std::ofstream out(out_path);
    if (!(out << roofcast::calibration_json(stored))) {
      throw std::runtime_error("cannot write the calibration file " + out_path);
    }
    std::cerr << "wrote " << out_path << "\n";
  }
  if (vm.count("json")) {
    std::cout << roofcast::views::accuracy_json(accuracy).dump(1) << "\n";
  } else {
    std::cout << roofcast::views::accuracy_text(accuracy, vm.count("cases") != 0U);
  }
  return 0;
}

}  // namespace roofcast::cli
