// The default build compiles the registry alone: no sample kernels (ROOFCAST_BUILD_SAMPLE=OFF).
#include "launch_table.cuh"

namespace roofcast::kernels::detail {
const CompiledKernel* sample_kernel(std::size_t) { return nullptr; }
}  // namespace roofcast::kernels::detail
