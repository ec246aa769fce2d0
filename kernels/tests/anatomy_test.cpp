// Each rung's anatomy (kernels/ladder/anatomy_*.cpp): what one thread does per K tile, read off
// the rung's kernel and its SASS.
#include "roofcast/kernels/anatomy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast::kernels {
namespace {

using gemm::SmemLayout;
using gemm::TileConfig;

const TileConfig kRung4 = tile(4, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 1);
const TileConfig kRung5 = tile(5, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 4);
const gemm::Problem k4096{4096, 4096, 4096};

TEST(SharedTileLayout, PaddedRowsMatchTheKernelRules) {
  for (int cols = 4; cols <= 512; cols += 4) {
    EXPECT_EQ(padded_row_floats(cols), kernels::rules::smem_row_floats(SmemLayout::kPadded, cols))
        << cols;
  }
  EXPECT_EQ(padded_row_floats(128), 148);  // 144 float = 36 float4 (even) -> 148
}

TEST(SharedTileLayout, Offsets) {
  EXPECT_EQ(shared_tile_offset(SmemLayout::kPlain, 8, 128, 3, 5), 3 * 128 + 5);
  EXPECT_EQ(shared_tile_offset(SmemLayout::kPadded, 8, 128, 1, 33), 148 + 33 + 4);
  // Swizzled, 8 rows of 128: row 4, column 0: x = (0 + 1 * 4) % 8 = 4, v ^ x = 4.
  EXPECT_EQ(shared_tile_offset(SmemLayout::kSwizzled, 8, 128, 4, 0), 4 * 128 + 16);
  EXPECT_EQ(shared_tile_offset(SmemLayout::kSwizzled, 8, 128, 0, 37), 33);  // v = 9 -> 8
  // Row 0, column 33: v = 8, x = 1, v ^ x = 9: 36 + 1.
  EXPECT_EQ(shared_tile_offset(SmemLayout::kSwizzled, 8, 128, 0, 33), 37);
}

// ---- anatomy per rung -------------------------------------------------------------------

TEST(Anatomy, DerivedThreads) {
  EXPECT_EQ(derived_threads(tile(1, SmemLayout::kPlain, 32, 32, 0, 1, 1, 0, 0, 0, 1, 1)), 1024);
  EXPECT_EQ(derived_threads(tile(3, SmemLayout::kPlain, 64, 64, 8, 8, 1, 0, 0, 0, 1, 1)), 512);
  EXPECT_EQ(derived_threads(kRung4), 256);
  EXPECT_EQ(derived_threads(tile(7, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 0, 1, 4)),
            128);
}

TEST(Anatomy, NaiveRung) {
  const TileConfig c = tile(1, SmemLayout::kPlain, 32, 32, 0, 1, 1, 0, 0, 1024, 1, 1);
  const KernelAnatomy a = anatomy(k4096, c);
  EXPECT_EQ(a.k_tile, 1);
  EXPECT_EQ(a.warps, 32);
  EXPECT_EQ(a.ffma, 1);
  EXPECT_EQ(a.global_a.wavefronts, 1);  // a warp shares its A element
  EXPECT_EQ(a.global_a.sectors, 1);
  EXPECT_EQ(a.global_b.wavefronts, 1);  // 32 consecutive B elements
  EXPECT_EQ(a.global_b.sectors, 4);
  EXPECT_EQ(a.shared_wavefronts(), 0);
  EXPECT_DOUBLE_EQ(a.instructions(), 1 + 2 + 2);
  EXPECT_DOUBLE_EQ(a.ffma_per_loaded_value(), 0.5);
}

TEST(Anatomy, SharedTilingRung) {
  const TileConfig c = tile(2, SmemLayout::kPlain, 32, 32, 32, 1, 1, 0, 0, 1024, 1, 1);
  const KernelAnatomy a = anatomy(k4096, c);
  EXPECT_EQ(a.k_tile, 32);
  EXPECT_DOUBLE_EQ(a.ffma, 32);
  // as[ty * 32 + k .. + 3] by LDS.128 (nvdisasm of kernels/src/rung_02.cu, nvcc 13.0 sm_90: 8
  // LDS.128 of A, 32 LDS of B per K tile): one row per warp, a broadcast, which a LDS.128 serves
  // with lane pairs packed, 2 wavefronts (shared_load_wavefronts).
  EXPECT_DOUBLE_EQ(a.load_a.instructions, 8);
  EXPECT_EQ(a.load_a.vector_floats, 4);
  EXPECT_EQ(a.load_a.wavefronts, 2);
  EXPECT_DOUBLE_EQ(a.load_b.instructions, 32);
  EXPECT_EQ(a.load_b.wavefronts, 1);  // bs[k * 32 + tx]: consecutive
  EXPECT_DOUBLE_EQ(a.reload_a.instructions, 0);
  EXPECT_DOUBLE_EQ(a.barriers, 2);
  EXPECT_DOUBLE_EQ(a.shared_wavefronts(), 1 + 1 + 8 * 2 + 32);
  // The SASS K loop's 104 instructions: rung 2's compiled overhead row is read off this count,
  // so this holds the row and the anatomy's own count together, not a prediction.
  EXPECT_DOUBLE_EQ(a.instructions(), 104);
}

TEST(Anatomy, TwoDimensionalThreadTilingConflicts) {
  // Hand count for 128x128x8, TM = TN = 8, 256 threads (16 threads per tile row):
  const KernelAnatomy a = anatomy(k4096, kRung4);
  EXPECT_DOUBLE_EQ(a.ffma, 512);
  // A tile 128 x 8 over 256 threads: 4 loads each; a warp covers 4 rows of 8 floats (32 B)
  // of A: 4 lines for 128 bytes.
  EXPECT_DOUBLE_EQ(a.global_a.instructions, 4);
  EXPECT_EQ(a.global_a.wavefronts, 4);
  EXPECT_EQ(a.global_a.wavefronts_ideal, 1);
  EXPECT_DOUBLE_EQ(a.global_b.instructions, 4);
  EXPECT_EQ(a.global_b.wavefronts, 1);
  // Fragment reads as the SASS issues them (fragment_read_floats_a/b): A by LDS.64 (k, k + 1)
  // per row, 8 rows x 4 k pairs = 32; B by LDS.128, 2 per k x 8 = 16.
  EXPECT_EQ(fragment_read_floats_a(kRung4), 2);
  EXPECT_EQ(fragment_read_floats_b(kRung4), 4);
  EXPECT_EQ(a.fragment_round_trips, 4);  // BK / 2 steps of the k loop
  // A fragment: a warp holds 2 thread rows whose A rows lie TM * BK = 64 floats apart: same
  // bank, 2-way; lanes l, l ^ 1 share a row, so the LDS.64 is one paired phase of 32 lanes
  // (shared_load_wavefronts). B fragment: 16 threads at TN = 8 floats, no lane pair shares an
  // address: four quarter-warp phases, each 8 16-byte units at banks 0, 8, 16, 24, two each.
  EXPECT_DOUBLE_EQ(a.load_a.instructions, 32);
  EXPECT_EQ(a.load_a.vector_floats, 2);
  EXPECT_EQ(a.load_a.wavefronts, 2);
  EXPECT_DOUBLE_EQ(a.load_a.replay_factor(), 2);
  EXPECT_DOUBLE_EQ(a.load_b.instructions, 16);
  EXPECT_EQ(a.load_b.vector_floats, 4);
  EXPECT_EQ(a.load_b.wavefronts, 4 * 2);
  EXPECT_DOUBLE_EQ(a.load_b.replay_factor(), 2);
  EXPECT_DOUBLE_EQ(a.shared_wavefronts(), 8 + 32 * 2 + 16 * 8);
  EXPECT_DOUBLE_EQ(a.shared_wavefronts_ideal(), 8 + 32 + 16 * 4);
  // 512 FFMA + 8 LDG + 8 STS + 48 LDS + 2 BAR + (2 * 8 + 4) integer + the compiled overhead
  // Nsight Compute counted beyond them (rung 4: 15.06 + 3.67 per k + 11.98 per global load).
  EXPECT_DOUBLE_EQ(a.compiled_overhead, 15.06 + 3.67 * 8 + 11.98 * 8);
  EXPECT_DOUBLE_EQ(a.instructions(), 512 + 8 + 8 + 48 + 2 + 20 + a.compiled_overhead);
  EXPECT_DOUBLE_EQ(a.ffma_per_loaded_value(), 4);  // 64 / (8 + 8)
}

// Rung 3 reads A's rows by LDS.128 and each row's last k again by LDS (nvdisasm of
// kernels/src/rung_03.cu, nvcc 13.0, sm_90). Every lane of a warp reads the same row: a
// broadcast, 2 wavefronts per LDS.128 (lane pairs packed), 1 per LDS.
TEST(Anatomy, Rung3ReadsARowsByLds128AsTheSassDoes) {
  // 64x64x8 t8x1, 512 threads: 16 LDS.128 and 8 scalar reloads of A, 8 LDS of B, 64 FFMA.
  const KernelAnatomy r3 =
      anatomy(k4096, tile(3, SmemLayout::kPlain, 64, 64, 8, 8, 1, 0, 0, 512, 1, 1));
  EXPECT_DOUBLE_EQ(r3.ffma, 64);
  EXPECT_DOUBLE_EQ(r3.load_a.instructions, 16);
  EXPECT_EQ(r3.load_a.wavefronts, 2);
  EXPECT_DOUBLE_EQ(r3.reload_a.instructions, 8);
  EXPECT_EQ(r3.reload_a.wavefronts, 1);
  EXPECT_DOUBLE_EQ(r3.load_b.instructions, 8);
  EXPECT_EQ(r3.load_b.wavefronts, 1);
  EXPECT_DOUBLE_EQ(r3.shared_wavefronts(), 1 + 1 + 16 * 2 + 8 + 8);
  EXPECT_DOUBLE_EQ(r3.instructions(), 139);  // the SASS K loop (the row read off it, as rung 2)
}

TEST(Anatomy, FragmentReadWidthsFollowTheRung4Sass) {
  TileConfig c = kRung4;
  c.tn = 2;  // 32x32x8 t2x2: B by LDS.64
  EXPECT_EQ(fragment_read_floats_b(c), 2);
  c.tn = 3;
  EXPECT_EQ(fragment_read_floats_b(c), 1);
  c.bk = 7;  // odd BK: no k pairs
  EXPECT_EQ(fragment_read_floats_a(c), 1);
  EXPECT_EQ(fragment_round_trips(c), 7);
  TileConfig r2 = kRung4;
  r2.rung = 2;  // rung 2 reads A's row four k at a time, no reloads
  EXPECT_EQ(fragment_read_floats_a(r2), 4);
  EXPECT_EQ(fragment_reloads_a(r2), 0);
  TileConfig r3 = kRung4;
  r3.rung = 3;  // rung 3 reads A's row four k at a time and each row's last k again
  EXPECT_EQ(fragment_read_floats_a(r3), 4);
  EXPECT_EQ(fragment_reloads_a(r3), r3.tm);
  EXPECT_EQ(fragment_read_floats_b(r3), 1);
  EXPECT_EQ(fragment_round_trips(r3), 1);
  r3.bk = 6;  // no 16-byte rows: scalar reads, no reloads
  EXPECT_EQ(fragment_read_floats_a(r3), 1);
  EXPECT_EQ(fragment_reloads_a(r3), 0);
  TileConfig r5 = kRung4;
  r5.rung = 5;  // other rungs count their own reads
  EXPECT_EQ(fragment_read_floats_a(r5), 1);
  EXPECT_EQ(fragment_reloads_a(r5), 0);
}

TEST(Anatomy, VectorizedRungConflictsAndTheirFixes) {
  const KernelAnatomy plain = anatomy(k4096, kRung5);
  EXPECT_DOUBLE_EQ(plain.store_a.instructions, 4);  // one float4 of A, four scalar stores
  EXPECT_EQ(plain.store_a.wavefronts, 2);           // rows k and k + 4 lie 4 * 128 apart
  EXPECT_EQ(plain.store_b.wavefronts, 4);           // 512 consecutive bytes
  EXPECT_DOUBLE_EQ(plain.store_b.replay_factor(), 1);
  EXPECT_EQ(plain.load_a.wavefronts, 2);  // 2 float4s, broadcast: two paired half-warp phases
  EXPECT_DOUBLE_EQ(plain.load_b.replay_factor(), 2);  // bank groups 0, 2, 4, 6 only
  EXPECT_DOUBLE_EQ(plain.load_a.instructions, 2 * 8);
  EXPECT_TRUE(plain.a_vector);
  EXPECT_EQ(plain.global_a.wavefronts, 16);  // 16 rows x 32 bytes
  EXPECT_EQ(plain.global_a.wavefronts_ideal, 4);
  for (SmemLayout layout : {SmemLayout::kPadded, SmemLayout::kSwizzled}) {
    TileConfig c = kRung5;
    c.rung = 6;
    c.layout = layout;
    const KernelAnatomy fixed = anatomy(k4096, c);
    EXPECT_DOUBLE_EQ(fixed.store_a.replay_factor(), 1) << gemm::to_string(layout);
    EXPECT_DOUBLE_EQ(fixed.load_b.replay_factor(), 1) << gemm::to_string(layout);
    EXPECT_DOUBLE_EQ(fixed.shared_wavefronts(), fixed.shared_wavefronts_ideal());
  }
}

// A 64 x 8 tile as float4 is 128 copies for 256 threads: warps 0-3 copy one each, warps 4-7
// none, so a warp issues 0.5 copies per K tile on average (not the per-thread maximum 1), and
// the sectors requested from L1 equal the bytes L2 supplies (no false L1 reuse).
// Rungs 5-6 store A before they load B (SASS: A's LDG, A's STS, B's LDG, B's STS); the others
// issue every load of the tile first.
TEST(Anatomy, SerialLoadGroups) {
  for (int rung = 1; rung <= gemm::kRungCount; ++rung) {
    EXPECT_EQ(serial_load_groups(rung), rung == 5 || rung == 6 ? 2 : 1) << "rung " << rung;
  }
  EXPECT_EQ(anatomy(k4096, kRung5).serial_load_groups, 2);
  EXPECT_EQ(anatomy(k4096, kRung4).serial_load_groups, 1);
}

TEST(Anatomy, CopyLoopsWithFewerCopiesThanThreads) {
  const TileConfig c = tile(5, SmemLayout::kPlain, 64, 64, 8, 4, 4, 0, 0, 256, 1, 4);
  const KernelAnatomy a = anatomy(k4096, c);
  EXPECT_DOUBLE_EQ(a.global_a.instructions, 0.5);
  EXPECT_DOUBLE_EQ(a.global_b.instructions, 0.5);
  EXPECT_DOUBLE_EQ(a.store_a.instructions, 4 * 0.5);
  EXPECT_DOUBLE_EQ(a.store_b.instructions, 0.5);
  EXPECT_EQ(a.staging_registers, 8);  // a copying thread still holds one float4 of each
  const TileWaste w = compute_tile_waste(k4096, c);
  const Traffic t = compute_traffic(k4096, a, w, false);
  EXPECT_DOUBLE_EQ(t.l1_hit_rate(), 0);
  // 192 copies for 256 threads: 6 warp-rounds over 8 warps.
  const TileConfig r4 = tile(4, SmemLayout::kPlain, 64, 64, 8, 4, 4, 0, 0, 256, 1, 1);
  EXPECT_DOUBLE_EQ(anatomy(k4096, r4).global_a.instructions, 512.0 / 32 / 8);
}

TEST(Anatomy, UnalignedRowsFallBackToScalarLoads) {
  const KernelAnatomy a = anatomy({4096, 4097, 4095}, kRung5);
  EXPECT_FALSE(a.a_vector);
  EXPECT_FALSE(a.b_vector);
  EXPECT_DOUBLE_EQ(a.global_a.instructions, 4);  // four scalars for the one float4
  EXPECT_EQ(a.global_a.vector_floats, 1);
}

TEST(Anatomy, WarpTiledRungsPipelines) {
  TileConfig c = tile(7, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 1, 4);
  const KernelAnatomy r7 = anatomy(k4096, c);
  EXPECT_EQ(r7.outputs_per_thread, 128);
  EXPECT_EQ(r7.prefetch_tiles, 0);
  EXPECT_DOUBLE_EQ(r7.barriers, 2);
  EXPECT_DOUBLE_EQ(r7.shared_wavefronts(), r7.shared_wavefronts_ideal());  // conflict-free
  EXPECT_EQ(r7.staging_registers, 4 * (2 + 2));  // 256 float4 of A and of B over 128 threads
  c.rung = 8;
  c.stages = 2;
  const KernelAnatomy r8 = anatomy(k4096, c);
  EXPECT_EQ(r8.prefetch_tiles, 1);
  EXPECT_TRUE(r8.fragment_double_buffer);
  EXPECT_DOUBLE_EQ(r8.barriers, 1);
  c.rung = 9;
  c.stages = 3;
  // vector_width 4: A through registers (a stage ahead), B by 16-byte cp.async.
  const KernelAnatomy r9_registers = anatomy(k4096, c);
  EXPECT_EQ(r9_registers.prefetch_tiles, 2);
  EXPECT_FALSE(r9_registers.a_async_copy);
  EXPECT_TRUE(r9_registers.b_async_copy);
  EXPECT_EQ(r9_registers.staging_registers, 4 * 2);  // A's float4s only
  // Interior blocks: no address or predicate per copy (2 per copy on rung 7), two pointer adds.
  EXPECT_DOUBLE_EQ(r9_registers.integer_overhead, 2 + 4);
  EXPECT_DOUBLE_EQ(r9_registers.instructions(),
                   r7.instructions() - r7.barriers - r7.store_b.instructions + 2 -
                       r7.integer_overhead + r9_registers.integer_overhead - r7.compiled_overhead +
                       r9_registers.compiled_overhead);
  // K not a multiple of BK: every block keeps the bounds-checked copies.
  EXPECT_DOUBLE_EQ(anatomy({4096, 4096, 4092}, c).integer_overhead, r7.integer_overhead);
  // vector_width 1: A by 4-byte cp.async straight into A^T.
  c.vector_width = 1;
  const KernelAnatomy r9 = anatomy(k4096, c);
  EXPECT_TRUE(r9.a_async_copy);
  EXPECT_EQ(r9.staging_registers, 0);
  EXPECT_DOUBLE_EQ(r9.global_a.instructions, 8);  // 4-byte copies: 1024 floats / 128 threads
  EXPECT_EQ(r9.global_a.wavefronts, 4);           // 4 rows x 32 bytes
  // The banks (row + 4 * column) are all different, but a cp.async writes at its 4 global
  // wavefronts (async_copy_store_wavefronts).
  EXPECT_EQ(r9.store_a.wavefronts, 4);
  EXPECT_EQ(r9.store_a.wavefronts_ideal, 1);
  // The copies' instructions are the global ones; the stores only count wavefronts.
  EXPECT_DOUBLE_EQ(r9.instructions(), r9.ffma + r9.global_a.instructions +
                                          r9.global_b.instructions + r9.load_a.instructions +
                                          r9.load_b.instructions + r9.barriers +
                                          r9.integer_overhead + r9.compiled_overhead);
  c.rung = 10;
  c.cluster = 2;
  c.vector_width = 4;
  const KernelAnatomy r10 = anatomy(k4096, c);
  EXPECT_TRUE(r10.b_bulk_copy);
  EXPECT_DOUBLE_EQ(r10.global_b.instructions, 0);
  EXPECT_DOUBLE_EQ(r10.store_b.wavefronts_per_tile() * r10.warps, 8.0 * 128 * 4 / 128);
  // A cluster issues stage t + S - 2 (one stage of slack for its peers); one __syncthreads.
  EXPECT_EQ(r10.prefetch_tiles, 3 - 2);
  EXPECT_DOUBLE_EQ(r10.barriers, 1);
  c.cluster = 1;
  c.stages = 4;
  const KernelAnatomy r10_alone = anatomy(k4096, c);
  EXPECT_EQ(r10_alone.prefetch_tiles, 4 - 1);
  c.cluster = 2;  // S - 2 but never below one stage ahead
  c.stages = 2;
  EXPECT_EQ(anatomy(k4096, c).prefetch_tiles, 1);
}

TEST(Anatomy, ChainPrefetchFollowsTheOperandIssuedLast) {
  TileConfig c = tile(9, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 4);
  // vector_width 4: B by cp.async two stages ahead, A through registers one stage ahead.
  const KernelAnatomy v4 = anatomy(k4096, c);
  EXPECT_EQ(v4.prefetch_tiles, 2);
  EXPECT_EQ(v4.chain_prefetch_tiles, 1);
  c.vector_width = 1;  // both operands by cp.async
  EXPECT_EQ(anatomy(k4096, c).chain_prefetch_tiles, 2);
  c.rung = 10;
  c.stages = 4;
  EXPECT_EQ(anatomy(k4096, c).chain_prefetch_tiles, 3);
  c.vector_width = 4;
  EXPECT_EQ(anatomy(k4096, c).chain_prefetch_tiles, 1);
  c.rung = 8;
  c.stages = 2;
  EXPECT_EQ(anatomy(k4096, c).chain_prefetch_tiles, 1);
  c.rung = 7;
  c.stages = 1;
  EXPECT_EQ(anatomy(k4096, c).chain_prefetch_tiles, 0);
}

TEST(Anatomy, UnalignedWarpTiledCopiesCountTheirSassPaths) {
  const gemm::Problem odd{1999, 3001, 1537};  // K % 4 = N % 4 = 1
  // Rung 8, 128x64x8 t8x8 128t: A 2 float4 and B 1 float4 per thread, as 12 scalar loads.
  const TileConfig r8 = tile(8, SmemLayout::kPadded, 128, 64, 8, 8, 8, 64, 32, 128, 2, 4);
  const KernelAnatomy a8 = anatomy(odd, r8);
  EXPECT_DOUBLE_EQ(a8.global_a.instructions, 8);
  EXPECT_DOUBLE_EQ(a8.global_b.instructions, 4);
  EXPECT_DOUBLE_EQ(a8.integer_overhead, kUnalignedScalarLoadInteger * 12 + 4);
  EXPECT_DOUBLE_EQ(a8.unaligned_copy_instructions, (kUnalignedScalarLoadInteger + 1) * 12);
  const KernelAnatomy a8_aligned = anatomy(k4096, r8);
  EXPECT_DOUBLE_EQ(a8_aligned.integer_overhead, 2 * 3 + 4);
  EXPECT_DOUBLE_EQ(a8_aligned.unaligned_copy_instructions, 0);
  // Rung 9 v1, 128x128x8 t8x16: A by 8 4-byte copies, B by 8 guarded 4-byte copies of one row
  // each warp (32 consecutive floats: one line), never interior.
  const TileConfig r9 = tile(9, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 1);
  const KernelAnatomy a9 = anatomy(odd, r9);
  EXPECT_DOUBLE_EQ(a9.global_b.instructions, 8);
  EXPECT_EQ(a9.global_b.vector_floats, 1);
  EXPECT_EQ(a9.global_b.wavefronts, 1);
  EXPECT_EQ(a9.store_b.wavefronts, 1);
  EXPECT_DOUBLE_EQ(a9.store_b.instructions, 8);
  EXPECT_DOUBLE_EQ(a9.integer_overhead, kUnalignedByteCopyInteger * 8 + 2 * 8 + 4);
  EXPECT_DOUBLE_EQ(a9.unaligned_copy_instructions, (kUnalignedByteCopyInteger + 1) * 8);
  // Aligned and interior: B's pointer one add, A's copies 2 each.
  EXPECT_DOUBLE_EQ(anatomy(k4096, r9).integer_overhead, 2 * 8 + 1 + 4);
}

TEST(Anatomy, UnalignedVectorizedRungsKeepTheGenericCount) {
  // Rungs 5-6: load4_or_zero's aligned path is guarded too, so the scalar fallback adds its
  // loads at the generic 2 integer instructions each, and nothing counts as an unaligned path.
  const TileConfig r5 = tile(5, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 4);
  const KernelAnatomy odd = anatomy({2049, 2049, 2049}, r5);
  EXPECT_FALSE(odd.a_vector);
  EXPECT_DOUBLE_EQ(odd.global_a.instructions, 4);  // one float4 as four scalar loads
  EXPECT_DOUBLE_EQ(odd.integer_overhead,
                   2 * (odd.global_a.instructions + odd.global_b.instructions) + 4);
  EXPECT_DOUBLE_EQ(odd.unaligned_copy_instructions, 0);
}

// The compiled overhead is per K tile, per k and per global load instruction of the rung's row;
// rung that was not counted (1) carries none, and it never goes negative.
TEST(Anatomy, CompiledOverheadFollowsTheCountedRows) {
  TileConfig c = kRung4;
  const KernelAnatomy a = anatomy({4096, 4096, 4096}, c);
  const double loads = a.global_a.instructions + a.global_b.instructions;
  EXPECT_DOUBLE_EQ(a.compiled_overhead, 15.06 + 3.67 * c.bk + 11.98 * loads);
  c.bk = 16;
  const KernelAnatomy deeper = anatomy({4096, 4096, 4096}, c);
  EXPECT_DOUBLE_EQ(
      deeper.compiled_overhead,
      15.06 + 3.67 * 16 + 11.98 * (deeper.global_a.instructions + deeper.global_b.instructions));
  for (int rung = 1; rung <= 10; ++rung) {
    const CompiledOverhead o = compiled_overhead(rung);
    const bool counted = rung >= 2;  // rungs 2-3 from their SASS, 4-10 from Nsight Compute
    EXPECT_EQ(o.per_k_tile > 0, counted) << "rung " << rung;
  }
  for (const RegistryEntry& e : kRegistry) {
    const KernelAnatomy r = anatomy({1000, 1000, 1000}, e.config);
    EXPECT_GE(r.compiled_overhead, 0) << kernel_id(e.config);
    if (e.config.rung == 1) EXPECT_EQ(r.compiled_overhead, 0) << kernel_id(e.config);
  }
}

// Rung 6's swizzled layout pays per_swizzle_pattern for each of its BK / 4 - 1 extra XOR
// patterns per fragment float4 stream ((TM + TN) / 4); its padded twin and BK = 4 pay none.
TEST(Anatomy, SwizzleCountsItsPatterns) {
  const CompiledOverhead o = compiled_overhead(6);
  EXPECT_GT(o.per_swizzle_pattern, 0);
  for (int rung : {4, 5, 7, 8, 9, 10}) EXPECT_EQ(compiled_overhead(rung).per_swizzle_pattern, 0);
  TileConfig padded = tile(6, SmemLayout::kPadded, 128, 128, 16, 8, 8, 0, 0, 256, 1, 4);
  TileConfig swizzled = padded;
  swizzled.layout = SmemLayout::kSwizzled;
  const KernelAnatomy p16 = anatomy(k4096, padded);
  const KernelAnatomy s16 = anatomy(k4096, swizzled);
  EXPECT_DOUBLE_EQ(s16.compiled_overhead - p16.compiled_overhead,
                   o.per_swizzle_pattern * (16 / 4 - 1) * (8 + 8) / 4);
  EXPECT_GT(s16.instructions(), p16.instructions());
  padded.bk = swizzled.bk = 4;
  EXPECT_DOUBLE_EQ(anatomy(k4096, swizzled).compiled_overhead,
                   anatomy(k4096, padded).compiled_overhead);
}

TEST(Anatomy, BadConfigsThrow) {
  EXPECT_THROW(anatomy(k4096, tile(0, SmemLayout::kPlain, 1, 1, 1, 1, 1, 0, 0, 32, 1, 1)),
               std::invalid_argument);
  EXPECT_THROW(anatomy(k4096, tile(4, SmemLayout::kPlain, 128, 128, 0, 8, 8, 0, 0, 256, 1, 1)),
               std::invalid_argument);
}

// ---- traffic of the launch --------------------------------------------------------------

}  // namespace
}  // namespace roofcast::kernels
