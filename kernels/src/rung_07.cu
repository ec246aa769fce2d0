#include "ladder/07_warp_tiling.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_07(CompiledKernel* table) { fill_rung<7, ladder::WarpTilingMaker>(table); }
}  // namespace roofcast::kernels::detail
