// The options layer shared by the commands: parsing, the common flags, and the readers of a
// GPU, a problem, a kernel id, a raster order and the data root from a command's flags.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "roofcast/calibration.hpp"
#include "roofcast/gemm.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/ladder_measurements.hpp"

namespace roofcast::cli {

namespace po = boost::program_options;

constexpr int kExitUsage = 2;
constexpr int kExitDataError = 1;

/// A command-line mistake; reported with the usage hint and exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses a command's options: every token must be an option of `desc` spelled in full (no
/// unique-prefix guessing) and no positional argument is taken; --help (-h) anywhere wins over
/// every other token, valid or not.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc);

/// --help and --json.
void add_common(po::options_description& desc);

/// What a command prints: its text, --json, or --csv (a command with a table).
enum class Output { kText, kJson, kCsv };

/// --csv, described by `what`.
void add_csv(po::options_description& desc, const char* what);

/// The output --json / --csv ask for; both at once is a usage error.
Output output_of(const po::variables_map& vm);

/// The embedded spec database plus every --spec FILE (an id already present is an error).
std::vector<GpuSpec> database_with(const po::variables_map& vm);

/// --gpu ID|FILE.json and --spec FILE (one GPU).
void add_gpu_options(po::options_description& desc);

/// The GPU of --gpu (an id or a .json file) or --spec FILE, exactly one of them.
GpuSpec gpu_from(const po::variables_map& vm);

/// "10.1%".
std::string format_percent(double value);

/// --flag's int value, within minimum..maximum (else a usage error stating the range).
int checked(const po::variables_map& vm, const char* flag, int minimum, int maximum);

/// --flag's 64-bit value, within minimum..maximum.
std::int64_t checked64(const po::variables_map& vm, const char* flag, std::int64_t minimum,
                       std::int64_t maximum);

/// --flag's value when given, else `fallback`.
int flag_or(const po::variables_map& vm, const char* flag, int minimum, int maximum, int fallback);

/// The problem of --m, --n, --k, each within 1..gemm::kMaxExtent.
gemm::Problem problem_from(const po::variables_map& vm);

/// The config of --kernel ID, an id as kernels::kernel_id writes it (rank, ladder, predict and the
/// measurement files print them), registered or not; a malformed id or one whose config breaks
/// a tile rule is a usage error that says which part or rule.
gemm::TileConfig kernel_from(const po::variables_map& vm);

/// --kernel gives the whole config: none of `flags` may be given with it.
void refuse_with_kernel(const po::variables_map& vm, std::initializer_list<const char*> flags);

/// The launch order of --raster: row_major, column_major, z_order, grouped:G as rank prints it,
/// or grouped (alias swizzle) with --group G; G within 1..2^20.
gemm::RasterOrder raster_from(const po::variables_map& vm);

/// "7,8, 9" -> {"7", "8", "9"} (spaces dropped, empty items skipped).
std::vector<std::string> split_list(const std::string& text);

/// Writes `figure` through a staging file beside it, moved into place once gnuplot succeeded.
void draw_figure_file(const std::string& script, const std::filesystem::path& figure, bool force,
                      const std::string& flag);

/// --calibration-of ID: another GPU's committed calibration (nullptr without the flag); a
/// UsageError names an id without a calibration or the GPU measured itself.
const StoredCalibration* calibration_of_option(const po::variables_map& vm, const GpuSpec& gpu);

/// A measurement is evidence about the GPU it was run on only.
void require_same_gpu(const GpuSpec& gpu, const validation::LadderMeasurement& measurement,
                      const std::string& path);

/// Where the committed data (data/measurements, data/calibration, data/reference, data/notes) is
/// read from.
struct DataRoot {
  std::filesystem::path path;  ///< the folder that holds data/
  bool checkout = false;       ///< a repository checkout (reports/ beside data/): reports go there
};

/// --root DIR.
void add_root_option(po::options_description& desc);

/// The data root, looked up in order: --root DIR; the environment variable ROOFCAST_ROOT; the
/// installed package's share folder beside the executable (PREFIX/bin/roofcast reads
/// PREFIX/share/roofcast); the checkout an executable of a build tree was built from; the
/// working directory when it holds data/. None of them: a usage error naming each place tried.
DataRoot data_root_from(const po::variables_map& vm);

}  // namespace roofcast::cli
