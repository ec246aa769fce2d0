// roofcast gpus: the GPU spec database as text, JSON or CSV.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/views/views.hpp"

namespace roofcast::cli {

int run_gpus(const std::vector<std::string>& args) {
  po::options_description desc("roofcast gpus: list the GPU spec database");
  add_common(desc);
  add_csv(desc, "print CSV (a header row, one row per GPU) instead of text");
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also load this spec file (repeatable)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const Output output = output_of(vm);
  const auto gpus = database_with(vm);
  if (output == Output::kJson) {
    std::cout << roofcast::views::gpus_json(gpus).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::gpus_csv(gpus);
  } else {
    std::cout << roofcast::views::gpus_text(gpus);
  }
  return 0;
}

}  // namespace roofcast::cli
