#include "ladder/06_conflict_free.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_06(CompiledKernel* table) { fill_rung<6, ladder::ConflictFreeMaker>(table); }
}  // namespace roofcast::kernels::detail
