// The one integer ceiling division of roofcast (model, kernels, tune, validation, views, cli).
#pragma once

#include <type_traits>

namespace roofcast {

/// ceil(a / b) for a >= 0 and b > 0: (a + b - 1) / b, computed in the common type of a and b
/// (int with int, std::int64_t when either is std::int64_t). C++17: the CUDA ladder includes it.
template <class A, class B,
          class = std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B>>>
constexpr std::common_type_t<A, B> ceil_div(A a, B b) {
  using T = std::common_type_t<A, B>;
  return (static_cast<T>(a) + static_cast<T>(b) - 1) / static_cast<T>(b);
}

}  // namespace roofcast
