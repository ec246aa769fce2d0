#include "ladder/10_hopper_cluster.cuh"
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
void fill_rung_10(CompiledKernel* table) { fill_rung<10, ladder::ClusterMaker>(table); }
}  // namespace roofcast::kernels::detail
