#include "launch_table.cuh"

namespace roofcast::kernels::detail {
// Placeholder until rung 02's kernel lands; its registry section is empty.
void fill_rung_02(CompiledKernel* table) { (void)table; }
}  // namespace roofcast::kernels::detail
