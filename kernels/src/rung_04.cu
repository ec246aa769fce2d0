#include "ladder/04_thread_tiling_2d.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_04(CompiledKernel* table) { fill_rung<4, ladder::ThreadTiling2dMaker>(table); }
}  // namespace roofcast::kernels::detail
