// Occupancy: how many blocks of a kernel are resident on one SM, which limit binds, and how
// much room is left. Matches the CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor
// and the toolkit's cuda_occupancy.h for every GPU in the database (cc 7.0 to 9.0).
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "roofcast/spec.hpp"

namespace roofcast {

/// What a kernel uses and how it is launched.
struct KernelLaunch {
  int threads_per_block = 0;
  /// As ptxas reports (cudaFuncAttributes::numRegs); 0 is legal (an empty kernel).
  int registers_per_thread = 0;
  int static_shared_memory_bytes = 0;
  int dynamic_shared_memory_bytes = 0;
  /// The kernel's cudaFuncAttributeMaxDynamicSharedMemorySize. Empty: raised to the opt-in
  /// maximum (opt-in per block - static), as a kernel using more than 48 KiB must.
  std::optional<int> max_dynamic_shared_memory_bytes;
  /// cudaFuncAttributePreferredSharedMemoryCarveout, percent 0..100. Empty: the default,
  /// the SM's largest carveout.
  std::optional<int> carveout_percent;
};

/// Limits as bits; the values equal cuda_occupancy.h's cudaOccLimitingFactor bits.
enum Limiter : unsigned {
  kLimitWarps = 0x01,
  kLimitRegisters = 0x02,
  kLimitSharedMemory = 0x04,
  kLimitBlocks = 0x08,
};

/// Names of the set bits, joined by '+': "registers+shared_memory".
std::string limiter_names(unsigned limiters);

/// Why a kernel cannot launch at all (zero resident blocks).
enum class LaunchFailure {
  kNone,
  kThreadsExceedBlockLimit,              // threads_per_block > max_threads_per_block
  kRegistersExceedThreadLimit,           // registers_per_thread > max_registers_per_thread
  kRegistersExceedBlockLimit,            // allocated registers per block > max_registers_per_block
  kDynamicSharedMemoryExceedsKernelMax,  // dynamic > the kernel's max dynamic shared memory
  kSharedMemoryExceedsBlockLimit,        // allocated shared memory > per-block limit + reserved
  /// Within every per-block limit, yet no block fits on an SM: a warp's registers exceed one
  /// register-file sub-partition, or the block's shared memory (reserved bytes included)
  /// exceeds the largest carveout. The runtime answers 0 blocks; a launch fails.
  kNoBlockFitsOnSm,
};

std::string to_string(LaunchFailure failure);

/// Blocks per SM allowed by each limit on its own; kUnlimited where a resource is unused.
struct LimitBlocks {
  static constexpr int kUnlimited = INT_MAX;
  int warps = 0;
  int registers = 0;
  int shared_memory = 0;
  int blocks = 0;
};

/// The resource allocation of one block, after rounding.
struct BlockAllocation {
  int warps = 0;                // ceil(threads / warp_size)
  int registers_per_warp = 0;   // roundup(regs * warp_size, register_allocation_unit)
  int registers_per_block = 0;  // registers_per_warp * warps
  int shared_memory_bytes = 0;  // roundup(static + dynamic + reserved, granularity)
  /// Per-block shared-memory limit applied: opt-in when static + reserved + max dynamic
  /// exceeds the default per-block limit, else the default; plus the reserved bytes.
  int shared_memory_limit_bytes = 0;
  int max_dynamic_shared_memory_bytes = 0;
};

/// Room around the operating point. Registers are per thread; bytes are per block.
/// An empty optional means the change cannot gain a block: another limit binds, or the
/// resource is already at its minimum.
struct Headroom {
  int registers_addable = 0;  // add up to this many registers without losing a block
  std::optional<int> registers_to_gain_block;  // remove this many to gain a block
  int shared_memory_addable_bytes = 0;
  std::optional<int> shared_memory_to_gain_block_bytes;
};

struct OccupancyResult {
  int blocks_per_sm = 0;  // min over limit
  LimitBlocks limit;
  unsigned limiters = 0;  // bits of Limiter whose limit equals blocks_per_sm
  LaunchFailure failure = LaunchFailure::kNone;
  BlockAllocation allocation;
  int active_warps = 0;  // blocks_per_sm * warps per block
  int max_warps = 0;     // max_threads_per_sm / warp_size
  double occupancy = 0;  // active_warps / max_warps
  /// Carveout asked for (percent rounded up to a legal carveout), and the one in effect:
  /// raised to the smallest legal carveout that holds one block when the request is smaller.
  int carveout_requested_bytes = 0;
  int carveout_bytes = 0;
  Headroom headroom;  // zeros and empty optionals when the kernel cannot launch

  bool launchable() const { return failure == LaunchFailure::kNone; }
};

/// Resident blocks per SM = min(warps, registers, shared memory, blocks):
///   warps         = max_warps_per_sm / ceil(T / warp_size)
///   registers     = floor(floor((R_sm / P) / A) * P / W), A = roundup(r * warp_size, unit),
///                   P register-file sub-partitions, W warps per block; 0 when r exceeds the
///                   per-thread limit or A * roundup(W, warp_granularity) the per-block limit
///   shared memory = floor(C / S), S = roundup(static + dynamic + reserved, granularity),
///                   C the carveout in effect; 0 when S exceeds the per-block limit
///   blocks        = max_blocks_per_sm
/// The barrier limit of cc >= 9 (2 * max_blocks_per_sm barriers, one per block) never binds
/// and is not modelled. Throws std::invalid_argument for a negative size, zero threads, a
/// carveout outside 0..100, or a max dynamic size the runtime would refuse. Headroom is
/// computed too (closed form, a loop over at most the carveout list).
OccupancyResult compute_occupancy(const SmLimits& sm, const KernelLaunch& launch);

/// The same as compute_occupancy without the headroom: the fast path for tuners.
OccupancyResult compute_occupancy_limits(const SmLimits& sm, const KernelLaunch& launch);

/// Registers per thread added/removed (closed form; see Headroom) and shared memory.
Headroom compute_headroom(const SmLimits& sm, const KernelLaunch& launch,
                          const OccupancyResult& at);

/// The axis a sweep varies; the other inputs stay as in the base launch.
enum class SweepAxis {
  kRegisters,     // registers per thread, 1 .. max_registers_per_thread
  kSharedMemory,  // dynamic shared memory, 0 .. opt-in - static, in granularity steps
  kThreads,       // threads per block, warp_size .. max_threads_per_block, warp steps
};

std::string to_string(SweepAxis axis);

struct SweepPoint {
  int value = 0;
  int blocks_per_sm = 0;
  double occupancy = 0;
  unsigned limiters = 0;
  LaunchFailure failure = LaunchFailure::kNone;
};

/// Occupancy at every point of the axis.
std::vector<SweepPoint> sweep_occupancy(const SmLimits& sm, const KernelLaunch& base,
                                        SweepAxis axis);

/// A run of consecutive sweep points with the same blocks, limiters and failure.
struct SweepStep {
  int first_value = 0;
  int last_value = 0;
  SweepPoint point;  // the values of the run; point.value == first_value
};

/// Collapses a sweep into its staircase steps: runs of points with equal blocks per SM,
/// occupancy, limiters and failure.
std::vector<SweepStep> staircase(const std::vector<SweepPoint>& points);

}  // namespace roofcast
