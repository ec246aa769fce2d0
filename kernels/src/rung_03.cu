#include "launch_table.cuh"

namespace roofcast::kernels::detail {
// Placeholder until rung 03's kernel lands; its registry section is empty.
void fill_rung_03(CompiledKernel* table) { (void)table; }
}  // namespace roofcast::kernels::detail
