#include "launch_table.cuh"

namespace roofcast::kernels::detail {
// Placeholder until rung 08's kernel lands; its registry section is empty.
void fill_rung_08(CompiledKernel* table) { (void)table; }
}  // namespace roofcast::kernels::detail
