// roofcast roofline: a GPU's ceilings per level and its ridge points.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/views/views.hpp"

namespace roofcast::cli {

int run_roofline(const std::vector<std::string>& args) {
  po::options_description desc(
      "roofcast roofline: a GPU's roofline ceilings per level (spec, measured, in effect) and "
      "ridge points");
  add_common(desc);
  add_gpu_options(desc);
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const auto report = roofcast::views::make_roofline_report(gpu_from(vm));
  if (vm.count("json")) {
    std::cout << roofcast::views::roofline_json(report).dump(2) << "\n";
  } else {
    std::cout << roofcast::views::roofline_text(report);
  }
  return 0;
}

}  // namespace roofcast::cli
