#include "roofcast/time_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace roofcast {
namespace {

/// The memory terms (TimeTerm order): their times queue in front of the binding term.
constexpr std::array<TimeTerm, 4> kMemoryTerms{TimeTerm::kSharedMemory, TimeTerm::kL2,
                                               TimeTerm::kDram, TimeTerm::kSpill};

/// binding + contention_share * (memory terms other than the binding one), binding =
/// max(issue_group_s(issue_scale * issue, shared_memory_scale * shared_memory), shared_memory,
/// the other scaled terms); the issue group holds the shared-memory term already.
double wave_time_s(const TimeTerms& terms, const Calibration& c) {
  const double issue_group = issue_group_s(c.issue_scale * terms[TimeTerm::kIssue],
                                           c.shared_memory_scale * terms[TimeTerm::kSharedMemory]);
  double worst = issue_group;
  int binding = static_cast<int>(TimeTerm::kIssue);
  for (int t = static_cast<int>(TimeTerm::kSharedMemory); t < kTimeTermCount; ++t) {
    const double seconds = term_scale(c, static_cast<TimeTerm>(t)) * terms.seconds[t];
    if (seconds > worst) {
      worst = seconds;
      binding = t;
    }
  }
  if (!(c.contention_share > 0)) return worst;
  double others = 0;
  for (const TimeTerm t : kMemoryTerms) {
    const int index = static_cast<int>(t);
    const bool in_binding = index == binding || (t == TimeTerm::kSharedMemory &&
                                                 binding == static_cast<int>(TimeTerm::kIssue));
    if (!in_binding) others += term_scale(c, t) * terms.seconds[index];
  }
  return worst + c.contention_share * others;
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
      break;  // the data path's own time is unscaled; shared_memory_scale weighs it in the norm
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

double issue_group_s(double scaled_issue_s, double weighted_data_path_s) {
  return std::hypot(scaled_issue_s, weighted_data_path_s);
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
