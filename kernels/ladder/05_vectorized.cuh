// Rung 5, float4 loads with A transposed in shared memory: rung 4's outer product, but every
// global load of A and B, every shared read of a thread's fragments and every C access moves
// 16 bytes (a quarter of the load instructions). A is stored transposed, As[k][m], so the TM
// values of a thread's A fragment for one k are contiguous and load as TM / 4 float4.
// The kernel body, vectorized_block, is shared with rung 6, which only changes the shared
// layout.
//
// Tile vocabulary (registry fields this rung reads):
//   BM, BN   block tile (C rows and columns per block); BM % TM == 0, BN % TN == 0;
//   BK       K depth of one shared tile, BK % 4 == 0 (a global A float4 spans 4 k);
//   TM, TN   thread tile, both multiples of 4 (fragments are read as float4): thread t owns
//            rows tr*TM .. +TM-1 and columns tc*TN .. +TN-1 of the block tile,
//            tr = t / (BN / TN), tc = t % (BN / TN); TM * TN accumulator registers;
//   threads  = (BM / TM) * (BN / TN), a multiple of 32 in 32..1024;
//   vector_width = 4; layout plain (rung 6: padded or swizzled); stages 1, WM = WN = 0,
//   cluster 1 (unused).
// Registers: __launch_bounds__(threads, rules::tiling_min_blocks_per_sm(...)) caps registers
// per thread near rules::tiling_register_estimate (the headline: 128, two blocks per SM).
// Global loads: a float4 of A (4 consecutive k of one row) or B (4 consecutive n of one row)
// is used only when it is in range and 16-byte aligned, i.e. when K % 4 == 0 (for A) or
// N % 4 == 0 (for B) and the base pointer is 16-byte aligned. Otherwise the same kernel takes
// four predicated scalar loads, chosen by a flag that is uniform over the grid (no second
// instantiation). C is accessed the same way (N % 4 == 0).
// Shared memory (dynamic): As[BK][BM] (transposed) then Bs[BK][BN], laid out by SmemTile:
// rung 5 (plain): (BK * BM + BK * BN) * 4 bytes; rung 6: see rules::smem_row_floats.
// Edge tiles: loads past M, N or K fill 0, stores past M or N are skipped.
#pragma once

#include <cuda_runtime.h>

#include "ladder/common.cuh"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

/// One block of rungs 5-6: C[row0 .. row0 + BM) x [col0 .. col0 + BN) with float4 accesses
/// and shared tiles in layout kLayout. The caller static_asserts the tile rules.
template <gemm::SmemLayout kLayout, int kBm, int kBn, int kBk, int kTm, int kTn, int kThreads>
__device__ __forceinline__ void vectorized_block(const SgemmArgs& args) {
  using TileA = SmemTile<kLayout, kBk, kBm>;  // As[k][m] = A[row0 + m][k0 + k]
  using TileB = SmemTile<kLayout, kBk, kBn>;  // Bs[k][n] = B[k0 + k][col0 + n]
  constexpr int kV = rules::kRungs1To6VectorFloats;
  constexpr int kAVectors = kBm * kBk / kV;  // float4 per A tile: BM rows of BK / 4
  constexpr int kBVectors = kBk * kBn / kV;  // float4 per B tile: BK rows of BN / 4
  float* as = dynamic_shared_floats();
  float* bs = as + TileA::kFloats;
  const int tid = static_cast<int>(threadIdx.x);
  const int tc = tid % (kBn / kTn);
  const int tr = tid / (kBn / kTn);
  const int row0 = static_cast<int>(blockIdx.y) * kBm;
  const int col0 = static_cast<int>(blockIdx.x) * kBn;
  // Uniform over the grid: may rows be read and written as aligned float4?
  const bool a_vector = args.k % kV == 0 && is_aligned_16(args.a);
  const bool b_vector = args.n % kV == 0 && is_aligned_16(args.b);
  const bool c_vector = args.n % kV == 0 && is_aligned_16(args.c);
  const float* a_tile = args.a + static_cast<long long>(row0) * args.k;
  const float* b_tile = args.b + col0;
  float acc[kTm][kTn] = {};
  for (int k0 = 0; k0 < args.k; k0 += kBk) {
    // A: thread takes float4 e = (m, kq) = A[row0 + m][k0 + kq .. + 3] and scatters it into
    // column m of the transposed tile.
#pragma unroll
    for (int i = 0; i < ceil_div(kAVectors, kThreads); ++i) {
      const int e = tid + i * kThreads;
      if (kAVectors % kThreads == 0 || e < kAVectors) {
        const int m = e / (kBk / kV);
        const int kq = e % (kBk / kV) * kV;
        const float4 x = load4_or_zero(a_tile + static_cast<long long>(m) * args.k + k0, kq,
                                       args.k - k0, m < args.m - row0, a_vector);
        as[TileA::offset(kq + 0, m)] = x.x;
        as[TileA::offset(kq + 1, m)] = x.y;
        as[TileA::offset(kq + 2, m)] = x.z;
        as[TileA::offset(kq + 3, m)] = x.w;
      }
    }
    // B: thread takes float4 e = (k, nq) = B[k0 + k][col0 + nq .. + 3], stored as is.
#pragma unroll
    for (int i = 0; i < ceil_div(kBVectors, kThreads); ++i) {
      const int e = tid + i * kThreads;
      if (kBVectors % kThreads == 0 || e < kBVectors) {
        const int k = e / (kBn / kV);
        const int nq = e % (kBn / kV) * kV;
        *reinterpret_cast<float4*>(bs + TileB::offset(k, nq)) =
            load4_or_zero(b_tile + static_cast<long long>(k0 + k) * args.n, nq, args.n - col0,
                          k0 + k < args.k, b_vector);
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBk; ++k) {
      float a_frag[kTm];
      float b_frag[kTn];
#pragma unroll
      for (int q = 0; q < kTm / kV; ++q) {
        const float4 x = *reinterpret_cast<const float4*>(as + TileA::offset(k, tr * kTm + q * kV));
        a_frag[q * kV + 0] = x.x;
        a_frag[q * kV + 1] = x.y;
        a_frag[q * kV + 2] = x.z;
        a_frag[q * kV + 3] = x.w;
      }
#pragma unroll
      for (int q = 0; q < kTn / kV; ++q) {
        const float4 x = *reinterpret_cast<const float4*>(bs + TileB::offset(k, tc * kTn + q * kV));
        b_frag[q * kV + 0] = x.x;
        b_frag[q * kV + 1] = x.y;
        b_frag[q * kV + 2] = x.z;
        b_frag[q * kV + 3] = x.w;
      }
#pragma unroll
      for (int i = 0; i < kTm; ++i) {
#pragma unroll
        for (int j = 0; j < kTn; ++j) acc[i][j] += a_frag[i] * b_frag[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int m = row0 + tr * kTm + i;
    if (m < args.m) {
      float* c_row = args.c + static_cast<long long>(m) * args.n;
#pragma unroll
      for (int q = 0; q < kTn / kV; ++q) {
        const float4 out = make_float4(acc[i][q * kV + 0], acc[i][q * kV + 1], acc[i][q * kV + 2],
                                       acc[i][q * kV + 3]);
        store4_c(c_row, col0 + tc * kTn + q * kV, args.n, out, args.alpha, args.beta, c_vector);
      }
    }
  }
}

/// The tile rules rungs 5 and 6 share, with their reasons.
template <int kBm, int kBn, int kBk, int kTm, int kTn, int kThreads, int kVectorWidth>
__device__ __forceinline__ void check_vectorized_tile() {
  static_assert(rules::tiling_thread_tile_divides_block(kBm, kBn, kTm, kTn),
                "vectorized: the thread tile divides the block tile, BM % TM == 0 and "
                "BN % TN == 0");
  static_assert(rules::tiling_threads_match_tile(kBm, kBn, kTm, kTn, kThreads),
                "vectorized: one thread per TM x TN thread tile, threads = (BM / TM) * "
                "(BN / TN)");
  static_assert(rules::rungs_1_6_block_is_whole_warps(kThreads),
                "vectorized: threads must be a multiple of 32 in 32..1024");
  static_assert(rules::vectorized_tile_is_vector_multiple(kBk, kTm, kTn),
                "vectorized: float4 accesses need BK, TM and TN to be multiples of 4");
  static_assert(kVectorWidth == rules::kRungs1To6VectorFloats,
                "vectorized: the kernel moves float4, vector_width must be 4");
}

template <std::size_t kIndex, int kBm = compiled_config(kIndex).bm,
          int kBn = compiled_config(kIndex).bn, int kBk = compiled_config(kIndex).bk,
          int kTm = compiled_config(kIndex).tm, int kTn = compiled_config(kIndex).tn,
          int kThreads = compiled_config(kIndex).threads>
__global__ void __launch_bounds__(kThreads, rules::tiling_min_blocks_per_sm(kBm, kBn, kBk, kTm, kTn,
                                                                            kThreads))
    sgemm_vectorized(SgemmArgs args) {
  check_vectorized_tile<kBm, kBn, kBk, kTm, kTn, kThreads, compiled_config(kIndex).vector_width>();
  static_assert(compiled_config(kIndex).layout == gemm::SmemLayout::kPlain,
                "vectorized: rung 5 keeps the plain layout (padding and swizzle are rung 6)");
  vectorized_block<gemm::SmemLayout::kPlain, kBm, kBn, kBk, kTm, kTn, kThreads>(args);
}

struct VectorizedMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    return TiledKernelHost<kIndex, &sgemm_vectorized<kIndex>>::make();
  }
};

}  // namespace roofcast::kernels::ladder
