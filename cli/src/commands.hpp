// The commands of `roofcast`, one file each (cli/src/<command>.cpp). Each takes the arguments
// after the command's name, prints to stdout and stderr and returns the exit status; a usage
// mistake throws UsageError (options.hpp), bad data any other exception (run.cpp reports both).
#pragma once

#include <string>
#include <vector>

namespace roofcast::cli {

int run_gpus(const std::vector<std::string>& args);
int run_occupancy(const std::vector<std::string>& args);
int run_table(const std::vector<std::string>& args);
int run_ladder(const std::vector<std::string>& args);
int run_predict(const std::vector<std::string>& args);
int run_roofline(const std::vector<std::string>& args);
int run_accuracy(const std::vector<std::string>& args);
int run_rank(const std::vector<std::string>& args);
int run_selection(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);
int run_sample(const std::vector<std::string>& args);

}  // namespace roofcast::cli
