#include "ladder/05_vectorized.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_05(CompiledKernel* table) { fill_rung<5, ladder::VectorizedMaker>(table); }
}  // namespace roofcast::kernels::detail
