// Device helpers shared by the ladder rungs: dynamic shared memory, predicated (zero-filling)
// global loads, the C epilogue, and the shared-memory tile layouts of rungs 5-6.
//
// Conventions: matrices are row-major and dense (launch.hpp): A is M x K (lda = K), B is
// K x N (ldb = N), C is M x N (ldc = N). A load outside the matrix returns 0, so a partial
// edge tile contributes nothing to the dot products; stores outside C are skipped.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/rules_rungs_1_6.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

/// The block's dynamic shared memory as floats, 16-byte aligned (float4 accesses are legal at
/// every offset that is a multiple of 4). The launcher passes the byte count.
__device__ __forceinline__ float* dynamic_shared_floats() {
  extern __shared__ __align__(16) float roofcast_ladder_dynamic_smem[];
  return roofcast_ladder_dynamic_smem;
}

/// True when `p` is 16-byte aligned.
__device__ __forceinline__ bool is_aligned_16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

/// *p when in_range, else 0 (the load is predicated off, p is never dereferenced).
__device__ __forceinline__ float load_or_zero(const float* p, bool in_range) {
  return in_range ? *p : 0.0f;
}

/// row[col .. col + 3] of a row of `cols` floats, with 0 past the row's end and everywhere
/// when !row_in_range; col is a multiple of 4.
/// vector_ok (uniform over the grid): every row starts 16-byte aligned and cols % 4 == 0, so
/// the float4 at a 4-aligned col is either wholly in range (col < cols) or wholly out: one
/// 128-bit load. Otherwise four predicated scalar loads (rows of K % 4 != 0 or N % 4 != 0
/// floats are not 16-byte aligned).
__device__ __forceinline__ float4 load4_or_zero(const float* row, int col, int cols,
                                                bool row_in_range, bool vector_ok) {
  if (vector_ok) {
    return row_in_range && col < cols ? *reinterpret_cast<const float4*>(row + col)
                                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  float4 v;
  v.x = load_or_zero(row + col + 0, row_in_range && col + 0 < cols);
  v.y = load_or_zero(row + col + 1, row_in_range && col + 1 < cols);
  v.z = load_or_zero(row + col + 2, row_in_range && col + 2 < cols);
  v.w = load_or_zero(row + col + 3, row_in_range && col + 3 < cols);
  return v;
}

/// Cooperative scalar copy of a kRows x kCols tile of a row-major matrix into shared memory,
/// dst[r * kCols + c] = src[r * ld + c], with 0 where r >= rows_left or c >= cols_left (past
/// the matrix). src points at the tile's origin inside the matrix; kThreads threads share the
/// kRows * kCols elements, thread t taking elements t, t + kThreads, ... (consecutive threads
/// read consecutive columns: coalesced).
template <int kRows, int kCols, int kThreads>
__device__ __forceinline__ void load_tile_scalar(float* dst, const float* src, int ld,
                                                 int rows_left, int cols_left) {
  constexpr int kElements = kRows * kCols;
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < ceil_div(kElements, kThreads); ++i) {
    const int e = tid + i * kThreads;
    if (kElements % kThreads == 0 || e < kElements) {
      const int r = e / kCols;
      const int c = e % kCols;
      dst[e] =
          load_or_zero(src + (static_cast<long long>(r) * ld + c), r < rows_left && c < cols_left);
    }
  }
}

/// c = alpha * acc + beta * c. C is not read when beta == 0 (it may hold NaN poison).
__device__ __forceinline__ void store_c(float* c, float acc, float alpha, float beta) {
  if (beta == 0.0f) {
    *c = alpha * acc;
  } else {
    *c = alpha * acc + beta * *c;
  }
}

/// Four outputs c_row[col .. col + 3] = alpha * acc + beta * c_row[...] of a C row of `cols`
/// floats; columns past `cols` are skipped. vector_ok as in load4_or_zero (N % 4 == 0 and C
/// 16-byte aligned): one float4 store (and load when beta != 0), else four guarded scalars.
__device__ __forceinline__ void store4_c(float* c_row, int col, int cols, float4 acc, float alpha,
                                         float beta, bool vector_ok) {
  if (vector_ok) {
    if (col >= cols) return;
    float4* c4 = reinterpret_cast<float4*>(c_row + col);
    float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    if (beta != 0.0f) {
      const float4 old = *c4;
      out.x += beta * old.x;
      out.y += beta * old.y;
      out.z += beta * old.z;
      out.w += beta * old.w;
    }
    *c4 = out;
    return;
  }
  if (col + 0 < cols) store_c(c_row + col + 0, acc.x, alpha, beta);
  if (col + 1 < cols) store_c(c_row + col + 1, acc.y, alpha, beta);
  if (col + 2 < cols) store_c(c_row + col + 2, acc.z, alpha, beta);
  if (col + 3 < cols) store_c(c_row + col + 3, acc.w, alpha, beta);
}

/// Placement of a kRows x kCols float tile in shared memory under layout kLayout (rungs 5-6;
/// kPlain is also every other rung's row-major tile). offset(row, col) is the float offset of
/// logical element (row, col); 4 consecutive columns starting at a multiple of 4 always stay
/// contiguous and 16-byte aligned, so float4 accesses work in every layout.
///   kPlain:    row * kCols + col.
///   kPadded:   row * S + col + 4 * floor(col / 32), S = rules::smem_row_floats(kPadded, kCols)
///              (one float4 of padding per 32 floats, row stride an odd number of float4).
///   kSwizzled: row * kCols + 4 * (v ^ x) + col % 4, v = col / 4 the float4 index in the row,
///              x = (floor(v / 8) + floor(row / 4) * (32 / kRows)) % 8. XOR-ing the low three
///              bits of v permutes the float4 inside each group of 8 (one sweep of the 32
///              banks), so no padding is needed (rules::conflict_free_swizzle_fits).
/// The tiles of rungs 5-6 are [BK][BM] (A transposed) and [BK][BN], so kRows = BK.
template <gemm::SmemLayout kLayout, int kRows, int kCols>
struct SmemTile {
  static constexpr int kRowFloats = rules::smem_row_floats(kLayout, kCols);
  static constexpr int kFloats = kRows * kRowFloats;

  __host__ __device__ __forceinline__ static int offset(int row, int col) {
    if constexpr (kLayout == gemm::SmemLayout::kPadded) {
      return row * kRowFloats + col + 4 * (col >> 5);
    } else if constexpr (kLayout == gemm::SmemLayout::kSwizzled) {
      static_assert(32 % kRows == 0 && kCols % 32 == 0,
                    "swizzle: rows hold whole groups of 8 float4 and the tile's row count "
                    "divides 32 (rules::conflict_free_swizzle_fits)");
      const int v = col >> 2;
      const int x = ((v >> 3) + (row >> 2) * (32 / kRows)) & 7;
      return row * kRowFloats + ((v ^ x) << 2) + (col & 3);
    } else {
      return row * kRowFloats + col;
    }
  }
};

/// The host side of a rung 2-6 kernel: a 2D grid (x along N, y along M: row-major, the only
/// order these rungs take), dynamic shared memory of rules::shared_memory_bytes_rungs_1_6(config)
/// bytes, the kernel's limit raised past the 48 KiB default when it needs more, and its
/// launch-table entry.
template <std::size_t kIndex, void (*kKernel)(SgemmArgs)>
struct TiledKernelHost {
  static constexpr TileConfig kConfig = compiled_config(kIndex);
  static constexpr int kSharedBytes = rules::shared_memory_bytes_rungs_1_6(kConfig);

  static cudaError_t launch(const SgemmArgs& args, gemm::RasterOrder raster, cudaStream_t stream) {
    if (raster.kind != gemm::RasterKind::kRowMajor) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(ceil_div(std::int64_t{args.n}, kConfig.bn)),
                    static_cast<unsigned>(ceil_div(std::int64_t{args.m}, kConfig.bm)));
    kKernel<<<grid, kConfig.threads, kSharedBytes, stream>>>(args);
    return cudaGetLastError();
  }

  static cudaError_t prepare() {
    if constexpr (kSharedBytes <= 48 * 1024) {
      return cudaSuccess;
    } else {
      return cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSharedBytes);
    }
  }

  static CompiledKernel make() {
    CompiledKernel compiled;
    compiled.function = reinterpret_cast<const void*>(kKernel);
    compiled.threads_per_block = kConfig.threads;
    compiled.dynamic_shared_memory_bytes = kSharedBytes;
    compiled.prepare = &prepare;
    compiled.launch = &launch;
    return compiled;
  }
};

}  // namespace roofcast::kernels::ladder
