#include "ladder/09_cp_async.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_09(CompiledKernel* table) { fill_rung<9, ladder::CpAsyncMaker>(table); }
}  // namespace roofcast::kernels::detail
