#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "microbench.hpp"

namespace roofcast::validation {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("microbenchmark: ") + what + ": " +
                             cudaGetErrorString(status));
  }
}

constexpr double kGB = 1e9;  // GB = 1e9 bytes
constexpr double kMiB = 1024.0 * 1024.0;

// ---- kernels ------------------------------------------------------------------------------

constexpr int kFfmaThreads = 256;
constexpr int kFfmaChains = 8;   // independent FFMA chains per thread
constexpr int kFfmaUnroll = 16;  // FFMAs per chain per loop iteration

/// Each thread runs kFfmaChains independent chains x = x * a + b. With a, b only known at run
/// time the compiler cannot fold them; the final test keeps the work alive.
/// %globaltimer, nanoseconds.
__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

/// Block 0's thread 0 records (clock64, globaltimer) at its start and end: their ratio is the SM
/// clock whatever part of the work the compiler schedules between the two reads.
__global__ void __launch_bounds__(kFfmaThreads)
    ffma_kernel(int iterations, float a, float b, float* sink, long long* clocks) {
  float x[kFfmaChains];
#pragma unroll
  for (int i = 0; i < kFfmaChains; ++i) x[i] = threadIdx.x * 1e-3f + i;
  const long long start = clock64();
  const unsigned long long start_ns = global_timer_ns();
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kFfmaUnroll; ++u) {
#pragma unroll
      for (int i = 0; i < kFfmaChains; ++i) x[i] = fmaf(x[i], a, b);
    }
  }
  const long long stop = clock64();
  const unsigned long long stop_ns = global_timer_ns();
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kFfmaChains; ++i) sum += x[i];
  if (sum == -1.0f) sink[blockIdx.x] = sum;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    clocks[0] = stop - start;
    clocks[1] = static_cast<long long>(stop_ns - start_ns);
  }
}

__device__ __forceinline__ void accumulate(float4& acc, const float4& v) {
  acc.x += v.x;
  acc.y += v.y;
  acc.z += v.z;
  acc.w += v.w;
}

__device__ __forceinline__ void keep(const float4& acc, float* sink) {
  if (acc.x + acc.y + acc.z + acc.w == -12345.0f) sink[0] = acc.x;
}

constexpr int kStreamUnroll = 4;
constexpr int kStreamThreads = 512;
constexpr int kStreamBlocksPerSm = 4;  // 2048 threads per SM: registers capped at 32

/// dst = src, float4 at a time, grid-stride with kStreamUnroll loads in flight per thread.
__global__ void __launch_bounds__(kStreamThreads, kStreamBlocksPerSm)
    copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       base < n; base += kStreamUnroll * stride) {
    float4 v[kStreamUnroll];
#pragma unroll
    for (int j = 0; j < kStreamUnroll; ++j) {
      const std::int64_t i = base + j * stride;
      if (i < n) v[j] = src[i];
    }
#pragma unroll
    for (int j = 0; j < kStreamUnroll; ++j) {
      const std::int64_t i = base + j * stride;
      if (i < n) dst[i] = v[j];
    }
  }
}

/// Sums n float4; `l2_only` loads with ld.global.cg (cached in L2, not L1). `passes` times.
template <bool kL2Only>
__global__ void __launch_bounds__(kStreamThreads, kStreamBlocksPerSm)
    read_kernel(const float4* __restrict__ src, std::int64_t n, int passes, float* sink) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int pass = 0; pass < passes; ++pass) {
    for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         base < n; base += kStreamUnroll * stride) {
      float4 v[kStreamUnroll];
#pragma unroll
      for (int j = 0; j < kStreamUnroll; ++j) {
        const std::int64_t i = base + j * stride;
        v[j] = i < n ? (kL2Only ? __ldcg(src + i) : src[i]) : make_float4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < kStreamUnroll; ++j) accumulate(acc, v[j]);
    }
  }
  keep(acc, sink);
}

constexpr int kSmemThreads = 256;
constexpr int kSmemBytes = 16384;  // per block: 4 rows of 256 threads x 16 bytes
constexpr int kSmemLoadsPerIteration = 8;

__device__ __forceinline__ float4 load_shared_v4(unsigned address) {
  float4 v;
  // .volatile: ptxas must not merge or hoist the loads (the addresses repeat every iteration).
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address));
  return v;
}

/// LDS.128 in a loop: each warp reads 32 consecutive float4 (512 bytes, conflict-free).
__global__ void __launch_bounds__(kSmemThreads) shared_read_kernel(int iterations, float* sink) {
  __shared__ float4 buffer[kSmemBytes / 16];
  for (int i = threadIdx.x; i < kSmemBytes / 16; i += blockDim.x) {
    buffer[i] = make_float4(i, i + 1, i + 2, i + 3);
  }
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buffer));
  const unsigned lane_offset = threadIdx.x * 16u;
  float4 acc0 = make_float4(0, 0, 0, 0), acc1 = make_float4(0, 0, 0, 0);
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kSmemLoadsPerIteration; u += 2) {
      const unsigned row0 = (u % 4) * kSmemThreads * 16u;
      const unsigned row1 = ((u + 1) % 4) * kSmemThreads * 16u;
      accumulate(acc0, load_shared_v4(base + row0 + lane_offset));
      accumulate(acc1, load_shared_v4(base + row1 + lane_offset));
    }
  }
  accumulate(acc0, acc1);
  keep(acc0, sink);
}

/// next[line * stride_words] = next_line[line] * stride_words: a cycle through the lines.
__global__ void scatter_chain_kernel(const unsigned* next_line, unsigned lines,
                                     unsigned stride_words, unsigned* next) {
  for (unsigned line = blockIdx.x * blockDim.x + threadIdx.x; line < lines;
       line += gridDim.x * blockDim.x) {
    next[static_cast<std::size_t>(line) * stride_words] = next_line[line] * stride_words;
  }
}

/// One thread follows j = next[j] (ld.global.cg: L2, never L1) for `steps` dependent loads.
__global__ void global_chase_kernel(const unsigned* next, unsigned start, int steps,
                                    long long* cycles, unsigned* end) {
  unsigned j = start;
  const long long t0 = clock64();
#pragma unroll 4
  for (int i = 0; i < steps; ++i) j = __ldcg(next + j);
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *end = j;
}

constexpr int kSharedChaseWords = 2048;

/// One thread follows byte offsets through shared memory: per step one dependent LDS.32 and the
/// integer add that forms its address.
__global__ void shared_chase_kernel(const unsigned* next_word, int steps, long long* cycles,
                                    unsigned* end) {
  __shared__ unsigned chain[kSharedChaseWords];
  for (int i = threadIdx.x; i < kSharedChaseWords; i += blockDim.x) chain[i] = next_word[i] * 4u;
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(chain));
  unsigned offset = 0;
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(offset) : "r"(base + offset));
  }
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *end = offset;
}

__global__ void fill_kernel(float* data, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    data[i] = static_cast<float>(i % 1021) * (1.0f / 1021.0f) - 0.5f;
  }
}

// ---- host helpers -------------------------------------------------------------------------

struct Device {
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::int64_t l2_bytes = 0;
};

Device read_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  Device d;
  check(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, device), "SMs");
  check(
      cudaDeviceGetAttribute(&d.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device),
      "threads per SM");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
  d.l2_bytes = l2;
  return d;
}

/// Device memory freed on scope exit.
template <typename T>
struct DeviceBuffer {
  T* data = nullptr;
  explicit DeviceBuffer(std::size_t count) {
    check(cudaMalloc(reinterpret_cast<void**>(&data), count * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/// Blocks filling every SM once: the runtime's resident blocks per SM times the SM count, so a
/// grid-stride kernel runs in exactly one wave.
template <typename Kernel>
int one_wave(Kernel kernel, int threads, const Device& d) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return std::max(per_sm, 1) * d.sm_count;
}

/// Milliseconds of each of `runs` calls of `launch` (one event pair each), after one warm-up.
std::vector<double> time_runs(const std::function<void()>& launch, int runs) {
  launch();
  check(cudaGetLastError(), "warm-up launch");
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaGetLastError(), "launch");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "run");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return times;
}

/// Bandwidth figures of `bytes` moved per run: median (the headline) and best, GB/s.
void add_bandwidth(MicrobenchResult& result, double bytes, const std::vector<double>& times_ms) {
  const double median_ms = median_of(times_ms);
  const double best_ms = *std::min_element(times_ms.begin(), times_ms.end());
  result.values.insert(result.values.begin(), {"GBps", bytes / (median_ms * 1e-3) / kGB});
  result.values.push_back({"best_GBps", bytes / (best_ms * 1e-3) / kGB});
  result.values.push_back({"median_ms", median_ms});
  result.values.push_back({"bytes_per_run", bytes});
  result.values.push_back({"runs", static_cast<double>(times_ms.size())});
}

/// A random cyclic permutation of 0..count-1 (Sattolo): next[i] is the element after i.
std::vector<unsigned> random_cycle(unsigned count, std::uint64_t seed) {
  std::vector<unsigned> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 random(seed);
  for (unsigned i = count - 1; i > 0; --i) {
    std::uniform_int_distribution<unsigned> pick(0, i - 1);
    std::swap(order[i], order[pick(random)]);
  }
  std::vector<unsigned> next(count);
  for (unsigned i = 0; i < count; ++i) next[order[i]] = order[(i + 1) % count];
  return next;
}

MicrobenchResult ffma(const Device& d) {
  const int blocks = one_wave(ffma_kernel, kFfmaThreads, d);
  const int iterations = 20000;
  DeviceBuffer<float> sink(static_cast<std::size_t>(blocks));
  DeviceBuffer<long long> clocks(2);
  const std::vector<double> times = time_runs(
      [&] {
        ffma_kernel<<<blocks, kFfmaThreads>>>(iterations, 0.999f, 0.001f, sink.data, clocks.data);
      },
      7);
  long long block_clocks[2] = {0, 0};  // cycles, nanoseconds of the last run
  check(cudaMemcpy(block_clocks, clocks.data, sizeof block_clocks, cudaMemcpyDeviceToHost),
        "clocks");
  const double flops = 2.0 * kFfmaChains * kFfmaUnroll * static_cast<double>(iterations) *
                       static_cast<double>(blocks) * kFfmaThreads;
  const double median_ms = median_of(times);
  const double best_ms = *std::min_element(times.begin(), times.end());
  const double clock_MHz =
      block_clocks[1] > 0 ? static_cast<double>(block_clocks[0]) / block_clocks[1] * 1e3 : 0;
  MicrobenchResult r;
  r.name = "ffma";
  r.method =
      "every SM full of 256-thread blocks, 8 independent FFMA chains per thread; FLOPs = 2 per "
      "FFMA over the median of 7 event-timed runs; the clock is block 0's clock64 cycles over "
      "its %globaltimer nanoseconds";
  const double tflops = flops / (median_ms * 1e-3) / 1e12;
  r.values = {{"TFLOPS", tflops},
              {"best_TFLOPS", flops / (best_ms * 1e-3) / 1e12},
              {"median_ms", median_ms},
              {"flops_per_run", flops},
              {"sm_clock_effective_MHz", clock_MHz},
              {"flops_per_cycle_per_sm", tflops * 1e12 / (clock_MHz * 1e6) / d.sm_count},
              {"blocks", static_cast<double>(blocks)}};
  return r;
}

void dram(const Device& d, MicrobenchResult& copy, MicrobenchResult& read) {
  const std::int64_t buffer_bytes = std::int64_t{2} << 30;  // 2 GiB each
  const std::int64_t n = buffer_bytes / 16;
  DeviceBuffer<float4> src(static_cast<std::size_t>(n)), dst(static_cast<std::size_t>(n));
  DeviceBuffer<float> sink(1);
  fill_kernel<<<d.sm_count * 8, 256>>>(reinterpret_cast<float*>(src.data), n * 4);
  check(cudaGetLastError(), "fill");
  const int copy_blocks = one_wave(copy_kernel, kStreamThreads, d);
  const std::vector<double> copy_times =
      time_runs([&] { copy_kernel<<<copy_blocks, kStreamThreads>>>(src.data, dst.data, n); }, 10);
  copy.name = "dram_copy";
  copy.method =
      "copy of a 2 GiB buffer into another (float4, grid-stride, 4 loads in flight per thread); "
      "bytes read + bytes written over the median of 10 event-timed runs";
  add_bandwidth(copy, 2.0 * static_cast<double>(buffer_bytes), copy_times);
  copy.values.push_back({"blocks", static_cast<double>(copy_blocks)});
  const int read_blocks = one_wave(read_kernel<false>, kStreamThreads, d);
  const std::vector<double> read_times = time_runs(
      [&] { read_kernel<false><<<read_blocks, kStreamThreads>>>(src.data, n, 1, sink.data); }, 10);
  read.name = "dram_read";
  read.method =
      "sum of a 2 GiB buffer (float4, grid-stride, 4 loads in flight per thread); bytes read "
      "over the median of 10 event-timed runs";
  add_bandwidth(read, static_cast<double>(buffer_bytes), read_times);
  read.values.push_back({"blocks", static_cast<double>(read_blocks)});
}

MicrobenchResult l2_read(const Device& d) {
  // Well under the L2 (and under one of Hopper's two L2 partitions), far over L1.
  const std::int64_t buffer_bytes =
      std::min<std::int64_t>(std::int64_t{16} << 20, d.l2_bytes / 4 / (1 << 20) * (1 << 20));
  const std::int64_t n = buffer_bytes / 16;
  const int passes = 1000;
  DeviceBuffer<float4> buffer(static_cast<std::size_t>(n));
  DeviceBuffer<float> sink(1);
  fill_kernel<<<d.sm_count * 8, 256>>>(reinterpret_cast<float*>(buffer.data), n * 4);
  check(cudaGetLastError(), "fill");
  const int blocks = one_wave(read_kernel<true>, kStreamThreads, d);
  const std::vector<double> times = time_runs(
      [&] { read_kernel<true><<<blocks, kStreamThreads>>>(buffer.data, n, passes, sink.data); }, 7);
  MicrobenchResult r;
  r.name = "l2_read";
  r.method =
      "1000 passes over a buffer resident in L2 with ld.global.cg (L1 bypassed), float4, all SMs; "
      "bytes read over the median of 7 event-timed runs after a warm-up run";
  add_bandwidth(r, static_cast<double>(passes) * static_cast<double>(buffer_bytes), times);
  r.values.push_back({"buffer_bytes", static_cast<double>(buffer_bytes)});
  r.values.push_back({"blocks", static_cast<double>(blocks)});
  return r;
}

MicrobenchResult shared_read(const Device& d) {
  const int blocks = one_wave(shared_read_kernel, kSmemThreads, d);
  const int iterations = 5000;
  DeviceBuffer<float> sink(1);
  const std::vector<double> times =
      time_runs([&] { shared_read_kernel<<<blocks, kSmemThreads>>>(iterations, sink.data); }, 7);
  MicrobenchResult r;
  r.name = "shared_memory_read";
  r.method =
      "LDS.128 loop (inline PTX ld.volatile.shared.v4.f32, each warp 32 consecutive float4: "
      "conflict-free), 8 loads per iteration, all SMs full; bytes loaded over the median of 7 "
      "event-timed runs";
  const double bytes =
      static_cast<double>(blocks) * kSmemThreads * iterations * kSmemLoadsPerIteration * 16.0;
  add_bandwidth(r, bytes, times);
  r.values.push_back({"blocks", static_cast<double>(blocks)});
  return r;
}

/// Cycles per dependent load of a random cycle over `lines` lines of `line_bytes` in a
/// `buffer_bytes` buffer; `flush_bytes` > 0 writes that much elsewhere first (evicting L2).
double chase_global(std::int64_t buffer_bytes, unsigned line_bytes, int steps, bool warm,
                    std::int64_t flush_bytes, std::uint64_t seed) {
  const unsigned stride_words = line_bytes / 4;
  const unsigned lines = static_cast<unsigned>(buffer_bytes / line_bytes);
  const std::vector<unsigned> next_line = random_cycle(lines, seed);
  DeviceBuffer<unsigned> chain(static_cast<std::size_t>(buffer_bytes / 4));
  DeviceBuffer<unsigned> next_line_device(lines);
  check(cudaMemcpy(next_line_device.data, next_line.data(), lines * sizeof(unsigned),
                   cudaMemcpyHostToDevice),
        "chain copy");
  scatter_chain_kernel<<<1024, 256>>>(next_line_device.data, lines, stride_words, chain.data);
  check(cudaGetLastError(), "scatter chain");
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<unsigned> end(1);
  unsigned start = 0;
  if (warm) {  // one full lap brings every line into L2
    global_chase_kernel<<<1, 1>>>(chain.data, 0, static_cast<int>(lines), cycles.data, end.data);
    check(cudaGetLastError(), "warm chase");
    check(cudaMemcpy(&start, end.data, sizeof start, cudaMemcpyDeviceToHost), "chase end");
  }
  if (flush_bytes > 0) {
    DeviceBuffer<char> flush(static_cast<std::size_t>(flush_bytes));
    check(cudaMemset(flush.data, 1, static_cast<std::size_t>(flush_bytes)), "flush L2");
    check(cudaDeviceSynchronize(), "flush L2");
  }
  global_chase_kernel<<<1, 1>>>(chain.data, start, steps, cycles.data, end.data);
  check(cudaGetLastError(), "chase");
  long long total = 0;
  check(cudaMemcpy(&total, cycles.data, sizeof total, cudaMemcpyDeviceToHost), "chase cycles");
  return static_cast<double>(total) / steps;
}

MicrobenchResult l2_latency(const Device& d) {
  const std::int64_t buffer_bytes =
      std::min<std::int64_t>(std::int64_t{8} << 20, d.l2_bytes / 4 / (1 << 20) * (1 << 20));
  const int steps = 16384;
  const double cycles = chase_global(buffer_bytes, 128, steps, true, 0, 17);
  MicrobenchResult r;
  r.name = "l2_latency";
  r.method =
      "one thread chases a random cycle over the 128-byte lines of a buffer resident in L2 "
      "(after one full lap), ld.global.cg; clock64 cycles per dependent load";
  r.values = {{"cycles", cycles},
              {"buffer_bytes", static_cast<double>(buffer_bytes)},
              {"line_bytes", 128},
              {"steps", static_cast<double>(steps)}};
  return r;
}

MicrobenchResult dram_latency(const Device& d) {
  const std::int64_t buffer_bytes = std::max<std::int64_t>(
      std::int64_t{128} << 20, (2 * d.l2_bytes + (1 << 21)) / (1 << 21) * (1 << 21));
  const int steps = 8192;
  const std::int64_t flush_bytes = 4 * d.l2_bytes;
  const double cycles = chase_global(buffer_bytes, 256, steps, false, flush_bytes, 29);
  MicrobenchResult r;
  r.name = "dram_latency";
  r.method =
      "one thread chases a random cycle over the 256-byte lines of a buffer of max(128 MiB, "
      "2 x L2), after writing 4x the L2 elsewhere: every load is a line's first touch, an L2 "
      "miss (2 MiB pages, so TLB misses are included when the page walk is not cached); clock64 "
      "cycles per load";
  r.values = {{"cycles", cycles},
              {"buffer_bytes", static_cast<double>(buffer_bytes)},
              {"buffer_MiB", static_cast<double>(buffer_bytes) / kMiB},
              {"line_bytes", 256},
              {"steps", static_cast<double>(steps)}};
  return r;
}

MicrobenchResult shared_latency() {
  const std::vector<unsigned> next = random_cycle(kSharedChaseWords, 41);
  DeviceBuffer<unsigned> next_device(kSharedChaseWords);
  check(cudaMemcpy(next_device.data, next.data(), next.size() * sizeof(unsigned),
                   cudaMemcpyHostToDevice),
        "chain copy");
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<unsigned> end(1);
  const int steps = 100000;
  shared_chase_kernel<<<1, 256>>>(next_device.data, steps, cycles.data, end.data);  // warm-up
  check(cudaGetLastError(), "shared chase");
  shared_chase_kernel<<<1, 256>>>(next_device.data, steps, cycles.data, end.data);
  check(cudaGetLastError(), "shared chase");
  long long total = 0;
  check(cudaMemcpy(&total, cycles.data, sizeof total, cudaMemcpyDeviceToHost), "chase cycles");
  MicrobenchResult r;
  r.name = "shared_memory_latency";
  r.method =
      "one thread chases a random cycle of byte offsets through 8 KiB of shared memory: per step "
      "one dependent LDS.32 plus the integer add forming its address; clock64 cycles per step";
  r.values = {{"cycles", static_cast<double>(total) / steps},
              {"steps", static_cast<double>(steps)}};
  return r;
}

}  // namespace

double MicrobenchResult::value(const std::string& key) const {
  for (const auto& [name, value] : values) {
    if (name == key) return value;
  }
  throw std::out_of_range("microbenchmark " + name + " has no value '" + key + "'");
}

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median_of: no values");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

MicrobenchResults run_microbenchmarks(void (*progress)(const std::string& line)) {
  const Device d = read_device();
  MicrobenchResults out;
  auto report = [&](const MicrobenchResult& r, const char* unit) {
    out.raw.push_back(r);
    char line[160];
    std::snprintf(line, sizeof line, "microbenchmark %-22s %10.1f %s", r.name.c_str(),
                  r.values.front().second, unit);
    progress(line);
  };
  const MicrobenchResult f = ffma(d);
  report(f, "TFLOPS");
  out.ffma_TFLOPS = f.value("TFLOPS");
  MicrobenchResult copy, read;
  dram(d, copy, read);
  report(copy, "GB/s");
  report(read, "GB/s");
  out.dram_bw_GBps = copy.value("GBps");
  const MicrobenchResult l2 = l2_read(d);
  report(l2, "GB/s");
  out.l2_bw_GBps = l2.value("GBps");
  const MicrobenchResult shared = shared_read(d);
  report(shared, "GB/s");
  out.shared_memory_bw_GBps = shared.value("GBps");
  const MicrobenchResult l2_lat = l2_latency(d);
  report(l2_lat, "cycles");
  out.l2_latency_cycles = l2_lat.value("cycles");
  const MicrobenchResult dram_lat = dram_latency(d);
  report(dram_lat, "cycles");
  out.dram_latency_cycles = dram_lat.value("cycles");
  const MicrobenchResult shared_lat = shared_latency();
  report(shared_lat, "cycles");
  out.shared_memory_latency_cycles = shared_lat.value("cycles");
  return out;
}

}  // namespace roofcast::validation
