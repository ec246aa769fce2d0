// roofcast selection: roofcast's and three baselines' first choices against the measured best.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "output_files.hpp"
#include "roofcast/views/selection_views.hpp"
#include "selection_files.hpp"

namespace roofcast::cli {

int run_selection(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast selection: for each shape of a selection measurement (roofcast-validate "
      "--selection), the first choice of roofcast's ranking and of three baselines (highest "
      "occupancy, largest tile, Triton's former formula) against the measured best");
  add_common(desc);
  add_gpu_options(desc);
  add_root_option(desc);
  desc.add_options()(
      "measurements", po::value<std::string>(),
      "the selection JSON (default: ROOT/data/measurements/<gpu id>/sgemm-selection.json)")(
      "training", po::value<std::string>(),
      "the measurement the calibration was fitted on, to count trained cases (default: "
      "ROOT/data/measurements/<gpu id>/sgemm-ladder.json)")(
      "report", po::value<std::string>(), "write DIR/selection.md and its SVG figures (gnuplot)")(
      "force", "with --report: overwrite files in DIR that roofcast did not write")(
      "calibration-of", po::value<std::string>(),
      "rank with this other GPU's committed calibration (a GPU without its own: how the "
      "parameters carry to a GPU they were never fitted on)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const roofcast::GpuSpec gpu = gpu_from(vm);
  const roofcast::StoredCalibration* transferred = calibration_of_option(vm, gpu);
  roofcast::views::SelectionSources sources = selection_sources(gpu.id, transferred);
  // --measurements and --training are paths as given; the defaults are under the data root.
  std::filesystem::path root = ".";
  if (vm.count("measurements") && vm.count("training")) {
    sources.measurement_path = vm["measurements"].as<std::string>();
    sources.training_path = vm["training"].as<std::string>();
  } else {
    root = data_root_from(vm).path;
    if (vm.count("measurements")) {
      sources.measurement_path = std::filesystem::absolute(vm["measurements"].as<std::string>());
    }
    if (vm.count("training")) {
      sources.training_path = std::filesystem::absolute(vm["training"].as<std::string>());
    }
  }
  const SelectionReports reports = evaluate_selection_files(gpu, sources, root, transferred);
  if (vm.count("report")) {
    roofcast::cli::StagedFolder out(vm["report"].as<std::string>(), vm.count("force") != 0U,
                                    "--report");
    write_selection_report(reports, sources, out);
    out.commit();
    std::cerr << "wrote " << (out.destination() / "selection.md").string() << "\n";
  }
  const auto& estimated = reports.estimated;
  const auto& ptxas = reports.ptxas;
  if (vm.count("json")) {
    std::cout << roofcast::views::selection_json(estimated, ptxas).dump(1) << "\n";
  } else {
    std::cout << roofcast::views::selection_text(estimated, ptxas);
  }
  return 0;
}

}  // namespace roofcast::cli
