// Device building blocks of rungs 7-10 (warp tiling and its pipelines): the tile geometry, the
// global -> shared loads (register-staged float4 and cp.async), the shared -> register
// fragment loads, the outer-product step and the C epilogue. The tile vocabulary and the
// reasons for each constraint are in roofcast/kernels/rules_rungs_7_10.hpp.
//
// Conventions: matrices are row-major and dense (launch.hpp): A is M x K (lda = K), B is
// K x N (ldb = N), C is M x N (ldc = N). Loads outside the matrices give 0 (an edge tile's
// missing rows, columns and K tail add nothing); stores outside C are skipped.
//
// Shared memory of one stage (floats): A^T, BK rows of kLdaT = BM + 4 (A transposed so that a
// thread's A fragment is contiguous along M), then B, BK rows of BN.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/rules_rungs_7_10.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder::warp {

/// Compile-time geometry of compiled kernel kIndex (a rung-7..10 config; kernels/sample.hpp).
template <std::size_t kIndex>
struct Geometry {
  static constexpr TileConfig kConfig = compiled_config(kIndex);
  static constexpr int kBm = kConfig.bm;
  static constexpr int kBn = kConfig.bn;
  static constexpr int kBk = kConfig.bk;
  static constexpr int kTm = kConfig.tm;
  static constexpr int kTn = kConfig.tn;
  static constexpr int kWm = kConfig.wm;
  static constexpr int kWn = kConfig.wn;
  static constexpr int kThreads = kConfig.threads;
  static constexpr int kStages = kConfig.stages;
  static constexpr int kLdaT = kBm + rules::kWarpTilingPadFloatsA;  // A^T row stride, floats
  static constexpr int kAFloats = kBk * kLdaT;                      // A^T part of a stage
  static constexpr int kStageFloats = kAFloats + kBk * kBn;
  static constexpr int kWarpsN = kBn / kWn;         // warps along N
  static constexpr int kThreadRows = kWm / kTm;     // a warp's threads along M
  static constexpr int kThreadCols = kWn / kTn;     // a warp's threads along N
  static constexpr int kSubM = kTm / 4;             // 4 x 4 sub-tiles of a thread along M
  static constexpr int kSubN = kTn / 4;             // ... along N
  static constexpr int kSubRows = 4 * kThreadRows;  // rows of one warp sub-tile
  static constexpr int kSubCols = 4 * kThreadCols;  // columns of one warp sub-tile
  static constexpr int kAVectors = kBm * kBk / 4;   // float4s of an A stage
  static constexpr int kBVectors = kBk * kBn / 4;   // float4s of a B stage
  static constexpr int kAElements = kBm * kBk;
  static constexpr int kBElements = kBk * kBn;
  static constexpr int kAVectorsPerThread = ceil_div(kAVectors, kThreads);
  static constexpr int kBVectorsPerThread = ceil_div(kBVectors, kThreads);
  static constexpr int kAElementsPerThread = ceil_div(kAElements, kThreads);
  static constexpr int kBElementsPerThread = ceil_div(kBElements, kThreads);
  static constexpr int kMinBlocks = rules::min_blocks_per_sm_rungs_7_10(kConfig);
};

/// The static_asserts every rung-7..10 kernel makes: the rules of rules_rungs_7_10.hpp with
/// their reasons.
template <class G>
__device__ __forceinline__ constexpr void assert_tile_rules() {
  static_assert(rules::warp_tile_divides_block_tile(G::kBm, G::kBn, G::kWm, G::kWn),
                "the block tile must be whole warp tiles");
  static_assert(rules::thread_tile_is_float4_sub_tiles(G::kTm, G::kTn),
                "TM and TN must be multiples of 4 up to 16: fragments are read as float4");
  static_assert(rules::warp_tile_is_32_thread_tiles(G::kWm, G::kWn, G::kTm, G::kTn),
                "(WM / TM) x (WN / TN) must be the 32 threads of a warp");
  static_assert(
      rules::threads_are_the_warps_of_the_block(G::kBm, G::kBn, G::kWm, G::kWn, G::kThreads),
      "threads must be (BM / WM) * (BN / WN) warps of 32");
  static_assert(rules::bk_is_whole_chunks_of_8(G::kBk),
                "BK must be 8..32 in chunks of 8: the A load walks chunks of 8 K-columns");
  static_assert(rules::bm_is_multiple_of_32(G::kBm),
                "BM must be a multiple of 32 for conflict-free transposed A stores");
  static_assert(rules::copies_walk_regularly(G::kBm, G::kBn, G::kThreads),
                "every thread's copies must be one base address plus compile-time steps");
  static_assert(
      rules::a_vector_width_fits_the_rung(G::kConfig.rung, G::kConfig.vector_width),
      "A is loaded as float4 through registers (4) or by 4-byte cp.async (1, rungs 9-10)");
  static_assert(rules::registers_fit(G::kConfig),
                "accumulators, fragments and staging must fit the thread's registers");
  static_assert(rules::shared_memory_fits(G::kConfig),
                "the stages must fit the opt-in shared memory of one block");
}

/// The block's dynamic shared memory, 128-byte aligned (bulk copies need 16).
__device__ __forceinline__ float* shared_floats() {
  extern __shared__ __align__(128) float roofcast_warp_tiling_smem[];
  return roofcast_warp_tiling_smem;
}

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ bool aligned_16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

/// Where a block works: its C tile origin and the uniform vector-path flags.
struct BlockTile {
  int m0 = 0;  // first row of the block's C tile
  int n0 = 0;  // first column
  /// Rows of A start 16-byte aligned (K % 4 == 0 and A aligned): float4 A loads are legal.
  bool vector_a = false;
  /// Rows of B start 16-byte aligned (N % 4 == 0 and B aligned).
  bool vector_b = false;
  /// Rows of C start 16-byte aligned (N % 4 == 0 and C aligned).
  bool vector_c = false;
};

/// Tile rows and columns of the problem: ceil(M / BM), ceil(N / BN).
template <class G>
__device__ __forceinline__ int tiles_m(const SgemmArgs& args) {
  return (args.m + G::kBm - 1) / G::kBm;
}
template <class G>
__device__ __forceinline__ int tiles_n(const SgemmArgs& args) {
  return (args.n + G::kBn - 1) / G::kBn;
}

/// A block at C tile (tile_m, tile_n).
template <class G>
__device__ __forceinline__ BlockTile block_at(const SgemmArgs& args, int tile_m, int tile_n) {
  BlockTile b;
  b.m0 = tile_m * G::kBm;
  b.n0 = tile_n * G::kBn;
  b.vector_a = args.k % 4 == 0 && aligned_16(args.a);
  b.vector_b = args.n % 4 == 0 && aligned_16(args.b);
  b.vector_c = args.n % 4 == 0 && aligned_16(args.c);
  return b;
}

/// The tile of linear block `pid` under `raster` (one block per C tile).
template <class G>
__device__ __forceinline__ BlockTile block_tile(const SgemmArgs& args, gemm::RasterOrder raster,
                                                int pid) {
  const gemm::TileCoord t =
      gemm::tile_of_block(pid, tiles_m<G>(args), tiles_n<G>(args), raster.kind, raster.group);
  return block_at<G>(args, t.m, t.n);
}

/// Number of BK-deep stages along K: ceil(K / BK).
template <class G>
__device__ __forceinline__ int k_tiles(const SgemmArgs& args) {
  return (args.k + G::kBk - 1) / G::kBk;
}

/// A thread's place in the block: the offsets of its first A and B fragment chunks inside a
/// stage row (floats). Warp w sits at warp tile (w / kWarpsN, w % kWarpsN); lane l at thread
/// (l / kThreadCols, l % kThreadCols) of the warp's grid.
struct ThreadPlace {
  int a_col = 0;  // inside an A^T row: warp_m * WM + thread_row * 4
  int b_col = 0;  // inside a B row: warp_n * WN + thread_col * 4
};

template <class G>
__device__ __forceinline__ ThreadPlace thread_place() {
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  ThreadPlace p;
  p.a_col = (warp / G::kWarpsN) * G::kWm + (lane / G::kThreadCols) * 4;
  p.b_col = (warp % G::kWarpsN) * G::kWn + (lane % G::kThreadCols) * 4;
  return p;
}

// ---- How a thread's copies walk a stage ------------------------------------------------------

/// Items x = tid + i * kThreads (i = 0, 1, ...) of a stream cut into lines of kLine items: item
/// x sits at line x / kLine, offset x % kLine. When kLine divides kThreads or kThreads divides
/// kLine (rules::copies_walk_regularly), thread tid's item i sits at
/// (line0 + line_step(i), offset0 + offset_step(i)) with compile-time steps, so its addresses
/// are one per-thread base plus constants.
template <int kLine, int kThreads>
struct Walk {
  static_assert(kThreads % kLine == 0 || kLine % kThreads == 0,
                "a copy walk needs kLine | kThreads or kThreads | kLine");
  static constexpr int line_step(int i) { return i * kThreads / kLine; }
  static constexpr int offset_step(int i) { return i * kThreads % kLine; }
  __device__ __forceinline__ static int line0(int tid) { return tid / kLine; }
  __device__ __forceinline__ static int offset0(int tid) { return tid % kLine; }
};

/// Whether item i of thread tid exists when the stage has kItems items (only the last round of
/// a stage whose items are not a multiple of the threads is partial).
template <int kItems, int kThreads>
__device__ __forceinline__ bool item_exists(int tid, int i) {
  return kItems % kThreads == 0 || tid + i * kThreads < kItems;
}

// ---- Register-staged global loads (rungs 7, 8) ------------------------------------------------

/// A's float4 copies. A is fetched in chunks of 8 K-columns; inside a chunk consecutive items
/// alternate between the two float4s of a row, then walk down the rows. A warp reads 16 rows x
/// 32 bytes (whole sectors), and its transposing 4-byte stores of one component land in banks
/// (row + 4 * column) mod 32: all 32 different (row stride BM + 4, BM % 32 == 0).
template <class G>
struct AVectorCopies {
  using Rows = Walk<G::kBm, G::kThreads / 2>;  // the float4 pairs walk rows, then chunks
  static constexpr int kCopies = G::kAVectorsPerThread;
  static constexpr int row_step(int i) { return Rows::offset_step(i); }
  static constexpr int col_step(int i) { return 8 * Rows::line_step(i); }
  int row0 = 0;  // tile row of the thread's first float4
  int col0 = 0;  // tile K-column of its first float4 (a multiple of 4)
  __device__ __forceinline__ AVectorCopies() {
    const int tid = static_cast<int>(threadIdx.x);
    row0 = Rows::offset0(tid / 2);
    col0 = 8 * Rows::line0(tid / 2) + 4 * (tid % 2);
  }
};

/// B's float4 copies: consecutive items walk a B row (a warp reads 512 consecutive bytes).
template <class G>
struct BVectorCopies {
  using Cols = Walk<G::kBn / 4, G::kThreads>;
  static constexpr int kCopies = G::kBVectorsPerThread;
  static constexpr int row_step(int i) { return Cols::line_step(i); }
  static constexpr int col_step(int i) { return 4 * Cols::offset_step(i); }
  int row0 = 0;  // tile K-row of the thread's first float4
  int col0 = 0;  // tile column of its first float4
  __device__ __forceinline__ BVectorCopies() {
    const int tid = static_cast<int>(threadIdx.x);
    row0 = Cols::line0(tid);
    col0 = 4 * Cols::offset0(tid);
  }
};

/// A's part of a stage held in registers between the global load and the shared store.
template <class G>
struct AStaging {
  float4 v[G::kAVectorsPerThread];
};
/// B's part.
template <class G>
struct BStaging {
  float4 v[G::kBVectorsPerThread];
};
/// One stage of A and B held in registers.
template <class G>
struct Staging {
  AStaging<G> a;
  BStaging<G> b;
};

/// *p, or 0 when !in_range (then p is not dereferenced).
__device__ __forceinline__ float load_or_zero(const float* p, bool in_range) {
  return in_range ? __ldg(p) : 0.0f;
}

/// row[col .. col + 3] with zeros past `cols` and everywhere when !row_ok. vector: one 16-byte
/// load (rows 16-byte aligned and cols % 4 == 0, so a float4 at a column that is a multiple of
/// 4 is wholly in or out of range); otherwise four predicated 4-byte loads.
__device__ __forceinline__ float4 load4(const float* row, int col, int cols, bool row_ok,
                                        bool vector) {
  if (vector) {
    return row_ok && col < cols ? __ldg(reinterpret_cast<const float4*>(row + col))
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  float4 v;
  v.x = load_or_zero(row + col + 0, row_ok && col + 0 < cols);
  v.y = load_or_zero(row + col + 1, row_ok && col + 1 < cols);
  v.z = load_or_zero(row + col + 2, row_ok && col + 2 < cols);
  v.w = load_or_zero(row + col + 3, row_ok && col + 3 < cols);
  return v;
}

/// Loads A's part of the stage at K offset k0 into registers, zero-filled outside A. A part
/// wholly inside A with aligned rows takes unpredicated 16-byte loads; others are guarded.
template <class G>
__device__ __forceinline__ void load_a_to_registers(AStaging<G>& s, const SgemmArgs& args,
                                                    const BlockTile& tile, int k0,
                                                    const AVectorCopies<G>& ac) {
  using AC = AVectorCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  if (tile.vector_a && k0 + G::kBk <= args.k && tile.m0 + G::kBm <= args.m) {
    const float* src = args.a + static_cast<long long>(tile.m0 + ac.row0) * args.k + k0 + ac.col0;
#pragma unroll
    for (int i = 0; i < AC::kCopies; ++i) {
      if (item_exists<G::kAVectors, G::kThreads>(tid, i)) {
        s.v[i] = __ldg(
            reinterpret_cast<const float4*>(src + AC::row_step(i) * args.k + AC::col_step(i)));
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < AC::kCopies; ++i) {
      if (item_exists<G::kAVectors, G::kThreads>(tid, i)) {
        const int m = tile.m0 + ac.row0 + AC::row_step(i);
        const bool row_ok = m < args.m;
        const float* row = args.a + static_cast<long long>(row_ok ? m : 0) * args.k;
        s.v[i] = load4(row, k0 + ac.col0 + AC::col_step(i), args.k, row_ok, tile.vector_a);
      }
    }
  }
}

/// Loads B's part of the stage at K offset k0 into registers, zero-filled outside B.
template <class G>
__device__ __forceinline__ void load_b_to_registers(BStaging<G>& s, const SgemmArgs& args,
                                                    const BlockTile& tile, int k0,
                                                    const BVectorCopies<G>& bc) {
  using BC = BVectorCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  if (tile.vector_b && k0 + G::kBk <= args.k && tile.n0 + G::kBn <= args.n) {
    const float* src = args.b + static_cast<long long>(k0 + bc.row0) * args.n + tile.n0 + bc.col0;
#pragma unroll
    for (int i = 0; i < BC::kCopies; ++i) {
      if (item_exists<G::kBVectors, G::kThreads>(tid, i)) {
        s.v[i] = __ldg(
            reinterpret_cast<const float4*>(src + BC::row_step(i) * args.n + BC::col_step(i)));
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < BC::kCopies; ++i) {
      if (item_exists<G::kBVectors, G::kThreads>(tid, i)) {
        const int k = k0 + bc.row0 + BC::row_step(i);
        const bool row_ok = k < args.k;
        const float* row = args.b + static_cast<long long>(row_ok ? k : 0) * args.n;
        s.v[i] = load4(row, tile.n0 + bc.col0 + BC::col_step(i), args.n, row_ok, tile.vector_b);
      }
    }
  }
}

/// Loads the stage at K offset k0 (A and B) into registers, zero-filled outside the matrices.
template <class G>
__device__ __forceinline__ void load_stage_to_registers(Staging<G>& s, const SgemmArgs& args,
                                                        const BlockTile& tile, int k0,
                                                        const AVectorCopies<G>& ac,
                                                        const BVectorCopies<G>& bc) {
  load_a_to_registers<G>(s.a, args, tile, k0, ac);
  load_b_to_registers<G>(s.b, args, tile, k0, bc);
}

// ---- Interior blocks (rung 9) ---------------------------------------------------------------

/// Whether every stage of the block is wholly inside A and B with 16-byte aligned rows: the
/// block's C tile is inside C (m0 + BM <= M, n0 + BN <= N), K is whole stages (K % BK == 0)
/// and both operands take float4s. Such a block runs a K loop with no bounds checks: each
/// thread's copies of stage t + 1 are its copies of stage t moved by BK columns of A and BK
/// rows of B (one pointer increment per operand and stage). Rung 9 uses it; on rung 8 the
/// same loop version measured slower for BK = 8 (H200: 47.8 -> 44.7 TFLOPS at 4096^3).
template <class G>
__device__ __forceinline__ bool block_is_interior(const SgemmArgs& args, const BlockTile& tile) {
  return tile.vector_a && tile.vector_b && tile.m0 + G::kBm <= args.m &&
         tile.n0 + G::kBn <= args.n && args.k % G::kBk == 0;
}

/// The thread's first A float4 of the stage at K offset 0 (interior blocks).
template <class G>
__device__ __forceinline__ const float* interior_a_source(const SgemmArgs& args,
                                                          const BlockTile& tile,
                                                          const AVectorCopies<G>& ac) {
  return args.a + static_cast<long long>(tile.m0 + ac.row0) * args.k + ac.col0;
}

/// The thread's first B float4 of the stage at K offset 0 (interior blocks).
template <class G>
__device__ __forceinline__ const float* interior_b_source(const SgemmArgs& args,
                                                          const BlockTile& tile,
                                                          const BVectorCopies<G>& bc) {
  return args.b + static_cast<long long>(bc.row0) * args.n + tile.n0 + bc.col0;
}

/// Unpredicated float4 loads of A's part of an interior stage whose first float4 (for this
/// thread) is at `src`; A's rows are `lda` floats apart.
template <class G>
__device__ __forceinline__ void load_a_interior(AStaging<G>& s, const float* src, int lda) {
  using AC = AVectorCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < AC::kCopies; ++i) {
    if (item_exists<G::kAVectors, G::kThreads>(tid, i)) {
      s.v[i] =
          __ldg(reinterpret_cast<const float4*>(src + AC::row_step(i) * lda + AC::col_step(i)));
    }
  }
}

/// Stores staged A into `stage`, transposed: four 4-byte stores per float4.
template <class G>
__device__ __forceinline__ void store_a_to_shared(const AStaging<G>& s, float* stage,
                                                  const AVectorCopies<G>& ac) {
  using AC = AVectorCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  float* at = stage + ac.col0 * G::kLdaT + ac.row0;
#pragma unroll
  for (int i = 0; i < AC::kCopies; ++i) {
    if (item_exists<G::kAVectors, G::kThreads>(tid, i)) {
      float* dst = at + AC::col_step(i) * G::kLdaT + AC::row_step(i);
      dst[0 * G::kLdaT] = s.v[i].x;
      dst[1 * G::kLdaT] = s.v[i].y;
      dst[2 * G::kLdaT] = s.v[i].z;
      dst[3 * G::kLdaT] = s.v[i].w;
    }
  }
}

/// Stores staged B into `stage` as float4s (a warp's stores cover 512 consecutive bytes).
template <class G>
__device__ __forceinline__ void store_b_to_shared(const BStaging<G>& s, float* stage,
                                                  const BVectorCopies<G>& bc) {
  using BC = BVectorCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  float* b = stage + G::kAFloats + bc.row0 * G::kBn + bc.col0;
#pragma unroll
  for (int i = 0; i < BC::kCopies; ++i) {
    if (item_exists<G::kBVectors, G::kThreads>(tid, i)) {
      *reinterpret_cast<float4*>(b + BC::row_step(i) * G::kBn + BC::col_step(i)) = s.v[i];
    }
  }
}

/// Stores the staged stage (A transposed, B as float4s) into `stage`.
template <class G>
__device__ __forceinline__ void store_stage_to_shared(const Staging<G>& s, float* stage,
                                                      const AVectorCopies<G>& ac,
                                                      const BVectorCopies<G>& bc) {
  store_a_to_shared<G>(s.a, stage, ac);
  store_b_to_shared<G>(s.b, stage, bc);
}

// ---- cp.async global loads (rungs 9, 10) ------------------------------------------------------

/// Asynchronous copy of 4 bytes global -> shared (cached in L1).
__device__ __forceinline__ void cp_async_4(std::uint32_t dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
/// The same, writing a zero instead when !in_range (src-size 0: the source is not read).
__device__ __forceinline__ void cp_async_4_or_zero(std::uint32_t dst, const float* src,
                                                   bool in_range) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(in_range ? 4 : 0)
               : "memory");
}
/// Asynchronous copy of 16 bytes global -> shared (L1 bypassed).
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
/// The same, writing 16 zero bytes instead when !in_range.
__device__ __forceinline__ void cp_async_16_or_zero(std::uint32_t dst, const float* src,
                                                    bool in_range) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(in_range ? 16 : 0)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/// A's 4-byte copies (the 16-byte form cannot transpose): chunks of 8 K-columns; inside a
/// chunk consecutive items walk the 8 columns of a row, then the rows. A warp reads 4 rows x 32
/// bytes (whole sectors) and writes banks (row + 4 * column) mod 32: all 32 different.
template <class G>
struct AElementCopies {
  using Rows = Walk<G::kBm, G::kThreads / 8>;
  static constexpr int kCopies = G::kAElementsPerThread;
  static constexpr int row_step(int i) { return Rows::offset_step(i); }
  static constexpr int col_step(int i) { return 8 * Rows::line_step(i); }
  int row0 = 0;
  int col0 = 0;
  __device__ __forceinline__ AElementCopies() {
    const int tid = static_cast<int>(threadIdx.x);
    row0 = Rows::offset0(tid / 8);
    col0 = 8 * Rows::line0(tid / 8) + tid % 8;
  }
};

/// B's 4-byte copies (rows not 16-byte aligned): consecutive items walk a B row.
template <class G>
struct BElementCopies {
  using Cols = Walk<G::kBn, G::kThreads>;
  static constexpr int kCopies = G::kBElementsPerThread;
  static constexpr int row_step(int i) { return Cols::line_step(i); }
  static constexpr int col_step(int i) { return Cols::offset_step(i); }
  int row0 = 0;
  int col0 = 0;
  __device__ __forceinline__ BElementCopies() {
    const int tid = static_cast<int>(threadIdx.x);
    row0 = Cols::line0(tid);
    col0 = Cols::offset0(tid);
  }
};

/// Issues the cp.async copies of A's part of the stage at K offset k0 into the stage at shared
/// address `stage` (transposed; zero-filled outside A). A stage wholly inside A takes
/// unpredicated copies.
template <class G>
__device__ __forceinline__ void issue_a_async(std::uint32_t stage, const SgemmArgs& args,
                                              const BlockTile& tile, int k0,
                                              const AElementCopies<G>& ac) {
  using AC = AElementCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::uint32_t dst = stage + 4u * static_cast<std::uint32_t>(ac.col0 * G::kLdaT + ac.row0);
  if (tile.m0 + G::kBm <= args.m && k0 + G::kBk <= args.k) {
    const float* src = args.a + static_cast<long long>(tile.m0 + ac.row0) * args.k + k0 + ac.col0;
#pragma unroll
    for (int i = 0; i < AC::kCopies; ++i) {
      if (item_exists<G::kAElements, G::kThreads>(tid, i)) {
        cp_async_4(dst + 4u * (AC::col_step(i) * G::kLdaT + AC::row_step(i)),
                   src + AC::row_step(i) * args.k + AC::col_step(i));
      }
    }
  } else {
    const int rows_left = args.m - tile.m0 - ac.row0;
    const int cols_left = args.k - k0 - ac.col0;
#pragma unroll
    for (int i = 0; i < AC::kCopies; ++i) {
      if (item_exists<G::kAElements, G::kThreads>(tid, i)) {
        const bool in_range = AC::row_step(i) < rows_left && AC::col_step(i) < cols_left;
        const float* src =
            in_range
                ? args.a + static_cast<long long>(tile.m0 + ac.row0 + AC::row_step(i)) * args.k +
                      k0 + ac.col0 + AC::col_step(i)
                : args.a;
        cp_async_4_or_zero(dst + 4u * (AC::col_step(i) * G::kLdaT + AC::row_step(i)), src,
                           in_range);
      }
    }
  }
}

/// Whether B's part of the stage at K offset k0 is wholly inside B with 16-byte aligned rows.
template <class G>
__device__ __forceinline__ bool b_stage_is_full(const SgemmArgs& args, const BlockTile& tile,
                                                int k0) {
  return tile.vector_b && tile.n0 + G::kBn <= args.n && k0 + G::kBk <= args.k;
}

/// Issues the cp.async copies of B's part of the stage at K offset k0 into the stage at shared
/// address `stage` (zero-filled outside B): unpredicated 16-byte copies for a full stage,
/// guarded 16-byte copies for an edge stage of aligned rows, guarded 4-byte ones otherwise.
template <class G>
__device__ __forceinline__ void issue_b_async(std::uint32_t stage, const SgemmArgs& args,
                                              const BlockTile& tile, int k0,
                                              const BVectorCopies<G>& bc,
                                              const BElementCopies<G>& be) {
  using BC = BVectorCopies<G>;
  using BE = BElementCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::uint32_t bs = stage + 4u * G::kAFloats;
  if (tile.vector_b) {
    const std::uint32_t dst = bs + 4u * static_cast<std::uint32_t>(bc.row0 * G::kBn + bc.col0);
    if (b_stage_is_full<G>(args, tile, k0)) {
      const float* src = args.b + static_cast<long long>(k0 + bc.row0) * args.n + tile.n0 + bc.col0;
#pragma unroll
      for (int i = 0; i < BC::kCopies; ++i) {
        if (item_exists<G::kBVectors, G::kThreads>(tid, i)) {
          cp_async_16(dst + 4u * (BC::row_step(i) * G::kBn + BC::col_step(i)),
                      src + BC::row_step(i) * args.n + BC::col_step(i));
        }
      }
    } else {
      const int rows_left = args.k - k0 - bc.row0;
      const int cols_left = args.n - tile.n0 - bc.col0;
#pragma unroll
      for (int i = 0; i < BC::kCopies; ++i) {
        if (item_exists<G::kBVectors, G::kThreads>(tid, i)) {
          const bool in_range = BC::row_step(i) < rows_left && BC::col_step(i) < cols_left;
          const float* src =
              in_range ? args.b + static_cast<long long>(k0 + bc.row0 + BC::row_step(i)) * args.n +
                             tile.n0 + bc.col0 + BC::col_step(i)
                       : args.b;
          cp_async_16_or_zero(dst + 4u * (BC::row_step(i) * G::kBn + BC::col_step(i)), src,
                              in_range);
        }
      }
    }
  } else {
    const std::uint32_t dst = bs + 4u * static_cast<std::uint32_t>(be.row0 * G::kBn + be.col0);
    const int rows_left = args.k - k0 - be.row0;
    const int cols_left = args.n - tile.n0 - be.col0;
#pragma unroll
    for (int i = 0; i < BE::kCopies; ++i) {
      if (item_exists<G::kBElements, G::kThreads>(tid, i)) {
        const bool in_range = BE::row_step(i) < rows_left && BE::col_step(i) < cols_left;
        const float* src =
            in_range ? args.b + static_cast<long long>(k0 + be.row0 + BE::row_step(i)) * args.n +
                           tile.n0 + be.col0 + BE::col_step(i)
                     : args.b;
        cp_async_4_or_zero(dst + 4u * (BE::row_step(i) * G::kBn + BE::col_step(i)), src, in_range);
      }
    }
  }
}

/// Unpredicated 16-byte cp.async copies of B's part of an interior stage into the stage at
/// shared address `stage` (first float4 of this thread at `src`, rows `ldb` floats apart).
template <class G>
__device__ __forceinline__ void issue_b_async_interior(std::uint32_t stage, const float* src,
                                                       int ldb, const BVectorCopies<G>& bc) {
  using BC = BVectorCopies<G>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::uint32_t dst =
      stage + 4u * static_cast<std::uint32_t>(G::kAFloats + bc.row0 * G::kBn + bc.col0);
#pragma unroll
  for (int i = 0; i < BC::kCopies; ++i) {
    if (item_exists<G::kBVectors, G::kThreads>(tid, i)) {
      cp_async_16(dst + 4u * (BC::row_step(i) * G::kBn + BC::col_step(i)),
                  src + BC::row_step(i) * ldb + BC::col_step(i));
    }
  }
}

// ---- Shared -> registers and the outer product ------------------------------------------------

/// A thread's fragments at one k: TM values of A^T row k and TN values of B row k.
template <class G>
struct Fragment {
  float a[G::kTm];
  float b[G::kTn];
};

/// Reads the fragments of K-row kk of `stage`: one float4 per 4 x 4 sub-tile. At one k the 32
/// threads of a warp read kThreadRows (kThreadCols) consecutive float4s of A^T (B):
/// conflict-free.
template <class G>
__device__ __forceinline__ void load_fragment(Fragment<G>& f, const float* stage, int kk,
                                              const ThreadPlace& place) {
  const float* at = stage + kk * G::kLdaT + place.a_col;
  const float* b = stage + G::kAFloats + kk * G::kBn + place.b_col;
#pragma unroll
  for (int i = 0; i < G::kSubM; ++i) {
    const float4 v = *reinterpret_cast<const float4*>(at + i * G::kSubRows);
    f.a[4 * i + 0] = v.x;
    f.a[4 * i + 1] = v.y;
    f.a[4 * i + 2] = v.z;
    f.a[4 * i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < G::kSubN; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(b + j * G::kSubCols);
    f.b[4 * j + 0] = v.x;
    f.b[4 * j + 1] = v.y;
    f.b[4 * j + 2] = v.z;
    f.b[4 * j + 3] = v.w;
  }
}

/// acc[i][j] += a[i] * b[j]: TM * TN FFMAs.
///
/// The order of the FFMAs steers ptxas's register allocation and scheduling of the stream (the
/// same code measured 45-51 TFLOPS on the H200 at 4096^3 over thirteen orders). Rung 9's 16 x 8
/// thread tile walks C in 8 x 4 blocks, each row by row in serpentine order (row 2r left to right,
/// row 2r + 1 right to left): its headline went from 49.3 to 50.7 TFLOPS at 4096^3 and from 49.8 to
/// 51.2 at 8192^3 (development timings, 2026-11-29; 4 x 4 blocks: 50.5 / 51.1; 2 x 2: 49.8 /
/// 50.2; column by column: 48.5 / 49.0). Every other kernel keeps the row-by-row order, which
/// the same experiment found best or equal for rung 8's 16 x 8 tile.
template <class G>
__device__ __forceinline__ void outer_product(float (&acc)[G::kTm][G::kTn], const Fragment<G>& f) {
  if constexpr (G::kConfig.rung == 9 && G::kTm == 16 && G::kTn == 8) {
    constexpr int kBi = 8, kBj = 4;
#pragma unroll
    for (int i = 0; i < G::kTm; i += kBi) {
#pragma unroll
      for (int j = 0; j < G::kTn; j += kBj) {
#pragma unroll
        for (int ii = 0; ii < kBi; ++ii) {
#pragma unroll
          for (int t = 0; t < kBj; ++t) {
            const int jj = ii % 2 == 0 ? t : kBj - 1 - t;
            acc[i + ii][j + jj] = fmaf(f.a[i + ii], f.b[j + jj], acc[i + ii][j + jj]);
          }
        }
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < G::kTm; ++i) {
#pragma unroll
      for (int j = 0; j < G::kTn; ++j) acc[i][j] = fmaf(f.a[i], f.b[j], acc[i][j]);
    }
  }
}

template <class G>
__device__ __forceinline__ void zero(float (&acc)[G::kTm][G::kTn]) {
#pragma unroll
  for (int i = 0; i < G::kTm; ++i) {
#pragma unroll
    for (int j = 0; j < G::kTn; ++j) acc[i][j] = 0.0f;
  }
}

// ---- Epilogue ---------------------------------------------------------------------------------

/// c = alpha * acc + beta * c; C is not read when beta == 0 (it may hold NaN poison).
__device__ __forceinline__ float scaled(float acc, float alpha, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/// Writes the thread's TM x TN results: row m = m0 + a_col + i * kSubRows + r, column
/// n = n0 + b_col + j * kSubCols + (0..3). A float4 store per sub-tile row where C's rows are
/// aligned and the float4 lies inside C, guarded 4-byte stores otherwise.
template <class G>
__device__ __forceinline__ void store_c(const float (&acc)[G::kTm][G::kTn], const SgemmArgs& args,
                                        const BlockTile& tile, const ThreadPlace& place) {
#pragma unroll
  for (int i = 0; i < G::kSubM; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int m = tile.m0 + place.a_col + i * G::kSubRows + r;
      if (m >= args.m) continue;
      float* c_row = args.c + static_cast<long long>(m) * args.n;
#pragma unroll
      for (int j = 0; j < G::kSubN; ++j) {
        const int n = tile.n0 + place.b_col + j * G::kSubCols;
        const float* v = &acc[4 * i + r][4 * j];
        if (tile.vector_c && n < args.n) {
          float4* dst = reinterpret_cast<float4*>(c_row + n);
          float4 out = make_float4(args.alpha * v[0], args.alpha * v[1], args.alpha * v[2],
                                   args.alpha * v[3]);
          if (args.beta != 0.0f) {
            const float4 old = *dst;
            out.x += args.beta * old.x;
            out.y += args.beta * old.y;
            out.z += args.beta * old.z;
            out.w += args.beta * old.w;
          }
          *dst = out;
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            if (n + q < args.n) c_row[n + q] = scaled(v[q], args.alpha, args.beta, c_row + n + q);
          }
        }
      }
    }
  }
}

// ---- Host side --------------------------------------------------------------------------------

/// Linear grid of one block per C tile.
template <class G>
inline unsigned grid_blocks(const SgemmArgs& args) {
  return static_cast<unsigned>(ceil_div(std::int64_t{args.m}, G::kBm) *
                               ceil_div(std::int64_t{args.n}, G::kBn));
}

/// Raises the kernel's dynamic shared-memory limit to the config's exact size.
template <class G>
cudaError_t allow_shared_memory(const void* kernel) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              shared_memory_bytes(G::kConfig));
}

}  // namespace roofcast::kernels::ladder::warp
