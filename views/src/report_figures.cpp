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
constexpr const char* kSpreadColor = "#d6336c";

/// The shared terminal and title (views.hpp); `what` says what the figure shows.
std::string header(int height, const GpuReport& r, const std::string& what) {
  return figure_header(kFigureWidth, height, r.gpu.name + ": " + what);
}

const std::string kSmallFont = figure_font(kFigureSmallFontSize);

/// Multiplot panels share fixed left and right margins, so they line up whether or not a panel
/// carries the key (only the first does, in the right margin).
std::string panel_margins() { return "set lmargin at screen 0.09\nset rmargin at screen 0.76\n"; }

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
  std::string s = header(540, r, "SGEMM ladder at " + problem_label(r.problem));
  const Ceilings& c = r.roofline.ceilings;
  s += format("set title %s.\": the SGEMM ladder at %s, %s\"\n", gnuplot_string(r.gpu.name).c_str(),
              problem_label(r.problem).c_str(),
              r.validated ? "measured and predicted" : "predicted only (not validated)");
  s += "set ylabel 'TFLOPS'\nset xlabel 'rung (headline config, best raster order)'\n";
  // The key goes below the plot, and the ceilings are lines named in it: nothing is written
  // inside the plot, where a bar or a reference range could be under it.
  s += "set grid ytics\nset key outside below center horizontal maxrows 3 " + kSmallFont + "\n";
  s += "set style fill solid 0.85 border -1\n";
  const double top = std::max(c.ffma_TFLOPS.spec, c.ffma_TFLOPS.value()) * 1.12;
  s += format("set yrange [0:%.3f]\nset xrange [-0.7:%zu.7]\n", top, r.ladder.size() - 1);
  s += "set xtics (";
  for (std::size_t i = 0; i < r.ladder.size(); ++i) {
    s += format("%s%s %zu", i ? ", " : "",
                gnuplot_string(rung_label(r.ladder[i].rung, r.ladder[i].kernel, true)).c_str(), i);
  }
  // Columns: index, measured (median), predicted, reference low and high, transferred, measured
  // slowest and fastest repeat.
  s += ")\n$rows << EOD\n";
  bool spread = false;
  int repeats = -1;  // the same count in every row, or 0
  for (std::size_t i = 0; i < r.ladder.size(); ++i) {
    const ReportLadderRow& row = r.ladder[i];
    const std::optional<std::pair<double, double>> range = reference_range(r, row.rung);
    const bool has_spread =
        row.measured_TFLOPS && row.measured_min_TFLOPS && row.measured_max_TFLOPS;
    spread = spread || has_spread;
    if (has_spread)
      repeats = repeats < 0 || repeats == row.measured_repeats ? row.measured_repeats : 0;
    s += format("%zu %.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", i, row.measured_TFLOPS.value_or(NAN),
                row.supported ? row.prediction.tflops : NAN,
                range && r.cublas_TFLOPS ? range->first / 100 * *r.cublas_TFLOPS : NAN,
                range && r.cublas_TFLOPS ? range->second / 100 * *r.cublas_TFLOPS : NAN,
                row.transferred_TFLOPS.value_or(NAN), has_spread ? *row.measured_min_TFLOPS : NAN,
                has_spread ? *row.measured_max_TFLOPS : NAN);
  }
  s += "EOD\n";
  std::string plot = "plot ";
  if (r.validated && r.cublas_TFLOPS) {
    plot +=
        "$rows using 1:(($4+$5)/2):(0.45):(($5-$4)/2) with boxxyerror fs transparent solid "
        "0.25 noborder lc rgb '" +
        std::string(kReferenceColor) +
        "' title 'V100 reference range (% of cuBLAS, scaled)', \\\n     ";
  }
  if (r.validated) {
    plot += format(
        "$rows using ($1-0.18):2:(0.36) with boxes lc rgb '%s' title 'measured (median)', \\\n"
        "     ",
        kMeasuredColor);
  }
  if (r.transferred_calibration) {
    plot += format(
        "$rows using ($1-0.18):3:(0.36) with boxes lc rgb '%s' title 'predicted, "
        "uncalibrated', \\\n     $rows using ($1+0.18):6:(0.36) with boxes lc rgb "
        "'#9ec5e8' title %s",
        kPredictedColor,
        gnuplot_string("predicted with the " + r.transferred_calibration->gpu_id + " scales")
            .c_str());
  } else {
    plot += format("$rows using ($1+0.18):3:(0.36) with boxes lc rgb '%s' title 'predicted'",
                   kPredictedColor);
  }
  if (spread) {
    // Whiskers drawn as vectors (a stem and two caps): gnuplot 5.4's yerrorbars put a disk of
    // the background colour under every point, which would hide the bar's top.
    const std::string title = repeats > 0 ? format("measured min–max of %d repeats", repeats)
                                          : std::string("measured min–max of the repeats");
    plot += format(
        ", \\\n     $rows using ($1-0.18):7:(0):($8-$7) with vectors nohead lw 1.5 lc rgb '%s' "
        "title '%s', \\\n     $rows using ($1-0.26):7:(0.16):(0) with vectors nohead lw 1.5 lc "
        "rgb '%s' notitle, \\\n     $rows using ($1-0.26):8:(0.16):(0) with vectors nohead lw "
        "1.5 lc rgb '%s' notitle",
        kSpreadColor, title.c_str(), kSpreadColor, kSpreadColor);
  }
  plot += format(", \\\n     %.4f dt 2 lw 1.5 lc rgb '#d62728' title 'FFMA ceiling, %s %.1f'",
                 c.ffma_TFLOPS.value(), c.ffma_TFLOPS.measured ? "measured" : "datasheet",
                 c.ffma_TFLOPS.value());
  if (r.cublas_TFLOPS) {
    plot += format(", \\\n     %.4f lw 1.5 lc rgb '%s' title 'cuBLAS %.1f'", *r.cublas_TFLOPS,
                   kPublishedColor, *r.cublas_TFLOPS);
  }
  s += plot + "\n";
  return s;
}

/// The ceiling of one memory level as a gnuplot function of intensity x, TFLOPS.
std::string roof(double bandwidth_GBps, double compute_TFLOPS) {
  return format("(x*%.6g/1000 < %.6g ? x*%.6g/1000 : 1/0)", bandwidth_GBps, compute_TFLOPS,
                bandwidth_GBps);
}

/// One label of the roofline: the rungs whose points at one level sit together.
struct PointLabel {
  double x_px = 0;  // the rightmost point's position in the plot, pixels from its lower left
  double y_px = 0;  // the points' mean height
  int members = 0;
  double intensity = 0;  // where the label is drawn (the rightmost point)
  std::string text;
};

/// The label boxes of one level that would overlap (or cover one of the level's points) are
/// merged into one label "4,5,6p" right of the rightmost of them, until none overlaps; the sizes
/// are the figure's (about 780 x 420 px of plot, the small font about 0.6 of its size wide).
std::vector<PointLabel> merge_labels(std::vector<PointLabel> labels) {
  const double char_px = 0.6 * kFigureSmallFontSize;
  const double height_px = 1.3 * kFigureSmallFontSize;
  auto left = [](const PointLabel& l) { return l.x_px + 6; };
  auto right = [&](const PointLabel& l) { return l.x_px + 8 + char_px * l.text.size(); };
  auto overlap = [&](const PointLabel& a, const PointLabel& b) {
    // Either label's box over the other's, or over the other's point (a point is 10 px wide).
    const bool rows = std::abs(a.y_px - b.y_px) < height_px;
    const bool boxes = left(a) < right(b) && left(b) < right(a);
    const bool points = (b.x_px + 5 > left(a) && b.x_px - 5 < right(a)) ||
                        (a.x_px + 5 > left(b) && a.x_px - 5 < right(b));
    return rows && (boxes || points);
  };
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t i = 0; i < labels.size() && !merged; ++i) {
      for (std::size_t j = i + 1; j < labels.size() && !merged; ++j) {
        if (!overlap(labels[i], labels[j])) continue;
        PointLabel& a = labels[i];
        const PointLabel& b = labels[j];
        a.y_px = (a.y_px * a.members + b.y_px * b.members) / (a.members + b.members);
        if (b.x_px > a.x_px) {
          a.x_px = b.x_px;
          a.intensity = b.intensity;
        }
        a.members += b.members;
        a.text += "," + b.text;
        labels.erase(labels.begin() + static_cast<std::ptrdiff_t>(j));
        merged = true;
      }
    }
  }
  return labels;
}

std::string roofline_figure(const GpuReport& r) {
  const Ceilings& c = r.roofline.ceilings;
  std::string s =
      header(720, r, "hierarchical roofline of the ladder at " + problem_label(r.problem));
  s += format(
      "set title %s.\": hierarchical roofline, the ladder at %s\\n{/*0.85 %s; one point "
      "per rung and memory level}\"\n",
      gnuplot_string(r.gpu.name).c_str(), problem_label(r.problem).c_str(),
      r.validated ? "filled: measured TFLOPS; open: predicted"
                  : "predicted TFLOPS (nothing measured)");
  s += "set logscale xy\nset xlabel 'arithmetic intensity (FLOP per byte at the level)'\n";
  // The key below the plot: the roofs and the points fill the plot's corners on some GPUs.
  s += "set ylabel 'TFLOPS'\nset grid\nset key outside below center horizontal maxcols 3 " +
       kSmallFont + "\n";
  constexpr double kXLow = 0.1, kXHigh = 3000, kYLow = 0.3;
  const double y_high = std::max(c.ffma_TFLOPS.spec, c.ffma_TFLOPS.value()) * 2;
  s += format("set xrange [%g:%g]\n", kXLow, kXHigh);
  s += format("set yrange [%g:%.3f]\n", kYLow, y_high);
  s += "set samples 400\n";
  struct Level {
    const char* name;
    const LevelCeiling* ceiling;
    const char* color;
  };
  const Level levels[] = {{"shared memory", &c.shared_memory_GBps, "#59a14f"},
                          {"L2", &c.l2_GBps, "#e6a23c"},
                          {"DRAM", &c.dram_GBps, "#1f6fb4"}};
  auto x_px = [&](double intensity) {
    return std::log10(intensity / kXLow) / std::log10(kXHigh / kXLow) * 780;
  };
  auto y_px = [&](double tflops) {
    return std::log10(tflops / kYLow) / std::log10(y_high / kYLow) * 420;
  };
  std::vector<PointLabel> labels[3];
  s += "$points << EOD\n";
  // Columns: level index, intensity, TFLOPS, measured (1) or predicted (0).
  for (const ReportLadderRow& row : r.ladder) {
    if (!row.supported) continue;
    const Roofline& roofline = row.prediction.roofline;
    const LevelBound* bounds[] = {&roofline.shared_memory, &roofline.l2, &roofline.dram};
    for (int level = 0; level < 3; ++level) {
      if (bounds[level]->intensity <= 0) continue;
      s += format("%d %.5g %.5g 0\n", level, bounds[level]->intensity, row.prediction.tflops);
      // The label goes by the measured point where there is one, else by the predicted.
      double label_intensity = bounds[level]->intensity;
      double label_tflops = row.prediction.tflops;
      if (row.measured_TFLOPS) {
        // DRAM: the intensity Nsight Compute measured; shared memory and L2: the model's bytes.
        double intensity = bounds[level]->intensity;
        if (level == 2 && row.measured_dram_bytes && *row.measured_dram_bytes > 0) {
          intensity = roofline.flops / *row.measured_dram_bytes;
        }
        s += format("%d %.5g %.5g 1\n", level, intensity, *row.measured_TFLOPS);
        label_intensity = intensity;
        label_tflops = *row.measured_TFLOPS;
      }
      if (label_intensity < kXLow || label_intensity > kXHigh || label_tflops < kYLow) continue;
      labels[level].push_back({x_px(label_intensity), y_px(label_tflops), 1, label_intensity,
                               rung_label(row.rung, row.kernel, true)});
    }
  }
  s += "EOD\n$labels << EOD\n";
  // Columns: level index, intensity, TFLOPS, text.
  for (int level = 0; level < 3; ++level) {
    for (const PointLabel& label : merge_labels(labels[level])) {
      const double tflops = kYLow * std::pow(y_high / kYLow, label.y_px / 420);
      s += format("%d %.5g %.5g %s\n", level, label.intensity, tflops,
                  gnuplot_datum(label.text).c_str());
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
          "ps 1.0 lc rgb '%s' notitle",
          level, levels[level].color);
    }
    plot += format(
        ", \\\n     $labels using ($1==%d ? $2 : 1/0):3:4 with labels left offset 0.6,0 %s "
        "tc rgb '%s' notitle",
        level, kSmallFont.c_str(), levels[level].color);
  }
  s += plot + "\n";
  return s;
}

/// The opening of a square scatter plot: the header, a title after the GPU's name with a smaller
/// subtitle, the axes (`axes`: gnuplot set commands), their labels and the key.
std::string square_plot_opening(const GpuReport& r, const std::string& title,
                                const std::string& subtitle, const std::string& axes,
                                const std::string& xlabel, const std::string& ylabel) {
  std::string s = header(800, r, title);
  s += format("set title %s.\": %s\\n{/*0.85 %s}\"\n", gnuplot_string(r.gpu.name).c_str(),
              title.c_str(), subtitle.c_str());
  s += axes + "set grid\n";
  s += "set xlabel '" + xlabel + "'\nset ylabel '" + ylabel + "'\nset size square\n";
  s += "set key top left box opaque " + kSmallFont + "\n";
  return s;
}

/// The first lines of a predicted-against-measured plot command: y = x and y = x +-10%.
const char* const kPlotIdentityAndTenPercent =
    "plot x lc rgb '#444444' title 'predicted = measured', \\\n"
    "     1.1*x dt 2 lc rgb '#888888' title '±10%', 0.9*x dt 2 lc rgb '#888888' notitle, \\\n";

std::string scatter_figure(const GpuReport& r) {
  std::string s =
      square_plot_opening(r, "predicted vs measured TFLOPS, every ladder and sweep case",
                          "calibrated on the training split; dashed: ±10%",
                          "set logscale xy\nset xrange [0.3:80]\nset yrange [0.3:80]\n",
                          "measured TFLOPS", "predicted TFLOPS");
  s += "$cases << EOD\n";
  for (const ScatterPoint& p : r.scatter) {
    s += format("%.5g %.5g %d\n", p.measured_TFLOPS, p.predicted_TFLOPS, p.training ? 1 : 0);
  }
  s += "EOD\n";
  int training = 0;
  for (const ScatterPoint& p : r.scatter) training += p.training ? 1 : 0;
  s += kPlotIdentityAndTenPercent;
  s += format(
      "     $cases using 1:($3==1 ? $2 : 1/0) with points pt 7 ps 0.45 lc rgb '%s' title "
      "'training (%d)', \\\n"
      "     $cases using 1:($3==0 ? $2 : 1/0) with points pt 9 ps 0.55 lc rgb '%s' title "
      "'held out (%d)'\n",
      kPredictedColor, training, kPublishedColor, static_cast<int>(r.scatter.size()) - training);
  return s;
}

std::string generalisation_figure(const GpuReport& r) {
  std::string s =
      square_plot_opening(r, "held-out configs at held-out shapes, predicted vs measured TFLOPS",
                          "calibrated on the training cases only; dashed: ±10%",
                          "set logscale xy\nset xrange [0.05:80]\nset yrange [0.05:80]\n",
                          "measured TFLOPS", "predicted TFLOPS");
  s += "$cases << EOD\n";
  int cases = 0;
  for (const validation::CaseAccuracy& c : r.accuracy->cases) {
    if (c.duplicate || !c.config_held_out || !c.shape_held_out) continue;
    s += format("%.5g %.5g %.5g\n", c.measured_tflops, c.predicted_tflops,
                c.estimated_tflops > 0 ? c.estimated_tflops : 1e-9);
    ++cases;
  }
  s += "EOD\n";
  s += kPlotIdentityAndTenPercent;
  s += format(
      "     $cases using 1:3 with points pt 9 ps 0.45 lc rgb '%s' title "
      "'registers estimated (%d)', \\\n"
      "     $cases using 1:2 with points pt 7 ps 0.45 lc rgb '%s' title "
      "'ptxas registers (%d)'\n",
      kPublishedColor, cases, kPredictedColor, cases);
  return s;
}

std::string registers_figure(const GpuReport& r) {
  std::string s = square_plot_opening(
      r, "registers per thread, the fitted estimate against ptxas (compute capability 9.0)",
      "at 255 or the launch bound's cap the count is capped; dashed: ±4 registers",
      "set xrange [0:260]\nset yrange [0:260]\n", "ptxas registers per thread",
      "estimated registers per thread");
  s += "$rows << EOD\n";
  int training = 0, held = 0;
  for (const validation::RegisterAccuracy::Row& row : r.accuracy->registers.rows) {
    s += format("%d %d %d\n", row.ptxas_registers, row.estimated_registers, row.training ? 1 : 0);
    (row.training ? training : held) += 1;
  }
  s += "EOD\n";
  s += format(
      "plot x lc rgb '#444444' title 'estimate = ptxas', \\\n"
      "     x+4 dt 2 lc rgb '#888888' title '±4', x-4 dt 2 lc rgb '#888888' notitle, \\\n"
      "     $rows using 1:($3==1 ? $2 : 1/0) with points pt 7 ps 0.45 lc rgb '%s' title "
      "'training configs (%d)', \\\n"
      "     $rows using 1:($3==0 ? $2 : 1/0) with points pt 9 ps 0.6 lc rgb '%s' title "
      "'held-out configs (%d)'\n",
      kPredictedColor, training, kPublishedColor, held);
  return s;
}

std::string tile_panel(const GpuReport& r, const TileCurve& curve, const std::string& name) {
  std::string s;
  s += format("set title '%s: best config per block tile BM x BN'\n",
              problem_label(curve.problem).c_str());
  s += "set xtics rotate by -45 " + kSmallFont + " (";
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
  std::string s = header(470 * static_cast<int>(r.tile_curves.size()), r,
                         "tile sweep, best config per block tile");
  s += format(
      "set multiplot layout %zu,1 title %s.\": the tile sweep (rungs 4-10, every "
      "registered config), %s\"\n",
      r.tile_curves.size(), gnuplot_string(r.gpu.name).c_str(),
      r.validated ? "measured and predicted" : "predicted only");
  s += "set ylabel 'TFLOPS'\nset grid ytics\nset key outside right top " + kSmallFont + "\n";
  s += panel_margins() + "set yrange [0:*]\n";
  for (std::size_t i = 0; i < r.tile_curves.size(); ++i) {
    if (i == 1) s += "unset key\n";  // the panels share one key, the first's
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
  std::string s = header(400 * static_cast<int>(problems.size()), r,
                         "L2 hit rate by block raster order, rungs 7-10");
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
  s += "set style fill solid 0.85 border -1\nset key outside right top " + kSmallFont + "\n";
  s += panel_margins() + "set bmargin 4\n";  // room for the two-line ticks
  for (std::size_t p = 0; p < problems.size(); ++p) {
    std::vector<const L2RasterRow*> rows;
    for (const L2RasterRow& row : r.l2_raster) {
      if (row.problem.m == problems[p].m && row.problem.n == problems[p].n &&
          row.problem.k == problems[p].k) {
        rows.push_back(&row);
      }
    }
    if (p == 1) s += "unset key\n";  // the panels share one key, the first's
    s += format("set title '%s'\n", problem_label(problems[p]).c_str());
    // Two lines per tick (rung over raster order): narrow enough for 16 bar groups.
    s += format("set xrange [-0.6:%zu.6]\nset xtics %s (", rows.size() - 1, kSmallFont.c_str());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      s += format("%s\"r%d\\n%s\" %zu", i ? ", " : "", rows[i]->rung,
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
  if (report.accuracy && !report.accuracy->sample.empty()) {
    figures.push_back({"generalisation.svg", generalisation_figure(report)});
    figures.push_back({"registers.svg", registers_figure(report)});
  }
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
