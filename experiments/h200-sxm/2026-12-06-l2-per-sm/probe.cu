// L2 read and write bandwidth with k SMs active: one block of kThreads threads per SM (the
// blocks' %smid are read back and must be distinct). Reads: each thread streams float4 loads with
// ld.global.cg (L1 bypassed) from a buffer resident in L2, kIlp (2, 4, 8, 16) loads in flight per
// thread. Writes (since 2026-12-07): each thread stores to the same L2-resident buffer, either
// float4 (st.global, 16 bytes a thread) or one float (4 bytes a thread: 128 bytes a warp, as a
// spill's local store), plain stores that write through L1 to L2. Per k: bytes over the median of
// 7 event-timed runs after a warm-up run, and bytes per SM cycle at the clock the kernel measured
// (clock64 cycles over %globaltimer nanoseconds of block 0).
// Usage: probe OUT.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "../probe_common.cuh"

constexpr int kThreads = 1024;

template <int kIlp>
__global__ void __launch_bounds__(kThreads)
    read_l2(const float4* __restrict__ src, std::int64_t n, int passes, float* sink,
            unsigned* sm_of_block, long long* cycles_ns) {
  const long long c0 = clock64();
  const unsigned long long t0 = global_ns();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         base < n; base += kIlp * stride) {
      float4 v[kIlp];
#pragma unroll
      for (int j = 0; j < kIlp; ++j) {
        const std::int64_t i = base + j * stride;
        v[j] = i < n ? __ldcg(src + i) : make_float4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < kIlp; ++j) acc += v[j].x + v[j].y + v[j].z + v[j].w;
    }
  }
  if (acc == 12345.678f) *sink = acc;
  if (threadIdx.x == 0) {
    sm_of_block[blockIdx.x] = smid();
    if (blockIdx.x == 0) {
      cycles_ns[0] = clock64() - c0;
      cycles_ns[1] = static_cast<long long>(global_ns() - t0);
    }
  }
}

// Writes: kWidth floats per thread per store (1 or 4), kIlp stores per loop trip.
template <int kWidth>
__global__ void __launch_bounds__(kThreads)
    write_l2(float* __restrict__ dst, std::int64_t n_floats, int passes, unsigned* sm_of_block,
             long long* cycles_ns) {
  const long long c0 = clock64();
  const unsigned long long t0 = global_ns();
  const std::int64_t n = n_floats / kWidth;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass) {
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride) {
      const float v = static_cast<float>(pass);
      if constexpr (kWidth == 4) {
        reinterpret_cast<float4*>(dst)[i] = make_float4(v, v, v, v);
      } else {
        dst[i] = v;
      }
    }
  }
  if (threadIdx.x == 0) {
    sm_of_block[blockIdx.x] = smid();
    if (blockIdx.x == 0) {
      cycles_ns[0] = clock64() - c0;
      cycles_ns[1] = static_cast<long long>(global_ns() - t0);
    }
  }
}

__global__ void fill(float* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<float>(i % 7);
}

struct Row {
  const char* mode = "read";  // read, write_float4, write_float
  int sms = 0, ilp = 0;
  double GBps = 0, clock_MHz = 0, bytes_per_cycle_per_sm = 0, median_ms = 0;
  bool distinct = false;
};

// Times launch(sms, passes) as described at the top; `bytes_per_pass` is what one pass moves.
template <typename Launch>
Row measure(const char* mode, int ilp, int sms, double bytes_per_pass, unsigned* sm_of_block,
            long long* cycles_ns, Launch launch) {
  // About 600 passes over the 8 MiB buffer with every SM active, fewer with fewer (at least 20).
  const int passes = std::max(20, 600 * sms / 132);
  std::vector<float> ms;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int run = 0; run < 8; ++run) {
    CHECK(cudaEventRecord(a));
    launch(sms, passes);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    if (run > 0) ms.push_back(t);  // the first run warms the L2
  }
  std::sort(ms.begin(), ms.end());
  Row r;
  r.mode = mode;
  r.sms = sms;
  r.ilp = ilp;
  r.median_ms = ms[ms.size() / 2];
  const double bytes = static_cast<double>(passes) * bytes_per_pass;
  r.GBps = bytes / (r.median_ms * 1e-3) / 1e9;
  long long cn[2];
  CHECK(cudaMemcpy(cn, cycles_ns, sizeof cn, cudaMemcpyDeviceToHost));
  r.clock_MHz = cn[1] > 0 ? static_cast<double>(cn[0]) / static_cast<double>(cn[1]) * 1e3 : 0;
  r.bytes_per_cycle_per_sm = r.GBps * 1e9 / (r.clock_MHz * 1e6) / sms;
  std::vector<unsigned> ids(sms);
  CHECK(cudaMemcpy(ids.data(), sm_of_block, sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
  r.distinct = std::set<unsigned>(ids.begin(), ids.end()).size() == static_cast<std::size_t>(sms);
  return r;
}

template <int kIlp>
Row measure_read(int sms, const float4* buf, std::int64_t n, float* sink, unsigned* sm_of_block,
                 long long* cycles_ns) {
  return measure("read", kIlp, sms, static_cast<double>(n) * 16.0, sm_of_block, cycles_ns,
                 [&](int blocks, int passes) {
                   read_l2<kIlp>
                       <<<blocks, kThreads>>>(buf, n, passes, sink, sm_of_block, cycles_ns);
                 });
}

template <int kWidth>
Row measure_write(int sms, float* buf, std::int64_t n_floats, unsigned* sm_of_block,
                  long long* cycles_ns) {
  return measure(
      kWidth == 4 ? "write_float4" : "write_float", 1, sms, static_cast<double>(n_floats) * 4.0,
      sm_of_block, cycles_ns, [&](int blocks, int passes) {
        write_l2<kWidth><<<blocks, kThreads>>>(buf, n_floats, passes, sm_of_block, cycles_ns);
      });
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s OUT.json [ilp-sweep]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // 8 MiB: well under the L2 and under one of Hopper's two L2 partitions, far over L1.
  const std::int64_t bytes = std::int64_t{8} << 20;
  const std::int64_t n = bytes / 16;
  float4* buf = nullptr;
  float* sink = nullptr;
  unsigned* sm_of_block = nullptr;
  long long* cycles_ns = nullptr;
  CHECK(cudaMalloc(&buf, bytes));
  CHECK(cudaMalloc(&sink, sizeof(float)));
  CHECK(cudaMalloc(&sm_of_block, prop.multiProcessorCount * sizeof(unsigned)));
  CHECK(cudaMalloc(&cycles_ns, 2 * sizeof(long long)));
  fill<<<prop.multiProcessorCount * 4, 256>>>(reinterpret_cast<float*>(buf), n * 4);
  CHECK(cudaDeviceSynchronize());
  std::vector<Row> rows;
  const int sm_count = prop.multiProcessorCount;
  std::vector<int> counts{1, 2, 4, 8, 16, 24, 33, 48, 64, 66, 99, 114, sm_count};
  auto print = [](const Row& r) {
    std::printf("%-12s sms %3d ilp %2d: %9.1f GB/s  %6.1f B/cycle/SM at %6.0f MHz  distinct %d\n",
                r.mode, r.sms, r.ilp, r.GBps, r.bytes_per_cycle_per_sm, r.clock_MHz, r.distinct);
    std::fflush(stdout);
  };
  const bool ilp_sweep = argc > 2 && std::string(argv[2]) == "ilp-sweep";
  for (int sms : counts) {
    rows.push_back(measure_read<8>(sms, buf, n, sink, sm_of_block, cycles_ns));
    print(rows.back());
    rows.push_back(
        measure_write<4>(sms, reinterpret_cast<float*>(buf), n * 4, sm_of_block, cycles_ns));
    print(rows.back());
    rows.push_back(
        measure_write<1>(sms, reinterpret_cast<float*>(buf), n * 4, sm_of_block, cycles_ns));
    print(rows.back());
  }
  if (ilp_sweep) {
    for (int sms : counts) {
      rows.push_back(measure_read<4>(sms, buf, n, sink, sm_of_block, cycles_ns));
      print(rows.back());
      rows.push_back(measure_read<16>(sms, buf, n, sink, sm_of_block, cycles_ns));
      print(rows.back());
    }
    for (int sms : {1, 8, sm_count}) {
      rows.push_back(measure_read<2>(sms, buf, n, sink, sm_of_block, cycles_ns));
      print(rows.back());
    }
  }
  FILE* f = std::fopen(argv[1], "w");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  std::fprintf(
      f, "{\n  \"kind\": \"l2_read_write_per_sm\",\n  \"device\": \"%s\",\n  \"sm_count\": %d,\n",
      prop.name, sm_count);
  std::fprintf(f, "  \"buffer_bytes\": %lld,\n  \"threads_per_block\": %d,\n  \"rows\": [\n",
               static_cast<long long>(bytes), kThreads);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::fprintf(
        f,
        "    {\"mode\": \"%s\", \"sms\": %d, \"loads_in_flight_per_thread\": %d, \"GBps\": %.1f, "
        "\"median_ms\": %.4f, \"clock_MHz\": %.1f, \"bytes_per_cycle_per_sm\": %.2f, "
        "\"blocks_on_distinct_sms\": %s}%s\n",
        r.mode, r.sms, r.ilp, r.GBps, r.median_ms, r.clock_MHz, r.bytes_per_cycle_per_sm,
        r.distinct ? "true" : "false", i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
  return 0;
}
