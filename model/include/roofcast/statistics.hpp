// Accuracy statistics of predictions against measurements: MAPE and Spearman's rank
// correlation.
#pragma once

#include <vector>

namespace roofcast {

// ---- accuracy statistics ----------------------------------------------------------------------

/// Mean absolute percentage error, percent: 100 / n * sum |predicted_i - measured_i| /
/// measured_i. NaN for n = 0. Throws std::invalid_argument for different lengths or a
/// measured value that is not positive.
double mean_absolute_percentage_error(const std::vector<double>& predicted,
                                      const std::vector<double>& measured);

/// Spearman's rank correlation: Pearson's correlation of the ranks (ties share their average
/// rank). NaN for n < 2 or when either side is constant. Throws std::invalid_argument for
/// different lengths.
double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace roofcast
