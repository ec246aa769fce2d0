#include <cstdio>
#include <cstdlib>

#include "launch_table.cuh"

namespace roofcast::kernels {
namespace {

struct LaunchTable {
  CompiledKernel entries[kRegistrySize > 0 ? kRegistrySize : 1] = {};

  LaunchTable() {
    detail::fill_rung_01(entries);
    detail::fill_rung_02(entries);
    detail::fill_rung_03(entries);
    detail::fill_rung_04(entries);
    detail::fill_rung_05(entries);
    detail::fill_rung_06(entries);
    detail::fill_rung_07(entries);
    detail::fill_rung_08(entries);
    detail::fill_rung_09(entries);
    detail::fill_rung_10(entries);
    for (std::size_t i = 0; i < kRegistrySize; ++i) {
      if (entries[i].launch == nullptr) {
        std::fprintf(stderr, "roofcast: registry entry %zu (%s) has no compiled kernel\n", i,
                     kernel_id(kRegistry[i].config).c_str());
        std::abort();
      }
    }
  }
};

}  // namespace

const CompiledKernel& compiled_kernel(std::size_t index) {
  if (index < kRegistrySize) {
    static const LaunchTable table;
    return table.entries[index];
  }
  const CompiledKernel* sampled =
      index < kCompiledSize ? detail::sample_kernel(index - kRegistrySize) : nullptr;
  if (sampled == nullptr || sampled->launch == nullptr) {
    std::fprintf(stderr,
                 "roofcast: compiled kernel %zu is not in this build (the registry has %zu, the "
                 "sample %zu: configure with -DROOFCAST_BUILD_SAMPLE=ON for the sample)\n",
                 index, kRegistrySize, kSampleSize);
    std::abort();
  }
  return *sampled;
}

bool sample_kernels_compiled() { return detail::sample_kernel(0) != nullptr; }

}  // namespace roofcast::kernels
