// roofcast-ladder-check: every registered ladder kernel (or those whose id matches --kernels)
// against cuBLAS on fresh random inputs at sizes that exercise every edge-tile path, and every
// raster order its rung takes; optionally a quick timing at one size (--time).
//   roofcast-ladder-check [--kernels REGEX] [--headline-only] [--sizes 17,300x4096x128,...]
//                         [--rasters row_major,grouped:4] [--time [--time-size S] [--repeats R]]
// Exit codes: 0 all passed, 1 a kernel incorrect or failed, 2 usage, 77 no GPU (skipped).
#include <cuda_runtime.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <functional>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "sgemm_check.hpp"

namespace {

namespace po = boost::program_options;
using namespace roofcast;
using validation::Outcome;

constexpr int kExitSkipped = 77;

/// "17" -> 17x17x17; "300x4096x128" -> M x N x K. Throws std::invalid_argument naming the text.
gemm::Problem parse_problem(const std::string& text) {
  std::vector<long long> dims;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string part = text.substr(start, end - start);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || value < 1 || value > (1 << 20)) {
      throw std::invalid_argument("--sizes: '" + text +
                                  "' is not N or MxNxK with integers in 1..1048576");
    }
    dims.push_back(value);
    start = end + 1;
  }
  if (dims.size() == 1) return {dims[0], dims[0], dims[0]};
  if (dims.size() == 3) return {dims[0], dims[1], dims[2]};
  throw std::invalid_argument("--sizes: '" + text + "' is not N or MxNxK");
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string problem_text(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

/// Median time in ms of `repeats` launches after 3 warm-ups (one event pair per launch).
double median_ms(const std::function<void()>& launch, int repeats) {
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t start, stop;
  validation::check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  validation::check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    validation::check_cuda(cudaEventSynchronize(stop), "timed launch");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int run(const po::variables_map& options) {
  const std::regex pattern(options["kernels"].as<std::string>());
  std::vector<gemm::Problem> problems;
  for (const std::string& text : split_commas(options["sizes"].as<std::string>())) {
    problems.push_back(parse_problem(text));
  }
  std::vector<gemm::RasterOrder> rasters;
  for (const std::string& text : split_commas(options["rasters"].as<std::string>())) {
    const auto raster = gemm::parse_raster_order(text);
    if (!raster || raster->kind == gemm::RasterKind::kZOrder) {
      throw std::invalid_argument("--rasters: '" + text +
                                  "' is not row_major, column_major or grouped:G");
    }
    rasters.push_back(*raster);
  }
  if (options.count("time") != 0U) parse_problem(options["time-size"].as<std::string>());
  std::string reason;
  if (!validation::gpu_present(&reason)) {
    std::printf("SKIPPED: no GPU (%s)\n", reason.c_str());
    return kExitSkipped;
  }
  cudaDeviceProp props{};
  validation::check_cuda(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  std::printf("device: %s (cc %d.%d, %d SMs)\n", props.name, props.major, props.minor,
              props.multiProcessorCount);

  validation::SgemmChecker checker;
  int failures = 0, checks = 0, selected = 0;
  std::uint64_t seed = options["seed"].as<unsigned long long>();
  std::vector<std::size_t> passed_kernels;
  for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
    const kernels::TileConfig& config = kernels::kRegistry[i].config;
    const std::string id = kernels::kernel_id(config);
    if (!std::regex_search(id, pattern)) continue;
    if (options.count("headline-only") != 0U &&
        kernels::kRegistry[i].role != kernels::Role::kLadder) {
      continue;
    }
    ++selected;
    bool all_passed = true;
    for (std::size_t p = 0; p < problems.size(); ++p) {
      for (const gemm::RasterOrder& raster : rasters) {
        if (!kernels::takes_raster_order(config) && raster.kind != gemm::RasterKind::kRowMajor) {
          continue;
        }
        // The beta != 0 path once per kernel, at the second size.
        const bool with_beta =
            p == 1 % problems.size() && raster.kind == gemm::RasterKind::kRowMajor;
        const validation::CheckResult r =
            checker.check_kernel(i, problems[p], raster, ++seed, with_beta);
        ++checks;
        if (r.outcome == Outcome::kNotSupported) {
          std::printf("  %-58s %-16s %-14s not_supported: %s\n", id.c_str(),
                      problem_text(problems[p]).c_str(), gemm::to_string(raster).c_str(),
                      r.detail.c_str());
          continue;
        }
        if (r.outcome != Outcome::kPassed) {
          ++failures;
          all_passed = false;
          std::printf("  %-58s %-16s %-14s %s: error %.3g bound %.3g %s\n", id.c_str(),
                      problem_text(problems[p]).c_str(), gemm::to_string(raster).c_str(),
                      std::string(validation::to_string(r.outcome)).c_str(), r.relative_error,
                      r.error_bound, r.detail.c_str());
        }
      }
    }
    std::printf("[%zu/%zu] %-58s %s\n", i + 1, kernels::kRegistrySize, id.c_str(),
                all_passed ? "passed" : "FAILED");
    std::fflush(stdout);
    if (all_passed) passed_kernels.push_back(i);
  }
  std::printf("%d kernels selected, %d checks, %d failed\n", selected, checks, failures);

  if (options.count("time") != 0U) {
    const gemm::Problem p = parse_problem(options["time-size"].as<std::string>());
    const int repeats = options["repeats"].as<int>();
    float *a = nullptr, *b = nullptr, *c = nullptr;
    validation::check_cuda(cudaMalloc(&a, p.m * p.k * sizeof(float)), "cudaMalloc A");
    validation::check_cuda(cudaMalloc(&b, p.k * p.n * sizeof(float)), "cudaMalloc B");
    validation::check_cuda(cudaMalloc(&c, p.m * p.n * sizeof(float)), "cudaMalloc C");
    validation::fill_uniform(a, p.m * p.k, 11, nullptr);
    validation::fill_uniform(b, p.k * p.n, 12, nullptr);
    kernels::SgemmArgs args;
    args.m = static_cast<int>(p.m);
    args.n = static_cast<int>(p.n);
    args.k = static_cast<int>(p.k);
    args.a = a;
    args.b = b;
    args.c = c;
    const double cublas_ms = median_ms(
        [&] {
          validation::check_cublas(validation::cublas_sgemm(checker.cublas(), args), "sgemm");
        },
        repeats);
    const double cublas_tflops = p.flops() / (cublas_ms * 1e-3) / 1e12;
    std::printf("timing at %s, median of %d (no input rotation: a development number)\n",
                problem_text(p).c_str(), repeats);
    std::printf("  %-58s %-14s %9.3f ms %7.2f TFLOPS\n", "cublas", "", cublas_ms, cublas_tflops);
    for (std::size_t i : passed_kernels) {
      const kernels::TileConfig& config = kernels::kRegistry[i].config;
      const kernels::CompiledKernel& kernel = kernels::compiled_kernel(i);
      for (const gemm::RasterOrder& raster : rasters) {
        if (!kernels::takes_raster_order(config) && raster.kind != gemm::RasterKind::kRowMajor) {
          continue;
        }
        const double ms = median_ms(
            [&] { validation::check_cuda(kernel.launch(args, raster, nullptr), "launch"); },
            repeats);
        const double tflops = p.flops() / (ms * 1e-3) / 1e12;
        cudaFuncAttributes attributes{};
        cudaFuncGetAttributes(&attributes, kernel.function);
        std::printf("  %-58s %-14s %9.3f ms %7.2f TFLOPS %5.1f%% of cuBLAS  regs %d local %zu\n",
                    kernels::kernel_id(config).c_str(), gemm::to_string(raster).c_str(), ms, tflops,
                    100.0 * tflops / cublas_tflops, attributes.numRegs,
                    static_cast<std::size_t>(attributes.localSizeBytes));
        std::fflush(stdout);
      }
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description description("roofcast-ladder-check options");
  description.add_options()("help,h", "show this help")(
      "kernels", po::value<std::string>()->default_value("."),
      "regular expression over kernel ids (ECMAScript, searched)")(
      "sizes",
      po::value<std::string>()->default_value(
          "1,17,127,300,1000,17x1000x300,1000x17x127,127x300x1,300x4097x17,4097"),
      "comma-separated N (cube) or MxNxK")(
      "rasters", po::value<std::string>()->default_value("row_major,column_major,grouped:4"),
      "raster orders checked for rungs that take one")(
      "seed", po::value<unsigned long long>()->default_value(20261129), "first random seed")(
      "headline-only", "only each rung's headline (Role::kLadder) configs")(
      "time", "after checking, time each passing kernel at --time-size")(
      "time-size", po::value<std::string>()->default_value("4096"), "N or MxNxK for --time")(
      "repeats", po::value<int>()->default_value(20), "timed repeats for --time");
  po::variables_map options;
  try {
    po::store(po::parse_command_line(argc, argv, description), options);
    po::notify(options);
    if (options.count("help") != 0U) {
      std::cout << description;
      return 0;
    }
    if (options["repeats"].as<int>() < 1) throw std::invalid_argument("--repeats must be >= 1");
  } catch (const std::exception& error) {
    std::cerr << "roofcast-ladder-check: " << error.what() << "\n";
    return 2;
  }
  try {
    return run(options);
  } catch (const std::invalid_argument& error) {
    std::cerr << "roofcast-ladder-check: " << error.what() << "\n";
    return 2;
  } catch (const std::regex_error& error) {
    std::cerr << "roofcast-ladder-check: --kernels is not a valid regular expression: "
              << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "roofcast-ladder-check: " << error.what() << "\n";
    return 1;
  }
}
