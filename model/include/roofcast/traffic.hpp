// Traffic per memory level of a tiled SGEMM, derived from the tile parameters and each rung's
// kernel (kernels/ladder/NN_*.cuh): what one thread does per K tile (the kernel's anatomy),
// the shared-memory / L1 wavefronts of each warp access including bank-conflict replays, the
// bytes all blocks request from L2, FLOPs, and register-level operand reuse.
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

/// What one thread of a rung's block does per K tile (one main-loop iteration), read off the
/// rung's kernel. Counts are per warp instruction, averaged over the block's warps (a thread's
/// instruction is its warp's).
struct KernelAnatomy {
  int rung = 0;
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
  bool b_bulk_copy = false;   // rung 10: B stages arrive by bulk copy (no thread instructions)
  int staging_registers = 0;  // global values a thread holds between LDG and STS
  /// Global round trips per K tile a thread waits for one after another (serial_load_groups).
  int serial_load_groups = 1;
  /// Shared-memory fragment round trips per K tile that a warp waits for before its FFMAs
  /// (fragment_round_trips).
  int fragment_round_trips = 1;
  /// Instructions per warp per K tile of the guarded fallback copy paths of unaligned rows
  /// (unaligned_copy_integer: the loads or copies and their integer instructions), a subset of
  /// instructions(); 0 when every row is 16-byte aligned.
  double unaligned_copy_instructions = 0;
  bool a_vector = false;  // A global loads are float4 (K % 4 == 0)
  bool b_vector = false;  // B global loads are float4 (N % 4 == 0)

  double ffma = 0;                   // outputs_per_thread * k_tile
  WarpAccess global_a;               // LDG of A (wavefronts: L1 lines touched)
  WarpAccess global_b;               // LDG of B
  WarpAccess store_a;                // STS of A
  WarpAccess store_b;                // STS of B
  WarpAccess load_a;                 // LDS of A fragments
  WarpAccess load_b;                 // LDS of B fragments
  double barriers = 0;               // __syncthreads per K tile
  double integer_overhead = 0;       // address, predicate and loop instructions per K tile
  double epilogue_instructions = 0;  // per thread, once per block: alpha scaling and C stores

  /// Every instruction a thread issues per K tile. With cp.async the stores are the global
  /// copies themselves (store_* then count their shared-memory wavefronts only).
  double instructions() const {
    const double stores =
        (a_async_copy ? 0.0 : store_a.instructions) + (b_async_copy ? 0.0 : store_b.instructions);
    return ffma + global_a.instructions + global_b.instructions + stores + load_a.instructions +
           load_b.instructions + barriers + integer_overhead;
  }
  /// Non-FFMA instructions per FFMA: (instructions - ffma) / ffma.
  double overhead_per_ffma() const { return (instructions() - ffma) / ffma; }
  /// L1 / shared data-path wavefronts of one warp per K tile (global loads through L1 too).
  double l1_wavefronts() const {
    return global_a.wavefronts_per_tile() + global_b.wavefronts_per_tile() + shared_wavefronts();
  }
  /// Shared-memory wavefronts of one warp per K tile, replays included.
  double shared_wavefronts() const {
    return store_a.wavefronts_per_tile() + store_b.wavefronts_per_tile() +
           load_a.wavefronts_per_tile() + load_b.wavefronts_per_tile();
  }
  double shared_wavefronts_ideal() const {
    return store_a.ideal_wavefronts_per_tile() + store_b.ideal_wavefronts_per_tile() +
           load_a.ideal_wavefronts_per_tile() + load_b.ideal_wavefronts_per_tile();
  }
  /// Register-level operand reuse: FFMAs per value read from shared memory (rung 1: from L1),
  /// outputs / (a_fragment + b_fragment); TM*TN / (TM + TN) for an outer product.
  double ffma_per_loaded_value() const {
    return static_cast<double>(outputs_per_thread) / (a_fragment + b_fragment);
  }
};

/// Global round trips per K tile that a rung's thread waits for one after another, read off the
/// SASS of the ladder's kernels (nvcc 13.0, sm_90, the toolchain of the committed measurement;
/// nvdisasm of kernels/src/rung_NN.cu): rungs 5-6 (05_vectorized.cuh, 06_conflict_free.cuh) copy
/// A (load4_or_zero, which branches on the uniform float4 flag) and store it to shared memory
/// before they load B, and ptxas does not move B's loads above A's stores across that branch:
/// every rung 5-6 kernel issues A's LDG, A's STS, then B's LDG and B's STS before its barrier,
/// so a K tile waits for two global round trips: 2. Rungs 2-4 (predicated scalar copies, no
/// branch) and 7-10 (warp_common.cuh loads the whole stage into registers, then stores it) issue
/// every load of the tile before the first store: 1.
int serial_load_groups(int rung);

/// The guarded fallback copy paths of rungs 7-10 for rows that are not 16-byte aligned (rungs
/// 5-6 take the same scalar fallback, counted generically: see unaligned_copy_integer).
enum class UnalignedCopy {
  kScalarLoad,  // load4's four predicated LDG.E per float4 (A with K % 4 != 0, vector_width 4;
                // B of rungs 7-8 with N % 4 != 0), through registers
  kByteCopy,    // rungs 9-10: B's guarded 4-byte cp.async (N % 4 != 0)
};

/// Integer, predicate, branch and constant-load instructions per copy of an unaligned path,
/// read off the SASS (nvcc 13.0, sm_90, nvdisasm -hex of single instantiations of
/// kernels/ladder/08_double_buffering.cuh and 09_cp_async.cuh) along the path a block takes when
/// K % 4 != 0 and N % 4 != 0, the loads themselves excluded:
///   kScalarLoad 8.65: registry index 49 (r08-dbuf-128x64x8 t8x8 128t) A 2 float4: 67
///     instructions with 8 LDG.E = 59, B 1 float4: 51 with 4 LDG.E = 47; index 64
///     (r09-async-128x128x8 t8x16 s3 v4) A 2 float4: 75 with 8 LDG.E = 67; (59 + 47 + 67) / 20.
///     Each float4 is a branch on the uniform vector flag (BSSY/BSYNC), a 64-bit row address
///     (IMAD.WIDE, LEA, LEA.HI.X), and per component an ISETP.GE.OR and a zeroed register.
///   kByteCopy 18: index 64, 151 instructions with 8 LDGSTS.E = 143 (17.9 per copy); index 72
///     (r09-async-128x128x8 t8x16 s3 v1), 153 with 8 = 145 (18.1): every copy recomputes its
///     row's 64-bit address from K-row and N (LDC of the arguments inside the loop at 198
///     registers), its in_range predicate and the zero-fill select.
///   Cross-check at low register pressure: index 48 (r08-dbuf-64x64x16 t8x4 128t, 119
///     registers): A 2 float4: 59 instructions with 8 LDG.E = 51 (6.4 per load), B 2 float4: 88
///     with 8 = 80 (10.0): 8.2 per scalar load.
/// (Before, every load or copy was counted at the generic kIntegerPerGlobalLoad = 2, as the
/// aligned rows' unpredicated fast paths of rungs 7-10 are.) Rungs 5-6 keep the generic count:
/// their load4_or_zero (common.cuh) has no unpredicated fast path, so the aligned float4 already
/// pays the row address and guard, and the scalar fallback adds only 3 LDG.E and 4-5 integer
/// instructions per float4 (SASS, index 11 r05-vec-128x128x8 t8x8 256t: A 21 -> 28
/// instructions per float4, B 8 -> 16), which the generic 2 per load covers. Rung 4 has no
/// vector path. Training data (data/measurements/h200-sxm/sgemm-ladder.json, run 8b790e0, set
/// sweep-train at 2049^3: every rung 4-10 config on these paths): with these counts and the
/// refitted calibration, rungs 7-10 at 2049^3 go from 17.3 / 8.5 / 12.5 / 22.5% MAPE (generic
/// count) to 11.3 / 8.8 / 8.6 / 10.2% (r10 with kFallbackStageWaitCycles too; 14.0%
/// without); Nsight Compute's fixed-latency "wait" stall rises by 0.09-0.21 per instruction
/// from 2048^3 to 2049^3 for rungs 7-10, as kUnalignedCopyStallCycles predicts (0.11 for r08
/// 256x128x8). Counting the rung 5-6 fallback at 8.65 too raised held-out MAPE 6.4 -> 6.6%.
/// Per warp per K tile the model counts each path's copies
/// (KernelAnatomy::global_a / global_b instructions) times these; the B copies of rungs 9-10
/// walk one B row per warp (32 consecutive floats; the first row stands for all, so a warp's
/// copy is taken as one 128-byte line, as aligned rows would be).
inline constexpr double kUnalignedScalarLoadInteger = 8.65;
inline constexpr double kUnalignedByteCopyInteger = 18;
double unaligned_copy_integer(UnalignedCopy path);

/// Prefetch distance, in K tiles, of the operand whose copies are issued last before they are
/// needed: the stages between the issue of a tile's slowest global load and the barrier that
/// publishes that tile. Rungs 9-10 pipeline B (cp.async or bulk copies) prefetch_tiles stages
/// ahead, but A with vector_width 4 goes through registers one stage ahead, as on rung 8: the
/// LDG.128 of stage t + 1 is issued at the start of stage t and its registers are stored
/// (transposing STS) just before the barrier that ends stage t (09_cp_async.cuh cp_async_block,
/// 10_hopper_cluster.cuh; SASS, nvcc 13.0 sm_90, registry index 60 r09-async-32x32x8 s3 v4:
/// the K loop issues its one LDG.E.128.CONSTANT after the LDGSTS of stage t + 2 and the four
/// STS of those registers right before DEPBAR.LE SB0, 0x1 and BAR.SYNC of the same iteration;
/// index 64 r09-async-128x128x8 s3 v4 likewise with two LDG.128 and eight STS). So A's wait is
/// one whole L_global per K tile, not L_global / (S - 1):
///   rungs 9-10, vector_width 4: 1;  otherwise prefetch_tiles.
int chain_prefetch_tiles(const gemm::TileConfig& config, int prefetch_tiles);

/// Floats per shared-memory fragment read of A and of B (LDS.64 = 2, LDS.128 = 4), read off
/// the SASS of the ladder's kernels (nvcc 13.0, sm_90, nvdisasm of kernels/src/rung_04.cu, every
/// registered rung-4 config): rung 4 (04_thread_tiling_2d.cuh) unrolls its k loop by two and
/// reads A's fragment as[(tr*TM + i)*BK + k], [.. + k + 1] with one LDS.64 per row i (BK even),
/// and B's contiguous TN floats bs[k*BN + tc*TN + j] with LDS.128 (TN % 4 == 0; LDS.64 for
/// TN = 2): 128x128x8 t8x8 issues 8 LDS.64 + 4 LDS.128 per two k, 48 per K tile instead of 128
/// scalar LDS. Other rungs: 1 (their vector reads are counted in their own anatomy).
int fragment_read_floats_a(const gemm::TileConfig& config);
int fragment_read_floats_b(const gemm::TileConfig& config);

/// Shared-memory fragment round trips per K tile that a warp waits for before the FFMAs that use
/// them: rung 4: BK / fragment_read_floats_a (SASS: each iteration of the k loop, unrolled by
/// two, issues its 12 LDS and then its 128 FFMAs, which wait on them; the loop is not unrolled
/// further, so no LDS is hoisted above the previous iteration's FFMAs); every other rung: 1 (the
/// BK loop is fully unrolled and the next k's reads are hoisted above the current FFMAs, so
/// only the first read after the barrier is exposed, counted in the tile's overhead).
int fragment_round_trips(const gemm::TileConfig& config);

/// Threads per block a config implies when it does not say: rung 1: BM*BN; rung 2: BM*BN;
/// rungs 3-6: (BM/TM)*(BN/TN); rungs 7-10: 32 * (BM/WM) * (BN/WN) (one warp per warp tile;
/// without WM, WN: (BM/TM)*(BN/TN)).
int derived_threads(const gemm::TileConfig& config);

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
/// the same 16 bytes. Sources: NVIDIA forum answer on CC 7.x ("return bandwidth of L1 and shared
/// memory is 128 bytes/cycle == 1 register/cycle"; LDS.128 "requires 4 requests", 2 when thread
/// pairs Tn, Tn^1 or Tn, Tn^2 share addresses), ncu on an H100 (CC 9.0) in a later thread: a
/// contiguous LDS.128 takes 4 wavefronts, lanes 0-15 / 16-31 on two addresses take 2, and a
/// 2-way conflict inside each quarter warp takes 8. Training evidence (run 909d742, ncu): every
/// rung 8-10 w64x64 t8x16 config (B fragment indexed by lane % 4: unpaired, 4 of its 6 LDS.128
/// per k at 4 wavefronts: 20 per k) shows short_scoreboard 0.17-0.44 against 0.10-0.22 for its
/// t16x8 twin (lane % 8: 2 of 6 unpaired: 16 per k) and measures 4-8% slower; the SASS K loops
/// of the twins (r09 indices 66 and 70) issue the same 2048 FFMA, 96 LDS.128 and 2196 vs 2205
/// instructions per K tile. `ideal` receives the same sum with each phase conflict-free.
int shared_load_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int banks,
                           int* ideal);

/// L1 wavefronts of one global warp load: the 128-byte lines its lanes touch, at least
/// ceil(bytes / 128). `ideal` receives ceil(distinct bytes / 128), `sectors` the distinct
/// 32-byte sectors (either may be null).
int global_wavefronts(const std::int64_t* word_offsets, int lanes, int width, int* ideal,
                      int* sectors);

/// Float offset of logical element (row, col) of a rows x cols shared tile in `layout`, the
/// host copy of kernels/ladder/common.cuh SmemTile::offset:
///   plain:    row * cols + col
///   padded:   row * S + col + 4 * floor(col / 32), S = padded_row_floats(cols)
///   swizzled: row * cols + 4 * (v ^ x) + col % 4, v = col / 4,
///             x = (floor(v / 8) + floor(row / 4) * (32 / rows)) % 8
int shared_tile_offset(gemm::SmemLayout layout, int rows, int cols, int row, int col);

/// Floats of one padded row of `cols` logical floats (rules::smem_row_floats, kPadded):
/// s = cols + 4 * floor(cols / 32); s if s / 4 is odd, else s + 4.
int padded_row_floats(int cols);

/// The anatomy of a config's kernel on a problem (the problem decides whether global loads
/// take the float4 path: K % 4 == 0 for A, N % 4 == 0 for B). Warp 0 of the block stands for
/// every warp in the bank-conflict and line analysis. `banks` is the GPU's shared-memory bank
/// count. config.threads = 0 means derived_threads(config).
///   rung 1      01_naive.cuh: per k one A load (a warp's broadcast) and one B load;
///   rung 2      02_shared_tiling.cuh: T x T tiles, one element per thread per tile;
///   rungs 3-4   scalar tile copies (common.cuh load_tile_scalar), As[m][k], Bs[k][n], thread
///               (t / (BN/TN), t % (BN/TN)) reads TM A values and TN B values per k;
///   rungs 5-6   float4 copies, A stored transposed by 4 scalar stores per float4, float4
///               fragment reads, layout plain / padded / swizzled (common.cuh SmemTile);
///   rungs 7-10  warp_common.cuh: A^T rows padded by one float4, A float4 pairs in chunks of
///               8 K-columns, fragments as (TM/4) x (TN/4) float4 sub-tiles; rung 8 prefetches
///               one stage through registers (one barrier per stage); rungs 9-10 copy B with
///               cp.async, stages - 1 stages ahead, and A either through registers
///               (vector_width 4) or by 4-byte cp.async (vector_width 1); rung 9's interior
///               blocks (K % BK == 0, float4 rows: taken as every block) copy from per-thread
///               pointers advanced once per stage (no address or predicate instructions per
///               copy of B, nor of A with vector_width 4); rows that are not 16-byte aligned
///               (K % 4 != 0 for A, N % 4 != 0 for B) take the guarded fallback paths of
///               UnalignedCopy (scalar loads through registers; 4-byte cp.async of B, one row per
///               warp); rung 10 brings B by
///               bulk copies shared by the cluster, stages - 2 ahead with a cluster, and
///               synchronises by thread 0's wait on the stage's full barrier plus one
///               __syncthreads per K tile (rung 9: two barriers, its cp.async wait and the
///               __syncthreads).
KernelAnatomy kernel_anatomy(const gemm::Problem& problem, const gemm::TileConfig& config,
                             int banks = 32);

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
/// (warp counts / 32), L2 bytes as in each field's comment. `c_is_read`: beta != 0.
Traffic compute_traffic(const gemm::Problem& problem, const gemm::TileConfig& config,
                        const KernelAnatomy& anatomy, const TileWaste& waste, bool c_is_read);

/// DRAM bytes when operand loads hit L2 at `operand_hit_rate`: operand misses, never below the
/// compulsory load of A and B once, plus the C write and read:
///   max((1 - hit) * (A + B requested), (M*K + K*N) * 4) + C write + C read.
double dram_bytes(const Traffic& traffic, const gemm::Problem& problem, double operand_hit_rate);

}  // namespace roofcast
