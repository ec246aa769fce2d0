#include <cmath>
#include <limits>
#include <stdexcept>

#include "roofcast/compute_capability.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "sgemm_check.hpp"

namespace roofcast::validation {
namespace {

__device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_uniform_kernel(float* data, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t bits = splitmix64(seed * 0x100000001B3ull + static_cast<std::uint64_t>(i));
    // 24 random bits -> [0, 1) exactly representable, then [-1, 1).
    data[i] = static_cast<float>(bits >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

__global__ void fill_value_kernel(float* data, std::int64_t n, float value) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    data[i] = value;
  }
}

__global__ void abs_kernel(const float* in, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = fabsf(in[i]);
  }
}

// sums[0] += (c - ref)^2, sums[1] += ref^2, sums[2] += abs_c^2, in double.
__global__ void error_sums_kernel(const float* c, const float* ref, const float* abs_c,
                                  std::int64_t n, double* sums) {
  double diff = 0, norm = 0, abs_norm = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double d = static_cast<double>(c[i]) - static_cast<double>(ref[i]);
    diff += d * d;
    norm += static_cast<double>(ref[i]) * ref[i];
    abs_norm += static_cast<double>(abs_c[i]) * abs_c[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    diff += __shfl_down_sync(0xffffffffu, diff, offset);
    norm += __shfl_down_sync(0xffffffffu, norm, offset);
    abs_norm += __shfl_down_sync(0xffffffffu, abs_norm, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], diff);
    atomicAdd(&sums[1], norm);
    atomicAdd(&sums[2], abs_norm);
  }
}

constexpr int kFillThreads = 256;
unsigned fill_blocks(std::int64_t n) {
  const std::int64_t blocks = ceil_div(n, kFillThreads);
  return static_cast<unsigned>(blocks < 4096 ? (blocks < 1 ? 1 : blocks) : 4096);
}

template <typename T>
void grow(T** buffer, std::int64_t* capacity, std::int64_t needed) {
  if (needed <= *capacity) return;
  if (*buffer != nullptr) check_cuda(cudaFree(*buffer), "cudaFree");
  *buffer = nullptr;
  check_cuda(
      cudaMalloc(reinterpret_cast<void**>(buffer), static_cast<std::size_t>(needed) * sizeof(T)),
      "cudaMalloc (checker)");
  *capacity = needed;
}

}  // namespace

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(status));
  }
}

void fill_uniform(float* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_uniform_kernel<<<fill_blocks(n), kFillThreads, 0, stream>>>(data, n, seed);
  check_cuda(cudaGetLastError(), "fill_uniform launch");
}

void fill_nan(float* data, std::int64_t n, cudaStream_t stream) {
  fill_value_kernel<<<fill_blocks(n), kFillThreads, 0, stream>>>(
      data, n, std::numeric_limits<float>::quiet_NaN());
  check_cuda(cudaGetLastError(), "fill_nan launch");
}

cublasStatus_t cublas_sgemm(cublasHandle_t handle, const kernels::SgemmArgs& args) {
  // Row-major C (M x N) = A B is column-major C^T (N x M) = B^T A^T: pass B first.
  return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, args.n, args.m, args.k, &args.alpha, args.b,
                     args.n, args.a, args.k, &args.beta, args.c, args.n);
}

bool gpu_present(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (reason != nullptr) {
      *reason = status != cudaSuccess
                    ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status)
                    : std::string("no CUDA device");
    }
    return false;
  }
  return true;
}

SgemmChecker::SgemmChecker() {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&sums_), 3 * sizeof(double)), "cudaMalloc sums");
}

SgemmChecker::~SgemmChecker() {
  for (void* p :
       {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(c_),
        static_cast<void*>(c_ref_), static_cast<void*>(c_start_), static_cast<void*>(abs_a_),
        static_cast<void*>(abs_b_), static_cast<void*>(abs_c_), static_cast<void*>(sums_)}) {
    if (p != nullptr) cudaFree(p);
  }
  if (handle_ != nullptr) cublasDestroy(handle_);
}

void SgemmChecker::reserve(std::int64_t a_elems, std::int64_t b_elems, std::int64_t c_elems) {
  std::int64_t a_cap = a_capacity_, b_cap = b_capacity_, c_cap = c_capacity_;
  grow(&a_, &a_cap, a_elems);
  grow(&b_, &b_cap, b_elems);
  grow(&abs_a_, &a_capacity_, a_elems);
  grow(&abs_b_, &b_capacity_, b_elems);
  std::int64_t c2 = c_cap, c3 = c_cap, c4 = c_cap;
  grow(&c_, &c_cap, c_elems);
  grow(&c_ref_, &c2, c_elems);
  grow(&c_start_, &c3, c_elems);
  grow(&abs_c_, &c4, c_elems);
  c_capacity_ = c_cap;
}

CheckResult SgemmChecker::compare(const gemm::Problem& p, float alpha, float beta) {
  const std::int64_t c_elems = p.m * p.n;
  // |A| |B| for the bound.
  kernels::SgemmArgs abs_args;
  abs_args.m = static_cast<int>(p.m);
  abs_args.n = static_cast<int>(p.n);
  abs_args.k = static_cast<int>(p.k);
  abs_args.a = abs_a_;
  abs_args.b = abs_b_;
  abs_args.c = abs_c_;
  abs_args.alpha = std::fabs(alpha);
  abs_args.beta = 0.0f;
  abs_kernel<<<fill_blocks(p.m * p.k), kFillThreads>>>(a_, abs_a_, p.m * p.k);
  abs_kernel<<<fill_blocks(p.k * p.n), kFillThreads>>>(b_, abs_b_, p.k * p.n);
  check_cublas(cublas_sgemm(handle_, abs_args), "cublasSgemm |A||B|");
  // With beta != 0 the bound keeps only the GEMM term: beta * C0 is one exact-ish FMA per
  // element, far below sqrt(K) u |A||B|.
  (void)beta;
  check_cuda(cudaMemset(sums_, 0, 3 * sizeof(double)), "cudaMemset sums");
  error_sums_kernel<<<fill_blocks(c_elems), kFillThreads>>>(c_, c_ref_, abs_c_, c_elems, sums_);
  check_cuda(cudaGetLastError(), "error_sums launch");
  double sums[3] = {0, 0, 0};
  check_cuda(cudaMemcpy(sums, sums_, sizeof sums, cudaMemcpyDeviceToHost), "cudaMemcpy sums");
  CheckResult result;
  const double reference_norm = std::sqrt(sums[1]);
  result.relative_error = std::sqrt(sums[0]) / (reference_norm > 0 ? reference_norm : 1.0);
  const double unit_roundoff = std::ldexp(1.0, -24);
  result.error_bound = 4.0 * std::sqrt(static_cast<double>(p.k)) * unit_roundoff *
                       std::sqrt(sums[2]) / (reference_norm > 0 ? reference_norm : 1.0);
  // A tiny floor for K = 1-ish cases where both results are exact up to one rounding.
  result.error_bound = std::max(result.error_bound, 4.0 * unit_roundoff);
  if (result.relative_error <= result.error_bound) {  // NaN compares false
    result.outcome = Outcome::kPassed;
  } else {
    result.outcome = Outcome::kIncorrect;
    result.detail = std::isnan(result.relative_error)
                        ? "NaN in the output (an element left unwritten or a NaN computed)"
                        : "relative Frobenius error above the bound";
  }
  return result;
}

CheckResult SgemmChecker::check_kernel(std::size_t index, const gemm::Problem& p,
                                       gemm::RasterOrder raster, std::uint64_t seed,
                                       bool with_beta) {
  CheckResult result;
  if (index >= kernels::kCompiledSize ||
      (index >= kernels::kRegistrySize && !kernels::sample_kernels_compiled())) {
    result.detail = "no compiled kernel " + std::to_string(index) + " in this build";
    return result;
  }
  const kernels::TileConfig& config = kernels::compiled_config(index);
  int device = 0, major = 0, minor = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cc");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cc");
  if (ComputeCapability{major, minor}.number() < kernels::minimum_compute_capability(config)) {
    result.outcome = Outcome::kNotSupported;
    result.detail =
        "needs compute capability " + std::to_string(kernels::minimum_compute_capability(config));
    return result;
  }
  const bool raster_taken =
      raster.kind != gemm::RasterKind::kZOrder &&
      (raster.kind == gemm::RasterKind::kRowMajor || kernels::takes_raster_order(config));
  if (!raster_taken) {
    result.outcome = Outcome::kNotSupported;
    result.detail = "raster order " + gemm::to_string(raster) + " is not taken by rung " +
                    std::to_string(config.rung);
    return result;
  }
  const kernels::CompiledKernel& kernel = kernels::compiled_kernel(index);
  check_cuda(kernel.prepare(), "prepare kernel");
  reserve(p.m * p.k, p.k * p.n, p.m * p.n);
  const std::int64_t c_elems = p.m * p.n;
  fill_uniform(a_, p.m * p.k, seed * 3 + 0, nullptr);
  fill_uniform(b_, p.k * p.n, seed * 3 + 1, nullptr);

  const int runs = with_beta ? 2 : 1;
  for (int run = 0; run < runs; ++run) {
    const float alpha = run == 0 ? 1.0f : 0.75f;
    const float beta = run == 0 ? 0.0f : -0.5f;
    kernels::SgemmArgs args;
    args.m = static_cast<int>(p.m);
    args.n = static_cast<int>(p.n);
    args.k = static_cast<int>(p.k);
    args.alpha = alpha;
    args.beta = beta;
    args.a = a_;
    args.b = b_;
    if (beta == 0.0f) {
      fill_nan(c_, c_elems, nullptr);
    } else {
      fill_uniform(c_start_, c_elems, seed * 3 + 2, nullptr);
      check_cuda(cudaMemcpy(c_, c_start_, c_elems * sizeof(float), cudaMemcpyDeviceToDevice),
                 "copy C");
    }
    args.c = c_;
    const cudaError_t launched = kernel.launch(args, raster, nullptr);
    if (launched != cudaSuccess) {
      result.detail = std::string("launch: ") + cudaGetErrorString(launched);
      return result;
    }
    const cudaError_t finished = cudaDeviceSynchronize();
    if (finished != cudaSuccess) {
      result.detail = std::string("kernel: ") + cudaGetErrorString(finished);
      return result;
    }
    kernels::SgemmArgs ref = args;
    if (beta == 0.0f) {
      fill_nan(c_ref_, c_elems, nullptr);
    } else {
      check_cuda(cudaMemcpy(c_ref_, c_start_, c_elems * sizeof(float), cudaMemcpyDeviceToDevice),
                 "copy C ref");
    }
    ref.c = c_ref_;
    check_cublas(cublas_sgemm(handle_, ref), "cublasSgemm reference");
    result = compare(p, alpha, beta);
    if (result.outcome != Outcome::kPassed) {
      result.detail += run == 0 ? " (alpha=1, beta=0)" : " (alpha=0.75, beta=-0.5)";
      return result;
    }
  }
  return result;
}

}  // namespace roofcast::validation
