#include "ladder/03_thread_tiling_1d.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_03(CompiledKernel* table) { fill_rung<3, ladder::ThreadTiling1dMaker>(table); }
}  // namespace roofcast::kernels::detail
