// Builds the launch table from kRegistry at compile time: each rung's translation unit fills
// the entries of its rung, so no second list of kernels exists.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::detail {

template <int kRung, typename Maker, std::size_t kIndex>
void fill_one(CompiledKernel* table) {
  if constexpr (kRegistry[kIndex].config.rung == kRung) {
    table[kIndex] = Maker::template make<kIndex>();
  }
}

/// Fills table[i] for every registry entry i of rung kRung with Maker::make<i>().
template <int kRung, typename Maker, std::size_t... kIndices>
void fill_rung(CompiledKernel* table, std::index_sequence<kIndices...>) {
  (fill_one<kRung, Maker, kIndices>(table), ...);
}

template <int kRung, typename Maker>
void fill_rung(CompiledKernel* table) {
  fill_rung<kRung, Maker>(table, std::make_index_sequence<kRegistrySize>{});
}

// One per rung, defined in src/rung_NN.cu.
void fill_rung_01(CompiledKernel* table);
void fill_rung_02(CompiledKernel* table);
void fill_rung_03(CompiledKernel* table);
void fill_rung_04(CompiledKernel* table);
void fill_rung_05(CompiledKernel* table);
void fill_rung_06(CompiledKernel* table);
void fill_rung_07(CompiledKernel* table);
void fill_rung_08(CompiledKernel* table);
void fill_rung_09(CompiledKernel* table);
void fill_rung_10(CompiledKernel* table);

/// The sample's compiled kernel `sample_index` (< kSampleSize): src/sample_table.cu in the
/// sample build (ROOFCAST_BUILD_SAMPLE=ON), else src/no_sample.cu, which has none (nullptr).
const CompiledKernel* sample_kernel(std::size_t sample_index);

/// One block per C tile, tile chosen by the raster order (rungs >= 7) or row-major.
inline cudaError_t check_raster(const TileConfig& config, gemm::RasterOrder raster) {
  if (raster.kind == gemm::RasterKind::kZOrder) return cudaErrorInvalidValue;
  if (!takes_raster_order(config) && raster.kind != gemm::RasterKind::kRowMajor) {
    return cudaErrorInvalidValue;
  }
  if (raster.kind == gemm::RasterKind::kGrouped && raster.group < 1) return cudaErrorInvalidValue;
  return cudaSuccess;
}

}  // namespace roofcast::kernels::detail
