// Correctness of ladder kernels against cuBLAS, and the cuBLAS baseline itself.
// Every check draws fresh random inputs (uniform in [-1, 1], never zeros), poisons C with NaN,
// runs the kernel and cuBLAS, and compares in double precision on the device.
//
// Error bound (relative Frobenius, ||C_kernel - C_cublas||_F / ||C_cublas||_F):
//   bound = 4 * sqrt(K) * u * || |A| |B| ||_F / ||C_cublas||_F,   u = 2^-24 (FP32 unit roundoff).
// Each of the two FP32 results satisfies |c - c_exact| <= lambda * sqrt(K) * u * (|A||B|)_ij with
// high probability for lambda of a few (Higham & Mary 2019, probabilistic rounding error
// analysis: errors of independent roundings grow like sqrt(K), not K); the difference of two
// such results is within twice that: lambda = 2 each. |A||B| is computed by cuBLAS on |A|,
// |B|. For uniform random inputs the bound is about 3 * K * u relative (7e-4 at K = 4096),
// while dropping a single k term of K = 4096 gives ~1.6e-2: a wrong kernel cannot pass.
// A NaN anywhere (an unwritten poisoned element) makes the error NaN, which never passes.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/validation/outcome.hpp"

namespace roofcast::validation {

// Outcome, to_string(Outcome) and parse_outcome live in roofcast/validation/outcome.hpp, shared
// with the host-only measurement loader.

struct CheckResult {
  Outcome outcome = Outcome::kFailed;
  double relative_error = 0;  // NaN when an element was left unwritten
  double error_bound = 0;
  std::string detail;  // why, for anything but kPassed
};

/// Throws std::runtime_error naming the call when a CUDA or cuBLAS call fails.
void check_cuda(cudaError_t status, const char* what);
void check_cublas(cublasStatus_t status, const char* what);

/// Fills n floats with uniform values in [-1, 1) from (seed, index) (splitmix64).
void fill_uniform(float* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream);
/// Fills n floats with quiet NaN.
void fill_nan(float* data, std::int64_t n, cudaStream_t stream);

/// Row-major C = alpha A B + beta C through cuBLAS (default math mode, FP32, no TF32): the
/// column-major call computes C^T = B^T A^T.
cublasStatus_t cublas_sgemm(cublasHandle_t handle, const kernels::SgemmArgs& args);

/// Owns a cuBLAS handle (default math mode) and scratch buffers grown on demand.
class SgemmChecker {
 public:
  SgemmChecker();
  ~SgemmChecker();
  SgemmChecker(const SgemmChecker&) = delete;
  SgemmChecker& operator=(const SgemmChecker&) = delete;

  cublasHandle_t cublas() const { return handle_; }

  /// Checks registry kernel `index` on `problem` with alpha = 1, beta = 0 (C poisoned) and,
  /// when `with_beta`, a second run with alpha = 0.75, beta = -0.5 on a random C.
  /// kNotSupported: raster order the rung does not take, or compute capability too low.
  CheckResult check_kernel(std::size_t index, const gemm::Problem& problem,
                           gemm::RasterOrder raster, std::uint64_t seed, bool with_beta = false);

 private:
  void reserve(std::int64_t a_elems, std::int64_t b_elems, std::int64_t c_elems);
  CheckResult compare(const gemm::Problem& problem, float alpha, float beta);

  cublasHandle_t handle_ = nullptr;
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;        // the kernel's output
  float* c_ref_ = nullptr;    // cuBLAS's output
  float* c_start_ = nullptr;  // C before the call (beta != 0)
  float* abs_a_ = nullptr;
  float* abs_b_ = nullptr;
  float* abs_c_ = nullptr;  // |A||B| for the error bound
  double* sums_ = nullptr;  // device: 3 doubles
  std::int64_t a_capacity_ = 0, b_capacity_ = 0, c_capacity_ = 0;
};

/// Which device is present: false (with the reason) when there is none.
bool gpu_present(std::string* reason);

}  // namespace roofcast::validation
