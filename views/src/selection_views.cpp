#include "roofcast/views/selection_views.hpp"

#include "roofcast/gemm_json.hpp"
#include "roofcast/views/schema.hpp"

#include <sstream>
#include <vector>

#include "roofcast/views/views.hpp"

namespace roofcast::views {

namespace {

using validation::RegisterSource;
using validation::SelectionReport;
using validation::SelectorOutcome;
using validation::ShapeSelection;

std::string shape(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

constexpr tune::Selector kSelectors[] = {
    tune::Selector::kRoofcast, tune::Selector::kHighestOccupancy, tune::Selector::kLargestTile,
    tune::Selector::kTritonFormula};

const char* selector_title(tune::Selector s) {
  switch (s) {
    case tune::Selector::kRoofcast:
      return "roofcast";
    case tune::Selector::kHighestOccupancy:
      return "highest occupancy";
    case tune::Selector::kLargestTile:
      return "largest tile";
    case tune::Selector::kTritonFormula:
      return "Triton's former formula";
  }
  return "";
}

const SelectorOutcome& outcome(const ShapeSelection& s, tune::Selector selector) {
  return s.selectors[static_cast<int>(selector)];
}

std::string percent(double fraction) { return format("%.1f", 100.0 * fraction); }

std::string spearman_text(const std::optional<double>& rho) {
  return rho ? format("%.3f", *rho) : std::string("-");
}

nlohmann::json report_json(const SelectionReport& r) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const ShapeSelection& s : r.shapes) {
    nlohmann::json selectors = nlohmann::json::object();
    for (tune::Selector sel : kSelectors) {
      const SelectorOutcome& o = outcome(s, sel);
      selectors[std::string(tune::to_string(sel))] = {
          {"top1_kernel", o.top1_kernel},
          {"top1_tflops", o.top1_TFLOPS},
          {"top1_of_best", o.top1_of_best},
          {"best_of_top5_of_best", o.best_of_top5_of_best},
          {"spearman", o.spearman ? nlohmann::json(*o.spearman) : nlohmann::json(nullptr)}};
    }
    shapes.push_back({{"problem", gemm::problem_json(s.problem)},
                      {"configs", s.configs},
                      {"trained_configs", s.trained_configs},
                      {"best_kernel", s.best_kernel},
                      {"best_tflops", s.best_TFLOPS},
                      {"cublas_tflops", s.cublas_TFLOPS ? nlohmann::json(*s.cublas_TFLOPS)
                                                        : nlohmann::json(nullptr)},
                      {"selectors", selectors}});
  }
  nlohmann::json summary = nlohmann::json::object();
  for (tune::Selector sel : kSelectors) {
    const validation::SelectorSummary& m = r.summary[static_cast<int>(sel)];
    summary[std::string(tune::to_string(sel))] = {
        {"min_top1_of_best", m.min_top1_of_best},
        {"mean_top1_of_best", m.mean_top1_of_best},
        {"min_best_of_top5_of_best", m.min_best_of_top5_of_best},
        {"mean_spearman", m.mean_spearman},
        {"shapes_top1_at_least_95", m.shapes_top1_at_least_95},
        {"shapes_top1_at_least_98", m.shapes_top1_at_least_98},
        {"shapes_top5_at_least_99", m.shapes_top5_at_least_99}};
  }
  return {{"registers", r.registers == RegisterSource::kPtxas ? "ptxas" : "estimated"},
          {"shapes", shapes},
          {"summary", summary}};
}

std::string text_of(const SelectionReport& r) {
  std::ostringstream out;
  out << "registers: "
      << (r.registers == RegisterSource::kPtxas ? "ptxas (compiled kernels)"
                                                : "estimated (before compiling)")
      << "\n";
  out << format("%-20s %4s %7s %7s", "shape", "cfgs", "best", "cuBLAS");
  for (tune::Selector sel : kSelectors) {
    out << format(" | %-17s", std::string(tune::to_string(sel)).substr(0, 17).c_str());
  }
  out << "\n" << format("%-20s %4s %7s %7s", "", "", "TFLOPS", "TFLOPS");
  for (int i = 0; i < tune::kSelectorCount; ++i)
    out << format(" | %5s %5s %5s", "top1", "top5", "rho");
  out << "\n";
  for (const ShapeSelection& s : r.shapes) {
    out << format("%-20s %4d %7.2f %7s", shape(s.problem).c_str(), s.configs, s.best_TFLOPS,
                  s.cublas_TFLOPS ? format("%.2f", *s.cublas_TFLOPS).c_str() : "-");
    for (tune::Selector sel : kSelectors) {
      const SelectorOutcome& o = outcome(s, sel);
      out << format(" | %5.1f %5.1f %5s", 100 * o.top1_of_best, 100 * o.best_of_top5_of_best,
                    spearman_text(o.spearman).c_str());
    }
    out << "\n";
  }
  out << format("%-20s %4s %7s %7s", "min / mean", "", "", "");
  for (tune::Selector sel : kSelectors) {
    const validation::SelectorSummary& m = r.summary[static_cast<int>(sel)];
    out << format(" | %5.1f %5.1f %5.3f", 100 * m.min_top1_of_best,
                  100 * m.min_best_of_top5_of_best, m.mean_spearman);
  }
  out << "\n";
  return out.str();
}

}  // namespace

std::string selection_text(const SelectionReport& estimated, const SelectionReport& ptxas) {
  std::ostringstream out;
  out << estimated.spec_id << ": selection from the registered configs, measurement "
      << estimated.context.git_revision << " (" << estimated.context.date_utc << ")\n"
      << "top1 / top5: % of the measured best (fastest measured config of the shape) reached by "
         "the first choice / the best of the first five; rho: Spearman of the order with the "
         "measured TFLOPS\n\n"
      << text_of(estimated) << "\n"
      << text_of(ptxas);
  return out.str();
}

nlohmann::json selection_json(const SelectionReport& estimated, const SelectionReport& ptxas) {
  nlohmann::json out = schema::document("selection");
  out["gpu_id"] = estimated.spec_id;
  out["measurement_revision"] = estimated.context.git_revision;
  out["measurement_date_utc"] = estimated.context.date_utc;
  out["calibration_revision"] = estimated.calibration_revision;
  out["estimated_registers"] = report_json(estimated);
  out["ptxas_registers"] = report_json(ptxas);
  return out;
}

std::string selection_top1_gnuplot(const SelectionReport& r) {
  std::string s;
  s += figure_header(kFigureWidth, 560,
                     r.spec_id + ": first choice of each selector, % of the measured best");
  s += "set title " + gnuplot_string(r.spec_id) +
       ".\": first choice of each selector, measured, as % of the best registered config\"\n";
  s += "set ylabel '% of the measured best'\nset yrange [0:105]\nset grid ytics\n";
  s += "set style data histogram\nset style histogram cluster gap 1\n";
  s += "set style fill solid 0.9 border -1\nset boxwidth 0.9\n";
  s += "set xtics rotate by 30 right nomirror " + figure_font(kFigureSmallFontSize) + "\n";
  s += "set key outside below center horizontal " + figure_font(kFigureSmallFontSize) + "\n";
  s += "set arrow from graph 0, first 95 to graph 1, first 95 nohead dt 2 lc rgb '#d62728'\n";
  s += "$data << EOD\n";
  for (const ShapeSelection& sh : r.shapes) {
    s += gnuplot_datum(shape(sh.problem));
    for (tune::Selector sel : kSelectors) s += format(" %.2f", 100 * outcome(sh, sel).top1_of_best);
    s += "\n";
  }
  s += "EOD\n";
  const char* colors[] = {"#1f6fb4", "#9e9e9e", "#e6a23c", "#8e5ea2"};
  s += "plot ";
  for (int i = 0; i < tune::kSelectorCount; ++i) {
    s += format("%s$data using %d:xtic(1) title \"%s\" lc rgb '%s'", i == 0 ? "" : ", \\\n     ",
                i + 2, selector_title(kSelectors[i]), colors[i]);
  }
  s += "\n";
  return s;
}

std::string selection_scatter_gnuplot(const SelectionReport& r) {
  std::string s;
  s += figure_header(kFigureWidth, 800,
                     r.spec_id + ": predicted vs measured TFLOPS, every selection case");
  s += "set title " + gnuplot_string(r.spec_id) +
       ".\": roofcast predicted vs measured TFLOPS, every selection case\\n{/*0.85 registers " +
       (r.registers == RegisterSource::kPtxas ? "from ptxas" : "estimated") + ", ±10% band}\"\n";
  s += "set xlabel 'measured TFLOPS'\nset ylabel 'predicted TFLOPS'\n";
  s += "set xrange [0:60]\nset yrange [0:60]\nset grid\nset size square\n";
  s += "set key top left box opaque " + figure_font(kFigureSmallFontSize) + "\n";
  s += "$cases << EOD\n";
  for (const ShapeSelection& sh : r.shapes) {
    for (std::size_t i = 0; i < sh.measured_TFLOPS.size(); ++i) {
      s += format("%.4f %.4f\n", sh.measured_TFLOPS[i], sh.predicted_TFLOPS[i]);
    }
  }
  s += "EOD\n";
  s += "plot x lc rgb '#444444' title 'predicted = measured', \\\n"
       "     1.1*x dt 2 lc rgb '#888888' title '±10%', 0.9*x dt 2 lc rgb '#888888' notitle, \\\n"
       "     $cases using 1:2 with points pt 7 ps 0.5 lc rgb '#1f6fb4' title 'config x shape'\n";
  return s;
}

std::string selection_markdown(const SelectionReport& est, const SelectionReport& ptx,
                               const SelectionSources& src, const std::string& top1_svg,
                               const std::string& scatter_svg) {
  std::ostringstream md;
  const validation::LadderContext& c = est.context;
  md << "# Config selection on the " << c.gpu_name << " (" << est.spec_id << ")\n\n"
     << "<!-- Generated by `roofcast selection --gpu " << est.spec_id
     << (src.calibration_of.empty() ? "" : " --calibration-of " + src.calibration_of)
     << " --report reports/" << est.spec_id
     << "`; do not edit by hand. A CI test regenerates it and fails on any difference. -->\n\n"
     << "Can a tuner trust roofcast to pick a kernel config without running them all? For each "
        "shape every registered SGEMM config (the kernel registry, "
     << (est.shapes.empty() ? 0 : est.shapes.front().configs)
     << " configs of rungs 1-10) was measured, and each selector's first choice is compared "
        "with the fastest one measured.\n\n";
  md << "## Context\n\n"
     << "| | |\n|---|---|\n"
     << "| measurement | `" << src.measurement_path << "` |\n"
     << "| GPU | " << c.gpu_name << ", cc " << c.compute_capability << ", " << c.sm_count
     << " SMs, SM clock max " << format("%.0f", c.sm_clock_max_MHz) << " MHz, memory "
     << format("%.0f", c.memory_clock_MHz) << " MHz |\n"
     << "| driver, CUDA, cuBLAS | " << c.driver_version << ", " << c.cuda_runtime_version << ", "
     << c.cublas_version << " |\n"
     << "| run | revision " << c.git_revision << ", " << c.date_utc << ", " << c.repeats
     << " timed repeats (median) after " << c.warmups << " warm-ups, inputs rotated over "
     << format("%.0f", c.rotation_min_bytes / 1048576.0) << " MiB |\n"
     << "| model | calibration `" << src.calibration_path << "`, fitted on `" << src.training_path
     << "` (revision " << est.calibration_revision << ") |\n"
     << "| raster order | grouped:8 for rungs 7-10, row-major for rungs 1-6 |\n\n";

  md << "## Headline: registers estimated (what a tuner knows before compiling)\n\n"
     << "![top-1 per shape](" << top1_svg << ")\n\n";
  auto table = [&](const SelectionReport& r) {
    md << "| shape | configs | trained | measured best | TFLOPS | cuBLAS";
    for (tune::Selector sel : kSelectors) md << " | " << selector_title(sel) << " top-1";
    md << " | roofcast best of top 5 | roofcast Spearman | Triton Spearman "
          "|\n|---|---:|---:|---|---:|---:";
    for (int i = 0; i < tune::kSelectorCount; ++i) md << "|---:";
    md << "|---:|---:|---:|\n";
    for (const ShapeSelection& s : r.shapes) {
      md << "| " << shape(s.problem) << " | " << s.configs << " | " << s.trained_configs << " | `"
         << s.best_kernel << "` | " << format("%.2f", s.best_TFLOPS) << " | "
         << (s.cublas_TFLOPS ? format("%.2f", *s.cublas_TFLOPS) : std::string("-"));
      for (tune::Selector sel : kSelectors)
        md << " | " << percent(outcome(s, sel).top1_of_best) << "%";
      const SelectorOutcome& rc = outcome(s, tune::Selector::kRoofcast);
      md << " | " << percent(rc.best_of_top5_of_best) << "% | " << spearman_text(rc.spearman)
         << " | " << spearman_text(outcome(s, tune::Selector::kTritonFormula).spearman) << " |\n";
    }
    md << "\n| selector | worst top-1 | mean top-1 | shapes with top-1 >= 95% | >= 98% | worst "
          "best-of-top-5 | shapes with best-of-top-5 >= 99% | mean Spearman |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|\n";
    const int n = static_cast<int>(r.shapes.size());
    for (tune::Selector sel : kSelectors) {
      const validation::SelectorSummary& m = r.summary[static_cast<int>(sel)];
      md << "| " << selector_title(sel) << " | " << percent(m.min_top1_of_best) << "% | "
         << percent(m.mean_top1_of_best) << "% | " << m.shapes_top1_at_least_95 << " / " << n
         << " | " << m.shapes_top1_at_least_98 << " / " << n << " | "
         << percent(m.min_best_of_top5_of_best) << "% | " << m.shapes_top5_at_least_99 << " / " << n
         << " | " << format("%.3f", m.mean_spearman) << " |\n";
    }
    md << "\n";
  };
  table(est);
  md << "Top-1 is the measured best time over the measured time of the selector's first choice; "
        "best of top 5 the same for the fastest of its first five. Spearman correlates the "
        "selector's order with the measured TFLOPS over all configs of the shape. \"trained\" "
        "counts the configs of the shape whose (kernel, shape, raster) case was in the "
        "calibration's training split (the calibration's six global scales were fitted on them; "
        "nothing was fitted on this selection run).\n\n";
  md << "![predicted vs measured](" << scatter_svg << ")\n\n";
  md << "## With the compiled kernels' registers (ptxas)\n\n"
     << "The same ranking with each kernel's registers and spills as the run recorded them "
        "(after compiling):\n\n";
  table(ptx);
  md << "## The selectors\n\n"
     << "- **roofcast**: `tune::rank` with the committed calibration: the predicted time of "
        "each config (occupancy, waves, L2 under the raster order, issue and data-path "
        "terms, latency hiding).\n"
     << "- **highest occupancy**: the most resident warps per SM (registers estimated as "
        "above); ties go to the larger BM x BN, then the larger BK.\n"
     << "- **largest tile**: the largest BM x BN; ties go to the larger BK, then higher "
        "occupancy.\n"
     << "- **Triton's former formula**: `estimate_matmul_time` of Triton's removed "
        "`matmul_perf_model.py`, max(compute, load) + store with an 80% L2 hit rate for "
        "re-reads, compute scaled by min(4, warps) per CTA, no occupancy, no waves (with the "
        "FP32 SIMT peak, since every ladder kernel is FFMA).\n";
  return md.str();
}

}  // namespace roofcast::views
