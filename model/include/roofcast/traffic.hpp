// Traffic per memory level of a tiled GEMM kernel, from its anatomy: what one thread does per K
// tile, which the kernel's own family supplies as data (kernels/: the ladder's rungs build theirs
// beside their kernel files, kernels/ladder/anatomy_*.cpp). The model never asks which kernel it
// is: it reads the anatomy's fields. Here: the anatomy's vocabulary, the shared-memory / L1
// wavefronts of a warp access including bank-conflict replays (the tools a family builds its
// anatomy with), the bytes all blocks request from L2, FLOPs, and register-level operand reuse.
// Reasoning and measurements: docs/model.md#traffic-wavefronts-and-bank-conflicts.
//
// Pure functions; no allocation (the prediction hot path calls them).
#pragma once

#include <cstdint>

#include "roofcast/gemm.hpp"
#include "roofcast/waves.hpp"

namespace roofcast {

/// Bytes per FP32 element.
inline constexpr int kFloatBytes = 4;
/// Bytes of one L1/shared-memory wavefront and of one L1 cache line.
inline constexpr int kWavefrontBytes = 128;
inline constexpr int kL1LineBytes = 128;
inline constexpr int kSectorBytes = 32;

/// One warp-wide memory instruction: its count per thread per K tile and the wavefronts (L1 /
/// shared data-path cycles) one warp instruction takes.
struct WarpAccess {
  double instructions = 0;   // per warp per K tile, averaged over the block's warps (copy
                             // loops: ceil(copies / 32) / warps; warps past the tile skip)
  int vector_floats = 1;     // floats per lane: 1, 2 or 4
  int wavefronts_ideal = 0;  // the minimum: ceil(distinct bytes / 128)
  int wavefronts = 0;        // as laid out: bank-conflict replays (shared) or lines (global)
  int sectors = 0;           // global only: distinct 32-byte sectors one warp instruction touches

  /// wavefronts / wavefronts_ideal; 1 = conflict-free.
  double replay_factor() const {
    return wavefronts_ideal > 0 ? static_cast<double>(wavefronts) / wavefronts_ideal : 1.0;
  }
  double wavefronts_per_tile() const { return instructions * wavefronts; }
  double ideal_wavefronts_per_tile() const { return instructions * wavefronts_ideal; }
};

/// What one thread of a kernel's block does per K tile (one main-loop iteration), read off the
/// kernel by its family. Counts are per warp instruction, averaged over the block's warps (a
/// thread's instruction is its warp's).
/// A K tile's wait on a stage barrier that a copy engine fills (rung 10): none (threads copy
/// their own stages), a bulk copy's full mbarrier, or the guarded 4-byte cp.async fallback of
/// unaligned rows that keeps the mbarrier protocol.
enum class StageWait : int { kNone = 0, kBulkCopy = 1, kFallback = 2 };

struct KernelAnatomy {
  int threads = 0;
  int warps = 0;
  int k_tile = 0;              // K depth of one iteration (BK; rung 1: 1)
  int outputs_per_thread = 0;  // accumulator registers (independent FFMA chains: the ILP)
  int a_fragment = 0;          // A values read into registers per k
  int b_fragment = 0;          // B values read into registers per k
  int prefetch_tiles = 0;      // global->shared prefetch distance: 0 = load, wait, compute
  /// Prefetch distance of the operand that arrives last (chain_prefetch_tiles): what bounds the
  /// latency chain, (L_global + overhead) / chain_prefetch_tiles per K tile.
  int chain_prefetch_tiles = 0;
  bool fragment_double_buffer = false;  // shared->register fragments prefetched one k ahead
  bool a_async_copy = false;            // A reaches shared memory by cp.async (no STS, no staging)
  bool b_async_copy = false;            // B by cp.async or bulk copies
  bool b_bulk_copy = false;             // B stages arrive by bulk copy (no thread instructions)
  /// Blocks that receive each B stage from one L2 read (a cluster's multicast); 1 without.
  int b_multicast_blocks = 1;
  /// Register sets of A and B fragments live at once: 2 when the next k's fragments are read
  /// while the current ones feed FFMAs (double-buffered, or hoisted by the compiler), else 1.
  int live_fragment_sets = 1;
  /// Shared-memory round trips per K tile outside the FFMAs: a staged copy's store and the read
  /// after the barrier (2), an asynchronous copy's read (1), no shared memory (0).
  int shared_round_trips = 0;
  /// The stage barrier a block waits on per K tile for a copy engine's bytes beyond the latency
  /// chain; its cycles are the GPU's (MicroarchitectureFacts, stage_wait_cycles in latency.hpp).
  StageWait stage_wait = StageWait::kNone;
  int staging_registers = 0;  // global values a thread holds between LDG and STS
  /// Register model (register_features): the staged values ptxas keeps live together because
  /// the family issues its whole tile of loads before the stores (thread-tiled rungs 3-6: the
  /// staging registers; 0 elsewhere), and whether the kernel is warp-tiled (rungs 7-10).
  int register_staged_loads = 0;
  bool warp_tiled = false;
  /// Global round trips per K tile a thread waits for one after another (loads issued after
  /// earlier stores of the same tile).
  int serial_load_groups = 1;
  /// Shared-memory fragment round trips per K tile that a warp waits for before its FFMAs (reads
  /// the compiler does not hoist above earlier FFMAs).
  int fragment_round_trips = 1;
  /// Instructions per warp per K tile of the guarded fallback copy paths of unaligned rows (the
  /// loads or copies and their integer instructions), a subset of instructions(); 0 when every
  /// row is 16-byte aligned.
  double unaligned_copy_instructions = 0;
  bool a_vector = false;  // A global loads are float4 (K % 4 == 0)
  bool b_vector = false;  // B global loads are float4 (N % 4 == 0)

  double ffma = 0;      // outputs_per_thread * k_tile
  WarpAccess global_a;  // LDG of A (wavefronts: L1 lines touched)
  WarpAccess global_b;  // LDG of B
  WarpAccess store_a;   // STS of A
  WarpAccess store_b;   // STS of B
  WarpAccess load_a;    // LDS of A fragments
  WarpAccess load_b;    // LDS of B fragments
  /// LDS of A values the compiled code reads a second time (rung 3: nvcc reads each row's last
  /// k again with a scalar LDS after the LDS.128 that holds it); 0 elsewhere.
  WarpAccess reload_a;
  double barriers = 0;          // __syncthreads per K tile (0: warps never wait for the block)
  double integer_overhead = 0;  // address, predicate and loop instructions per K tile
  /// Instructions per K tile the counts above miss, as Nsight Compute counted them for the
  /// family's compiled code (kernels: compiled_overhead); 0 where not counted.
  double compiled_overhead = 0;
  double epilogue_instructions = 0;  // per thread, once per block: alpha scaling and C stores
  double c_store_sectors = 0;        // per warp, once per block: c_store_sectors_per_warp

  /// Every instruction a thread issues per K tile. With cp.async the stores are the global
  /// copies themselves (store_* then count their shared-memory wavefronts only).
  double instructions() const {
    const double stores =
        (a_async_copy ? 0.0 : store_a.instructions) + (b_async_copy ? 0.0 : store_b.instructions);
    return ffma + global_a.instructions + global_b.instructions + stores + load_a.instructions +
           load_b.instructions + reload_a.instructions + barriers + integer_overhead +
           compiled_overhead;
  }
  /// Non-FFMA instructions per FFMA: (instructions - ffma) / ffma.
  double overhead_per_ffma() const { return (instructions() - ffma) / ffma; }
  /// L1 / shared data-path wavefronts of one warp per K tile: the shared accesses with their
  /// bank replays, and the global loads through L1 at their data bytes (wavefronts_ideal: 128
  /// bytes a cycle); the distinct lines a scattered global load touches are the tag stage's
  /// work, not the data path's. Counted by lines, this bound exceeded the measured time of 213
  /// of the H200's 5,739 training cases (down to 0.60 of it, the unaligned shapes' scalar copy
  /// paths); by data bytes, of 7 (rung 2, 0.84-0.96). docs/model.md#the-data-path.
  double l1_wavefronts() const {
    return global_a.ideal_wavefronts_per_tile() + global_b.ideal_wavefronts_per_tile() +
           shared_wavefronts();
  }
  /// Shared-memory wavefronts of one warp per K tile, replays included.
  double shared_wavefronts() const {
    return store_a.wavefronts_per_tile() + store_b.wavefronts_per_tile() +
           load_a.wavefronts_per_tile() + load_b.wavefronts_per_tile() +
           reload_a.wavefronts_per_tile();
  }
  double shared_wavefronts_ideal() const {
    return store_a.ideal_wavefronts_per_tile() + store_b.ideal_wavefronts_per_tile() +
           load_a.ideal_wavefronts_per_tile() + load_b.ideal_wavefronts_per_tile() +
           reload_a.ideal_wavefronts_per_tile();
  }
  /// Register-level operand reuse: FFMAs per value read from shared memory (rung 1: from L1),
  /// outputs / (a_fragment + b_fragment); TM*TN / (TM + TN) for an outer product.
  double ffma_per_loaded_value() const {
    return static_cast<double>(outputs_per_thread) / (a_fragment + b_fragment);
  }
  /// A barrier per K tile: the block's warps wait for the whole tile together.
  bool barrier_per_tile() const { return barriers > 0; }
};

// ---- tools a family builds its anatomy with ---------------------------------------------------

inline constexpr int kWarpLanes = 32;

/// The warp that stands for every warp of the block: its active lanes and the GPU's banks.
struct WarpShape {
  int lanes = kWarpLanes;
  int banks = 32;
};

/// Iterations per warp, averaged over the block's warps, of a copy loop
/// `for (e = tid; e < items; e += threads)`: ceil(items / 32) / ceil(threads / 32). A warp
/// whose lanes all start beyond `items` skips the loop, so with fewer items than threads
/// (64 x 8 A tile as float4 = 128 copies for 256 threads) half the warps copy nothing: 0.5, not
/// the per-thread maximum 1. Whole warps count: the warp instructions the SM issues.
double copies_per_warp(int items, int threads);

/// The lanes of warp 0 walking a row-major index space of `per_row` entries per row:
/// lane l -> (row, col) = (l / per_row, l % per_row), computed by stepping (no division).
template <typename Visit>
void walk_lanes(int lanes, int per_row, Visit visit) {
  int row = 0;
  int col = 0;
  for (int lane = 0; lane < lanes; ++lane) {
    visit(lane, row, col);
    if (++col == per_row) {
      col = 0;
      ++row;
    }
  }
}

/// Global loads of a rows x cols tile of a row-major matrix with leading dimension `ld`,
/// `threads` threads each taking `width`-float vectors e, e + threads, ...:
/// lane e -> (row, col) = (e / (cols / width), e % (cols / width) * width). Without the vector
/// path (`vector_path` false) a vector is `width` predicated scalar loads.
WarpAccess tile_global_load(const WarpShape& shape, int rows, int cols, std::int64_t ld,
                            int threads, int width, bool vector_path);

/// Scalar or `width`-float stores of consecutive elements: dst[e * width], conflict-free.
WarpAccess contiguous_store(const WarpShape& shape, double instructions, int width);

/// Wavefronts of one shared-memory warp instruction whose lane l accesses `width` consecutive
/// 4-byte words starting at word_offsets[l] (aligned to width): max over the banks of the
/// distinct words that fall into each bank (lanes reading the same word share it: broadcast).
/// `ideal` receives ceil(distinct words / banks). lanes <= 32; width in {1, 2, 4}.
int shared_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int banks,
                      int* ideal);

/// Wavefronts of one shared-memory warp LOAD of `width` words per lane (LDS, LDS.64, LDS.128).
/// The data path returns 128 bytes per cycle, one 4-byte register per lane, so a wider load is
/// served in phases of P = banks / width consecutive lanes (a quarter warp for LDS.128, a half
/// warp for LDS.64), each phase costing its own shared_wavefronts (its bank conflicts, at
/// least 1). When every lane pair (l, l ^ 1) or every pair (l, l ^ 2) reads the same address the
/// return registers are packed two lanes per slot and a phase holds 2P lanes:
///   wavefronts = sum over phases of shared_wavefronts(phase lanes),
///   phases of min(lanes, P * (paired ? 2 : 1)) lanes; width 1: shared_wavefronts.
/// So a conflict-free LDS.128 costs 4 wavefronts, 2 with paired lanes, even when all lanes read
/// the same 16 bytes. Sources: an NVIDIA forum answer on CC 7.x and ncu on an H100 (CC 9.0);
/// the quotes and the training evidence (run 909d742, ncu):
/// docs/model.md#traffic-wavefronts-and-bank-conflicts. `ideal` receives the same sum with each
/// phase conflict-free.
int shared_load_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int banks,
                           int* ideal);

/// L1 wavefronts of one global warp load: the 128-byte lines its lanes touch, at least
/// ceil(bytes / 128). `ideal` receives ceil(distinct bytes / 128), `sectors` the distinct
/// 32-byte sectors (either may be null).
int global_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int* ideal,
                      int* sectors);

/// 32-byte sectors one warp's epilogue stores of C touch: each thread stores its TM x TN tile as
/// TM rows of TN / vector_floats stores (thread tr, tc of a warp at rows tr * TM .., columns
/// tc * TN ..; lanes_along_n lanes per row, consecutive lanes along N), row r of C starting at
/// word r * row_words. Each store instruction's lanes are counted by global_wavefronts' sectors:
/// scalar stores spread over rows put one 4-byte word in each sector they touch, and L2 takes
/// every sector write as one transaction.
double c_store_sectors_per_warp(int lanes, int lanes_along_n, int tm, int tn, int vector_floats,
                                std::int64_t row_words);

/// Bytes and operations of the whole launch, per level.
struct Traffic {
  double flops = 0;         // 2 * M * N * K (useful)
  double issued_flops = 0;  // 2 * launched_m * launched_n * launched_k (edge tiles in full)
  // Requested from L2 by all blocks (edge loads that are predicated off move nothing):
  double a_l2_bytes = 0;             // tiles_n * M * K * 4
  double b_l2_bytes = 0;             // tiles_m * N * K * 4 (rung 10: / cluster, B is multicast)
  double c_write_bytes = 0;          // M * N * 4
  double c_read_bytes = 0;           // M * N * 4 when beta != 0, else 0
  double compulsory_dram_bytes = 0;  // (M*K + K*N) * 4 + C write (+ C read)
  // Shared memory and L1, all blocks:
  double shared_wavefronts = 0;        // replays included
  double shared_wavefronts_ideal = 0;  // without replays
  double l1_global_wavefronts = 0;     // global loads through L1
  double l1_global_bytes = 0;          // sectors global loads request from L1, * 32
  double warp_instructions = 0;        // every warp instruction, epilogue included
  double ffma_warp_instructions = 0;
  double ffma_per_loaded_value = 0;  // register-level reuse (KernelAnatomy)

  double operand_l2_bytes() const { return a_l2_bytes + b_l2_bytes; }
  double l2_bytes() const { return a_l2_bytes + b_l2_bytes + c_write_bytes + c_read_bytes; }
  /// Bytes through the L1/shared data path: (shared + global L1 wavefronts) * 128.
  double l1_bytes() const { return (shared_wavefronts + l1_global_wavefronts) * kWavefrontBytes; }
  double shared_bytes() const { return shared_wavefronts * kWavefrontBytes; }
  /// Share of global operand bytes requested from L1 that L1 serves:
  /// 1 - operand_l2_bytes / l1_global_bytes, at least 0 (rung 1 reuses in L1; the tiled rungs
  /// load each tile once, so nothing).
  double l1_hit_rate() const {
    return l1_global_bytes > operand_l2_bytes() ? 1 - operand_l2_bytes() / l1_global_bytes : 0.0;
  }
};

/// Traffic of the launch: every count above is per-thread anatomy * threads * k_tiles * grid
/// (warp counts / 32), L2 bytes as in each field's comment (B: / b_multicast_blocks). `c_is_read`:
/// beta != 0.
Traffic compute_traffic(const gemm::Problem& problem, const KernelAnatomy& anatomy,
                        const TileWaste& waste, bool c_is_read);

/// DRAM bytes when operand loads hit L2 at `operand_hit_rate`: operand misses, never below the
/// compulsory load of A and B once, plus the C write and read:
///   max((1 - hit) * (A + B requested), (M*K + K*N) * 4) + C write + C read.
double dram_bytes(const Traffic& traffic, const gemm::Problem& problem, double operand_hit_rate);

}  // namespace roofcast
