// roofcast table: occupancy of representative kernels on every GPU.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/views/views.hpp"

namespace roofcast::cli {

int run_table(const std::vector<std::string>& args) {
  po::options_description desc("roofcast table: occupancy of representative kernels per GPU");
  add_common(desc);
  add_csv(desc, "print CSV (a header row, one row per GPU and kernel) instead of text");
  desc.add_options()("spec", po::value<std::vector<std::string>>(),
                     "also include this spec file (repeatable)");
  const po::variables_map vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  const Output output = output_of(vm);
  const auto table = roofcast::views::make_occupancy_table(
      database_with(vm), roofcast::views::representative_kernels());
  if (output == Output::kJson) {
    std::cout << roofcast::views::occupancy_table_json(table).dump(2) << "\n";
  } else if (output == Output::kCsv) {
    std::cout << roofcast::views::occupancy_table_csv(table);
  } else {
    std::cout << roofcast::views::occupancy_table_text(table);
  }
  return 0;
}

}  // namespace roofcast::cli
