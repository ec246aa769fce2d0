#include "ladder/08_double_buffering.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_08(CompiledKernel* table) { fill_rung<8, ladder::DoubleBufferedMaker>(table); }
}  // namespace roofcast::kernels::detail
