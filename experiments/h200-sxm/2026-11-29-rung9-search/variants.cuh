// Probe-only variants of rung 9's headline kernel (256x128 tile, t16x8, 256 threads): the same
// pipeline as kernels/ladder/09_cp_async.cuh with the FFMA order (kOrder) and the geometry
// (BK, stages, A vector width) as template parameters, so one binary times them side by side.
#pragma once

#include "ladder/09_cp_async.cuh"

namespace rung9_probe {
namespace rk = roofcast::kernels;
namespace warp = roofcast::kernels::ladder::warp;

/// Geometry of the headline tile with BK, stages and A's vector width chosen here (the
/// registry's Geometry<kIndex> body with another TileConfig).
template <int kBkV, int kStagesV, int kVectorV>
struct PGeometry {
  static constexpr roofcast::gemm::TileConfig kConfig =
      rk::tile(9, roofcast::gemm::SmemLayout::kPadded, 256, 128, kBkV, 16, 8, 64, 64, 256, kStagesV,
               kVectorV, 1);
  static constexpr int kBm = kConfig.bm;
  static constexpr int kBn = kConfig.bn;
  static constexpr int kBk = kConfig.bk;
  static constexpr int kTm = kConfig.tm;
  static constexpr int kTn = kConfig.tn;
  static constexpr int kWm = kConfig.wm;
  static constexpr int kWn = kConfig.wn;
  static constexpr int kThreads = kConfig.threads;
  static constexpr int kStages = kConfig.stages;
  static constexpr int kLdaT = kBm + rk::rules::kWarpTilingPadFloatsA;
  static constexpr int kAFloats = kBk * kLdaT;
  static constexpr int kStageFloats = kAFloats + kBk * kBn;
  static constexpr int kWarpsN = kBn / kWn;
  static constexpr int kThreadRows = kWm / kTm;
  static constexpr int kThreadCols = kWn / kTn;
  static constexpr int kSubM = kTm / 4;
  static constexpr int kSubN = kTn / 4;
  static constexpr int kSubRows = 4 * kThreadRows;
  static constexpr int kSubCols = 4 * kThreadCols;
  static constexpr int kAVectors = kBm * kBk / 4;
  static constexpr int kBVectors = kBk * kBn / 4;
  static constexpr int kAElements = kBm * kBk;
  static constexpr int kBElements = kBk * kBn;
  static constexpr int kAVectorsPerThread = (kAVectors + kThreads - 1) / kThreads;
  static constexpr int kBVectorsPerThread = (kBVectors + kThreads - 1) / kThreads;
  static constexpr int kAElementsPerThread = (kAElements + kThreads - 1) / kThreads;
  static constexpr int kBElementsPerThread = (kBElements + kThreads - 1) / kThreads;
  static constexpr int kMinBlocks = rk::rules::min_blocks_per_sm_rungs_7_10(kConfig);
};

/// acc += a b^T in one of several orders (kOrder):
///  0: the shipping order (warp::outer_product: 8 x 4 serpentine blocks);
///  1: pairs of B columns (j, j + 1), rows i = 0..15 inside each pair, (i, j) then (i, j + 1):
///     the pair's two b registers (one even, one odd) can stay in the operand-reuse cache while
///     each a is read once for two FFMAs (cuBLAS's FP32 kernel's pattern);
///  2: as 1 with the rows walked serpentine (down, then up for the next pair);
///  3: pairs of A rows (i, i + 1), columns serpentine: the transpose of 2;
///  4: cuBLAS-like: per float4 of A (4 rows), B column pairs, rows serpentine inside the group;
///  5, 6: orders 0 and 3 with the FFMA's two factors swapped (b first);
///  7..10: blocks of kBi x kBj, rows serpentine inside a block (order 0's scheme):
///     7: 8 x 4 with the blocks visited column-first, 8: 8 x 2, 9: 16 x 4, 10: 4 x 2.
template <int kBi, int kBj, bool kBlocksJOuter, class G>
__device__ __forceinline__ void blocked_serpentine(float (&acc)[G::kTm][G::kTn],
                                                   const warp::Fragment<G>& f) {
#pragma unroll
  for (int x = 0; x < (16 / kBi) * (8 / kBj); ++x) {
    const int i = kBlocksJOuter ? (x % (16 / kBi)) * kBi : (x / (8 / kBj)) * kBi;
    const int j = kBlocksJOuter ? (x / (16 / kBi)) * kBj : (x % (8 / kBj)) * kBj;
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

template <int kOrder, class G>
__device__ __forceinline__ void outer_product(float (&acc)[G::kTm][G::kTn],
                                              const warp::Fragment<G>& f) {
  static_assert(G::kTm == 16 && G::kTn == 8, "orders written for the 16 x 8 tile");
  if constexpr (kOrder == 0) {
#pragma unroll
    for (int i = 0; i < 16; i += 8) {
#pragma unroll
      for (int j = 0; j < 8; j += 4) {
#pragma unroll
        for (int ii = 0; ii < 8; ++ii) {
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            const int jj = ii % 2 == 0 ? t : 3 - t;
            acc[i + ii][j + jj] = fmaf(f.a[i + ii], f.b[j + jj], acc[i + ii][j + jj]);
          }
        }
      }
    }
  } else if constexpr (kOrder == 1 || kOrder == 2) {
#pragma unroll
    for (int j = 0; j < 8; j += 2) {
#pragma unroll
      for (int t = 0; t < 16; ++t) {
        const int i = kOrder == 2 && (j / 2) % 2 == 1 ? 15 - t : t;
        acc[i][j] = fmaf(f.a[i], f.b[j], acc[i][j]);
        acc[i][j + 1] = fmaf(f.a[i], f.b[j + 1], acc[i][j + 1]);
      }
    }
  } else if constexpr (kOrder == 3) {
#pragma unroll
    for (int i = 0; i < 16; i += 2) {
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        const int j = (i / 2) % 2 == 1 ? 7 - t : t;
        acc[i][j] = fmaf(f.a[i], f.b[j], acc[i][j]);
        acc[i + 1][j] = fmaf(f.a[i + 1], f.b[j], acc[i + 1][j]);
      }
    }
  } else if constexpr (kOrder == 5) {
#pragma unroll
    for (int i = 0; i < 16; i += 8) {
#pragma unroll
      for (int j = 0; j < 8; j += 4) {
#pragma unroll
        for (int ii = 0; ii < 8; ++ii) {
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            const int jj = ii % 2 == 0 ? t : 3 - t;
            acc[i + ii][j + jj] = fmaf(f.b[j + jj], f.a[i + ii], acc[i + ii][j + jj]);
          }
        }
      }
    }
  } else if constexpr (kOrder == 6) {
#pragma unroll
    for (int i = 0; i < 16; i += 2) {
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        const int j = (i / 2) % 2 == 1 ? 7 - t : t;
        acc[i][j] = fmaf(f.b[j], f.a[i], acc[i][j]);
        acc[i + 1][j] = fmaf(f.b[j], f.a[i + 1], acc[i + 1][j]);
      }
    }
  } else if constexpr (kOrder == 7) {
    blocked_serpentine<8, 4, true, G>(acc, f);
  } else if constexpr (kOrder == 8) {
    blocked_serpentine<8, 2, false, G>(acc, f);
  } else if constexpr (kOrder == 9) {
    blocked_serpentine<16, 4, false, G>(acc, f);
  } else if constexpr (kOrder == 10) {
    blocked_serpentine<4, 2, false, G>(acc, f);
  } else if constexpr (kOrder == 4) {
#pragma unroll
    for (int g = 0; g < 16; g += 4) {
#pragma unroll
      for (int j = 0; j < 8; j += 2) {
#pragma unroll
        for (int t = 0; t < 4; ++t) {
          const int i = g + ((j / 2) % 2 == 1 ? 3 - t : t);
          acc[i][j] = fmaf(f.a[i], f.b[j], acc[i][j]);
          acc[i][j + 1] = fmaf(f.a[i], f.b[j + 1], acc[i][j + 1]);
        }
      }
    }
  }
}

/// cp_async_block of 09_cp_async.cuh with outer_product<kOrder>. kLoop 0: the shipping loop;
/// kLoop 1: the next stage's A float4 loads issued after the first k-step's FFMAs instead of
/// before the k loop (more time for the cp.async group of this stage's FFMAs to start).
template <class G, bool kInterior, int kOrder, int kLoop>
__device__ __forceinline__ void block(const rk::SgemmArgs& args, const warp::BlockTile& tile) {
  float* const smem = warp::shared_floats();
  const warp::ThreadPlace place = warp::thread_place<G>();
  const int k_tiles = warp::k_tiles<G>(args);
  float acc[G::kTm][G::kTn];
  warp::zero<G>(acc);
  warp::Fragment<G> fragment[2];
  constexpr bool kAInRegisters = G::kConfig.vector_width == 4;
  const warp::AElementCopies<G> a_elements;
  const warp::AVectorCopies<G> a_vectors;
  const warp::BVectorCopies<G> b_vectors;
  const warp::BElementCopies<G> b_elements;
  warp::AStaging<G> a_staging;
  const std::uint32_t smem_address = warp::shared_address(smem);
  constexpr std::uint32_t kStageBytes = 4u * G::kStageFloats;
  const float* b_source = nullptr;
  const float* a_source = nullptr;
  if constexpr (kInterior) {
    b_source = warp::interior_b_source<G>(args, tile, b_vectors);
    a_source = warp::interior_a_source<G>(args, tile, a_vectors);
  }
#pragma unroll
  for (int s = 0; s < G::kStages - 1; ++s) {
    if (s < k_tiles) {
      const std::uint32_t stage = smem_address + s * kStageBytes;
      if constexpr (!kAInRegisters) {
        warp::issue_a_async<G>(stage, args, tile, s * G::kBk, a_elements);
      }
      if constexpr (kInterior) {
        warp::issue_b_async_interior<G>(stage, b_source, args.n, b_vectors);
        b_source += static_cast<long long>(G::kBk) * args.n;
      } else {
        warp::issue_b_async<G>(stage, args, tile, s * G::kBk, b_vectors, b_elements);
      }
    }
    warp::cp_async_commit();
  }
  if constexpr (kAInRegisters) {
    if constexpr (kInterior) {
      warp::load_a_interior<G>(a_staging, a_source, args.k);
    } else {
      warp::load_a_to_registers<G>(a_staging, args, tile, 0, a_vectors);
    }
    warp::store_a_to_shared<G>(a_staging, smem, a_vectors);
  }
  warp::cp_async_wait<G::kStages - 2>();
  __syncthreads();
  warp::load_fragment<G>(fragment[0], smem, 0, place);

  int read_stage = 0;
  int write_stage = G::kStages - 1;
  for (int t = 0; t < k_tiles; ++t) {
    const float* current = smem + read_stage * G::kStageFloats;
    const int fetch = t + G::kStages - 1;
    if (fetch < k_tiles) {
      const std::uint32_t stage = smem_address + write_stage * kStageBytes;
      if constexpr (!kAInRegisters) {
        warp::issue_a_async<G>(stage, args, tile, fetch * G::kBk, a_elements);
      }
      if constexpr (kInterior) {
        warp::issue_b_async_interior<G>(stage, b_source, args.n, b_vectors);
        b_source += static_cast<long long>(G::kBk) * args.n;
      } else {
        warp::issue_b_async<G>(stage, args, tile, fetch * G::kBk, b_vectors, b_elements);
      }
    }
    warp::cp_async_commit();
    write_stage = write_stage + 1 == G::kStages ? 0 : write_stage + 1;
    read_stage = read_stage + 1 == G::kStages ? 0 : read_stage + 1;
    const bool has_next = t + 1 < k_tiles;
    if constexpr (kAInRegisters && kLoop != 1) {
      if (has_next) {
        if constexpr (kInterior) {
          a_source += G::kBk;
          warp::load_a_interior<G>(a_staging, a_source, args.k);
        } else {
          warp::load_a_to_registers<G>(a_staging, args, tile, (t + 1) * G::kBk, a_vectors);
        }
      }
    }
#pragma unroll
    for (int kk = 0; kk < G::kBk; ++kk) {
      if (kk + 1 < G::kBk) {
        warp::load_fragment<G>(fragment[(kk + 1) & 1], current, kk + 1, place);
      } else if (kLoop == 2 || has_next) {
        // kLoop 2: no branch around the barrier (the last stage stores and reads a buffer that
        // nothing reads afterwards), so the stage's last FFMAs and the barrier share a block.
        float* next = smem + read_stage * G::kStageFloats;
        if constexpr (kAInRegisters) warp::store_a_to_shared<G>(a_staging, next, a_vectors);
        warp::cp_async_wait<G::kStages - 2>();
        __syncthreads();
        warp::load_fragment<G>(fragment[(kk + 1) & 1], next, 0, place);
      }
      outer_product<kOrder, G>(acc, fragment[kk & 1]);
      if constexpr (kAInRegisters && kLoop == 1) {
        if (kk == 0 && has_next) {
          if constexpr (kInterior) {
            a_source += G::kBk;
            warp::load_a_interior<G>(a_staging, a_source, args.k);
          } else {
            warp::load_a_to_registers<G>(a_staging, args, tile, (t + 1) * G::kBk, a_vectors);
          }
        }
      }
    }
  }
  warp::cp_async_wait<0>();
  warp::store_c<G>(acc, args, tile, place);
}

/// The pipeline with the stage barrier moved from the last k-step to k-step kMid: at kMid each
/// thread stores A^T of stage t + 1, waits for all its copies (stage t + 1 complete), and after
/// the barrier issues the copies of stage t + 2 into the buffer that stage t - 1 used (every
/// thread finished reading it before this barrier). The next stage's first fragments are then
/// read at the last k-step like any other fragment, with no barrier in front of them, so no
/// shared-memory latency is exposed after the barrier. Costs: copies run one stage ahead
/// instead of two, A's global loads have kMid k-steps to land instead of BK. kEarlyA: A's loads
/// of stage t + 2 are issued right after the barrier of stage t (a whole stage to land).
/// kStoreAlways: A^T is stored at every stage, also after the last one (into a buffer nothing
/// reads), so no branch sits in front of the barrier.
template <class G, bool kInterior, int kOrder, int kMid, bool kEarlyA, bool kStoreAlways = false>
__device__ __forceinline__ void block_mid(const rk::SgemmArgs& args, const warp::BlockTile& tile) {
  static_assert(G::kStages == 3, "one stage computed, one landing, one being refilled");
  static_assert(kMid >= 0 && kMid < G::kBk, "the barrier sits inside the stage");
  float* const smem = warp::shared_floats();
  const warp::ThreadPlace place = warp::thread_place<G>();
  const int k_tiles = warp::k_tiles<G>(args);
  float acc[G::kTm][G::kTn];
  warp::zero<G>(acc);
  warp::Fragment<G> fragment[2];
  constexpr bool kAInRegisters = G::kConfig.vector_width == 4;
  const warp::AElementCopies<G> a_elements;
  const warp::AVectorCopies<G> a_vectors;
  const warp::BVectorCopies<G> b_vectors;
  const warp::BElementCopies<G> b_elements;
  warp::AStaging<G> a_staging;
  const std::uint32_t smem_address = warp::shared_address(smem);
  constexpr std::uint32_t kStageBytes = 4u * G::kStageFloats;
  const float* b_source = nullptr;
  const float* a_source = nullptr;
  if constexpr (kInterior) {
    b_source = warp::interior_b_source<G>(args, tile, b_vectors);
    a_source = warp::interior_a_source<G>(args, tile, a_vectors);
  }
  auto issue = [&](int s, int buffer) {
    const std::uint32_t stage = smem_address + buffer * kStageBytes;
    if constexpr (!kAInRegisters) {
      warp::issue_a_async<G>(stage, args, tile, s * G::kBk, a_elements);
    }
    if constexpr (kInterior) {
      warp::issue_b_async_interior<G>(stage, b_source, args.n, b_vectors);
      b_source += static_cast<long long>(G::kBk) * args.n;
    } else {
      warp::issue_b_async<G>(stage, args, tile, s * G::kBk, b_vectors, b_elements);
    }
  };
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    if (s < k_tiles) issue(s, s);
    warp::cp_async_commit();
  }
  if constexpr (kAInRegisters) {
    if constexpr (kInterior) {
      warp::load_a_interior<G>(a_staging, a_source, args.k);
    } else {
      warp::load_a_to_registers<G>(a_staging, args, tile, 0, a_vectors);
    }
    warp::store_a_to_shared<G>(a_staging, smem, a_vectors);
    if constexpr (kEarlyA) {
      if (k_tiles > 1) {
        if constexpr (kInterior) {
          a_source += G::kBk;
          warp::load_a_interior<G>(a_staging, a_source, args.k);
        } else {
          warp::load_a_to_registers<G>(a_staging, args, tile, G::kBk, a_vectors);
        }
      }
    }
  }
  warp::cp_async_wait<1>();
  __syncthreads();
  warp::load_fragment<G>(fragment[0], smem, 0, place);

  int read_stage = 0;  // buffer of stage t; t + 1 is in read_stage + 1, t + 2 goes to + 2
  for (int t = 0; t < k_tiles; ++t) {
    const float* current = smem + read_stage * G::kStageFloats;
    const int next_stage = read_stage + 1 == 3 ? 0 : read_stage + 1;
    const int fill_stage = next_stage + 1 == 3 ? 0 : next_stage + 1;
    float* next = smem + next_stage * G::kStageFloats;
    const bool has_next = t + 1 < k_tiles;
    if constexpr (kAInRegisters && !kEarlyA) {
      if (has_next) {
        if constexpr (kInterior) {
          a_source += G::kBk;
          warp::load_a_interior<G>(a_staging, a_source, args.k);
        } else {
          warp::load_a_to_registers<G>(a_staging, args, tile, (t + 1) * G::kBk, a_vectors);
        }
      }
    }
#pragma unroll
    for (int kk = 0; kk < G::kBk; ++kk) {
      if (kk == kMid) {
        if constexpr (kAInRegisters) {
          if (kStoreAlways || has_next) warp::store_a_to_shared<G>(a_staging, next, a_vectors);
        }
        warp::cp_async_wait<0>();
        __syncthreads();
        if (t + 2 < k_tiles) issue(t + 2, fill_stage);
        warp::cp_async_commit();
        if constexpr (kAInRegisters && kEarlyA) {
          if (t + 2 < k_tiles) {
            if constexpr (kInterior) {
              a_source += G::kBk;
              warp::load_a_interior<G>(a_staging, a_source, args.k);
            } else {
              warp::load_a_to_registers<G>(a_staging, args, tile, (t + 2) * G::kBk, a_vectors);
            }
          }
        }
      }
      if (kk + 1 < G::kBk) {
        warp::load_fragment<G>(fragment[(kk + 1) & 1], current, kk + 1, place);
      } else if (has_next) {
        warp::load_fragment<G>(fragment[(kk + 1) & 1], next, 0, place);
      }
      outer_product<kOrder, G>(acc, fragment[kk & 1]);
    }
    read_stage = next_stage;
  }
  warp::cp_async_wait<0>();
  warp::store_c<G>(acc, args, tile, place);
}

template <class G, int kOrder, int kLoop>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocks)
    variant_kernel(rk::SgemmArgs args, roofcast::gemm::RasterOrder raster) {
  warp::assert_tile_rules<G>();
  const warp::BlockTile tile = warp::block_tile<G>(args, raster, static_cast<int>(blockIdx.x));
  if constexpr (kLoop >= 100) {
    // kLoop 100 + m: block_mid with the barrier at k-step m; 200 + m: the same, kEarlyA.
    constexpr int kMid = kLoop % 100;
    constexpr bool kEarlyA = kLoop >= 200 && kLoop < 300;
    constexpr bool kStoreAlways = kLoop >= 300;  // 300 + m: the barrier at m, kStoreAlways
    if (warp::block_is_interior<G>(args, tile)) {
      block_mid<G, true, kOrder, kMid, kEarlyA, kStoreAlways>(args, tile);
    } else {
      block_mid<G, false, kOrder, kMid, kEarlyA, kStoreAlways>(args, tile);
    }
  } else if (warp::block_is_interior<G>(args, tile)) {
    block<G, true, kOrder, kLoop>(args, tile);
  } else {
    block<G, false, kOrder, kLoop>(args, tile);
  }
}

}  // namespace rung9_probe
