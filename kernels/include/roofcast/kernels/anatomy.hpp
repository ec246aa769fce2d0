// The ladder's kernels as the model sees them: each rung's anatomy (what one thread does per K
// tile), built beside its kernel file (kernels/ladder/anatomy_*.cpp, host C++, no CUDA), and the
// facts read off each rung's SASS that the anatomy carries. The model (roofcast::predict) takes
// the anatomy as data and never asks which rung it is. The measurement history behind each
// fact (what it changed, what was tried): docs/model.md.
#pragma once

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast::kernels {

/// Global round trips per K tile that a rung's thread waits for one after another, read off the
/// SASS of the ladder's kernels (nvcc 13.0, sm_90, the toolchain of the committed measurement;
/// nvdisasm of kernels/src/rung_NN.cu): rungs 5-6 (05_vectorized.cuh, 06_conflict_free.cuh) copy
/// A (load4_or_zero, which branches on the uniform float4 flag) and store it to shared memory
/// before they load B, and ptxas does not move B's loads above A's stores across that branch:
/// every rung 5-6 kernel issues A's LDG, A's STS, then B's LDG and B's STS before its barrier,
/// so a K tile waits for two global round trips: 2. Rungs 2-4 (predicated scalar copies, no
/// branch) and 7-10 (warp_common.cuh loads the whole stage into registers, then stores it) issue
/// every load of the tile before the first store: 1. Its effect on the training cases:
/// docs/model.md#serial-load-groups.
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
/// The aligned rows' unpredicated fast paths of rungs 7-10 are counted at the generic
/// kIntegerPerGlobalLoad = 2. Rungs 5-6 keep the generic count:
/// their load4_or_zero (common.cuh) has no unpredicated fast path, so the aligned float4 already
/// pays the row address and guard, and the scalar fallback adds only 3 LDG.E and 4-5 integer
/// instructions per float4 (SASS, index 11 r05-vec-128x128x8 t8x8 256t: A 21 -> 28
/// instructions per float4, B 8 -> 16), which the generic 2 per load covers. Rung 4 has no
/// vector path. The effect on the 2049^3 training cases (run 8b790e0), and the rung 5-6 count
/// tried and not adopted: docs/model.md#unaligned-copy-paths.
/// Per warp per K tile the model counts each path's copies
/// (KernelAnatomy::global_a / global_b instructions) times these; the B copies of rungs 9-10
/// walk one B row per warp (32 consecutive floats; the first row stands for all, so a warp's
/// copy is taken as one 128-byte line, as aligned rows would be).
inline constexpr double kUnalignedScalarLoadInteger = 8.65;
inline constexpr double kUnalignedByteCopyInteger = 18;
double unaligned_copy_integer(UnalignedCopy path);

/// Warp instructions per K tile that the counts of the anatomy miss (address and predicate
/// arithmetic of the copy code, loop and stage bookkeeping, rung 10's cluster barriers):
///   per_k_tile + per_k_step * BK + per_global_load * (global copy sites per thread: rung 4's
///   scalar loads, rungs 5-6's float4 copies, whose unaligned fallback is four scalar loads)
///   + per_swizzle_pattern * (BK / 4 - 1) * (TM + TN) / 4 for rung 6's swizzled layout (its XOR
///   term changes every 4 rows, so a K tile reads its fragments' TM / 4 + TN / 4 float4 streams
///   under BK / 4 patterns where the padded layout's constant offsets need none; Nsight Compute:
///   swizzled twins execute 1-11% more instructions than padded ones).
/// Counted, not timed: least squares of Nsight Compute's executed warp instructions
/// (smsp__inst_executed.sum) minus the anatomy's count over the sample's training configs
/// without local memory at 2048^3 (sgemm-sample-ncu-all-*.json, run c97b1bb, nvcc 13.0 sm_90;
/// experiments/sample/ncu_counts.py), one row per rung. Rungs 2-3 (one registered config each,
/// no sample configs): the K loop of their SASS (nvdisasm of kernels/src/rung_02.cu and
/// rung_03.cu, nvcc 13.0, sm_90; no branch inside it, so issued = static count) minus the
/// anatomy's count, its address arithmetic not hoisted out of the loop; like the Nsight Compute
/// rows, taken for every architecture. Rung 1: not counted (0).
/// Checked on the same subset at 512x2048x4096 (run 530a3a6): measured / model median 0.99-1.01
/// per rung; at the unaligned 1459x2313x162, rungs 5-6 1.07 / 1.05 per copy site (0.90 / 0.82
/// when each fallback load counted as a site).
struct CompiledOverhead {
  double per_k_tile = 0;
  double per_k_step = 0;
  double per_global_load = 0;
  double per_swizzle_pattern = 0;
};
CompiledOverhead compiled_overhead(int rung);

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
/// The measurement that found it: docs/model.md#prefetch-distance-of-the-chain.
int chain_prefetch_tiles(const gemm::TileConfig& config, int prefetch_tiles);

/// Floats per shared-memory fragment read of A and of B (LDS.64 = 2, LDS.128 = 4), read off
/// the SASS of the ladder's kernels (nvcc 13.0, sm_90, nvdisasm of kernels/src/rung_04.cu, every
/// registered rung-4 config): rung 4 (04_thread_tiling_2d.cuh) unrolls its k loop by two and
/// reads A's fragment as[(tr*TM + i)*BK + k], [.. + k + 1] with one LDS.64 per row i (BK even),
/// and B's contiguous TN floats bs[k*BN + tc*TN + j] with LDS.128 (TN % 4 == 0; LDS.64 for
/// TN = 2): 128x128x8 t8x8 issues 8 LDS.64 + 4 LDS.128 per two k, 48 per K tile instead of 128
/// scalar LDS. Rungs 2 and 3 (02_shared_tiling.cuh, 03_thread_tiling_1d.cuh; SASS of 32x32x32
/// and 64x64x8 t8x1 likewise): the k loop is unrolled whole and a thread's row of A, as[ty*T + k
/// .. + 3] and as[(tr*TM + i)*BK + k .. + 3], is read by LDS.128 (BK % 4 == 0; 8 and 16 per K
/// tile), B's one float per k by LDS. Other rungs: 1 (their vector reads are counted in their
/// own anatomy).
int fragment_read_floats_a(const gemm::TileConfig& config);
int fragment_read_floats_b(const gemm::TileConfig& config);

/// Scalar LDS per K tile that read an A value a second time: rung 3 with LDS.128 reads each
/// row's last k again (the SASS above: LDS R11, [R3+0x3c] beside the LDS.128 of [R3+0x30]),
/// TM per K tile; 0 elsewhere.
int fragment_reloads_a(const gemm::TileConfig& config);

/// Shared-memory fragment round trips per K tile that a warp waits for before the FFMAs that use
/// them: rung 4: BK / fragment_read_floats_a (SASS: each iteration of the k loop, unrolled by
/// two, issues its 12 LDS and then its 128 FFMAs, which wait on them; the loop is not unrolled
/// further, so no LDS is hoisted above the previous iteration's FFMAs); every other rung: 1 (the
/// BK loop is fully unrolled and the next k's reads are hoisted above the current FFMAs, so
/// only the first read after the barrier is exposed, counted in the tile's overhead).
/// The measured wait it explains: docs/model.md#fragment-round-trips.
int fragment_round_trips(const gemm::TileConfig& config);

/// Threads per block a config implies when it does not say (config.threads = 0): rung 1: BM*BN;
/// rung 2: BM*BN;
/// rungs 3-6: (BM/TM)*(BN/TN); rungs 7-10: 32 * (BM/WM) * (BN/WN) (one warp per warp tile;
/// without WM, WN: (BM/TM)*(BN/TN)).
int derived_threads(const gemm::TileConfig& config);

/// The stage barrier a rung's block waits on per K tile beyond its issue
/// (KernelAnatomy::stage_wait): rung 10 waits on its stage's full mbarrier (thread 0 alone waits
/// for the phase, then one __syncthreads releases the block), StageWait::kBulkCopy when B
/// arrives by bulk copies, StageWait::kFallback when B's rows are not 16-byte aligned (every
/// thread's guarded 4-byte cp.async, same stage protocol); else kNone. The cycles are the GPU's
/// (spec microarchitecture.bulk_copy_stage_wait_cycles, fallback_stage_wait_cycles: the H200's
/// from Nsight Compute on training cases, docs/model.md#stage-waits).
StageWait stage_wait_kind(int rung, bool b_bulk_copy);

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
/// What the model reads instead of asking for the rung: barriers (0 for rung 1: its warps wait on
/// their own loads), prefetch_tiles and chain_prefetch_tiles, serial_load_groups,
/// fragment_round_trips, live_fragment_sets (1 for rungs 1-2, 2 from rung 3 on: the next k's
/// fragments are read during the current FFMAs), shared_round_trips (0 rung 1, 1 when A and B
/// both arrive asynchronously, else 2), b_multicast_blocks (rung 10 with bulk copies: the
/// cluster), stage_wait (stage_wait_kind(rung, b_bulk_copy)). Throws
/// std::invalid_argument for a config outside gemm::tile_bounds_problem or without a tile.
KernelAnatomy anatomy(const gemm::Problem& problem, const gemm::TileConfig& config, int banks = 32);

/// Why `gpu` cannot run the config's kernel at all (a compute capability below
/// minimum_compute_capability(config)), a static string; nullptr when it can.
const char* not_runnable_reason(const GpuSpec& gpu, const gemm::TileConfig& config);

/// kernels::anatomy, then roofcast::predict: the prediction of a ladder config (threads = 0:
/// derived_threads) with its anatomy on the GPU's shared-memory banks. A kernel the GPU cannot
/// run (not_runnable_reason) comes back with launchable false, Prediction::not_runnable set and
/// no time.
Prediction predict(const GpuSpec& gpu, const PredictInput& input,
                   const Calibration& calibration = {});

}  // namespace roofcast::kernels
