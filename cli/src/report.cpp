// roofcast report: a GPU's validation report (Markdown and SVG figures).
#include <cstddef>
#include <cstdio>
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
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/views/report_views.hpp"
#include "selection_files.hpp"

namespace roofcast::cli {

namespace {

/// gnuplot's "gnuplot 5.4 patchlevel 4", or an error saying how to install it.
std::string gnuplot_version() {
  FILE* pipe = popen("gnuplot --version 2>/dev/null", "r");
  std::string text;
  if (pipe != nullptr) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) text += buffer;
    pclose(pipe);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.rfind("gnuplot", 0) != 0) {
    throw std::runtime_error(
        "gnuplot not found: the report's figures need it (Debian: apt-get install gnuplot-nox)");
  }
  return text;
}

}  // namespace

int run_report(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast report: the validation report of a GPU, reports/<gpu>/README.md and its SVG "
      "figures (gnuplot), from the committed measurements (data/measurements/<gpu>/), the "
      "model and data/reference; a prediction-only report under a banner when the GPU has no "
      "measurement. Also rewrites selection.md when a selection measurement exists");
  add_common(desc);
  add_gpu_options(desc);
  add_root_option(desc);
  desc.add_options()(
      "out", po::value<std::string>(),
      "output folder (default: ROOT/reports/<gpu id> in a checkout, else ./reports/<gpu id>)")(
      "keep-scripts", "also write each figure's gnuplot script (data inline) beside it, FIGURE.gp")(
      "force", "overwrite files in the output folder that roofcast did not write")(
      "measurements", po::value<std::string>(),
      "a ladder run outside the repository (e.g. build/sgemm-ladder.json from scripts/main.sh) "
      "instead of data/measurements/<gpu>/sgemm-ladder.json; without --gpu, the GPU it names");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  std::optional<std::string> measurements;
  if (vm.count("measurements")) measurements = vm["measurements"].as<std::string>();
  const roofcast::GpuSpec gpu =
      measurements && !vm.count("gpu") && !vm.count("spec")
          ? roofcast::find_spec(
                roofcast::validation::load_ladder_measurement(*measurements).context.spec_id)
          : gpu_from(vm);
  const DataRoot data_root = data_root_from(vm);
  const std::filesystem::path& root = data_root.path;
  // An installed package's share folder is not written to: its report goes to ./reports/.
  const std::filesystem::path out_dir =
      vm.count("out")
          ? std::filesystem::path(vm["out"].as<std::string>())
          : (data_root.checkout ? root : std::filesystem::path(".")) / "reports" / gpu.id;
  if (vm.count("json")) {
    // The report's numbers only: no files, no figures (no gnuplot needed).
    const auto report =
        roofcast::views::make_gpu_report(gpu, root, ROOFCAST_MODEL_DIGEST, "", measurements);
    std::cout << roofcast::views::gpu_report_json(report).dump(1) << "\n";
    return 0;
  }
  const std::string version = gnuplot_version();
  const roofcast::views::GpuReport report =
      roofcast::views::make_gpu_report(gpu, root, ROOFCAST_MODEL_DIGEST, version, measurements);
  // Everything is written to a staging folder first and moved into place when complete.
  roofcast::cli::StagedFolder out(out_dir, vm.count("force") != 0U, "--out");
  const auto figures = roofcast::views::gpu_report_figures(report);
  for (std::size_t i = 0; i < figures.size(); ++i) {
    std::cerr << "[" << i + 1 << "/" << figures.size() << "] drawing " << figures[i].file << "\n";
    roofcast::cli::draw_with_gnuplot(figures[i].script, out.file(figures[i].file));
    if (vm.count("keep-scripts")) {
      const std::string script_name =
          std::filesystem::path(figures[i].file).replace_extension(".gp").string();
      if (!(std::ofstream(out.file(script_name)) << figures[i].script)) {
        throw std::runtime_error("cannot write " + script_name);
      }
    }
  }
  {
    std::ofstream md(out.file("README.md"));
    if (!(md << roofcast::views::gpu_report_markdown(report))) {
      throw std::runtime_error("cannot write " + (out_dir / "README.md").string());
    }
  }
  std::size_t figure_count = figures.size();
  if (report.selection) {
    const StoredCalibration* transferred =
        report.calibration ? nullptr : &*report.transferred_calibration;
    const auto sources = selection_sources(gpu.id, transferred);
    write_selection_report(evaluate_selection_files(gpu, sources, root, transferred), sources, out);
    figure_count += 2;
  }
  out.commit();
  const std::string md_path = (out_dir / "README.md").string();
  std::cerr << "wrote " << md_path << "\n";
  std::cout << (report.validated ? "validation" : "prediction-only") << " report of " << gpu.id
            << ": " << md_path << " and " << figure_count << " figures\n";
  return 0;
}

}  // namespace roofcast::cli
