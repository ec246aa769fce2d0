#include "ladder/01_naive.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_01(CompiledKernel* table) { fill_rung<1, ladder::NaiveMaker>(table); }
}  // namespace roofcast::kernels::detail
