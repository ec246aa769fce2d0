#include "roofcast/views/accuracy_views.hpp"
#include "roofcast/calibration.hpp"

#include "roofcast/views/schema.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "roofcast/kernels/registry.hpp"

namespace roofcast::views {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string problem_text(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

nlohmann::json summary_json(const validation::ErrorSummary& s) {
  return {{"cases", s.cases},
          {"mape_percent",
           std::isnan(s.mape_percent) ? nlohmann::json() : nlohmann::json(s.mape_percent)},
          {"max_abs_error_percent", s.max_abs_error_percent},
          {"worst_case", s.worst_case}};
}

std::string summary_line(const char* label, const validation::ErrorSummary& s) {
  std::ostringstream out;
  out << "  " << label << std::string(14 - std::string(label).size(), ' ')
      << std::to_string(s.cases) << " cases  MAPE " << format("%5.1f%%", s.mape_percent)
      << "  worst " << format("%5.1f%%", s.max_abs_error_percent) << "  " << s.worst_case << "\n";
  return out.str();
}

std::string shape_line(const validation::SweepShape& s) {
  return "  " + problem_text(s.problem) + ": " + std::to_string(s.configs) + " configs, Spearman " +
         format("%.3f", s.spearman) + "; measured best " + s.measured_best + " " +
         format("%.2f", s.measured_best_tflops) + " TFLOPS; model's top-1 " + s.predicted_best +
         " measures " + format("%.2f", s.predicted_best_measured_tflops) + " (" +
         format("%.1f%%", 100 * s.top1_fraction) + " of best; best of top 5 " +
         format("%.1f%%", 100 * s.best_of_top5_fraction) + "; ties " +
         std::to_string(s.tied_pairs) + ", " + std::to_string(s.tied_pairs_measured_apart) +
         " measured >2% apart)\n";
}

nlohmann::json shape_json(const validation::SweepShape& s) {
  return {{"problem", problem_text(s.problem)},
          {"held_out", s.held_out},
          {"configs", s.configs},
          {"spearman", s.spearman},
          {"measured_best", s.measured_best},
          {"measured_best_tflops", s.measured_best_tflops},
          {"predicted_best", s.predicted_best},
          {"predicted_best_measured_tflops", s.predicted_best_measured_tflops},
          {"top1_fraction", s.top1_fraction},
          {"best_of_top5_fraction", s.best_of_top5_fraction},
          {"tied_pairs", s.tied_pairs},
          {"tied_pairs_measured_apart", s.tied_pairs_measured_apart}};
}

nlohmann::json nan_as_null(double value) {
  return std::isnan(value) ? nlohmann::json() : nlohmann::json(value);
}

nlohmann::json register_summary_json(const validation::RegisterAccuracy::Summary& s) {
  return {{"configs", s.configs},
          {"mean_abs_error", nan_as_null(s.mean_abs_error)},
          {"mean_error", nan_as_null(s.mean_error)},
          {"max_abs_error", s.max_abs_error},
          {"worst", s.worst},
          {"spills_correct", s.spills_correct}};
}

std::string register_line(const char* label, const validation::RegisterAccuracy::Summary& s) {
  return "  " + std::string(label) + std::string(14 - std::string(label).size(), ' ') +
         std::to_string(s.configs) + " configs  mean |error| " + format("%5.1f", s.mean_abs_error) +
         " registers (mean " + format("%+.1f", s.mean_error) + ", worst " +
         std::to_string(s.max_abs_error) + " " + s.worst + "), spills right for " +
         format("%.1f%%", 100 * s.spills_correct) + "\n";
}

}  // namespace

std::string accuracy_text(const validation::ModelAccuracy& a, bool every_case) {
  std::ostringstream out;
  out << "GPU          " << a.spec_id << ", measurement revision " << a.measurement_revision
      << "\n";
  const bool transferred = !a.calibration_from.empty();
  if (transferred) {
    out << "calibration  " << a.calibration_from
        << "'s committed calibration, register model included (nothing fitted on this GPU; "
           "training and held-out below are the '"
        << a.training_split << "' split's cases):";
  } else {
    out << "calibration  fitted on the '" << a.training_split << "' split (" << a.fit.training_cases
        << " training, " << a.fit.held_out_cases << " held-out cases):";
  }
  for (int i = 0; i < kFittedParameterCount; ++i) {
    const CalibrationParameter& parameter = kCalibrationParameters[static_cast<std::size_t>(i)];
    out << " " << parameter.name << "=" << format("%.4g", a.calibration_used.*parameter.field)
        << (transferred || a.fit.fitted[static_cast<std::size_t>(i)] ? "" : " (not fitted)");
  }
  out << "\n\nerror of predicted TFLOPS (|predicted - measured| / measured)\n";
  out << summary_line("training", a.training);
  out << summary_line("held-out", a.held_out);
  out << summary_line("all", a.all);
  out << summary_line("uncalibrated", a.uncalibrated_all);
  if (a.held_out_both.cases > 0) {
    out << summary_line("held x held", a.held_out_both);
    out << "  (held x held: held-out configs at held-out shapes; with registers estimated:\n";
    out << summary_line("  estimated", a.held_out_both_estimated);
    out << summary_line("  held, est.", a.held_out_estimated);
    out << summary_line("  train, est.", a.training_estimated);
    out << "   )\nper rung, held-out configs at held-out shapes\n";
    for (const auto& [rung, s] : a.per_rung_held_out_both) {
      out << summary_line(("r" + std::to_string(rung)).c_str(), s);
    }
  }
  out << "\nper rung (training and held-out together)\n";
  for (const auto& [rung, s] : a.per_rung) {
    out << summary_line(
        ("r" + std::to_string(rung) + " " + std::string(kernels::rung_name(rung)).substr(0, 9))
            .c_str(),
        s);
  }
  out << "\ntile sweep (held out): rank correlation and top-1 selection\n";
  for (const validation::SweepShape& s : a.sweep) out << shape_line(s);
  out << "  all sweep cases together: Spearman " << format("%.3f", a.sweep_spearman_all) << "\n";
  if (!a.sample.empty()) {
    out << "\nsample: selection among every config measured at each shape (held-out shapes)\n";
    for (const validation::SweepShape& s : a.sample) {
      if (s.held_out) out << shape_line(s);
    }
  }
  if (!a.registers.rows.empty()) {
    out << "\nregister estimate against ptxas (rungs 4-10, per config)\n";
    out << register_line("training", a.registers.training);
    out << register_line("held-out", a.registers.held_out);
  }
  out << "\nL2 hit rate against Nsight Compute (lts__t_sector_hit_rate), percentage points\n";
  for (const validation::L2Agreement& l2 : a.l2) {
    out << "  " << to_string(l2.model) << std::string(10 - to_string(l2.model).size(), ' ')
        << l2.cases << " cases, mean |error| " << format("%.2f", l2.mean_abs_error_pp)
        << " pp, worst " << format("%.2f", l2.max_abs_error_pp) << " pp (" << l2.worst_case << ")";
    if (!l2.not_comparable.empty()) {
      out << "; " << l2.not_comparable.size() << " not comparable (ncu rate above 100%)";
    }
    out << "\n";
  }
  if (every_case) {
    for (const validation::L2Agreement& l2 : a.l2) {
      if (l2.model != L2Model::kRoofcast) continue;
      out << "\nL2 hit rate per case (roofcast model), percentage points\n";
      for (const auto* rows : {&l2.rows, &l2.not_comparable}) {
        for (const validation::L2Agreement::Row& r : *rows) {
          out << "  " << (rows == &l2.rows ? "     " : "n/c  ") << r.name
              << std::string(r.name.size() < 78 ? 78 - r.name.size() : 1, ' ')
              << format("%7.2f", r.measured_pct) << " measured " << format("%7.2f", r.predicted_pct)
              << " predicted " << format("%+7.2f", r.predicted_pct - r.measured_pct) << "\n";
        }
      }
    }
  }
  if (every_case) {
    out << "\ncases\n";
    for (const validation::CaseAccuracy& c : a.cases) {
      out << "  "
          << (c.duplicate  ? "dup  "
              : c.training ? "train"
                           : "held ")
          << " " << c.name << std::string(c.name.size() < 78 ? 78 - c.name.size() : 1, ' ')
          << format("%7.2f", c.measured_tflops) << " measured "
          << format("%7.2f", c.predicted_tflops) << " predicted "
          << format("%+6.1f%%", c.error_percent) << "  " << to_string(c.binding) << "\n";
    }
  }
  return out.str();
}

namespace {

nlohmann::json l2_rows_json(const std::vector<validation::L2Agreement::Row>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const validation::L2Agreement::Row& r : rows) {
    j.push_back({{"name", r.name},
                 {"measured_pct", r.measured_pct},
                 {"predicted_pct", r.predicted_pct},
                 {"error_pp", r.predicted_pct - r.measured_pct}});
  }
  return j;
}

}  // namespace

nlohmann::json accuracy_json(const validation::ModelAccuracy& a) {
  nlohmann::json j = schema::document("accuracy");
  j["gpu_id"] = a.spec_id;
  j["measurement_revision"] = a.measurement_revision;
  j["training_split"] = a.training_split;
  // Another GPU's calibration: its id, and no parameter counts as fitted here.
  const bool transferred = !a.calibration_from.empty();
  j["calibration_from"] = transferred ? nlohmann::json(a.calibration_from) : nlohmann::json();
  nlohmann::json parameters;
  for (int i = 0; i < kFittedParameterCount; ++i) {
    const CalibrationParameter& parameter = kCalibrationParameters[static_cast<std::size_t>(i)];
    parameters[std::string(parameter.name)] = {
        {"value", a.calibration_used.*parameter.field},
        {"fitted", !transferred && a.fit.fitted[static_cast<std::size_t>(i)]}};
  }
  j["calibration"] = parameters;
  j["training"] = summary_json(a.training);
  j["held_out"] = summary_json(a.held_out);
  j["all"] = summary_json(a.all);
  j["uncalibrated_all"] = summary_json(a.uncalibrated_all);
  j["held_out_both"] = summary_json(a.held_out_both);
  j["held_out_both_estimated"] = summary_json(a.held_out_both_estimated);
  j["held_out_estimated"] = summary_json(a.held_out_estimated);
  j["training_estimated"] = summary_json(a.training_estimated);
  for (const auto& [rung, s] : a.per_rung) j["per_rung"][std::to_string(rung)] = summary_json(s);
  j["per_rung_held_out_both"] = nlohmann::json::object();
  for (const auto& [rung, s] : a.per_rung_held_out_both) {
    j["per_rung_held_out_both"][std::to_string(rung)] = summary_json(s);
  }
  j["sweep"] = nlohmann::json::array();
  for (const validation::SweepShape& s : a.sweep) j["sweep"].push_back(shape_json(s));
  j["sample"] = nlohmann::json::array();
  for (const validation::SweepShape& s : a.sample) j["sample"].push_back(shape_json(s));
  j["registers"] = {{"training", register_summary_json(a.registers.training)},
                    {"held_out", register_summary_json(a.registers.held_out)},
                    {"rows", nlohmann::json::array()}};
  for (const validation::RegisterAccuracy::Row& r : a.registers.rows) {
    j["registers"]["rows"].push_back({{"kernel", r.kernel},
                                      {"rung", r.rung},
                                      {"training", r.training},
                                      {"ptxas_registers", r.ptxas_registers},
                                      {"estimated_registers", r.estimated_registers},
                                      {"ptxas_spills", r.ptxas_spills},
                                      {"estimated_spills", r.estimated_spills}});
  }
  j["sweep_spearman_all"] = a.sweep_spearman_all;
  for (const validation::L2Agreement& l2 : a.l2) {
    j["l2"].push_back({{"model", to_string(l2.model)},
                       {"cases", l2.cases},
                       {"mean_abs_error_pp", l2.mean_abs_error_pp},
                       {"max_abs_error_pp", l2.max_abs_error_pp},
                       {"worst_case", l2.worst_case},
                       {"rows", l2_rows_json(l2.rows)},
                       {"not_comparable", l2_rows_json(l2.not_comparable)}});
  }
  for (const validation::CaseAccuracy& c : a.cases) {
    j["cases"].push_back({{"name", c.name},
                          {"set", to_string(c.set)},
                          {"training", c.training},
                          {"config_held_out", c.config_held_out},
                          {"shape_held_out", c.shape_held_out},
                          {"duplicate", c.duplicate},
                          {"measured_tflops", c.measured_tflops},
                          {"predicted_tflops", c.predicted_tflops},
                          {"uncalibrated_tflops", c.uncalibrated_tflops},
                          {"estimated_tflops", c.estimated_tflops},
                          {"error_percent", c.error_percent},
                          {"binding", to_string(c.binding)}});
  }
  return j;
}

}  // namespace roofcast::views
