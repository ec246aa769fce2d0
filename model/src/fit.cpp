#include "roofcast/fit.hpp"

#include "roofcast/calibration.hpp"
#include "roofcast/registers.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace roofcast {

std::string_view fitted_parameter_name(int index) {
  return index >= 0 && index < kFittedParameterCount
             ? kCalibrationParameters[static_cast<std::size_t>(index)].name
             : "unknown";
}

namespace {

using Parameters = std::array<double, kFittedParameterCount>;
constexpr int kScaleCount = 5;  // the scales of terms 0..4; term 5 (spill) is not scaled
constexpr int kOverhead = 5;
constexpr int kContention = 6;  // contention_share: a grid search, not the linear solve
constexpr int kMinBindingCasesPerScale = 2;   // see fit_calibration
constexpr double kConvergedMape = 1e-6;       // rate MAPE change that ends the reweighting
constexpr int kDataPathWeight = 1;            // shared_memory_scale: held, not fitted
constexpr int kSharedAlone = kTimeTermCount;  // binding group: the data path alone, unscaled
/// Where the fit starts and what a parameter it does not determine keeps: Calibration's
/// defaults (scales 1, shares and overhead 0), except shared_memory_scale, held at 1 (the data
/// path inside the issue group's norm, issue_group_s).
constexpr Parameters kFitStart{1, 1, 1, 1, 1, 0, 0};
/// The parameters the fit may move. The L2 and DRAM scales stay 1: those terms are bytes over a
/// bandwidth measured on the GPU (or its spec's figure), a physical ceiling; a fitted scale there
/// only absorbed cases of other mechanisms (the sample's training split: dram_scale 6.7 from 70
/// skinny cases, training MAPE 17.4% with or without it; docs/model.md#calibration-and-the-fit).
constexpr std::array<bool, kFittedParameterCount> kFreeParameter{true,  false, true, false,
                                                                 false, true,  false};

Calibration to_calibration(const Parameters& p, double l2_capacity_fraction) {
  Calibration c;
  for (std::size_t i = 0; i < p.size(); ++i) c.*kCalibrationParameters[i].field = p[i];
  c.l2_capacity_fraction = l2_capacity_fraction;
  return c;
}

/// The binding group of a wave under p: 0 = the issue group (issue_group_s of issue and the
/// data path), kSharedAlone = the data path alone, else the term's index; -1 for an empty wave.
int binding_in_wave(const TimeTerms& terms, const Parameters& p) {
  int best = -1;
  double worst = issue_group_s(p[0] * terms.seconds[0], p[1] * terms.seconds[1]);
  if (worst > 0) best = 0;
  if (terms.seconds[1] > worst) {
    worst = terms.seconds[1];
    best = kSharedAlone;
  }
  for (int t = 2; t < kTimeTermCount; ++t) {
    const double scale = t < kScaleCount ? p[t] : 1.0;
    if (scale * terms.seconds[t] > worst) {
      worst = scale * terms.seconds[t];
      best = t;
    }
  }
  return best;
}

/// Mean |measured rate / predicted rate - 1| = mean |t / compose_time_s - 1| over the cases.
double rate_mape(const std::vector<const FitSample*>& training, const Parameters& p) {
  const Calibration c = to_calibration(p, 1);
  double sum = 0;
  for (const FitSample* s : training) {
    sum += std::abs(s->measured_time_s / compose_time_s(s->terms, c) - 1);
  }
  return sum / static_cast<double>(training.size());
}

struct Solve {
  Parameters parameters{};
  std::array<bool, kFittedParameterCount> fitted{};
  std::vector<int> bindings;
};

/// The floor of |rate error| in the reweighting: a case predicted within 1% weighs as one at 1%.
constexpr double kMinReweightedError = 0.01;

/// One weighted least-squares solve with the binding terms fixed by `current`. Each case's row
/// is weighted 1 / (p_i * sqrt(max(|t_i / p_i - 1|, kMinReweightedError))), p_i its time under
/// `current`: the squared residual ((time - t_i) / p_i)^2 / |t_i / p_i - 1| is, at p = current,
/// the case's |rate error|, so repeating the solve minimises the training MAPE of the rate
/// (iteratively reweighted least squares).
Solve solve_given_bindings(const std::vector<const FitSample*>& training,
                           const Parameters& current) {
  const Calibration current_calibration = to_calibration(current, 1);
  Solve out;
  out.parameters = current;
  const int n = static_cast<int>(training.size());
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, kFittedParameterCount);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    const FitSample& s = *training[i];
    const int full = binding_in_wave(s.terms.full_wave, current);
    const int last = binding_in_wave(s.terms.last_wave, current);
    out.bindings.push_back(full);
    out.bindings.push_back(last);
    double offset = 0;
    auto add = [&](int term, double seconds) {
      if (term < 0) return;
      if (term < kScaleCount) {
        x(i, term) += seconds;
      } else {
        offset += seconds;
      }
    };
    auto add_wave = [&](int group, double count, const TimeTerms& wave) {
      if (group < 0) return;
      // contention_share x the memory terms outside the binding group (compose_time_s)
      const double share = current[kContention] * count;
      if (share > 0) {
        if (group != 0 && group != kSharedAlone && group != 1) {
          offset += share * wave.seconds[1];
        }
        for (int t : {3, 4}) {
          if (group != t) x(i, t) += share * wave.seconds[t];
        }
        if (group != 5) offset += share * wave.seconds[5];
      }
      if (group == kSharedAlone) {  // unscaled: an offset
        offset += count * wave.seconds[1];
        return;
      }
      if (group == 0) {
        // The issue group g(a) = sqrt((a I)^2 + (w D)^2), linear in a about the current a0:
        // g(a) ~ a a0 I^2 / g0 + (w D)^2 / g0, g0 = g(a0) (exact at a = a0; the reweighting
        // moves a0 to the fixed point and the polish finishes).
        const double issue = wave.seconds[0];
        const double data_path = current[kDataPathWeight] * wave.seconds[1];
        const double group0 = issue_group_s(current[0] * issue, data_path);
        if (group0 > 0) {
          x(i, 0) += count * current[0] * issue * issue / group0;
          offset += count * data_path * data_path / group0;
        }
        return;
      }
      add(group, count * wave.seconds[group]);
    };
    add_wave(full, s.terms.full_waves, s.terms.full_wave);
    add_wave(last, 1.0, s.terms.last_wave);
    x(i, kOverhead) = 1;
    // A case the current parameters predict in no time (every term 0, no overhead yet) is
    // weighted by its measured time, as an exact prediction would be.
    const double modelled = compose_time_s(s.terms, current_calibration);
    const double predicted = modelled > 0 ? modelled : s.measured_time_s;
    const double rate_error = std::abs(s.measured_time_s / predicted - 1);
    const double weight = 1 / (predicted * std::sqrt(std::max(rate_error, kMinReweightedError)));
    x.row(i) *= weight;
    y(i) = (s.measured_time_s - offset) * weight;
  }
  // Columns the data determines; a column that would go non-positive is fixed at its
  // current value (moved into the target) and the rest re-solved.
  std::array<bool, kFittedParameterCount> active{};
  // A scale needs at least kMinBindingCasesPerScale training cases where its term binds: one
  // case alone would set it to reproduce that case exactly (no information about the term).
  for (int j = 0; j < kFittedParameterCount; ++j) {
    const auto binding_cases = (x.col(j).array() != 0).count();
    active[j] = kFreeParameter[static_cast<std::size_t>(j)] &&
                binding_cases >= (j == kOverhead ? 1 : kMinBindingCasesPerScale);
    if (!active[j] && j != kOverhead && j != kContention) {
      out.parameters[j] = kFitStart[j];  // undetermined, or held
    }
  }
  for (int round = 0; round <= kFittedParameterCount; ++round) {
    std::vector<int> columns;
    for (int j = 0; j < kFittedParameterCount; ++j) {
      if (active[j]) columns.push_back(j);
    }
    Eigen::VectorXd target = y;
    for (int j = 0; j < kFittedParameterCount; ++j) {
      if (!active[j]) target -= x.col(j) * (j == kOverhead ? 0.0 : out.parameters[j]);
    }
    if (columns.empty()) break;
    Eigen::MatrixXd a(n, static_cast<Eigen::Index>(columns.size()));
    for (std::size_t c = 0; c < columns.size(); ++c)
      a.col(static_cast<Eigen::Index>(c)) = x.col(columns[c]);
    const Eigen::VectorXd solution = a.colPivHouseholderQr().solve(target);
    bool clamped = false;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const int j = columns[c];
      const double v = solution(static_cast<Eigen::Index>(c));
      const bool bad = j == kOverhead ? v < 0 : !(v > 0);
      if (bad) {
        active[j] = false;
        if (j == kOverhead) out.parameters[j] = 0;
        clamped = true;
      }
    }
    if (clamped) continue;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out.parameters[columns[c]] = solution(static_cast<Eigen::Index>(c));
    }
    break;
  }
  out.fitted = active;
  return out;
}

/// The median of t / term over the training cases where the term is not zero (1 if none).
double median_ratio(const std::vector<const FitSample*>& training, int term) {
  std::vector<double> ratios;
  for (const FitSample* s : training) {
    const double seconds =
        s->terms.full_waves * s->terms.full_wave.seconds[term] + s->terms.last_wave.seconds[term];
    if (seconds > 0) ratios.push_back(s->measured_time_s / seconds);
  }
  if (ratios.empty()) return 1;
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

/// Nelder-Mead on the training MAPE of the rate from `start`, over the parameters `free`
/// (the others stay): the reweighted least squares stops where the binding terms stop changing,
/// which is not in general the MAPE's minimum (a case whose binding term flips moves the MAPE
/// by a kink the linear solves do not see). Bounds as in the linear solve: scales > 0, the
/// overhead, the overlap and the contention share >= 0 (a simplex vertex outside them scores
/// infinity). Simplex steps: 5% of a non-zero parameter, else kPolishZeroStep of its kind.
/// Standard coefficients (reflection 1, expansion 2, contraction 0.5, shrink 0.5); stops after
/// kPolishMaxEvaluations or when the simplex's MAPE spread is below kConvergedMape.
constexpr int kPolishMaxEvaluations = 3000;
constexpr int kPolishMaxRestarts = 20;
constexpr std::array<double, kFittedParameterCount> kPolishZeroStep{0.05, 0.05, 0.05, 0.05,
                                                                    0.05, 1e-7, 0.025};
Parameters polish(const std::vector<const FitSample*>& training, const Parameters& start,
                  const std::array<bool, kFittedParameterCount>& free) {
  std::vector<int> axes;
  for (int j = 0; j < kFittedParameterCount; ++j) {
    if (free[static_cast<std::size_t>(j)]) axes.push_back(j);
  }
  if (axes.empty()) return start;
  auto inside = [](const Parameters& p) {
    for (int j = 0; j < kFittedParameterCount; ++j) {
      const bool share = j == kOverhead || j == kDataPathWeight || j == kContention;
      if (share ? p[j] < 0 : !(p[j] > 0)) return false;
    }
    return true;
  };
  auto score = [&](const Parameters& p) { return inside(p) ? rate_mape(training, p) : INFINITY; };
  const std::size_t n = axes.size();
  std::vector<Parameters> vertex(n + 1, start);
  for (std::size_t i = 0; i < n; ++i) {
    const int j = axes[i];
    vertex[i + 1][j] += start[j] != 0 ? 0.05 * start[j] : kPolishZeroStep[j];
  }
  std::vector<double> value(n + 1);
  for (std::size_t i = 0; i <= n; ++i) value[i] = score(vertex[i]);
  int evaluations = static_cast<int>(n + 1);
  auto along = [&](const Parameters& centroid, const Parameters& from, double t) {
    Parameters p = centroid;
    for (const int j : axes) p[j] = centroid[j] + t * (from[j] - centroid[j]);
    return p;
  };
  while (evaluations < kPolishMaxEvaluations) {
    std::vector<std::size_t> order(n + 1);
    for (std::size_t i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
    const std::size_t best = order.front();
    const std::size_t worst = order.back();
    const std::size_t second_worst = order[n - 1];
    if (value[worst] - value[best] < kConvergedMape) break;
    Parameters centroid = start;
    for (const int j : axes) {
      double sum = 0;
      for (std::size_t i = 0; i <= n; ++i) {
        if (i != worst) sum += vertex[i][j];
      }
      centroid[j] = sum / static_cast<double>(n);
    }
    const Parameters reflected = along(centroid, vertex[worst], -1);
    const double reflected_value = score(reflected);
    ++evaluations;
    if (reflected_value < value[best]) {
      const Parameters expanded = along(centroid, vertex[worst], -2);
      const double expanded_value = score(expanded);
      ++evaluations;
      const bool expand = expanded_value < reflected_value;
      vertex[worst] = expand ? expanded : reflected;
      value[worst] = expand ? expanded_value : reflected_value;
      continue;
    }
    if (reflected_value < value[second_worst]) {
      vertex[worst] = reflected;
      value[worst] = reflected_value;
      continue;
    }
    const bool outside = reflected_value < value[worst];
    const Parameters contracted = along(centroid, outside ? reflected : vertex[worst], 0.5);
    const double contracted_value = score(contracted);
    ++evaluations;
    if (contracted_value < std::min(value[worst], reflected_value)) {
      vertex[worst] = contracted;
      value[worst] = contracted_value;
      continue;
    }
    for (std::size_t i = 0; i <= n; ++i) {
      if (i == best) continue;
      vertex[i] = along(vertex[best], vertex[i], 0.5);
      value[i] = score(vertex[i]);
      ++evaluations;
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    if (value[i] < value[best]) best = i;
  }
  return value[best] < score(start) ? vertex[best] : start;
}

[[noreturn]] void throw_fit_error(const std::string& message) {
  throw std::invalid_argument("fit_calibration: " + message);
}

}  // namespace

FitResult fit_calibration(const std::vector<FitSample>& samples,
                          const std::vector<std::string>& training_names) {
  std::set<std::string> names;
  for (const FitSample& s : samples) {
    if (!names.insert(s.name).second) throw_fit_error("sample name '" + s.name + "' repeats");
    if (!(s.measured_time_s > 0)) {
      throw_fit_error("sample '" + s.name + "': measured time must be positive");
    }
  }
  const std::set<std::string> training_set(training_names.begin(), training_names.end());
  for (const std::string& name : training_set) {
    if (!names.count(name)) throw_fit_error("training case '" + name + "' is not a sample");
  }
  std::vector<const FitSample*> training;
  for (const FitSample& s : samples) {
    if (training_set.count(s.name)) training.push_back(&s);
  }
  if (training.empty()) throw_fit_error("no training case");

  // For each contention share of the grid: the reweighted least-squares fit of the other
  // parameters from several starts (uncalibrated, and each scale alone at its median ratio),
  // the start of the lowest training MAPE of the rate kept; then the share of the lowest.
  FitResult result;
  double best_mape = INFINITY;
  Parameters best = kFitStart;
  for (const double share : kContentionShareGrid) {
    Parameters uncalibrated = kFitStart;
    uncalibrated[kContention] = share;
    std::vector<Parameters> starts{uncalibrated};
    for (int term = 0; term < kScaleCount; ++term) {
      if (term == kDataPathWeight) continue;  // held, not a ratio of times
      Parameters p = uncalibrated;
      p[term] = median_ratio(training, term);
      starts.push_back(p);
    }
    double best_objective = INFINITY;
    Parameters share_best = uncalibrated;
    std::array<bool, kFittedParameterCount> share_fitted{};
    for (const Parameters& start : starts) {
      Parameters current = start;
      std::vector<int> previous;
      double previous_objective = INFINITY;
      for (int iteration = 1; iteration <= 100; ++iteration) {
        const Solve s = solve_given_bindings(training, current);
        current = s.parameters;
        const double objective = rate_mape(training, current);
        ++result.iterations;
        if (objective < best_objective) {
          best_objective = objective;
          share_best = current;
          share_fitted = s.fitted;
        }
        if (s.bindings == previous && previous_objective - objective < kConvergedMape) break;
        previous = s.bindings;
        previous_objective = objective;
      }
    }
    const double mape = rate_mape(training, share_best);
    if (mape < best_mape) {
      best_mape = mape;
      best = share_best;
      result.fitted = share_fitted;
    }
  }
  result.fitted[kContention] = true;  // the grid's best share, 0 included
  std::array<bool, kFittedParameterCount> free{};
  for (int j = 0; j < kFittedParameterCount; ++j) {
    free[static_cast<std::size_t>(j)] =
        result.fitted[static_cast<std::size_t>(j)] && kFreeParameter[static_cast<std::size_t>(j)];
  }
  free[kContention] = true;
  // Nelder-Mead's simplex can collapse on a kink of the MAPE short of its minimum: restart it
  // from where it stopped (a fresh simplex) until a restart gains less than kConvergedMape.
  for (int restart = 0; restart < kPolishMaxRestarts; ++restart) {
    const double before = rate_mape(training, best);
    best = polish(training, best, free);
    if (before - rate_mape(training, best) < kConvergedMape) break;
  }
  result.calibration = to_calibration(best, 1);

  double training_sum = 0;
  double held_out_sum = 0;
  for (const FitSample& s : samples) {
    FitCase c;
    c.name = s.name;
    c.training = training_set.count(s.name) > 0;
    c.measured_time_s = s.measured_time_s;
    c.predicted_time_s = compose_time_s(s.terms, result.calibration);
    c.error_percent = 100 * (c.predicted_time_s - c.measured_time_s) / c.measured_time_s;
    (c.training ? training_sum : held_out_sum) += std::abs(c.error_percent);
    (c.training ? result.training_cases : result.held_out_cases) += 1;
    result.cases.push_back(c);
  }
  result.training_mape_percent = training_sum / result.training_cases;
  if (result.held_out_cases > 0) {
    result.held_out_mape_percent = held_out_sum / result.held_out_cases;
  }
  return result;
}

namespace {

/// log words = log scale + a log accumulators + b log BK, least squares over the training
/// configs whose accumulators spill; unfitted (scale 0) with fewer than two per parameter.
void fit_spill_words(const std::vector<RegisterSample>& training, RegisterModel& model) {
  std::vector<const RegisterSample*> spilled;
  for (const RegisterSample& s : training) {
    if (s.accumulators_spilled && s.local_words > 0 && s.accumulators > 0 && s.k_tile > 0) {
      spilled.push_back(&s);
    }
  }
  constexpr int kSpillWordsParameters = 3;
  if (static_cast<int>(spilled.size()) < 2 * kSpillWordsParameters) return;
  const auto n = static_cast<Eigen::Index>(spilled.size());
  Eigen::MatrixXd x(n, kSpillWordsParameters);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const RegisterSample& s = *spilled[static_cast<std::size_t>(i)];
    x(i, 0) = 1;
    x(i, 1) = std::log(s.accumulators);
    x(i, 2) = std::log(s.k_tile);
    y(i) = std::log(s.local_words);
  }
  const Eigen::VectorXd w = x.colPivHouseholderQr().solve(y);
  model.spill_words_scale = std::exp(w(0));
  model.spill_words_accumulator_exponent = w(1);
  model.spill_words_k_tile_exponent = w(2);
}

}  // namespace

RegisterModel fit_register_model(const std::vector<RegisterSample>& training) {
  // A config at its cap or spilling says only "needs at least the cap": censored (ptxas reports
  // cap - 1 about as often as the cap, so cap - 1 counts as at the cap). Least squares on the
  // uncensored configs plus a one-sided term max(0, cap - 1 - estimate)^2 for the censored ones,
  // minimised by re-solving with the censored configs whose estimate falls short as rows valued
  // cap - 1 until that set stops changing (the squared hinge is convex).
  std::vector<const RegisterSample*> uncensored;
  std::vector<const RegisterSample*> censored;
  for (const RegisterSample& s : training) {
    (!s.spilled && s.ptxas_registers < s.cap - 1 ? uncensored : censored).push_back(&s);
  }
  constexpr int kColumns = kRegisterFeatureCount + 1;  // intercept first
  if (static_cast<int>(uncensored.size()) < kColumns) {
    throw std::invalid_argument("fit_register_model: " + std::to_string(uncensored.size()) +
                                " configs below their register cap, need at least " +
                                std::to_string(kColumns));
  }
  auto solve = [&](const std::vector<const RegisterSample*>& short_of_cap) {
    const auto n = static_cast<Eigen::Index>(uncensored.size() + short_of_cap.size());
    Eigen::MatrixXd x(n, kColumns);
    Eigen::VectorXd y(n);
    Eigen::Index i = 0;
    auto add_row = [&](const RegisterSample& s, double target) {
      x(i, 0) = 1;
      for (int j = 0; j < kRegisterFeatureCount; ++j) x(i, j + 1) = s.features[j];
      y(i) = target;
      ++i;
    };
    for (const RegisterSample* s : uncensored) add_row(*s, s->ptxas_registers);
    for (const RegisterSample* s : short_of_cap) add_row(*s, s->cap - 1);
    const Eigen::VectorXd w = x.colPivHouseholderQr().solve(y);
    RegisterModel m;
    m.fitted = true;
    m.intercept = w(0);
    for (int j = 0; j < kRegisterFeatureCount; ++j) m.coefficients[j] = w(j + 1);
    return m;
  };
  std::vector<const RegisterSample*> short_of_cap;
  RegisterModel model = solve(short_of_cap);
  constexpr int kMaxCensoredRounds = 100;
  for (int round = 0; round < kMaxCensoredRounds; ++round) {
    std::vector<const RegisterSample*> next;
    for (const RegisterSample* s : censored) {
      // Short: the rounded estimate is below the cap (a row fitted onto cap - 1 stays short).
      if (fitted_registers(model, s->features) < s->cap) next.push_back(s);
    }
    if (next == short_of_cap) break;
    short_of_cap = std::move(next);
    model = solve(short_of_cap);
  }
  fit_spill_words(training, model);
  int best_right = -1;
  for (int margin = 0; margin <= 64; ++margin) {
    int right = 0;
    for (const RegisterSample& s : training) {
      const bool spills = fitted_registers(model, s.features) > s.cap + margin;
      right += spills == s.spilled ? 1 : 0;
    }
    if (right > best_right) {
      best_right = right;
      model.spill_margin = margin;
    }
  }
  return model;
}

}  // namespace roofcast
