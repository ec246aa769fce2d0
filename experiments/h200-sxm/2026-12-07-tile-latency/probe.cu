// The K-tile round of a convoy block with next to no compute: what a block without prefetch waits
// per K tile for its global loads (the model's exposed wait, docs/model.md#convoys). One block of
// 128 threads per SM (120 KiB of dynamic shared memory each, so no SM takes two; the blocks'
// %smid are read back), 1..132 blocks. Each block walks K = 4096 in tiles of 64 x 8 of A (row-major
// M x K, its own 64 rows, or the same 64 rows for every block: share_a) and 8 x 64 of B (row-major
// K x N, its own 64 columns): per tile each thread loads one float4 of A and one of B (plain
// ld.global, as the ladder's rungs 4-7), stores them to shared memory, barrier, reads one value
// back, barrier. Orders: one group (both loads, then both stores) or two (A loaded and stored,
// then B loaded: rungs 5-6's order; B's address depends on A's value, which is never negative, so
// the load cannot move up). Data cold (256 MiB written first, which evicts the 60 MiB L2) or warm
// (the same launch again right after). Per case: cycles per K tile of block 0 (clock64 over the K
// loop), median of 5 launches, and the clock it ran at (clock64 over %globaltimer).
// Usage: probe OUT.json (on the device: ../2026-12-06-l2-per-sm/run.sh BIN TAG, which writes the
// context beside it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "../probe_common.cuh"

constexpr int kThreads = 128;
constexpr int kBm = 64, kBn = 64, kBk = 8;
constexpr int kK = 4096;
constexpr int kTiles = kK / kBk;
constexpr int kDynamicShared = 120 * 1024;

template <int kGroups>
__global__ void __launch_bounds__(kThreads)
    tile_rounds(const float* a, const float* b, int n, int share_a, float* sink,
                unsigned* sm_of_block, long long* cycles_ns) {
  extern __shared__ float smem[];
  float* as = smem;              // As[k][m], 8 x 64
  float* bs = smem + kBm * kBk;  // Bs[k][n], 8 x 64
  const int t = threadIdx.x;
  const int a_row = t / 2, a_col = (t % 2) * 4;    // 64 rows x 2 float4
  const int b_row = t / 16, b_col = (t % 16) * 4;  // 8 rows x 16 float4
  const float* a_block = a + static_cast<std::int64_t>(share_a ? 0 : blockIdx.x) * kBm * kK;
  const float* b_block = b + static_cast<std::int64_t>(blockIdx.x) * kBn;
  float acc = 0;
  __syncthreads();
  const long long c0 = clock64();
  const unsigned long long t0 = global_ns();
#pragma unroll 1
  for (int tile = 0; tile < kTiles; ++tile) {
    const int k0 = tile * kBk;
    const float4 va = *reinterpret_cast<const float4*>(a_block + a_row * kK + k0 + a_col);
    if constexpr (kGroups == 1) {
      const float4 vb = *reinterpret_cast<const float4*>(
          b_block + static_cast<std::int64_t>(k0 + b_row) * n + b_col);
      as[(a_col + 0) * kBm + a_row] = va.x;
      as[(a_col + 1) * kBm + a_row] = va.y;
      as[(a_col + 2) * kBm + a_row] = va.z;
      as[(a_col + 3) * kBm + a_row] = va.w;
      *reinterpret_cast<float4*>(bs + b_row * kBn + b_col) = vb;
    } else {
      as[(a_col + 0) * kBm + a_row] = va.x;
      as[(a_col + 1) * kBm + a_row] = va.y;
      as[(a_col + 2) * kBm + a_row] = va.z;
      as[(a_col + 3) * kBm + a_row] = va.w;
      const int dependence = (__float_as_int(va.x) >> 31) & 1;  // 0: the data is >= 0
      const float4 vb = *reinterpret_cast<const float4*>(
          b_block + static_cast<std::int64_t>(k0 + b_row) * n + b_col + 4 * dependence);
      *reinterpret_cast<float4*>(bs + b_row * kBn + b_col) = vb;
    }
    __syncthreads();
    acc += as[t % (kBm * kBk)] * bs[(t * 5) % (kBn * kBk)];
    __syncthreads();
  }
  const long long c1 = clock64();
  const unsigned long long t1 = global_ns();
  if (acc == 12345.678f) *sink = acc;
  if (t == 0) {
    sm_of_block[blockIdx.x] = smid();
    if (blockIdx.x == 0) {
      cycles_ns[0] = c1 - c0;
      cycles_ns[1] = static_cast<long long>(t1 - t0);
    }
  }
}

__global__ void fill(float* p, std::int64_t n, float scale) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = scale * static_cast<float>(i % 7);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
    return 2;
  }
  int sm_count = 0;
  CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int max_blocks = sm_count;
  const int n = kBn * max_blocks;
  float *a = nullptr, *b = nullptr, *flush = nullptr, *sink = nullptr;
  const std::int64_t a_floats = static_cast<std::int64_t>(kBm) * kK * max_blocks;
  const std::int64_t b_floats = static_cast<std::int64_t>(kK) * n;
  const std::int64_t flush_floats = 64ll << 20;  // 256 MiB
  CHECK(cudaMalloc(&a, a_floats * 4));
  CHECK(cudaMalloc(&b, b_floats * 4));
  CHECK(cudaMalloc(&flush, flush_floats * 4));
  CHECK(cudaMalloc(&sink, 4));
  unsigned* sm_of_block = nullptr;
  long long* cycles_ns = nullptr;
  CHECK(cudaMalloc(&sm_of_block, max_blocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&cycles_ns, 2 * sizeof(long long)));
  fill<<<1024, 256>>>(a, a_floats, 1.0f);
  fill<<<1024, 256>>>(b, b_floats, 0.5f);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFuncSetAttribute(tile_rounds<1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kDynamicShared));
  CHECK(cudaFuncSetAttribute(tile_rounds<2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kDynamicShared));
  FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::fprintf(out,
               "{\"probe\": \"tile-latency\", \"gpu\": \"%s\", \"sm_count\": %d, \"k\": %d, "
               "\"k_tile\": %d, \"tile_bytes\": %d, \"threads\": %d, \"rows\": [\n",
               prop.name, sm_count, kK, kBk, (kBm + kBn) * kBk * 4, kThreads);
  bool first = true;
  const int block_counts[] = {1, 6, 24, 66, 132};
  for (int groups : {1, 2}) {
    for (int share_a : {0, 1}) {
      for (int warm : {0, 1}) {
        for (int blocks : block_counts) {
          if (blocks > max_blocks) continue;
          std::vector<double> cycles, ns;
          std::set<unsigned> sms;
          for (int run = 0; run < 5; ++run) {
            fill<<<1024, 256>>>(flush, flush_floats, 1.0f);  // evicts A and B from the L2
            auto launch = [&] {
              if (groups == 1) {
                tile_rounds<1><<<blocks, kThreads, kDynamicShared>>>(a, b, n, share_a, sink,
                                                                     sm_of_block, cycles_ns);
              } else {
                tile_rounds<2><<<blocks, kThreads, kDynamicShared>>>(a, b, n, share_a, sink,
                                                                     sm_of_block, cycles_ns);
              }
            };
            launch();
            if (warm) launch();  // the same tiles again, now in the L2
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            long long h[2];
            CHECK(cudaMemcpy(h, cycles_ns, sizeof h, cudaMemcpyDeviceToHost));
            std::vector<unsigned> ids(blocks);
            CHECK(cudaMemcpy(ids.data(), sm_of_block, blocks * sizeof(unsigned),
                             cudaMemcpyDeviceToHost));
            sms.insert(ids.begin(), ids.end());
            cycles.push_back(static_cast<double>(h[0]) / kTiles);
            ns.push_back(static_cast<double>(h[1]) / kTiles);
          }
          std::sort(cycles.begin(), cycles.end());
          std::sort(ns.begin(), ns.end());
          const double c = cycles[cycles.size() / 2], t = ns[ns.size() / 2];
          std::fprintf(out,
                       "%s  {\"groups\": %d, \"share_a\": %s, \"data\": \"%s\", \"blocks\": %d, "
                       "\"distinct_sms\": %s, \"cycles_per_tile\": %.1f, \"ns_per_tile\": %.1f, "
                       "\"clock_MHz\": %.0f}",
                       first ? "" : ",\n", groups, share_a ? "true" : "false",
                       warm ? "warm" : "cold", blocks,
                       static_cast<int>(sms.size()) == blocks ? "true" : "false", c, t,
                       t > 0 ? 1e3 * c / t : 0.0);
          first = false;
          std::printf("groups %d share_a %d %s blocks %3d: %.0f cycles per K tile (%.0f ns)%s\n",
                      groups, share_a, warm ? "warm" : "cold", blocks, c, t,
                      static_cast<int>(sms.size()) == blocks ? "" : "  (SMs not distinct)");
          std::fflush(stdout);
        }
      }
    }
  }
  std::fprintf(out, "\n]}\n");
  std::fclose(out);
  return 0;
}
