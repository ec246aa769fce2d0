#include "roofcast/views/views.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iterator>

#include "roofcast/gemm_json.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/views/csv.hpp"
#include "roofcast/views/schema.hpp"

namespace roofcast::views {

std::string format(const char* pattern, ...) {
  va_list args;
  va_start(args, pattern);
  va_list copy;
  va_copy(copy, args);
  const int size = std::vsnprintf(nullptr, 0, pattern, copy);
  va_end(copy);
  std::string out(static_cast<std::size_t>(size), '\0');
  std::vsnprintf(out.data(), out.size() + 1, pattern, args);
  va_end(args);
  return out;
}

namespace {
bool is_control(char ch) {
  const auto byte = static_cast<unsigned char>(ch);
  return byte < 0x20 || byte == 0x7F;
}
}  // namespace

std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (char ch : text) {
    if (ch == '\'') {
      out += "''";
    } else {
      out += is_control(ch) ? '?' : ch;
    }
  }
  return out + "'";
}

std::string gnuplot_datum(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? '\'' : (is_control(ch) ? '?' : ch);
  return out + "\"";
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string figure_font(int size) { return format("font 'sans,%d'", size); }

std::string figure_identifier(std::string_view title) {
  std::string out;
  for (char ch : title) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x80 && std::isalnum(byte)) {
      out += ch;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) out = "figure_" + out;
  return out;
}

namespace {
constexpr std::string_view kTitleLine = "\n# figure title: ";
}  // namespace

std::string figure_header(int width, int height, std::string_view title) {
  // The comment line carries the title to with_figure_title: no control character (a newline
  // would end the comment and start a command) and no trailing backslash (which would continue
  // the comment onto the next line).
  std::string comment;
  for (char ch : title) comment += is_control(ch) ? '?' : ch;
  while (!comment.empty() && comment.back() == '\\') comment.pop_back();
  return format(
             "set encoding utf8\nset terminal svg size %d,%d dynamic enhanced %s name %s "
             "background '#ffffff'\nset output",
             width, height, figure_font(kFigureFontSize).c_str(),
             gnuplot_string(figure_identifier(title)).c_str()) +
         std::string(kTitleLine) + comment + "\n";
}

std::optional<std::string> figure_title(std::string_view script) {
  const std::size_t at = script.find(kTitleLine);
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t begin = at + kTitleLine.size();
  const std::size_t end = script.find('\n', begin);
  return std::string(script.substr(begin, end == std::string_view::npos ? end : end - begin));
}

std::string with_figure_title(std::string svg, std::string_view title) {
  const std::size_t open = svg.find("<title>");
  if (open == std::string::npos) return svg;
  const std::size_t begin = open + 7;
  const std::size_t close = svg.find("</title>", begin);
  if (close == std::string::npos) return svg;
  return svg.replace(begin, close - begin, xml_escape(title));
}

namespace {

using nlohmann::json;

std::string blocks_text(int blocks) {
  return blocks == LimitBlocks::kUnlimited ? "unlimited" : std::to_string(blocks);
}

std::string carveout_text(const SmLimits& sm, const KernelLaunch& launch,
                          const OccupancyResult& result) {
  std::string text = format("%d KiB", result.carveout_bytes / 1024);
  if (!launch.carveout_percent) {
    text += " (default: the maximum)";
  } else if (result.carveout_bytes != result.carveout_requested_bytes) {
    text += format(" (%d%% asks for %d KiB, raised to fit one block)", *launch.carveout_percent,
                   result.carveout_requested_bytes / 1024);
  } else {
    text += format(" (%d%% of %d KiB, rounded up to a legal carveout)", *launch.carveout_percent,
                   sm.shared_memory_per_sm_bytes / 1024);
  }
  return text;
}

std::string kernel_text(const KernelLaunch& launch, const BlockAllocation& allocation) {
  return format(
      "%d threads, %d registers/thread, %d B static + %d B dynamic shared memory "
      "(kernel max dynamic %d B)",
      launch.threads_per_block, launch.registers_per_thread, launch.static_shared_memory_bytes,
      launch.dynamic_shared_memory_bytes, allocation.max_dynamic_shared_memory_bytes);
}

std::string gpu_title(const GpuSpec& gpu) {
  return format("%s (%s, cc %d.%d, %d SMs)", gpu.name.c_str(), gpu.id.c_str(),
                gpu.compute_capability.major, gpu.compute_capability.minor, gpu.chip.sm_count);
}

std::string gain_text(const std::optional<int>& amount, const char* unit, int blocks) {
  if (!amount) return "no removal gains a block (another limit binds)";
  return format("-%d %s gains a block (to %d)", *amount, unit, blocks + 1);
}

std::string sweep_value_text(SweepAxis axis, const SweepStep& step) {
  const char* unit = axis == SweepAxis::kSharedMemory ? " B" : "";
  if (step.first_value == step.last_value) return format("%d%s", step.first_value, unit);
  return format("%d-%d%s", step.first_value, step.last_value, unit);
}

std::string sweep_axis_title(SweepAxis axis) {
  switch (axis) {
    case SweepAxis::kRegisters:
      return "registers per thread";
    case SweepAxis::kSharedMemory:
      return "dynamic shared memory per block";
    case SweepAxis::kThreads:
      return "threads per block";
  }
  return "";
}

}  // namespace

OccupancyReport make_occupancy_report(const GpuSpec& gpu, const KernelLaunch& launch,
                                      std::optional<SweepAxis> sweep_axis) {
  OccupancyReport report;
  report.gpu = gpu;
  report.launch = launch;
  report.result = compute_occupancy(gpu.sm, launch);
  report.sweep_axis = sweep_axis;
  if (sweep_axis) report.sweep = staircase(sweep_occupancy(gpu.sm, launch, *sweep_axis));
  return report;
}

std::string occupancy_text(const OccupancyReport& report) {
  const SmLimits& sm = report.gpu.sm;
  const OccupancyResult& r = report.result;
  const BlockAllocation& a = r.allocation;
  std::string out;
  out += "GPU     " + gpu_title(report.gpu) + "\n";
  out += "kernel  " + kernel_text(report.launch, a) + "\n";
  if (!report.kernel_id.empty()) out += "config  " + report.kernel_id + "\n";
  for (const std::string& note : report.notes) out += "note    " + note + "\n";
  out += "\n";

  if (!r.launchable()) {
    out += "cannot launch: " + to_string(r.failure) + "\n";
  }
  out += format("blocks per SM   %d\n", r.blocks_per_sm);
  out += format("occupancy       %.1f%% (%d of %d warps)\n", 100.0 * r.occupancy, r.active_warps,
                r.max_warps);
  out += "limited by      " + limiter_names(r.limiters) + "\n";
  out += "carveout        " + carveout_text(sm, report.launch, r) + "\n\n";

  out += "limit           blocks/SM  what one block takes\n";
  out += format("  warps         %9s  %d warps of %d per SM (max %d threads per block)\n",
                blocks_text(r.limit.warps).c_str(), a.warps, r.max_warps, sm.max_threads_per_block);
  out += format("  registers     %9s  %d registers (%d per warp, unit %d) of %d per SM\n",
                blocks_text(r.limit.registers).c_str(), a.registers_per_block, a.registers_per_warp,
                sm.register_allocation_unit, sm.registers_per_sm);
  out += format(
      "  shared memory %9s  %d B (with %d B reserved, granularity %d B) of %d B; "
      "per-block limit %d B\n",
      blocks_text(r.limit.shared_memory).c_str(), a.shared_memory_bytes,
      sm.reserved_shared_memory_per_block_bytes, sm.shared_memory_allocation_granularity_bytes,
      r.carveout_bytes, a.shared_memory_limit_bytes);
  out += format("  blocks        %9s  at most %d blocks per SM\n",
                blocks_text(r.limit.blocks).c_str(), sm.max_blocks_per_sm);

  if (r.launchable()) {
    const Headroom& h = r.headroom;
    out += "\nheadroom\n";
    out += format("  registers     +%d per thread keeps %d blocks; %s\n", h.registers_addable,
                  r.blocks_per_sm,
                  gain_text(h.registers_to_gain_block, "per thread", r.blocks_per_sm).c_str());
    out += format(
        "  shared memory +%d B per block keeps %d blocks; %s\n", h.shared_memory_addable_bytes,
        r.blocks_per_sm,
        gain_text(h.shared_memory_to_gain_block_bytes, "B per block", r.blocks_per_sm).c_str());
  }

  if (report.sweep_axis) {
    out += "\nsweep of " + sweep_axis_title(*report.sweep_axis) + "\n";
    out += format("  %-18s %9s  %9s  %s\n", to_string(*report.sweep_axis).c_str(), "blocks/SM",
                  "occupancy", "limited by");
    for (const SweepStep& step : report.sweep) {
      const std::string why = step.point.failure == LaunchFailure::kNone
                                  ? limiter_names(step.point.limiters)
                                  : "cannot launch: " + to_string(step.point.failure);
      out +=
          format("  %-18s %9d  %8.1f%%  %s\n", sweep_value_text(*report.sweep_axis, step).c_str(),
                 step.point.blocks_per_sm, 100.0 * step.point.occupancy, why.c_str());
    }
  }
  return out;
}

std::string staircase_gnuplot_script(const OccupancyReport& report) {
  const SweepAxis axis = report.sweep_axis.value();
  const KernelLaunch& l = report.launch;
  const int operating_value = axis == SweepAxis::kRegisters      ? l.registers_per_thread
                              : axis == SweepAxis::kSharedMemory ? l.dynamic_shared_memory_bytes
                                                                 : l.threads_per_block;
  const char* x_label = axis == SweepAxis::kRegisters      ? "registers per thread"
                        : axis == SweepAxis::kSharedMemory ? "dynamic shared memory per block (KiB)"
                                                           : "threads per block";
  const double x_scale = axis == SweepAxis::kSharedMemory ? 1.0 / 1024.0 : 1.0;
  const std::string fixed =
      axis == SweepAxis::kRegisters
          ? format("%d threads, %d B static + %d B dynamic smem", l.threads_per_block,
                   l.static_shared_memory_bytes, l.dynamic_shared_memory_bytes)
      : axis == SweepAxis::kSharedMemory
          ? format("%d threads, %d regs, %d B static smem", l.threads_per_block,
                   l.registers_per_thread, l.static_shared_memory_bytes)
          : format("%d regs, %d B static + %d B dynamic smem", l.registers_per_thread,
                   l.static_shared_memory_bytes, l.dynamic_shared_memory_bytes);

  const double x_end = report.sweep.back().last_value * x_scale * 1.02;
  double highest = 0;
  for (const SweepStep& step : report.sweep) highest = std::max(highest, step.point.occupancy);
  // Room above the highest step for its label, in tens of percent; 110 at most.
  const double y_top = std::min(110.0, std::ceil((100.0 * highest * 1.25 + 8) / 10) * 10);

  std::string script = figure_header(
      kFigureWidth, 520, report.gpu.name + ": occupancy staircase over " + sweep_axis_title(axis));
  script += format(
      "set title %s.\": occupancy staircase over %s\\n{/*0.85 %s; numbers: blocks per SM}\"\n",
      gnuplot_string(report.gpu.name).c_str(), sweep_axis_title(axis).c_str(), fixed.c_str());
  script += format("set xlabel '%s'\n", x_label);
  script += format("set ylabel 'occupancy (%% of warp slots)'\nset yrange [0:%g]\n", y_top);
  script += "set grid ytics\n";
  // Below the plot: a key inside could cover a step wherever the staircase is high.
  script += "set key outside below center horizontal " + figure_font(kFigureSmallFontSize) + "\n";
  script += format("set xrange [0:%g]\n", x_end);

  // Each step is coloured by what limits it (the key names the limiters), and carries its
  // blocks per SM only where that label fits inside the step's width: the steps are disjoint
  // in x, so no two labels can overlap, whatever the GPU or the sweep.
  std::vector<std::string> classes;  // limiter texts in order of first appearance
  std::vector<int> class_of;
  for (const SweepStep& step : report.sweep) {
    std::string why = step.point.failure == LaunchFailure::kNone
                          ? limiter_names(step.point.limiters)
                          : std::string("cannot launch");
    std::replace(why.begin(), why.end(), '_', ' ');  // '_' means subscript in enhanced text
    auto found = std::find(classes.begin(), classes.end(), why);
    if (found == classes.end()) found = classes.insert(classes.end(), why);
    class_of.push_back(static_cast<int>(found - classes.begin()));
  }
  // gnuplot's "steps" holds each value until the next point: one point per step start, and
  // the last step's end.
  script += "$steps << EOD\n";
  for (const SweepStep& step : report.sweep) {
    script += format("%g %.4f\n", step.first_value * x_scale, 100.0 * step.point.occupancy);
  }
  script += format("%g %.4f\n", report.sweep.back().last_value * x_scale,
                   100.0 * report.sweep.back().point.occupancy);
  // Columns: first value, last value, occupancy %, limiter class, label ("" for none).
  script += "EOD\n$segments << EOD\n";
  // The plot is about 780 px of the 900; a character of the small font about 0.6 of its size.
  const double px_per_unit = 780.0 / x_end;
  for (std::size_t i = 0; i < report.sweep.size(); ++i) {
    const SweepStep& step = report.sweep[i];
    const double first = step.first_value * x_scale;
    const double last =
        (i + 1 < report.sweep.size() ? report.sweep[i + 1].first_value : step.last_value) * x_scale;
    // "N/SM" where it fits, else "N" (the subtitle says what the numbers are), else nothing.
    std::string label;
    if (step.point.failure == LaunchFailure::kNone) {
      const double width_px = (last - first) * px_per_unit;
      auto fits = [&](const std::string& text) {
        return width_px >= (text.size() + 1) * 0.6 * kFigureSmallFontSize;
      };
      const std::string full = format("%d/SM", step.point.blocks_per_sm);
      const std::string bare = std::to_string(step.point.blocks_per_sm);
      label = fits(full) ? full : fits(bare) ? bare : "";
    }
    script += format("%g %g %.4f %d \"%s\"\n", first, last, 100.0 * step.point.occupancy,
                     class_of[i], label.c_str());
  }
  script += format("EOD\n$operating << EOD\n%g %.4f\nEOD\n", operating_value * x_scale,
                   100.0 * report.result.occupancy);
  // The operating point's line stops at its step, below that step's label.
  script +=
      format("set arrow from %g,0 to %g,%.4f nohead dt 2 lc rgb '#d62728'\n",
             operating_value * x_scale, operating_value * x_scale, 100.0 * report.result.occupancy);
  // One colour per limiter in every figure; combinations take the rest of the palette.
  auto fixed_colour = [](const std::string& why) -> const char* {
    if (why == "cannot launch") return "#bbbbbb";
    if (why == "warps") return "#8e5ea2";
    if (why == "registers") return "#e6a23c";
    if (why == "shared memory") return "#59a14f";
    if (why == "blocks") return "#17becf";
    return nullptr;
  };
  const char* palette[] = {"#1f6fb4", "#b07aa1", "#9c755f", "#17a589"};
  script += "plot $steps using 1:2 with steps lw 1 lc rgb '#9e9e9e' notitle";
  int colour = 0;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    const char* rgb = fixed_colour(classes[k]);
    if (rgb == nullptr) rgb = palette[colour++ % std::size(palette)];
    script += format(
        ", \\\n     $segments using 1:($4==%zu ? $3 : 1/0):($2-$1):(0) with vectors nohead "
        "lw 4 lc rgb '%s' title %s",
        k, rgb,
        gnuplot_string(classes[k] == "cannot launch" ? classes[k] : "limited by " + classes[k])
            .c_str());
  }
  script += format(
      ", \\\n     $segments using (($1+$2)/2):3:5 with labels offset 0,1.3 %s tc rgb '#333333' "
      "notitle",
      figure_font(kFigureSmallFontSize).c_str());
  script +=
      ", \\\n     $operating using 1:2 with points pt 7 ps 1.3 lc rgb '#d62728' "
      "title 'this kernel'\n";
  return script;
}

json occupancy_json(const OccupancyReport& report) {
  const OccupancyResult& r = report.result;
  const BlockAllocation& a = r.allocation;
  const KernelLaunch& l = report.launch;
  json out = schema::document("occupancy");
  out["gpu"] = schema::gpu(report.gpu);
  out["kernel"] = {
      {"threads_per_block", l.threads_per_block},
      {"registers_per_thread", l.registers_per_thread},
      {"static_shared_memory_bytes", l.static_shared_memory_bytes},
      {"dynamic_shared_memory_bytes", l.dynamic_shared_memory_bytes},
      {"max_dynamic_shared_memory_bytes", a.max_dynamic_shared_memory_bytes},
      {"carveout_percent", l.carveout_percent ? json(*l.carveout_percent) : json(nullptr)}};
  if (!report.kernel_id.empty()) {
    out["kernel"]["id"] = report.kernel_id;
    out["kernel"]["registers_estimated"] = report.registers_estimated;
  }
  if (!report.notes.empty()) out["notes"] = report.notes;
  out["launchable"] = r.launchable();
  out["cannot_launch_reason"] = r.launchable() ? json(nullptr) : json(to_string(r.failure));
  out["blocks_per_sm"] = r.blocks_per_sm;
  out["active_warps"] = r.active_warps;
  out["max_warps"] = r.max_warps;
  out["occupancy"] = r.occupancy;
  out["limiters"] = schema::limiters(r.limiters);
  out["limits_blocks_per_sm"] = {{"warps", schema::block_limit(r.limit.warps)},
                                 {"registers", schema::block_limit(r.limit.registers)},
                                 {"shared_memory", schema::block_limit(r.limit.shared_memory)},
                                 {"blocks", schema::block_limit(r.limit.blocks)}};
  out["allocation_per_block"] = {{"warps", a.warps},
                                 {"registers_per_warp", a.registers_per_warp},
                                 {"registers", a.registers_per_block},
                                 {"shared_memory_bytes", a.shared_memory_bytes},
                                 {"shared_memory_limit_bytes", a.shared_memory_limit_bytes}};
  out["carveout_requested_bytes"] = r.carveout_requested_bytes;
  out["carveout_bytes"] = r.carveout_bytes;
  if (r.launchable()) {
    const Headroom& h = r.headroom;
    auto optional_json = [](const std::optional<int>& v) { return v ? json(*v) : json(nullptr); };
    out["headroom"] = {
        {"registers_addable_per_thread", h.registers_addable},
        {"registers_to_gain_block_per_thread", optional_json(h.registers_to_gain_block)},
        {"shared_memory_addable_bytes", h.shared_memory_addable_bytes},
        {"shared_memory_to_gain_block_bytes", optional_json(h.shared_memory_to_gain_block_bytes)}};
  } else {
    out["headroom"] = nullptr;
  }
  if (report.sweep_axis) {
    json steps = json::array();
    for (const SweepStep& step : report.sweep) {
      steps.push_back({{"first", step.first_value},
                       {"last", step.last_value},
                       {"blocks_per_sm", step.point.blocks_per_sm},
                       {"occupancy", step.point.occupancy},
                       {"limiters", schema::limiters(step.point.limiters)},
                       {"cannot_launch_reason", step.point.failure == LaunchFailure::kNone
                                                    ? json(nullptr)
                                                    : json(to_string(step.point.failure))}});
    }
    out["sweep"] = {{"axis", to_string(*report.sweep_axis)}, {"steps", steps}};
  }
  return out;
}

std::string occupancy_sweep_csv(const OccupancyReport& report) {
  const SweepAxis axis = report.sweep_axis.value();
  const std::string value = axis == SweepAxis::kRegisters      ? "registers_per_thread"
                            : axis == SweepAxis::kSharedMemory ? "dynamic_shared_memory_bytes"
                                                               : "threads_per_block";
  csv::Table table({"first_" + value, "last_" + value, "blocks_per_sm", "occupancy_percent",
                    "limiters", "cannot_launch_reason"});
  for (const SweepStep& step : report.sweep) {
    const bool launchable = step.point.failure == LaunchFailure::kNone;
    table.add({csv::number(step.first_value), csv::number(step.last_value),
               csv::number(step.point.blocks_per_sm), csv::number(100.0 * step.point.occupancy),
               launchable ? limiter_names(step.point.limiters) : "",
               launchable ? "" : to_string(step.point.failure)});
  }
  return table.str();
}

std::string gpus_text(const std::vector<GpuSpec>& gpus) {
  std::string out = format("%-16s %-28s %4s %4s %6s %8s %9s %8s %10s\n", "id", "name", "cc", "SMs",
                           "MHz", "L2 MiB", "DRAM GB/s", "FP32 TF", "smem/SM KiB");
  for (const GpuSpec& g : gpus) {
    out += format("%-16s %-28s %2d.%d %4d %6.0f %8.1f %9.0f %8.1f %10d\n", g.id.c_str(),
                  g.name.c_str(), g.compute_capability.major, g.compute_capability.minor,
                  g.chip.sm_count, g.chip.boost_clock_MHz,
                  static_cast<double>(g.chip.l2_bytes) / (1024.0 * 1024.0), g.chip.dram_bw_GBps,
                  g.peak_TFLOPS.fp32, g.sm.shared_memory_per_sm_bytes / 1024);
  }
  return out;
}

json gpus_json(const std::vector<GpuSpec>& gpus) {
  json list = json::array();
  for (const GpuSpec& g : gpus) {
    json row = schema::gpu(g);
    row["sm_count"] = g.chip.sm_count;
    row["boost_clock_mhz"] = g.chip.boost_clock_MHz;
    row["l2_bytes"] = g.chip.l2_bytes;
    row["dram_bw_gbps"] = g.chip.dram_bw_GBps;
    row["fp32_tflops"] = g.peak_TFLOPS.fp32;
    row["shared_memory_per_sm_bytes"] = g.sm.shared_memory_per_sm_bytes;
    list.push_back(row);
  }
  json out = schema::document("gpus");
  out["gpus"] = list;
  return out;
}

std::string gpus_csv(const std::vector<GpuSpec>& gpus) {
  csv::Table table({"id", "name", "compute_capability", "sm_count", "boost_clock_mhz", "l2_bytes",
                    "dram_bw_gbps", "fp32_tflops", "shared_memory_per_sm_bytes", "origin"});
  for (const GpuSpec& g : gpus) {
    table.add(
        {g.id, g.name, format("%d.%d", g.compute_capability.major, g.compute_capability.minor),
         csv::number(g.chip.sm_count), csv::number(g.chip.boost_clock_MHz),
         csv::number(g.chip.l2_bytes), csv::number(g.chip.dram_bw_GBps),
         csv::number(g.peak_TFLOPS.fp32), csv::number(g.sm.shared_memory_per_sm_bytes), g.origin});
  }
  return table.str();
}

const std::vector<KernelProfile>& representative_kernels() {
  // Shared memory of a tiled SGEMM block: stages * (BM + BN) * BK * 4 bytes.
  static const std::vector<KernelProfile> kernels = [] {
    auto profile = [](std::string name, int threads, int registers, int static_bytes,
                      int dynamic_bytes) {
      KernelLaunch launch;
      launch.threads_per_block = threads;
      launch.registers_per_thread = registers;
      launch.static_shared_memory_bytes = static_bytes;
      launch.dynamic_shared_memory_bytes = dynamic_bytes;
      return KernelProfile{std::move(name), launch};
    };
    return std::vector<KernelProfile>{
        profile("naive, 32x32 threads", 1024, 32, 0, 0),
        profile("smem tiling 32x32x32", 1024, 40, 2 * 32 * 32 * 4, 0),
        profile("thread tile 128x128x8, 8x8", 256, 128, 2 * 128 * 8 * 4, 0),
        profile("warp tile 128x128x16, 2 stages", 256, 168, 2 * 256 * 16 * 4, 0),
        profile("cp.async 128x256x32, 4 stages", 256, 232, 0, 4 * 384 * 32 * 4),
    };
  }();
  return kernels;
}

OccupancyTable make_occupancy_table(const std::vector<GpuSpec>& gpus,
                                    const std::vector<KernelProfile>& kernels) {
  OccupancyTable table{gpus, kernels, {}};
  for (const GpuSpec& gpu : gpus) {
    std::vector<OccupancyResult>& row = table.results.emplace_back();
    for (const KernelProfile& kernel : kernels) {
      row.push_back(compute_occupancy(gpu.sm, kernel.launch));
    }
  }
  return table;
}

std::string occupancy_table_text(const OccupancyTable& table) {
  std::string out =
      "Occupancy of representative SGEMM kernel resource profiles (illustrative, not measured)\n\n";
  for (const KernelProfile& kernel : table.kernels) {
    const KernelLaunch& l = kernel.launch;
    out += format("  %-34s %4d threads, %3d regs, %6d B static + %6d B dynamic smem\n",
                  kernel.name.c_str(), l.threads_per_block, l.registers_per_thread,
                  l.static_shared_memory_bytes, l.dynamic_shared_memory_bytes);
  }
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    out += format("\n%s\n", gpu_title(table.gpus[g]).c_str());
    out += format("  %-34s %9s %9s  %s\n", "kernel", "blocks/SM", "occupancy", "limited by");
    for (std::size_t k = 0; k < table.kernels.size(); ++k) {
      const OccupancyResult& r = table.results[g][k];
      const std::string why =
          r.launchable() ? limiter_names(r.limiters) : "cannot launch: " + to_string(r.failure);
      out += format("  %-34s %9d %8.1f%%  %s\n", table.kernels[k].name.c_str(), r.blocks_per_sm,
                    100.0 * r.occupancy, why.c_str());
    }
  }
  return out;
}

std::string occupancy_table_csv(const OccupancyTable& table) {
  csv::Table out({"gpu_id", "kernel", "threads_per_block", "registers_per_thread",
                  "static_shared_memory_bytes", "dynamic_shared_memory_bytes", "blocks_per_sm",
                  "occupancy_percent", "limiters", "cannot_launch_reason"});
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    for (std::size_t k = 0; k < table.kernels.size(); ++k) {
      const OccupancyResult& r = table.results[g][k];
      const KernelLaunch& l = table.kernels[k].launch;
      out.add({table.gpus[g].id, table.kernels[k].name, csv::number(l.threads_per_block),
               csv::number(l.registers_per_thread), csv::number(l.static_shared_memory_bytes),
               csv::number(l.dynamic_shared_memory_bytes), csv::number(r.blocks_per_sm),
               csv::number(100.0 * r.occupancy), r.launchable() ? limiter_names(r.limiters) : "",
               r.launchable() ? "" : to_string(r.failure)});
    }
  }
  return out.str();
}

json occupancy_table_json(const OccupancyTable& table) {
  json rows = json::array();
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    for (std::size_t k = 0; k < table.kernels.size(); ++k) {
      const OccupancyResult& r = table.results[g][k];
      rows.push_back(
          {{"gpu_id", table.gpus[g].id},
           {"kernel", table.kernels[k].name},
           {"blocks_per_sm", r.blocks_per_sm},
           {"occupancy", r.occupancy},
           {"limiters", schema::limiters(r.limiters)},
           {"cannot_launch_reason", r.launchable() ? json(nullptr) : json(to_string(r.failure))}});
    }
  }
  json out = schema::document("occupancy_table");
  out["rows"] = rows;
  return out;
}

// ---- predict ---------------------------------------------------------------------------

namespace {

std::string seconds_text(double s) {
  if (s <= 0) return "0";
  if (s < 1e-3) return format("%.2f us", s * 1e6);
  if (s < 1) return format("%.3f ms", s * 1e3);
  return format("%.3f s", s);
}

std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return format("%.2f GB", bytes / 1e9);
  if (bytes >= 1e6) return format("%.2f MB", bytes / 1e6);
  if (bytes >= 1e3) return format("%.2f kB", bytes / 1e3);
  return format("%.0f B", bytes);
}

std::string ceiling_text(const LevelCeiling& c, const char* unit) {
  if (!c.known()) return "none";
  return format("%.6g %s (%s)", c.value(), unit, std::string(to_string(c.source())).c_str());
}

std::string term_note(const Prediction& p, TimeTerm term) {
  const KernelAnatomy& a = p.anatomy;
  switch (term) {
    case TimeTerm::kIssue:
      return format("%.0f instructions per warp per K tile, %.1f%% FFMA", a.instructions(),
                    100.0 * p.issue_efficiency);
    case TimeTerm::kSharedMemory:
      return format(
          "%.0f L1/shared data-path wavefronts per warp per K tile (%.0f shared, %.0f without "
          "bank conflicts)",
          a.l1_wavefronts(), a.shared_wavefronts(), a.shared_wavefronts_ideal());
    case TimeTerm::kLatency:
      return format("K tile: %.0f cycles per block vs %.0f cycles of issue for the SM",
                    p.latency.tile_cycle_cycles, p.latency.round_issue_cycles);
    case TimeTerm::kL2:
      return p.ceilings.l2_GBps.known()
                 ? format("%s at %.6g GB/s", bytes_text(p.traffic.l2_bytes()).c_str(),
                          p.ceilings.l2_GBps.value())
                 : std::string("no L2 ceiling (not in the spec, not measured)");
    case TimeTerm::kDram:
      return format("%s at %.6g GB/s", bytes_text(p.dram_bytes).c_str(),
                    p.ceilings.dram_GBps.value());
    case TimeTerm::kSpill:
      return p.spill.bytes_per_thread > 0
                 ? format("%.0f B per thread spilled: %s of local traffic",
                          p.spill.bytes_per_thread, bytes_text(p.spill.l2_bytes).c_str())
                 : std::string("no spills");
  }
  return "";
}

std::string level_row(const char* name, const LevelBound& b, const LevelCeiling& c,
                      const char* bytes_note) {
  const std::string bound = b.bounds() ? format("%.2f", b.bound_TFLOPS) : std::string("-");
  return format("  %-14s %11s %10.3f  %-34s %s%s\n", name, bytes_text(b.bytes).c_str(), b.intensity,
                ceiling_text(c, "GB/s").c_str(), bound.c_str(), bytes_note);
}

std::string calibration_text(const Calibration& c) {
  if (c == Calibration{}) return "none (uncalibrated: every scale 1, no launch overhead)";
  return format(
      "issue x%.4g, shared memory x%.4g, latency x%.4g, L2 x%.4g, DRAM x%.4g, launch "
      "overhead %s, contention share %.4g, L2 capacity x%.4g",
      c.issue_scale, c.shared_memory_scale, c.latency_scale, c.l2_scale, c.dram_scale,
      seconds_text(c.launch_overhead_s).c_str(), c.contention_share, c.l2_capacity_fraction);
}

std::string access_text(const char* name, const WarpAccess& w) {
  if (w.instructions <= 0) return "";
  return format("    %-16s %6.2f per thread, %d-float, %d wavefronts (ideal %d, x%.2f)\n", name,
                w.instructions, w.vector_floats, w.wavefronts, w.wavefronts_ideal,
                w.replay_factor());
}

json terms_json(const TimeTerms& t) {
  json out = json::object();
  for (int i = 0; i < kTimeTermCount; ++i) {
    out[std::string(to_string(static_cast<TimeTerm>(i))) + "_s"] = t.seconds[i];
  }
  return out;
}

json ceiling_json(const LevelCeiling& c) {
  return {{"spec", c.spec_source == CeilingSource::kMissing ? json(nullptr) : json(c.spec)},
          {"spec_source", to_string(c.spec_source)},
          {"measured", c.measured ? json(*c.measured) : json(nullptr)},
          {"in_effect", c.known() ? json(c.value()) : json(nullptr)},
          {"source", to_string(c.source())}};
}

json level_json(const LevelBound& b) {
  return {{"bytes", b.bytes},
          {"intensity_flop_per_byte", b.intensity},
          {"bandwidth_gbps", b.bounds() ? json(b.bandwidth_GBps) : json(nullptr)},
          {"bound_tflops", b.bounds() ? json(b.bound_TFLOPS) : json(nullptr)}};
}

json access_json(const WarpAccess& w) {
  return {{"instructions_per_thread", w.instructions},
          {"vector_floats", w.vector_floats},
          {"wavefronts", w.wavefronts},
          {"wavefronts_ideal", w.wavefronts_ideal},
          {"replay_factor", w.replay_factor()}};
}

}  // namespace

std::string predict_text(const PredictReport& report) {
  const Prediction& p = report.prediction;
  const PredictInput& in = report.input;
  const gemm::TileConfig& c = p.config;
  std::string out;
  out += "GPU        " + gpu_title(report.gpu) + "\n";
  out += format("problem    M=%lld N=%lld K=%lld (%.4g GFLOP)\n",
                static_cast<long long>(in.problem.m), static_cast<long long>(in.problem.n),
                static_cast<long long>(in.problem.k), in.problem.flops() / 1e9);
  out += format("kernel     %s (rung %d, %s)%s\n", report.kernel_id.c_str(), c.rung,
                report.rung_name.c_str(),
                report.in_registry ? ", in the registry" : ", not in the registry");
  out += format("           raster %s, %d threads, %d B shared memory, %d registers/thread (%s)\n",
                gemm::to_string(in.raster).c_str(), c.threads, p.shared_memory_bytes,
                p.registers_per_thread,
                !p.registers_estimated ? "given"
                : p.register_estimate.fitted
                    ? format("estimated by the fitted register model: %d needed, from %d "
                             "accumulators, %d fragments, %d staging",
                             p.register_estimate.total, p.register_estimate.accumulators,
                             p.register_estimate.fragments, p.register_estimate.staging)
                          .c_str()
                    : format("estimated: %d accumulators + %d fragments + %d staging + %d "
                             "addressing + %d pipeline = %d",
                             p.register_estimate.accumulators, p.register_estimate.fragments,
                             p.register_estimate.staging, p.register_estimate.addressing,
                             p.register_estimate.pipeline, p.register_estimate.total)
                          .c_str());
  for (const std::string& note : report.notes) out += "           note: " + note + "\n";
  out += "\n";
  const OccupancyResult& o = p.occupancy;
  if (!p.launchable) {
    // A kernel the GPU cannot run has no time, only the reason (and its occupancy, had it run).
    out += "cannot launch: " +
           (p.not_runnable != nullptr ? std::string(p.not_runnable) : to_string(o.failure)) + "\n";
    out += format("occupancy  %d blocks/SM, limited by %s\n", o.blocks_per_sm,
                  limiter_names(o.limiters).c_str());
    return out;
  }
  out += format(
      "predicted  %s, %.2f TFLOPS (%.1f%% of the %.4g TFLOPS FFMA ceiling), bound by %s\n",
      seconds_text(p.time_s).c_str(), p.tflops, 100.0 * p.tflops / p.ceilings.ffma_TFLOPS.value(),
      p.ceilings.ffma_TFLOPS.value(), std::string(to_string(p.binding)).c_str());
  out += "calibration " + calibration_text(p.calibration) + "\n\n";
  out +=
      format("occupancy  %d blocks/SM, %d of %d warps (%.1f%%), limited by %s\n", o.blocks_per_sm,
             o.active_warps, o.max_warps, 100.0 * o.occupancy, limiter_names(o.limiters).c_str());
  const WaveResult& w = p.waves;
  out += format(
      "waves      %lld blocks in %lld waves of %lld, tail efficiency %.1f%%; useful tile "
      "area %.1f%%\n",
      static_cast<long long>(w.grid_blocks), static_cast<long long>(w.waves),
      static_cast<long long>(w.blocks_per_wave), 100.0 * w.tail_efficiency,
      100.0 * p.waste.useful_fraction * p.waste.useful_k_fraction);
  out += format(
      "L2         operand hit rate %.1f%% (%s model; the resident wave spans %.1f x %.1f "
      "tiles), all L2 sectors %.1f%%\n",
      100.0 * p.l2.hit_rate, std::string(to_string(p.l2.model)).c_str(), p.l2.wave_rows,
      p.l2.wave_cols, 100.0 * p.l2_sector_hit_rate);
  const LatencyHiding& h = p.latency;
  out += format(
      "latency    global %.0f cycles%s%s, %d warps per scheduler (%.1f needed to hide the "
      "chain)%s\n",
      h.global_latency_cycles,
      h.transfer_cycles > 0
          ? format(" + %.0f cycles tile transfer (convoy)", h.transfer_cycles).c_str()
          : "",
      h.lsu_queue_cycles > 0
          ? format(" + %.0f cycles in the L1 load queue", h.lsu_queue_cycles).c_str()
          : "",
      h.warps_per_scheduler, h.warps_needed_per_scheduler,
      h.barrier_stalls ? "; one block per SM without prefetch: barrier stalls" : "");
  out += "\ntime terms (whole launch)\n";
  for (int i = 0; i < kTimeTermCount; ++i) {
    const auto term = static_cast<TimeTerm>(i);
    out += format("  %-14s %11s %s %s\n", std::string(to_string(term)).c_str(),
                  seconds_text(p.totals.seconds[i]).c_str(), term == p.binding ? "<-" : "  ",
                  term_note(p, term).c_str());
  }
  const Roofline& r = p.roofline;
  out +=
      "\nroofline   level             bytes  FLOP/byte  ceiling                            bound "
      "TFLOPS\n";
  out += format("  %-14s %11s %10s  %-34s %.2f\n", "compute", "-", "-",
                ceiling_text(p.ceilings.ffma_TFLOPS, "TFLOPS").c_str(), r.compute_TFLOPS);
  out += level_row("shared memory", r.shared_memory, p.ceilings.shared_memory_GBps,
                   "  (L1/shared wavefronts x 128 B)");
  out += level_row("L2", r.l2, p.ceilings.l2_GBps, "");
  out += level_row("DRAM", r.dram, p.ceilings.dram_GBps, "");
  out += format("  binding: %s, attainable %.2f TFLOPS; registers: %.2f FFMA per value loaded\n",
                std::string(to_string(r.binding)).c_str(), r.attainable_TFLOPS,
                p.traffic.ffma_per_loaded_value);
  const KernelAnatomy& a = p.anatomy;
  out += format(
      "\nper K tile (BK = %d) and thread: %.0f FFMA, %.0f barriers, %.0f integer, %.0f compiled "
      "overhead\n",
      a.k_tile, a.ffma, a.barriers, a.integer_overhead, a.compiled_overhead);
  out += access_text("global A", a.global_a);
  out += access_text("global B", a.global_b);
  out += access_text("shared store A", a.store_a);
  out += access_text("shared store B", a.store_b);
  out += access_text("shared load A", a.load_a);
  out += access_text("shared load B", a.load_b);
  if (a.reload_a.instructions > 0) out += access_text("shared reload A", a.reload_a);
  return out;
}

nlohmann::json assumed_facts_json(const Latencies& l) {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < kAssumedFactCount; ++i) {
    if (l.is_assumed(static_cast<AssumedFact>(i))) {
      out.push_back(std::string(to_string(static_cast<AssumedFact>(i))));
    }
  }
  return out;
}

PredictReport predict_report_of(const GpuSpec& gpu, const PredictInput& input,
                                Prediction prediction, const StoredCalibration* stored,
                                std::vector<std::string> notes) {
  PredictReport report;
  const gemm::TileConfig& c = input.config;
  report.notes = std::move(notes);
  if (input.raster.kind == gemm::RasterKind::kZOrder) {
    report.notes.push_back("Z-order is modelled only: the ladder kernels do not launch it");
  } else if (input.raster.kind != gemm::RasterKind::kRowMajor && !kernels::takes_raster_order(c)) {
    report.notes.push_back("rungs 1-6 launch row-major only: this is what " +
                           gemm::to_string(input.raster) + " would give");
  }
  const int needed_cc = kernels::minimum_compute_capability(c);
  if (gpu.compute_capability.number() < needed_cc) {
    report.notes.push_back(
        format("the ladder kernel needs compute capability %d.%d: it does not "
               "run on %s",
               needed_cc / 10, needed_cc % 10, gpu.id.c_str()));
  }
  if (prediction.latencies.assumed != 0) {
    std::string facts;
    for (int i = 0; i < kAssumedFactCount; ++i) {
      const auto fact = static_cast<AssumedFact>(i);
      if (!prediction.latencies.is_assumed(fact)) continue;
      facts += (facts.empty() ? "" : ", ") + std::string(to_string(fact));
    }
    report.notes.push_back("the spec of " + gpu.id + " does not give " + facts +
                           ": the model takes its generic assumptions (latency.hpp)");
  }
  if (stored != nullptr) {
    report.notes.push_back(format(
        "calibrated: data/calibration/%s.json, fitted on %s (%s split; MAPE %.1f%% training, "
        "%.1f%% held-out)",
        stored->gpu_id.c_str(), stored->measurement.c_str(), stored->training_split.c_str(),
        stored->training_mape_percent, stored->held_out_mape_percent));
    if (stored->gpu_id != gpu.id) {
      report.notes.push_back(
          "no calibration of " + gpu.id + " is committed: the global parameters fitted on " +
          stored->gpu_id +
          " (the measured GPU nearest in compute capability) are applied, never validated on " +
          gpu.id + "; --uncalibrated for none");
    }
  }
  report.gpu = gpu;
  report.input = input;
  report.kernel_id = kernels::kernel_id(c);
  report.rung_name = std::string(kernels::rung_name(c.rung));
  report.in_registry = kernels::find_kernel(report.kernel_id) < kernels::kRegistrySize;
  report.prediction = std::move(prediction);
  return report;
}

PredictReport make_predict_report(const GpuSpec& gpu, const PredictInput& input, bool calibrated,
                                  std::vector<std::string> notes) {
  const StoredCalibration* stored = calibrated ? calibration_for_gpu(gpu) : nullptr;
  Prediction prediction = kernels::predict(gpu, input, stored ? stored->parameters : Calibration{});
  return predict_report_of(gpu, input, std::move(prediction), stored, std::move(notes));
}

json predict_json(const PredictReport& report) {
  const Prediction& p = report.prediction;
  const PredictInput& in = report.input;
  json out = schema::document("prediction");
  out["gpu"] = schema::gpu(report.gpu);
  out["problem"] = gemm::problem_json(in.problem);
  out["kernel"] = {{"id", report.kernel_id},
                   {"rung_name", report.rung_name},
                   {"in_registry", report.in_registry},
                   {"config", gemm::config_json(p.config)},
                   {"raster", gemm::to_string(in.raster)},
                   {"shared_memory_bytes", p.shared_memory_bytes},
                   {"registers_per_thread", p.registers_per_thread},
                   {"registers_estimated", p.registers_estimated},
                   {"min_blocks_per_sm", in.min_blocks_per_sm}};
  out["notes"] = report.notes;
  out["register_estimate"] = {{"accumulators", p.register_estimate.accumulators},
                              {"fragments", p.register_estimate.fragments},
                              {"staging", p.register_estimate.staging},
                              {"addressing", p.register_estimate.addressing},
                              {"pipeline", p.register_estimate.pipeline},
                              {"total", p.register_estimate.total},
                              {"fitted", p.register_estimate.fitted}};
  const OccupancyResult& o = p.occupancy;
  out["launchable"] = p.launchable;
  out["cannot_launch_reason"] = p.not_runnable != nullptr ? json(p.not_runnable)
                                : o.launchable()          ? json(nullptr)
                                                          : json(to_string(o.failure));
  out["occupancy"] = schema::occupancy_summary(o);
  if (!p.launchable) {
    // A kernel the GPU cannot run has no time, only the reason.
    out["time_s"] = nullptr;
    out["tflops"] = nullptr;
    return out;
  }
  out["calibration"] = schema::calibration(p.calibration);
  out["time_s"] = p.time_s;
  out["tflops"] = p.tflops;
  out["binding_term"] = to_string(p.binding);
  out["terms"] = terms_json(p.totals);
  out["terms_per_wave"] = {{"full_waves", p.terms.full_waves},
                           {"full_wave", terms_json(p.terms.full_wave)},
                           {"last_wave", terms_json(p.terms.last_wave)}};
  out["issue_efficiency"] = p.issue_efficiency;
  const WaveResult& w = p.waves;
  out["waves"] = {{"grid_blocks", w.grid_blocks},
                  {"blocks_per_wave", w.blocks_per_wave},
                  {"waves", w.waves},
                  {"full_waves", w.full_waves},
                  {"last_wave_blocks", w.last_wave_blocks},
                  {"tail_efficiency", w.tail_efficiency}};
  out["tile_waste"] = {{"tiles_m", p.waste.tiles_m},
                       {"tiles_n", p.waste.tiles_n},
                       {"k_tiles", p.waste.k_tiles},
                       {"useful_fraction", p.waste.useful_fraction},
                       {"useful_k_fraction", p.waste.useful_k_fraction}};
  out["l2"] = {{"model", to_string(p.l2.model)},
               {"l2_operand_hit_rate", p.l2.hit_rate},
               {"l2_sector_hit_rate", p.l2_sector_hit_rate},
               {"wave_rows", p.l2.wave_rows},
               {"wave_cols", p.l2.wave_cols},
               {"a_operand_hit_rate", p.l2.a_hit_rate},
               {"b_operand_hit_rate", p.l2.b_hit_rate},
               {"in_flight_bytes", p.l2.in_flight_bytes},
               {"wave_footprint_bytes", p.l2.wave_footprint_bytes}};
  const Traffic& t = p.traffic;
  out["traffic"] = {{"flops", t.flops},
                    {"issued_flops", t.issued_flops},
                    {"a_l2_bytes", t.a_l2_bytes},
                    {"b_l2_bytes", t.b_l2_bytes},
                    {"c_write_bytes", t.c_write_bytes},
                    {"c_read_bytes", t.c_read_bytes},
                    {"dram_bytes", p.dram_bytes},
                    {"shared_wavefronts", t.shared_wavefronts},
                    {"shared_wavefronts_ideal", t.shared_wavefronts_ideal},
                    {"l1_global_wavefronts", t.l1_global_wavefronts},
                    {"warp_instructions", t.warp_instructions},
                    {"ffma_per_loaded_value", t.ffma_per_loaded_value}};
  const Roofline& r = p.roofline;
  out["roofline"] = {{"compute_tflops", r.compute_TFLOPS},
                     {"shared_memory", level_json(r.shared_memory)},
                     {"l2", level_json(r.l2)},
                     {"dram", level_json(r.dram)},
                     {"binding", to_string(r.binding)},
                     {"attainable_tflops", r.attainable_TFLOPS}};
  out["ceilings"] = {{"ffma_tflops", ceiling_json(p.ceilings.ffma_TFLOPS)},
                     {"shared_memory_gbps", ceiling_json(p.ceilings.shared_memory_GBps)},
                     {"l2_gbps", ceiling_json(p.ceilings.l2_GBps)},
                     {"dram_gbps", ceiling_json(p.ceilings.dram_GBps)},
                     {"issue_clock_mhz", p.ceilings.issue_clock_MHz}};
  const Latencies& l = p.latencies;
  const LatencyHiding& h = p.latency;
  out["latency"] = {{"shared_memory_cycles", l.shared_memory_cycles},
                    {"l2_cycles", l.l2_cycles},
                    {"dram_cycles", l.dram_cycles},
                    {"ffma_cycles", l.ffma_cycles},
                    {"measured",
                     {{"shared_memory", l.shared_memory_measured},
                      {"l2", l.l2_measured},
                      {"dram", l.dram_measured}}},
                    {"assumed", assumed_facts_json(l)},
                    {"stage_wait_cycles", h.stage_wait_cycles},
                    {"global_latency_cycles", h.global_latency_cycles},
                    {"transfer_cycles", h.transfer_cycles},
                    {"lsu_queue_cycles", h.lsu_queue_cycles},
                    {"convoy", h.convoy},
                    {"tile_issue_cycles", h.tile_issue_cycles},
                    {"tile_cycle_cycles", h.tile_cycle_cycles},
                    {"round_issue_cycles", h.round_issue_cycles},
                    {"warps_per_scheduler", h.warps_per_scheduler},
                    {"warps_needed_per_scheduler", h.warps_needed_per_scheduler},
                    {"exposed_fraction", h.exposed_fraction},
                    {"barrier_stalls", h.barrier_stalls}};
  out["spill"] = {{"registers_needed", p.spill.registers_needed},
                  {"registers_allocated", p.spill.registers_allocated},
                  {"spilled_registers", p.spill.spilled_registers},
                  {"bytes_per_thread", p.spill.bytes_per_thread},
                  {"accumulators_spilled", p.spill.accumulators_spilled},
                  {"load_accesses_per_tile", p.spill.load_accesses_per_tile},
                  {"store_accesses_per_tile", p.spill.store_accesses_per_tile},
                  {"l2_fraction", p.spill.l2_fraction},
                  {"l2_bytes", p.spill.l2_bytes}};
  const KernelAnatomy& a = p.anatomy;
  out["per_k_tile"] = {{"k_tile", a.k_tile},
                       {"ffma", a.ffma},
                       {"instructions", a.instructions()},
                       {"barriers", a.barriers},
                       {"integer_overhead", a.integer_overhead},
                       {"compiled_overhead", a.compiled_overhead},
                       {"global_a", access_json(a.global_a)},
                       {"global_b", access_json(a.global_b)},
                       {"shared_store_a", access_json(a.store_a)},
                       {"shared_store_b", access_json(a.store_b)},
                       {"shared_load_a", access_json(a.load_a)},
                       {"shared_load_b", access_json(a.load_b)},
                       {"shared_reload_a", access_json(a.reload_a)}};
  return out;
}

// ---- roofline ----------------------------------------------------------------------------

RooflineReport make_roofline_report(const GpuSpec& gpu) {
  RooflineReport r;
  r.gpu = gpu;
  r.ceilings = roofline_ceilings(gpu);
  r.ridge = ridge_points(r.ceilings);
  r.spec_ridge = ridge_points(spec_only(r.ceilings));
  return r;
}

namespace {

std::string value_or_dash(double value, const char* unit) {
  return value > 0 ? format("%.6g %s", value, unit) : std::string("-");
}

std::string ridge_text(double ridge) { return ridge > 0 ? format("%.3f", ridge) : "-"; }

}  // namespace

std::string roofline_text(const RooflineReport& report) {
  const Ceilings& c = report.ceilings;
  const SmLimits& sm = report.gpu.sm;
  std::string out = "GPU     " + gpu_title(report.gpu) + "\n";
  if (report.gpu.measured) {
    out += "measured " + report.gpu.measured->measurement_run + "\n";
  } else {
    out += "measured none (the spec has no measured block)\n";
  }
  out += format("\n%-14s %-22s %-18s %-18s %s\n", "ceiling", "spec", "measured", "in effect",
                "ridge FLOP/byte (spec)");
  auto row = [&](const char* name, const LevelCeiling& level, const char* unit, double ridge,
                 double spec_ridge) {
    const std::string spec =
        level.spec_source == CeilingSource::kMissing
            ? std::string("-")
            : value_or_dash(level.spec, unit) +
                  (level.spec_source == CeilingSource::kDerivedFromSpec ? "*" : "");
    const std::string measured = level.measured ? value_or_dash(*level.measured, unit) : "-";
    const std::string ridges =
        ridge < 0 ? std::string("") : ridge_text(ridge) + " (" + ridge_text(spec_ridge) + ")";
    out +=
        format("%-14s %-22s %-18s %-18s %s\n", name, spec.c_str(), measured.c_str(),
               (level.known() ? value_or_dash(level.value(), unit) : std::string("none")).c_str(),
               ridges.c_str());
  };
  row("FFMA", c.ffma_TFLOPS, "TFLOPS", -1, -1);
  row("shared memory", c.shared_memory_GBps, "GB/s", report.ridge.shared_memory,
      report.spec_ridge.shared_memory);
  row("L2", c.l2_GBps, "GB/s", report.ridge.l2, report.spec_ridge.l2);
  row("DRAM", c.dram_GBps, "GB/s", report.ridge.dram, report.spec_ridge.dram);
  out += format(
      "\n* derived: %d banks x %d B per SM per clock x %d SMs x %.0f MHz\n"
      "issue clock implied by the FFMA ceiling in effect: %.1f MHz\n"
      "below a level's ridge point a kernel is bound by that level's bandwidth\n",
      sm.shared_memory_banks, sm.shared_memory_bank_width_bytes, c.sm_count, c.boost_clock_MHz,
      c.issue_clock_MHz);
  return out;
}

json roofline_json(const RooflineReport& report) {
  const Ceilings& c = report.ceilings;
  auto ridge_json = [](const RidgePoints& r) {
    auto value = [](double x) { return x > 0 ? json(x) : json(nullptr); };
    return json{
        {"shared_memory", value(r.shared_memory)}, {"l2", value(r.l2)}, {"dram", value(r.dram)}};
  };
  json out = schema::document("roofline");
  out["gpu"] = schema::gpu(report.gpu);
  out["measurement_run"] =
      report.gpu.measured ? json(report.gpu.measured->measurement_run) : json(nullptr);
  out["ceilings"] = {{"ffma_tflops", ceiling_json(c.ffma_TFLOPS)},
                     {"shared_memory_gbps", ceiling_json(c.shared_memory_GBps)},
                     {"l2_gbps", ceiling_json(c.l2_GBps)},
                     {"dram_gbps", ceiling_json(c.dram_GBps)}};
  out["issue_clock_mhz"] = c.issue_clock_MHz;
  out["ridge_points_flop_per_byte"] = {{"in_effect", ridge_json(report.ridge)},
                                       {"spec", ridge_json(report.spec_ridge)}};
  return out;
}

}  // namespace roofcast::views
