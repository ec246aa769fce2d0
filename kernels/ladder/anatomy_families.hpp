// The ladder's anatomy builders, one per kernel family (host C++ beside the kernels they
// describe): shared by kernels/src/anatomy.cpp's dispatch. Internal to roofcast_registry.
#pragma once

#include "roofcast/gemm.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast::kernels::ladder {

using gemm::SmemLayout;
using gemm::TileConfig;

inline constexpr int kVectorFloats = 4;  // float4
// Integer instructions per global load (address and edge predicate) and per main-loop
// iteration (K offset, pointer increments, compare and branch). Read off the kernels' loops;
// the issue-rate calibration absorbs what the compiler does differently.
inline constexpr double kIntegerPerGlobalLoad = 2;
inline constexpr double kLoopInstructionsPerTile = 4;

/// compiled_overhead(c.rung) for the anatomy `a` of `c` (its global loads set).
double compiled_overhead_instructions(const TileConfig& c, const KernelAnatomy& a);

/// C elements per thread: BM * BN / threads (TM * TN for a config that follows its rules;
/// the work decides, so an inconsistent TM x TN cannot create or lose FLOPs).
int outputs_per_thread(const TileConfig& c, int threads);

/// The work of a register-tiled thread (rungs 3-10): a BK-deep K tile, TM x TN outputs (TM
/// A values and TN B values per k), outputs x BK FFMAs per K tile.
void register_tile_work(const TileConfig& c, KernelAnatomy& a);

/// Each family fills `a` (threads and warps already set) for `c` on problem `p`.
void naive_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                   KernelAnatomy& a);  // rung 1, anatomy_naive.cpp
void shared_tiling_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                           KernelAnatomy& a);  // rung 2, anatomy_shared_tiling.cpp
void thread_tiling_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                           KernelAnatomy& a);  // rungs 3-4, anatomy_thread_tiling.cpp
void vectorized_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                        KernelAnatomy& a);  // rungs 5-6, anatomy_vectorized.cpp
void warp_tiled_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                        KernelAnatomy& a);  // rungs 7-10, anatomy_warp_tiled.cpp

}  // namespace roofcast::kernels::ladder
