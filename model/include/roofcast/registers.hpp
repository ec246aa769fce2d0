// Registers per thread and spills: the register estimate of a config that has not been
// compiled, the register cap of __launch_bounds__, and what registers that do not fit cost
// (local-memory traffic). Design: docs/model.md#register-estimate, docs/model.md#spills.
#pragma once

#include "roofcast/gemm.hpp"
#include "roofcast/register_model.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast {

// ---- registers --------------------------------------------------------------------------------

/// Registers per thread a config needs, estimated without compiling it. ptxas decides the
/// real count; the estimate counts what must be live at the peak (the compute phase), see
/// docs/model.md#register-estimate:
struct RegisterEstimate {
  int accumulators = 0;  // outputs per thread (TM * TN)
  int fragments = 0;     // A + B fragment values per k, x 2 when two are live: rungs 8-10
                         // double-buffer them, and for rungs 3-7 the compiler hoists the next
                         // k's shared reads above the current FFMAs (BK loop fully unrolled)
  int staging = 0;       // global values held across the compute phase (prefetching rungs
                         // that stage A or B through registers; without prefetch they are
                         // loaded and stored before the compute phase and count only when
                         // larger than the fragments)
  int addressing = 0;    // pointers (A, B, C: 2 each), sizes, tile origins, thread indices,
                         // loop counter, alpha and beta: kAddressRegisters
  int pipeline = 0;      // stage index and one shared offset per stage (stages > 1)
  int total = 0;         // unfitted: accumulators + max(fragments, transient staging) +
                         // staging + addressing + pipeline; fitted: the RegisterModel's count
  bool fitted = false;   // total is the fitted RegisterModel's (the parts stay for reading)
};

/// Registers for addresses, sizes, indices and scalars (see RegisterEstimate::addressing): the
/// scalar_registers of register_count for the model's estimate (the tile rules' launch-bounds
/// estimates use 16 and 40: kernels/rules_rungs_*.hpp).
inline constexpr int kAddressRegisters = 18;

/// The estimate for a config's kernel from its anatomy (config: stages), by the fitted model
/// when `model` is fitted (total = fitted_registers), else by the hand-written count.
RegisterEstimate estimate_registers(const gemm::TileConfig& config, const KernelAnatomy& anatomy,
                                    const RegisterModel& model = {});

/// The register model's features of a config (RegisterFeature says what each counts).
RegisterFeatures register_features(const gemm::TileConfig& config, const KernelAnatomy& anatomy);

/// round(intercept + coefficients . features), at least 1.
int fitted_registers(const RegisterModel& model, const RegisterFeatures& features);

/// The most registers per thread at which `min_blocks` blocks of `threads` threads stay
/// resident (what ptxas aims for under __launch_bounds__(threads, min_blocks)), and never above
/// the per-thread maximum: with W = ceil(threads / warp_size) warps, P sub-partitions,
///   per-warp allocation A = floor((registers_per_sm / P) / ceil(min_blocks * W / P)),
///   also <= max_registers_per_block / roundup(W, warp_allocation_granularity),
///   rounded down to the allocation unit; cap = min(max per thread, A / warp_size).
/// min_blocks <= 0 gives the per-thread maximum.
int register_cap(const SmLimits& sm, int threads, int min_blocks);

/// Registers that do not fit and what they cost.
struct SpillEstimate {
  int registers_needed = 0;            // the estimate (or the given count)
  int registers_allocated = 0;         // what the kernel gets: min(needed, register_cap)
  int spilled_registers = 0;           // estimate only: needed - allocated
  double bytes_per_thread = 0;         // local memory per thread: given, or spilled * 4
  bool accumulators_spilled = false;   // see accumulators_spill
  double load_accesses_per_tile = 0;   // local loads per thread per K tile (spill_accesses)
  double store_accesses_per_tile = 0;  // local stores per thread per K tile
  double accesses_per_tile = 0;        // local loads + stores per thread per K tile
  double l2_fraction = 0;              // share of local loads L1 misses (the spec's fact)
  double l2_bytes = 0;                 // local traffic reaching L2, whole launch:
                                       // (stores + l2_fraction * loads) * 4 * threads * tiles
};

/// Whether the spilled values include accumulators: spills present and the accumulators plus
/// one k's fragments (outputs_per_thread + a_fragment + b_fragment) exceed the registers. Then
/// the compiler reloads and stores accumulators inside the K loop (spill_accesses); otherwise
/// what spills is live across the loop and is reloaded about once per K tile. Nsight Compute
/// on the sample's training configs agrees on every one of 34 (docs/model.md#spills).
bool accumulators_spill(const KernelAnatomy& anatomy, int registers_per_thread,
                        double spill_bytes_per_thread);

/// The count law of local accesses, least squares on Nsight Compute's local load and store
/// instructions of the sample's 34 spilling training configs at 2048^3 (nvcc 13.0, sm_90; run
/// ce3a6ad, experiments/sample/ncu_counts.py prints the fit; docs/model.md#spills). Counts of
/// the code nvcc generates, like kernels::compiled_overhead.
/// Accumulators spilled: loads = kSpillReloadScale * w^kSpillReloadWordsExponent *
///   accumulators^kSpillReloadAccumulatorExponent * k_tile^kSpillReloadKTileExponent (w spilled
///   words per thread), stores = kSpillStoresPerReload * loads (fit: 8.8% mean error, 16 configs);
/// otherwise: loads = kSpillPartialLoadsPerWord * w, stores = kSpillPartialStoresPerWord * w.
inline constexpr double kSpillReloadScale = 1.635;
inline constexpr double kSpillReloadWordsExponent = 0.448;
inline constexpr double kSpillReloadAccumulatorExponent = 0.376;
inline constexpr double kSpillReloadKTileExponent = 0.690;
inline constexpr double kSpillStoresPerReload = 0.938;
inline constexpr double kSpillPartialLoadsPerWord = 0.623;
inline constexpr double kSpillPartialStoresPerWord = 0.018;

struct SpillAccesses {
  double loads = 0;   // per thread per K tile
  double stores = 0;  // per thread per K tile
};

/// Local loads and stores per thread per K tile (the count law above); none without spilled
/// words. k_tile and accumulators below 1 count as 1.
SpillAccesses spill_accesses(double spilled_words, int k_tile, int accumulators,
                             bool accumulators_spilled);

}  // namespace roofcast
