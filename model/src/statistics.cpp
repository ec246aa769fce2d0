#include "roofcast/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace roofcast {

double mean_absolute_percentage_error(const std::vector<double>& predicted,
                                      const std::vector<double>& measured) {
  if (predicted.size() != measured.size()) {
    throw std::invalid_argument(
        "mean_absolute_percentage_error: " + std::to_string(predicted.size()) +
        " predictions for " + std::to_string(measured.size()) + " measurements");
  }
  if (measured.empty()) return NAN;
  double sum = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (!(measured[i] > 0)) {
      throw std::invalid_argument("mean_absolute_percentage_error: measurement " +
                                  std::to_string(i) + " is not positive");
    }
    sum += std::abs(predicted[i] - measured[i]) / measured[i];
  }
  return 100 * sum / static_cast<double>(measured.size());
}

namespace {

/// Ranks 1..n, ties sharing their average rank.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return values[x] < values[y]; });
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double average = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) out[order[k]] = average;
    i = j + 1;
  }
  return out;
}

}  // namespace

double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("spearman_rank_correlation: " + std::to_string(a.size()) +
                                " values against " + std::to_string(b.size()));
  }
  const std::size_t n = a.size();
  if (n < 2) return NAN;
  const std::vector<double> ra = ranks(a);
  const std::vector<double> rb = ranks(b);
  const double mean = (static_cast<double>(n) + 1) / 2;
  double cov = 0;
  double va = 0;
  double vb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : NAN;
}

}  // namespace roofcast
