// roofcast::cli::run: the command table, --help and --version, and the exit codes.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "roofcast/cli/cli.hpp"

namespace roofcast::cli {

namespace {

const char* const kUsage =
    "usage: roofcast <command> [options]\n"
    "commands:\n"
    "  gpus        list the GPU spec database\n"
    "  occupancy   resident blocks per SM, the limiting resource and the headroom\n"
    "  table       occupancy of representative SGEMM kernels on every GPU\n"
    "  ladder      every rung's headline SGEMM config predicted on every GPU (the main job)\n"
    "  predict     predicted time and TFLOPS of an SGEMM ladder config, with every term\n"
    "  roofline    a GPU's roofline ceilings (spec and measured) and ridge points\n"
    "  accuracy    the model against a committed measurement: fit, errors, ranking, L2\n"
    "  rank        rank a config space for a batch of problems (the tuner API)\n"
    "  selection   the selection experiment: roofcast's and three baselines' first choices\n"
    "              against the measured best config per shape\n"
    "  sample      the measured sample of the config space and its shapes, with the split\n"
    "  report      a GPU's validation report (Markdown and SVG figures) from the committed\n"
    "              measurements and the model; prediction-only for a GPU never measured\n"
    "run 'roofcast <command> --help' for a command's options; 'roofcast --version' for the "
    "version\n";

}  // namespace

int run(const std::vector<std::string>& all) {
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    (all.empty() ? std::cerr : std::cout) << kUsage;
    return all.empty() ? kExitUsage : 0;
  }
  if (all[0] == "--version") {
    std::cout << "roofcast " << ROOFCAST_VERSION << " (model sources " << ROOFCAST_MODEL_DIGEST
              << ")\n";
    return 0;
  }
  const std::string& command = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  try {
    if (command == "gpus") return run_gpus(args);
    if (command == "occupancy") return run_occupancy(args);
    if (command == "table") return run_table(args);
    if (command == "ladder") return run_ladder(args);
    if (command == "predict") return run_predict(args);
    if (command == "roofline") return run_roofline(args);
    if (command == "accuracy") return run_accuracy(args);
    if (command == "rank") return run_rank(args);
    if (command == "selection") return run_selection(args);
    if (command == "report") return run_report(args);
    if (command == "sample") return run_sample(args);
    std::cerr << "roofcast: error: unknown command '" << command << "'\n" << kUsage;
    return kExitUsage;
  } catch (const UsageError& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n"
              << "run 'roofcast " << command << " --help' for its options\n";
    return kExitUsage;
  } catch (const po::error& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n"
              << "run 'roofcast " << command << " --help' for its options\n";
    return kExitUsage;
  } catch (const roofcast::UnknownGpuError& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const roofcast::SpecError& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n";
    return kExitDataError;
  } catch (const std::exception& error) {
    std::cerr << "roofcast " << command << ": error: " << error.what() << "\n";
    return kExitDataError;
  }
}

}  // namespace roofcast::cli
