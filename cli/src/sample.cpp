// roofcast sample: the measured sample of the config space (tune/sample.hpp) as text, JSON or
// CSV, and the C++ include that compiles its configs (--write-include).
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "output_files.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/tune/sample.hpp"
#include "roofcast/views/sample_views.hpp"

namespace roofcast::cli {

int run_sample(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast sample: the measured sample of the config space (rungs 4-10, fixed seed, "
      "stratified by rung and tile shape) and its shapes, with the training/held-out split");
  add_common(desc);
  add_csv(desc, "print CSV (a header row, one row per config) instead of text");
  desc.add_options()("gpu", po::value<std::string>()->default_value("h200-sxm"),
                     "the GPU whose space the configs are drawn from (the GPU that measures them)")(
      "write-include", po::value<std::string>(),
      "write the configs as the C++ include that compiles them "
      "(kernels/include/roofcast/kernels/sample_configs.inc)")(
      "force", "overwrite a --write-include file roofcast did not write");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const GpuSpec& gpu = embedded_spec(vm["gpu"].as<std::string>());
  const views::SampleReport report = views::make_sample_report(gpu);
  if (vm.count("write-include")) {
    const std::string path = vm["write-include"].as<std::string>();
    check_may_overwrite(path, vm.count("force") > 0, "--write-include");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << views::sample_include(report);
    if (!out.flush()) throw std::runtime_error("--write-include: cannot write " + path);
    std::cerr << "wrote " << path << " (" << report.configs.size() << " configs)\n";
    return 0;
  }
  const Output output = output_of(vm);
  if (output == Output::kJson) {
    std::cout << views::sample_json(report).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << "kernel_id,rung,tile_shape,held_out\n";
    for (const gemm::TileConfig& c : report.configs) {
      std::cout << kernels::kernel_id(c) << "," << c.rung << ","
                << tune::to_string(tune::tile_shape(c)) << ","
                << (tune::config_held_out(c) ? "true" : "false") << "\n";
    }
  } else {
    std::cout << views::sample_text(report);
  }
  return 0;
}

}  // namespace roofcast::cli
