#include "roofcast/time_model.hpp"

#include <algorithm>

namespace roofcast {
namespace {

/// max(issue_scale * issue + shared_memory_scale * shared_memory, shared_memory, the other
/// scaled terms).
double wave_time_s(const TimeTerms& terms, const Calibration& c) {
  double worst = std::max(c.issue_scale * terms[TimeTerm::kIssue] +
                              c.shared_memory_scale * terms[TimeTerm::kSharedMemory],
                          terms[TimeTerm::kSharedMemory]);
  for (int t = static_cast<int>(TimeTerm::kLatency); t < kTimeTermCount; ++t) {
    worst = std::max(worst, term_scale(c, static_cast<TimeTerm>(t)) * terms.seconds[t]);
  }
  return worst;
}

}  // namespace

std::string_view to_string(TimeTerm term) {
  switch (term) {
    case TimeTerm::kIssue:
      return "issue";
    case TimeTerm::kSharedMemory:
      return "shared_memory";
    case TimeTerm::kLatency:
      return "latency";
    case TimeTerm::kL2:
      return "l2";
    case TimeTerm::kDram:
      return "dram";
    case TimeTerm::kSpill:
      return "spill";
  }
  return "unknown";
}

double term_scale(const Calibration& c, TimeTerm term) {
  switch (term) {
    case TimeTerm::kIssue:
      return c.issue_scale;
    case TimeTerm::kSharedMemory:
      break;  // the data path's own time is unscaled; shared_memory_scale is the overlap share
    case TimeTerm::kLatency:
      return c.latency_scale;
    case TimeTerm::kL2:
      return c.l2_scale;
    case TimeTerm::kDram:
      return c.dram_scale;
    case TimeTerm::kSpill:
      break;
  }
  return 1;
}

double compose_time_s(const PredictionTerms& terms, const Calibration& calibration) {
  return terms.full_waves * wave_time_s(terms.full_wave, calibration) +
         wave_time_s(terms.last_wave, calibration) + calibration.launch_overhead_s;
}

TimeTerms total_terms(const PredictionTerms& terms, const Calibration& calibration) {
  TimeTerms totals;
  for (int t = 0; t < kTimeTermCount; ++t) {
    totals.seconds[t] =
        term_scale(calibration, static_cast<TimeTerm>(t)) *
        (terms.full_waves * terms.full_wave.seconds[t] + terms.last_wave.seconds[t]);
  }
  return totals;
}

TimeTerm binding_term(const TimeTerms& totals) {
  int best = 0;
  for (int t = 1; t < kTimeTermCount; ++t) {
    if (totals.seconds[t] > totals.seconds[best]) best = t;
  }
  return static_cast<TimeTerm>(best);
}
}  // namespace roofcast
