#include "launch_table.cuh"

namespace roofcast::kernels::detail {
// Placeholder until rung 10's kernel lands; its registry section is empty.
void fill_rung_10(CompiledKernel* table) { (void)table; }
}  // namespace roofcast::kernels::detail
