// The roofcast command line as a function: the executable's main() and the fuzzer both call it.
#pragma once

#include <string>
#include <vector>

namespace roofcast::cli {

/// Runs `roofcast ARGS...` (args without the program name): prints to stdout and stderr and
/// returns the exit status (0 success, 1 bad data, 2 bad usage). Never throws.
int run(const std::vector<std::string>& args);

}  // namespace roofcast::cli
