// Rung 9 headline variants against cuBLAS in one process: correctness against cuBLAS first
// (relative Frobenius error, poisoned C), then interleaved timing rounds (CUDA events around
// each launch, median per round) at each timing size. Output: a table on stdout and JSON at
// argv[1].
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ladder/09_cp_async.cuh"
#include "variants.cuh"

namespace {
namespace rk = roofcast::kernels;
using roofcast::gemm::RasterKind;
using roofcast::gemm::RasterOrder;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cublas status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

__global__ void fill(float* p, long long n, unsigned long long seed, float poison, int use_poison) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (use_poison) {
      p[i] = poison;
      continue;
    }
    unsigned long long x = seed * 0x100000001B3ull + i + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    p[i] = static_cast<float>(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

__global__ void err_sums(const float* c, const float* ref, long long n, double* sums) {
  double d2 = 0, r2 = 0, bad = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const double d = (double)c[i] - (double)ref[i];
    if (!isfinite(c[i])) bad += 1;
    d2 += d * d;
    r2 += (double)ref[i] * ref[i];
  }
  atomicAdd(&sums[0], d2);
  atomicAdd(&sums[1], r2);
  atomicAdd(&sums[2], bad);
}

struct Variant {
  std::string name;
  const void* fn;  // nullptr: cuBLAS
  int smem;
};

template <class G, int kOrder, int kLoop>
Variant make(const char* name) {
  const void* fn = reinterpret_cast<const void*>(&rung9_probe::variant_kernel<G, kOrder, kLoop>);
  const int smem = rk::shared_memory_bytes(G::kConfig);
  check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), name);
  return Variant{name, fn, smem};
}

constexpr std::size_t kHeadline = 59;
static_assert(rk::kRegistry[kHeadline].config.rung == 9 &&
                  rk::kRegistry[kHeadline].config.bm == 256 &&
                  rk::kRegistry[kHeadline].config.bk == 16 &&
                  rk::kRegistry[kHeadline].config.stages == 3 &&
                  rk::kRegistry[kHeadline].config.vector_width == 4,
              "registry index 59 is the rung 9 headline");

void launch(const Variant& v, cublasHandle_t h, const rk::SgemmArgs& a) {
  if (v.fn == nullptr) {
    check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, a.n, a.m, a.k, &a.alpha, a.b, a.n, a.a, a.k,
                      &a.beta, a.c, a.n),
          "cublasSgemm");
    return;
  }
  const RasterOrder raster{RasterKind::kGrouped, 8};
  const unsigned grid = ((a.m + 255) / 256) * ((a.n + 127) / 128);
  rk::SgemmArgs args = a;
  void* params[] = {&args, const_cast<RasterOrder*>(&raster)};
  check(cudaLaunchKernel(v.fn, dim3(grid), dim3(256), params, v.smem, nullptr), "launch");
}

}  // namespace

int main(int argc, char** argv) {
  const char* json_path = argc > 1 ? argv[1] : "rung9-probe.json";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  using G16 = rung9_probe::PGeometry<16, 3, 4>;
  using G16v1 = rung9_probe::PGeometry<16, 3, 1>;
  using G8s4 = rung9_probe::PGeometry<8, 4, 4>;
  using G8s4v1 = rung9_probe::PGeometry<8, 4, 1>;
  using G8s3 = rung9_probe::PGeometry<8, 3, 4>;
  (void)sizeof(G16v1);
  (void)sizeof(G8s4);
  (void)sizeof(G8s4v1);
  (void)sizeof(G8s3);
  std::vector<Variant> vs;
  {
    const void* fn = reinterpret_cast<const void*>(&rk::ladder::sgemm_cp_async<kHeadline>);
    const int smem = rk::shared_memory_bytes(rk::kRegistry[kHeadline].config);
    check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "base");
    vs.push_back(Variant{"r09 headline", fn, smem});
  }
  vs.push_back(Variant{"cublas", nullptr, 0});
#if ROUND == 1
  vs.push_back(make<G16, 1, 0>("o1 bpair"));
  vs.push_back(make<G16, 2, 0>("o2 bpair-serp"));
  vs.push_back(make<G16, 3, 0>("o3 apair-serp"));
  vs.push_back(make<G16, 4, 0>("o4 cublas-like"));
  vs.push_back(make<G16, 7, 0>("o7 8x4 j-outer"));
  vs.push_back(make<G16, 8, 0>("o8 8x2 serp"));
  vs.push_back(make<G16, 10, 0>("o10 4x2 serp"));
  vs.push_back(make<G16, 0, 1>("l1 a-ldg-after-k0"));
  vs.push_back(make<G16v1, 0, 0>("v1 o0"));
  vs.push_back(make<G16v1, 3, 0>("v1 o3"));
  vs.push_back(make<G8s4, 0, 0>("bk8 s4 o0"));
  vs.push_back(make<G8s4v1, 0, 0>("bk8 s4 v1 o0"));
  vs.push_back(make<G8s3, 0, 0>("bk8 s3 o0"));
#elif ROUND == 2
  vs.push_back(make<G16, 0, 2>("l2 bar-no-branch"));
  vs.push_back(make<G16, 0, 104>("m4 mid-bar@4"));
  vs.push_back(make<G16, 0, 108>("m8 mid-bar@8"));
  vs.push_back(make<G16, 0, 110>("m10 mid-bar@10"));
  vs.push_back(make<G16, 0, 112>("m12 mid-bar@12"));
  vs.push_back(make<G16, 0, 114>("m14 mid-bar@14"));
  vs.push_back(make<G16, 0, 115>("m15 mid-bar@15"));
  vs.push_back(make<G16, 4, 112>("m12 o4"));
  vs.push_back(make<G16, 8, 112>("m12 o8"));
  vs.push_back(make<G16, 0, 212>("e12 m12 early-A"));
  vs.push_back(make<G16, 0, 214>("e14 m14 early-A"));
#elif ROUND == 3
  // Round 3: the headline (above) now runs the k-step 12 barrier (cp_async_block_mid).
  vs.push_back(make<G16, 0, 0>("old loop (45116ec)"));
  vs.push_back(make<G16, 0, 112>("m12 probe copy"));
  vs.push_back(make<G16, 0, 2>("l2 bar-no-branch fix"));
  vs.push_back(make<G16, 0, 111>("m11 mid-bar@11"));
  vs.push_back(make<G16, 0, 310>("s10 m10 store-always"));
  vs.push_back(make<G16, 0, 312>("s12 m12 store-always"));
#endif

  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "math mode");
  const long long max_n = 8192;
  float *a, *b, *c, *ref;
  double* sums;
  check(cudaMalloc(&a, max_n * max_n * 4), "malloc");
  check(cudaMalloc(&b, max_n * max_n * 4), "malloc");
  check(cudaMalloc(&c, max_n * max_n * 4), "malloc");
  check(cudaMalloc(&ref, max_n * max_n * 4), "malloc");
  check(cudaMalloc(&sums, 3 * sizeof(double)), "malloc");

  std::FILE* js = std::fopen(json_path, "w");
  std::fprintf(js, "{\n  \"schema\": \"rung9-probe-1\",\n  \"checks\": [\n");
  // Correctness: each variant against cuBLAS, fresh inputs per size, C poisoned with NaN.
  const int check_sizes[][3] = {{4096, 4096, 4096}, {1037, 1213, 1111}, {256, 128, 16},
                                {300, 200, 32},     {512, 256, 48},     {8192, 8192, 8192}};
  bool all_ok = true, first = true;
  for (const auto& s : check_sizes) {
    const int m = s[0], n = s[1], k = s[2];
    fill<<<4096, 256>>>(a, (long long)m * k, m * 7 + 1, 0, 0);
    fill<<<4096, 256>>>(b, (long long)k * n, n * 7 + 2, 0, 0);
    rk::SgemmArgs args{m, n, k, 1.0f, a, b, 0.0f, ref};
    launch(vs[1], h, args);
    for (const auto& v : vs) {
      if (v.fn == nullptr) continue;
      fill<<<4096, 256>>>(c, (long long)m * n, 0, NAN, 1);
      args.c = c;
      launch(v, h, args);
      check(cudaMemset(sums, 0, 3 * sizeof(double)), "memset");
      err_sums<<<1024, 256>>>(c, ref, (long long)m * n, sums);
      double hs[3];
      check(cudaMemcpy(hs, sums, sizeof(hs), cudaMemcpyDeviceToHost), "copy sums");
      const double rel = std::sqrt(hs[0] / hs[1]);
      const bool ok = hs[2] == 0 && rel < 1e-5;
      all_ok = all_ok && ok;
      std::printf("check %-20s %5dx%5dx%5d rel_err %.3e nonfinite %.0f %s\n", v.name.c_str(), m, n,
                  k, rel, hs[2], ok ? "ok" : "FAIL");
      std::fprintf(
          js,
          "%s    {\"variant\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"rel_err\": %.4e, "
          "\"nonfinite\": %.0f, \"passed\": %s}",
          first ? "" : ",\n", v.name.c_str(), m, n, k, rel, hs[2], ok ? "true" : "false");
      first = false;
    }
  }
  std::fprintf(js, "\n  ],\n  \"timings\": [\n");
  cudaEvent_t ev[65];
  for (auto& e : ev) check(cudaEventCreate(&e), "event");
  first = true;
  std::vector<std::vector<double>> med(vs.size() * 2);
  const int sizes[] = {4096, 8192};
  for (int si = 0; si < 2; ++si) {
    const int nn = sizes[si];
    const int reps = nn == 4096 ? 30 : 10;
    fill<<<4096, 256>>>(a, (long long)nn * nn, 11, 0, 0);
    fill<<<4096, 256>>>(b, (long long)nn * nn, 12, 0, 0);
    rk::SgemmArgs args{nn, nn, nn, 1.0f, a, b, 0.0f, c};
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t vi = 0; vi < vs.size(); ++vi) {
        // Alternate direction per round so no variant always follows the same one.
        const std::size_t i = r % 2 == 0 ? vi : vs.size() - 1 - vi;
        const Variant& v = vs[i];
        for (int w = 0; w < 3; ++w) launch(v, h, args);
        for (int q = 0; q < reps; ++q) {
          check(cudaEventRecord(ev[2 * q]), "record");
          launch(v, h, args);
          check(cudaEventRecord(ev[2 * q + 1]), "record");
        }
        check(cudaEventSynchronize(ev[2 * reps - 1]), "sync");
        std::vector<float> ms(reps);
        for (int q = 0; q < reps; ++q) cudaEventElapsedTime(&ms[q], ev[2 * q], ev[2 * q + 1]);
        std::sort(ms.begin(), ms.end());
        const double median = ms[reps / 2];
        const double tflops = 2.0 * nn * (double)nn * nn / (median * 1e-3) / 1e12;
        med[si * vs.size() + i].push_back(tflops);
        std::fprintf(
            js,
            "%s    {\"variant\": \"%s\", \"size\": %d, \"round\": %d, \"median_ms\": %.5f, "
            "\"min_ms\": %.5f, \"max_ms\": %.5f, \"repeats\": %d, \"tflops\": %.3f}",
            first ? "" : ",\n", v.name.c_str(), nn, r, median, ms[0], ms[reps - 1], reps, tflops);
        first = false;
      }
    }
  }
  check(cudaGetLastError(), "last error");
  std::fprintf(js, "\n  ],\n  \"all_checks_passed\": %s\n}\n", all_ok ? "true" : "false");
  std::fclose(js);
  std::printf("\n%-20s %-26s %-26s\n", "variant", "4096^3 TFLOPS (rounds)",
              "8192^3 TFLOPS (rounds)");
  for (std::size_t i = 0; i < vs.size(); ++i) {
    std::printf("%-20s", vs[i].name.c_str());
    for (int si = 0; si < 2; ++si) {
      std::string cell;
      for (double t : med[si * vs.size() + i]) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f ", t);
        cell += buf;
      }
      std::printf(" %-26s", cell.c_str());
    }
    std::printf("\n");
  }
  std::printf("all checks passed: %s\n", all_ok ? "yes" : "NO");
  return all_ok ? 0 : 2;
}
