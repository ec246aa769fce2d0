// A GPU's compute capability. C++17 (validation's CUDA sources include it), so the comparison is
// written out instead of defaulted.
#pragma once

namespace roofcast {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  /// major * 10 + minor: 90 for 9.0 (the form CUDA's sm_NN names and the registry's minimum
  /// compute capability use). The only place that computes it.
  constexpr int number() const { return major * 10 + minor; }
  constexpr bool operator==(const ComputeCapability& o) const {
    return major == o.major && minor == o.minor;
  }
};

}  // namespace roofcast
