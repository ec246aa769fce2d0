// The report's figures: one gnuplot script per SVG, data inline, rendered from GpuReport only.
#include <algorithm>
#include <cmath>

#include "roofcast/views/report_views.hpp"

namespace roofcast::views {

namespace {

constexpr const char* kMeasuredColor = "#222222";
constexpr const char* kPredictedColor = "#1f6fb4";
constexpr const char* kPublishedColor = "#e6a23c";
constexpr const char* kReferenceColor = "#59a14f";

/// The terminal; the figure goes to standard output, so no path is ever in a script.
std::string header(int width, int height) {
  return format(
      "set encoding utf8\nset terminal svg size %d,%d dynamic enhanced font 'sans,11' "
      "background '#ffffff'\nset output\n",
      width, height);
}

std::string short_raster(const gemm::RasterOrder& raster) {
  switch (raster.kind) {
    case gemm::RasterKind::kRowMajor:
      return "row";
    case gemm::RasterKind::kColumnMajor:
      return "col";
    case gemm::RasterKind::kGrouped:
      return "g" + std::to_string(raster.group);
    case gemm::RasterKind::kZOrder:
      return "z";
  }
  return "";
}

/// The V100 reference's range for a rung, percent of cuBLAS.
std::optional<std::pair<double, double>> reference_range(const GpuReport& r, int rung) {
  for (const PublishedLadder& ladder : r.published) {
    if (ladder.id != "reference-v100") continue;
    for (const PublishedStep& step : ladder.steps) {
      if (step.maps_to_rung == rung && step.pct_of_cublas_min) {
        return std::make_pair(*step.pct_of_cublas_min, *step.pct_of_cublas_max);
      }
    }
  }
  return std::nullopt;
}

std::string ladder_figure(const GpuReport& r) {
  std::string s = header(900, 480);
  const Ceilings& c = r.roofline.ceilings;
  s += format("set title %s.\": the SGEMM ladder at %s, %s\"\n", gnuplot_string(r.gpu.name).c_str(),
              problem_label(r.problem).c_str(),
              r.validated ? "measured and predicted" : "predicted only (not validated)");
  s += "set ylabel 'TFLOPS'\nset xlabel 'rung (headline config, best raster order)'\n";
  s += "set grid ytics\nset key top left\nset style fill solid 0.85 border -1\n";
  const double top = std::max(c.ffma_TFLOPS.spec, c.ffma_TFLOPS.value()) * 1.12;
  s += format("set yrange [0:%.3f]\nset xrange [-0.7:%zu.7]\n", top, r.ladder.size() - 1);
  s += "set xtics (";
  for (std::size_t i = 0; i < r.ladder.size(); ++i) {
    s += format("%s%s %zu", i ? ", " : "",
                gnuplot_string(rung_label(r.ladder[i].rung, r.ladder[i].kernel, true)).c_str(), i);
  }
  s += ")\n$rows << EOD\n";
  for (std::size_t i = 0; i < r.ladder.size(); ++i) {
    const ReportLadderRow& row = r.ladder[i];
    const std::optional<std::pair<double, double>> range = reference_range(r, row.rung);
    s += format("%zu %.4f %.4f %.4f %.4f %.4f\n", i, row.measured_TFLOPS.value_or(NAN),
                row.supported ? row.prediction.tflops : NAN,
                range && r.cublas_TFLOPS ? range->first / 100 * *r.cublas_TFLOPS : NAN,
                range && r.cublas_TFLOPS ? range->second / 100 * *r.cublas_TFLOPS : NAN,
                row.transferred_TFLOPS.value_or(NAN));
  }
  s += "EOD\n";
  s += format(
      "set arrow from graph 0, first %.4f to graph 1, first %.4f nohead dt 2 lc rgb "
      "'#d62728'\n",
      c.ffma_TFLOPS.value(), c.ffma_TFLOPS.value());
  s += format(
      "set label '%s FFMA ceiling %.1f' at graph 0.99, first %.4f right offset 0,0.6 "
      "font 'sans,9' tc rgb '#d62728'\n",
      c.ffma_TFLOPS.measured ? "measured" : "datasheet", c.ffma_TFLOPS.value(),
      c.ffma_TFLOPS.value());
  std::string plot = "plot ";
  if (r.validated && r.cublas_TFLOPS) {
    plot +=
        "$rows using 1:(($4+$5)/2):(0.45):(($5-$4)/2) with boxxyerror fs transparent solid "
        "0.25 noborder lc rgb '" +
        std::string(kReferenceColor) +
        "' title 'V100 reference range (% of cuBLAS, scaled to this cuBLAS)', \\\n     ";
  }
  if (r.validated) {
    plot += format(
        "$rows using ($1-0.18):2:(0.36) with boxes lc rgb '%s' title 'measured', \\\n"
        "     ",
        kMeasuredColor);
  }
  if (r.transferred_calibration) {
    plot += format(
        "$rows using ($1-0.18):3:(0.36) with boxes lc rgb '%s' title 'predicted, "
        "uncalibrated', \\\n     $rows using ($1+0.18):6:(0.36) with boxes lc rgb "
        "'#9ec5e8' title 'predicted with the %s scales'",
        kPredictedColor, r.transferred_calibration->gpu_id.c_str());
  } else {
    plot += format("$rows using ($1+0.18):3:(0.36) with boxes lc rgb '%s' title 'predicted'",
                   kPredictedColor);
  }
  if (r.cublas_TFLOPS) {
    s += format(
        "set arrow from graph 0, first %.4f to graph 1, first %.4f nohead lw 1.5 lc rgb "
        "'%s'\n",
        *r.cublas_TFLOPS, *r.cublas_TFLOPS, kPublishedColor);
    s += format(
        "set label 'cuBLAS %.1f' at graph 0.99, first %.4f right offset 0,-0.7 font "
        "'sans,9' tc rgb '%s'\n",
        *r.cublas_TFLOPS, *r.cublas_TFLOPS, kPublishedColor);
  }
  s += plot + "\n";
  return s;
}

/// The ceiling of one memory level as a gnuplot function of intensity x, TFLOPS.
std::string roof(double bandwidth_GBps, double compute_TFLOPS) {
  return format("(x*%.6g/1000 < %.6g ? x*%.6g/1000 : 1/0)", bandwidth_GBps, compute_TFLOPS,
                bandwidth_GBps);
}

std::string roofline_figure(const GpuReport& r) {
  const Ceilings& c = r.roofline.ceilings;
  std::string s = header(900, 600);
  s += format(
      "set title %s.\": hierarchical roofline, the ladder at %s\\n{/*0.85 %s; one point "
      "per rung and memory level}\"\n",
      gnuplot_string(r.gpu.name).c_str(), problem_label(r.problem).c_str(),
      r.validated ? "filled: measured TFLOPS; open: predicted"
                  : "predicted TFLOPS (nothing measured)");
  s += "set logscale xy\nset xlabel 'arithmetic intensity (FLOP per byte at the level)'\n";
  s += "set ylabel 'TFLOPS'\nset grid\nset key bottom right font 'sans,9'\n";
  s += "set xrange [0.1:3000]\n";
  s += format("set yrange [0.3:%.3f]\n", std::max(c.ffma_TFLOPS.spec, c.ffma_TFLOPS.value()) * 2);
  s += "set samples 400\n";
  struct Level {
    const char* name;
    const LevelCeiling* ceiling;
    const char* color;
  };
  const Level levels[] = {{"shared memory", &c.shared_memory_GBps, "#59a14f"},
                          {"L2", &c.l2_GBps, "#e6a23c"},
                          {"DRAM", &c.dram_GBps, "#1f6fb4"}};
  s += "$points << EOD\n";
  // Columns: level index, intensity, TFLOPS, measured (1) or predicted (0), rung label.
  for (const ReportLadderRow& row : r.ladder) {
    if (!row.supported) continue;
    const Roofline& roofline = row.prediction.roofline;
    const LevelBound* bounds[] = {&roofline.shared_memory, &roofline.l2, &roofline.dram};
    for (int level = 0; level < 3; ++level) {
      if (bounds[level]->intensity <= 0) continue;
      s += format("%d %.5g %.5g 0 %s\n", level, bounds[level]->intensity, row.prediction.tflops,
                  gnuplot_datum(rung_label(row.rung, row.kernel, true)).c_str());
      if (!row.measured_TFLOPS) continue;
      // DRAM: the intensity Nsight Compute measured; shared memory and L2: the model's bytes.
      double intensity = bounds[level]->intensity;
      if (level == 2 && row.measured_dram_bytes && *row.measured_dram_bytes > 0) {
        intensity = roofline.flops / *row.measured_dram_bytes;
      }
      s += format("%d %.5g %.5g 1 %s\n", level, intensity, *row.measured_TFLOPS,
                  gnuplot_datum(rung_label(row.rung, row.kernel, true)).c_str());
    }
  }
  s += "EOD\n";
  std::string plot = "plot ";
  plot += format("%.6g lw 2 lc rgb '#d62728' title 'FFMA %s %.1f TFLOPS'", c.ffma_TFLOPS.value(),
                 c.ffma_TFLOPS.measured ? "measured" : "datasheet", c.ffma_TFLOPS.value());
  if (c.ffma_TFLOPS.measured && c.ffma_TFLOPS.spec > 0) {
    plot += format(", \\\n     %.6g dt 2 lc rgb '#d62728' title 'FFMA datasheet %.1f'",
                   c.ffma_TFLOPS.spec, c.ffma_TFLOPS.spec);
  }
  for (int level = 0; level < 3; ++level) {
    const LevelCeiling& ceiling = *levels[level].ceiling;
    if (!ceiling.known()) continue;
    plot +=
        format(", \\\n     %s lw 2 lc rgb '%s' title '%s %s %.0f GB/s'",
               roof(ceiling.value(), c.ffma_TFLOPS.value()).c_str(), levels[level].color,
               levels[level].name, ceiling.measured ? "measured" : "datasheet", ceiling.value());
    if (ceiling.measured && ceiling.spec > 0) {
      plot += format(", \\\n     %s dt 2 lc rgb '%s' title '%s datasheet %.0f'",
                     roof(ceiling.spec, c.ffma_TFLOPS.value()).c_str(), levels[level].color,
                     levels[level].name, ceiling.spec);
    }
  }
  for (int level = 0; level < 3; ++level) {
    plot += format(
        ", \\\n     $points using ($1==%d && $4==0 ? $2 : 1/0):3 with points pt 6 "
        "ps 1.1 lc rgb '%s' notitle",
        level, levels[level].color);
    if (r.validated) {
      plot += format(
          ", \\\n     $points using ($1==%d && $4==1 ? $2 : 1/0):3 with points pt 7 "
          "ps 1.0 lc rgb '%s' notitle, \\\n     $points using ($1==%d && $4==1 ? $2 : "
          "1/0):3:5 with labels offset 0.9,0.5 font 'sans,8' tc rgb '%s' notitle",
          level, levels[level].color, level, levels[level].color);
    } else {
      plot += format(
          ", \\\n     $points using ($1==%d ? $2 : 1/0):3:5 with labels offset "
          "0.9,0.5 font 'sans,8' tc rgb '%s' notitle",
          level, levels[level].color);
    }
  }
  s += plot + "\n";
  return s;
}

std::string scatter_figure(const GpuReport& r) {
  std::string s = header(660, 600);
  s += format(
      "set title %s.\": predicted vs measured TFLOPS, every ladder and sweep case\\n{/*0.85 "
      "calibrated on the training split; dashed: ±10%%}\"\n",
      gnuplot_string(r.gpu.name).c_str());
  s += "set logscale xy\nset xrange [0.3:80]\nset yrange [0.3:80]\nset grid\n";
  s += "set xlabel 'measured TFLOPS'\nset ylabel 'predicted TFLOPS'\nset key top left\n";
  s += "$cases << EOD\n";
  for (const ScatterPoint& p : r.scatter) {
    s += format("%.5g %.5g %d\n", p.measured_TFLOPS, p.predicted_TFLOPS, p.training ? 1 : 0);
  }
  s += "EOD\n";
  int training = 0;
  for (const ScatterPoint& p : r.scatter) training += p.training ? 1 : 0;
  s += format(
      "plot x lc rgb '#444444' title 'predicted = measured', \\\n"
      "     1.1*x dt 2 lc rgb '#888888' title '±10%%', 0.9*x dt 2 lc rgb '#888888' "
      "notitle, \\\n"
      "     $cases using 1:($3==1 ? $2 : 1/0) with points pt 7 ps 0.45 lc rgb '%s' title "
      "'training (%d)', \\\n"
      "     $cases using 1:($3==0 ? $2 : 1/0) with points pt 9 ps 0.55 lc rgb '%s' title "
      "'held out (%d)'\n",
      kPredictedColor, training, kPublishedColor, static_cast<int>(r.scatter.size()) - training);
  return s;
}

std::string tile_panel(const GpuReport& r, const TileCurve& curve, const std::string& name) {
  std::string s;
  s += format("set title '%s: best config per block tile BM x BN'\n",
              problem_label(curve.problem).c_str());
  s += "set xtics rotate by -45 font 'sans,9' (";
  for (std::size_t i = 0; i < curve.tiles.size(); ++i) {
    s += format("%s\"%dx%d\" %zu", i ? ", " : "", curve.tiles[i].bm, curve.tiles[i].bn, i);
  }
  s += format(")\nset xrange [-0.5:%zu.5]\n", curve.tiles.size() - 1);
  s += "$" + name + "_tiles << EOD\n";
  for (std::size_t i = 0; i < curve.tiles.size(); ++i) {
    s += format("%zu %.4f %.4f\n", i, curve.tiles[i].measured_best_TFLOPS.value_or(NAN),
                curve.tiles[i].predicted_best_TFLOPS);
  }
  s += "EOD\n$" + name + "_configs << EOD\n";
  for (const TileConfigPoint& p : curve.configs) {
    s +=
        format("%d %.4f %.4f\n", p.tile_index, p.measured_TFLOPS.value_or(NAN), p.predicted_TFLOPS);
  }
  s += "EOD\n";
  s += format(
      "$%s_optimum << EOD\n%d %.4f %.4f\nEOD\n", name.c_str(), curve.predicted_optimum,
      curve.tiles[curve.predicted_optimum].predicted_best_TFLOPS,
      curve.measured_optimum ? *curve.tiles[*curve.measured_optimum].measured_best_TFLOPS : NAN);
  std::string plot = "plot ";
  if (r.validated) {
    plot += format(
        "$%s_configs using ($1-0.12):2 with points pt 7 ps 0.35 lc rgb '#aaaaaa' "
        "title 'each config, measured', \\\n     ",
        name.c_str());
  }
  plot += format(
      "$%s_configs using ($1+0.12):3 with points pt 6 ps 0.35 lc rgb '#9ec5e8' title "
      "'each config, predicted', \\\n     ",
      name.c_str());
  if (r.validated) {
    plot += format(
        "$%s_tiles using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb '%s' title "
        "'best measured', \\\n     ",
        name.c_str(), kMeasuredColor);
  }
  plot += format(
      "$%s_tiles using 1:3 with linespoints lw 2 dt 2 pt 6 ps 0.7 lc rgb '%s' title "
      "'best predicted'",
      name.c_str(), kPredictedColor);
  if (curve.measured_optimum) {
    plot += format(
        ", \\\n     $%s_optimum using (%d):3 with points pt 3 ps 2.6 lw 2 lc rgb "
        "'#d62728' title 'measured optimum'",
        name.c_str(), *curve.measured_optimum);
  }
  plot += format(
      ", \\\n     $%s_optimum using 1:2 with points pt 12 ps 2.2 lw 2 lc rgb '%s' "
      "title 'predicted optimum'",
      name.c_str(), kPredictedColor);
  return s + plot + "\n";
}

std::string tile_figure(const GpuReport& r) {
  std::string s = header(1100, 460 * static_cast<int>(r.tile_curves.size()));
  s += format(
      "set multiplot layout %zu,1 title %s.\": the tile sweep (rungs 4-10, every "
      "registered config), %s\"\n",
      r.tile_curves.size(), gnuplot_string(r.gpu.name).c_str(),
      r.validated ? "measured and predicted" : "predicted only");
  s += "set ylabel 'TFLOPS'\nset grid ytics\nset key outside right top font 'sans,9'\n";
  s += "set yrange [0:*]\n";
  for (std::size_t i = 0; i < r.tile_curves.size(); ++i) {
    s += tile_panel(r, r.tile_curves[i], "c" + std::to_string(i));
  }
  s += "unset multiplot\n";
  return s;
}

std::string l2_figure(const GpuReport& r) {
  std::vector<gemm::Problem> problems;
  for (const L2RasterRow& row : r.l2_raster) {
    if (std::none_of(problems.begin(), problems.end(), [&](const gemm::Problem& p) {
          return p.m == row.problem.m && p.n == row.problem.n && p.k == row.problem.k;
        })) {
      problems.push_back(row.problem);
    }
  }
  std::string s = header(1000, 380 * static_cast<int>(problems.size()));
  s += format(
      "set multiplot layout %zu,1 title %s.\": L2 hit rate by block raster order, rungs "
      "7-10\\n{/*0.85 every L2 sector; measured: Nsight Compute lts\\\\_t\\\\_sector\\\\_"
      "hit\\\\_rate}\"\n",
      problems.size(), gnuplot_string(r.gpu.name).c_str());
  // The axis starts 10 points below the lowest rate, rounded down to 10 (differences of a few
  // points matter here).
  double lowest = 100;
  for (const L2RasterRow& row : r.l2_raster) {
    lowest =
        std::min({lowest, row.predicted_pct, row.published_pct, row.measured_pct.value_or(100)});
  }
  s += format("set ylabel 'L2 hit rate (%%)'\nset yrange [%.0f:102]\nset grid ytics\n",
              std::max(0.0, std::floor(lowest / 10) * 10 - 10));
  s += "set style fill solid 0.85 border -1\nset key outside right font 'sans,9'\n";
  for (std::size_t p = 0; p < problems.size(); ++p) {
    std::vector<const L2RasterRow*> rows;
    for (const L2RasterRow& row : r.l2_raster) {
      if (row.problem.m == problems[p].m && row.problem.n == problems[p].n &&
          row.problem.k == problems[p].k) {
        rows.push_back(&row);
      }
    }
    s += format("set title '%s'\n", problem_label(problems[p]).c_str());
    s += format("set xrange [-0.6:%zu.6]\nset xtics font 'sans,8' (", rows.size() - 1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      s += format("%s\"r%d %s\" %zu", i ? ", " : "", rows[i]->rung,
                  short_raster(rows[i]->raster).c_str(), i);
    }
    s += format(")\n$l2_%zu << EOD\n", p);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      s += format("%zu %.3f %.3f %.3f\n", i, rows[i]->measured_pct.value_or(NAN),
                  rows[i]->predicted_pct, rows[i]->published_pct);
    }
    s += "EOD\nplot ";
    if (r.validated) {
      s += format(
          "$l2_%zu using ($1-0.27):2:(0.26) with boxes lc rgb '%s' title 'measured', "
          "\\\n     ",
          p, kMeasuredColor);
    }
    s += format(
        "$l2_%zu using ($1%s):3:(0.26) with boxes lc rgb '%s' title 'roofcast', \\\n"
        "     $l2_%zu using ($1+0.27):4:(0.26) with boxes lc rgb '%s' title 'published "
        "formula'\n",
        p, r.validated ? "" : "-0.13", kPredictedColor, p, kPublishedColor);
  }
  s += "unset multiplot\n";
  return s;
}

}  // namespace

std::vector<ReportFigure> gpu_report_figures(const GpuReport& report) {
  std::vector<ReportFigure> figures;
  figures.push_back({"ladder.svg", ladder_figure(report)});
  figures.push_back({"roofline.svg", roofline_figure(report)});
  if (report.validated) figures.push_back({"predicted-vs-measured.svg", scatter_figure(report)});
  if (!report.tile_curves.empty()) figures.push_back({"tile-sweep.svg", tile_figure(report)});
  const char* axes[] = {"registers", "shared-memory", "threads"};
  for (std::size_t i = 0; i < report.occupancy.size() && i < 3; ++i) {
    figures.push_back({std::string("occupancy-") + axes[i] + ".svg",
                       staircase_gnuplot_script(report.occupancy[i])});
  }
  if (!report.l2_raster.empty()) figures.push_back({"l2-raster.svg", l2_figure(report)});
  return figures;
}

}  // namespace roofcast::views
