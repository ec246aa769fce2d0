#include "ladder/02_shared_tiling.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_02(CompiledKernel* table) { fill_rung<2, ladder::SharedTilingMaker>(table); }
}  // namespace roofcast::kernels::detail
