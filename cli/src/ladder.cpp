// roofcast ladder: every rung's headline config predicted on every GPU (the main job).
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/views/ladder_views.hpp"

namespace roofcast::cli {

int run_ladder(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast ladder: every rung's headline SGEMM config (the kernel registry) predicted on "
      "every GPU of the database");
  add_common(desc);
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also include this spec file (repeatable)")("gpu", po::value<std::string>(),
                                                                 "only this GPU (id or spec file)")(
      "m", po::value<long long>()->default_value(4096), "rows of A and C")(
      "n", po::value<long long>()->default_value(4096), "columns of B and C")(
      "k", po::value<long long>()->default_value(4096), "the shared dimension")(
      "uncalibrated", "ignore the GPUs' committed calibrations (data/calibration)");
  add_csv(desc, "print CSV (a header row, one row per GPU and headline config) instead of text");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const Output output = output_of(vm);
  const roofcast::gemm::Problem problem = problem_from(vm);
  std::vector<roofcast::GpuSpec> gpus = database_with(vm);
  if (vm.count("gpu")) gpus = {roofcast::find_spec(vm["gpu"].as<std::string>())};
  const auto table =
      roofcast::views::make_ladder_table(gpus, problem, vm.count("uncalibrated") == 0U);
  if (output == Output::kJson) {
    std::cout << roofcast::views::ladder_table_json(table).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::ladder_table_csv(table);
  } else {
    std::cout << roofcast::views::ladder_table_text(table);
  }
  return 0;
}

}  // namespace roofcast::cli
