#include "roofcast/views/views.hpp"
#include "roofcast/calibration.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "roofcast/views/csv.hpp"

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

namespace {

using nlohmann::json;

std::string blocks_text(int blocks) {
  return blocks == LimitBlocks::kUnlimited ? "unlimited" : std::to_string(blocks);
}

json blocks_json(int blocks) {
  return blocks == LimitBlocks::kUnlimited ? json(nullptr) : json(blocks);
}

json limiters_json(unsigned limiters) {
  json out = json::array();
  for (unsigned bit : {kLimitWarps, kLimitRegisters, kLimitSharedMemory, kLimitBlocks}) {
    if (limiters & bit) out.push_back(limiter_names(bit));
  }
  return out;
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

  std::string script;
  script += "set terminal svg size 860,460 dynamic enhanced font 'sans,11' background '#ffffff'\n";
  script += "set output\n";  // standard output: the caller opens the file (no path here)
  script += format("set title %s.\": occupancy staircase over %s\\n{/*0.85 %s}\"\n",
                   gnuplot_string(report.gpu.name).c_str(), sweep_axis_title(axis).c_str(),
                   fixed.c_str());
  script += format("set xlabel '%s'\n", x_label);
  script += "set ylabel 'occupancy (% of warp slots)'\nset yrange [0:110]\n";
  script += "set grid ytics\n";
  script += "set key top right\n";
  // gnuplot's "steps" holds each value until the next point: one point per step start, and
  // the last step's end.
  script += "$steps << EOD\n";
  for (const SweepStep& step : report.sweep) {
    script += format("%g %.4f\n", step.first_value * x_scale, 100.0 * step.point.occupancy);
  }
  script += format("%g %.4f\n", report.sweep.back().last_value * x_scale,
                   100.0 * report.sweep.back().point.occupancy);
  script += "EOD\n$limiters << EOD\n";
  int label_row = 0;  // alternate label heights so neighbouring narrow steps stay readable
  for (const SweepStep& step : report.sweep) {
    std::string why = step.point.failure == LaunchFailure::kNone
                          ? limiter_names(step.point.limiters)
                          : std::string("cannot launch");
    std::replace(why.begin(), why.end(), '_', ' ');  // '_' means subscript in enhanced text
    script +=
        format("%g %.4f \"%d/SM, %s\"\n", 0.5 * (step.first_value + step.last_value) * x_scale,
               100.0 * step.point.occupancy + (label_row++ % 2 == 0 ? 3.5 : 9.0),
               step.point.blocks_per_sm, why.c_str());
  }
  script += format("EOD\n$operating << EOD\n%g %.4f\nEOD\n", operating_value * x_scale,
                   100.0 * report.result.occupancy);
  const int last_value = report.sweep.back().last_value;
  script += format("set xrange [0:%g]\n", last_value * x_scale * 1.02);
  script += format("set arrow from %g,0 to %g,110 nohead dt 2 lc rgb '#d62728'\n",
                   operating_value * x_scale, operating_value * x_scale);
  script += "plot $steps using 1:2 with steps lw 2.5 lc rgb '#1f6fb4' title 'occupancy', \\\n";
  if (report.sweep.size() <= 10) {  // more labels than this overlap
    script += "     $limiters using 1:2:3 with labels font 'sans,9' tc rgb '#444444' notitle, \\\n";
  }
  script +=
      "     $operating using 1:2 with points pt 7 ps 1.6 lc rgb '#d62728' "
      "title 'this kernel'\n";
  return script;
}

json occupancy_json(const OccupancyReport& report) {
  const OccupancyResult& r = report.result;
  const BlockAllocation& a = r.allocation;
  const KernelLaunch& l = report.launch;
  json out;
  out["gpu"] = {{"id", report.gpu.id},
                {"name", report.gpu.name},
                {"compute_capability", format("%d.%d", report.gpu.compute_capability.major,
                                              report.gpu.compute_capability.minor)},
                {"origin", report.gpu.origin}};
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
  out["limited_by"] = limiters_json(r.limiters);
  out["limits_blocks_per_sm"] = {{"warps", blocks_json(r.limit.warps)},
                                 {"registers", blocks_json(r.limit.registers)},
                                 {"shared_memory", blocks_json(r.limit.shared_memory)},
                                 {"blocks", blocks_json(r.limit.blocks)}};
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
                       {"limited_by", limiters_json(step.point.limiters)},
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
                    "limited_by", "cannot_launch_reason"});
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
  json out = json::array();
  for (const GpuSpec& g : gpus) {
    out.push_back({{"id", g.id},
                   {"name", g.name},
                   {"compute_capability",
                    format("%d.%d", g.compute_capability.major, g.compute_capability.minor)},
                   {"sm_count", g.chip.sm_count},
                   {"boost_clock_MHz", g.chip.boost_clock_MHz},
                   {"l2_bytes", g.chip.l2_bytes},
                   {"dram_bw_GBps", g.chip.dram_bw_GBps},
                   {"fp32_TFLOPS", g.peak_TFLOPS.fp32},
                   {"shared_memory_per_sm_bytes", g.sm.shared_memory_per_sm_bytes},
                   {"origin", g.origin}});
  }
  return out;
}

std::string gpus_csv(const std::vector<GpuSpec>& gpus) {
  csv::Table table({"id", "name", "compute_capability", "sm_count", "boost_clock_MHz", "l2_bytes",
                    "dram_bw_GBps", "fp32_TFLOPS", "shared_memory_per_sm_bytes", "origin"});
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
                  "occupancy_percent", "limited_by", "cannot_launch_reason"});
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
          {{"gpu", table.gpus[g].id},
           {"kernel", table.kernels[k].name},
           {"blocks_per_sm", r.blocks_per_sm},
           {"occupancy", r.occupancy},
           {"limited_by", limiters_json(r.limiters)},
           {"cannot_launch_reason", r.launchable() ? json(nullptr) : json(to_string(r.failure))}});
    }
  }
  return {{"occupancy_table", rows}};
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
          "%.0f L1/shared wavefronts per warp per K tile (%.0f shared, %.0f without "
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
      "overhead %s, L2 capacity x%.4g",
      c.issue_scale, c.shared_memory_scale, c.latency_scale, c.l2_scale, c.dram_scale,
      seconds_text(c.launch_overhead_s).c_str(), c.l2_capacity_fraction);
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
          {"bandwidth_GBps", b.bounds() ? json(b.bandwidth_GBps) : json(nullptr)},
          {"bound_TFLOPS", b.bounds() ? json(b.bound_TFLOPS) : json(nullptr)}};
}

json access_json(const WarpAccess& w) {
  return {{"instructions_per_thread", w.instructions},
          {"vector_floats", w.vector_floats},
          {"wavefronts", w.wavefronts},
          {"wavefronts_ideal", w.wavefronts_ideal},
          {"replay_factor", w.replay_factor()}};
}

json config_json(const gemm::TileConfig& c) {
  return {{"rung", c.rung},      {"layout", gemm::to_string(c.layout)},
          {"bm", c.bm},          {"bn", c.bn},
          {"bk", c.bk},          {"tm", c.tm},
          {"tn", c.tn},          {"wm", c.wm},
          {"wn", c.wn},          {"threads", c.threads},
          {"stages", c.stages},  {"vector_width", c.vector_width},
          {"cluster", c.cluster}};
}

json gpu_json(const GpuSpec& gpu) {
  return {{"id", gpu.id},
          {"name", gpu.name},
          {"compute_capability",
           format("%d.%d", gpu.compute_capability.major, gpu.compute_capability.minor)},
          {"origin", gpu.origin}};
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
                p.registers_estimated
                    ? format("estimated: %d accumulators + %d fragments + %d staging + %d "
                             "addressing + %d pipeline = %d",
                             p.register_estimate.accumulators, p.register_estimate.fragments,
                             p.register_estimate.staging, p.register_estimate.addressing,
                             p.register_estimate.pipeline, p.register_estimate.total)
                          .c_str()
                    : "given");
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
  out += format("\nper K tile (BK = %d) and thread: %.0f FFMA, %.0f barriers, %.0f integer\n",
                a.k_tile, a.ffma, a.barriers, a.integer_overhead);
  out += access_text("global A", a.global_a);
  out += access_text("global B", a.global_b);
  out += access_text("shared store A", a.store_a);
  out += access_text("shared store B", a.store_b);
  out += access_text("shared load A", a.load_a);
  out += access_text("shared load B", a.load_b);
  return out;
}

json predict_json(const PredictReport& report) {
  const Prediction& p = report.prediction;
  const PredictInput& in = report.input;
  json out;
  out["gpu"] = gpu_json(report.gpu);
  out["problem"] = {
      {"m", in.problem.m}, {"n", in.problem.n}, {"k", in.problem.k}, {"flops", in.problem.flops()}};
  out["kernel"] = {{"id", report.kernel_id},
                   {"rung_name", report.rung_name},
                   {"in_registry", report.in_registry},
                   {"config", config_json(p.config)},
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
                              {"total", p.register_estimate.total}};
  const OccupancyResult& o = p.occupancy;
  out["launchable"] = p.launchable;
  out["cannot_launch_reason"] = p.not_runnable != nullptr ? json(p.not_runnable)
                                : o.launchable()          ? json(nullptr)
                                                          : json(to_string(o.failure));
  out["occupancy"] = {{"blocks_per_sm", o.blocks_per_sm},
                      {"active_warps", o.active_warps},
                      {"max_warps", o.max_warps},
                      {"occupancy", o.occupancy},
                      {"limited_by", limiters_json(o.limiters)}};
  if (!p.launchable) return out;
  const Calibration& c = p.calibration;
  auto& calibration = out["calibration"] = json::object();
  for (const CalibrationParameter& parameter : kCalibrationParameters) {
    calibration[std::string(parameter.name)] = c.*parameter.field;
  }
  calibration["calibrated"] = !(c == Calibration{});
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
               {"operand_hit_rate", p.l2.hit_rate},
               {"sector_hit_rate", p.l2_sector_hit_rate},
               {"wave_rows", p.l2.wave_rows},
               {"wave_cols", p.l2.wave_cols},
               {"a_hit_rate", p.l2.a_hit_rate},
               {"b_hit_rate", p.l2.b_hit_rate},
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
  out["roofline"] = {{"compute_TFLOPS", r.compute_TFLOPS},
                     {"shared_memory", level_json(r.shared_memory)},
                     {"l2", level_json(r.l2)},
                     {"dram", level_json(r.dram)},
                     {"binding", to_string(r.binding)},
                     {"attainable_TFLOPS", r.attainable_TFLOPS}};
  out["ceilings"] = {{"ffma_TFLOPS", ceiling_json(p.ceilings.ffma_TFLOPS)},
                     {"shared_memory_GBps", ceiling_json(p.ceilings.shared_memory_GBps)},
                     {"l2_GBps", ceiling_json(p.ceilings.l2_GBps)},
                     {"dram_GBps", ceiling_json(p.ceilings.dram_GBps)},
                     {"issue_clock_MHz", p.ceilings.issue_clock_MHz}};
  const Latencies& l = p.latencies;
  const LatencyHiding& h = p.latency;
  out["latency"] = {{"shared_memory_cycles", l.shared_memory_cycles},
                    {"l2_cycles", l.l2_cycles},
                    {"dram_cycles", l.dram_cycles},
                    {"measured",
                     {{"shared_memory", l.shared_memory_measured},
                      {"l2", l.l2_measured},
                      {"dram", l.dram_measured}}},
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
                  {"l2_bytes", p.spill.l2_bytes}};
  const KernelAnatomy& a = p.anatomy;
  out["per_k_tile"] = {{"k_tile", a.k_tile},
                       {"ffma", a.ffma},
                       {"instructions", a.instructions()},
                       {"barriers", a.barriers},
                       {"integer_overhead", a.integer_overhead},
                       {"global_a", access_json(a.global_a)},
                       {"global_b", access_json(a.global_b)},
                       {"shared_store_a", access_json(a.store_a)},
                       {"shared_store_b", access_json(a.store_b)},
                       {"shared_load_a", access_json(a.load_a)},
                       {"shared_load_b", access_json(a.load_b)}};
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
  json out;
  out["gpu"] = gpu_json(report.gpu);
  out["measurement_run"] =
      report.gpu.measured ? json(report.gpu.measured->measurement_run) : json(nullptr);
  out["ceilings"] = {{"ffma_TFLOPS", ceiling_json(c.ffma_TFLOPS)},
                     {"shared_memory_GBps", ceiling_json(c.shared_memory_GBps)},
                     {"l2_GBps", ceiling_json(c.l2_GBps)},
                     {"dram_GBps", ceiling_json(c.dram_GBps)}};
  out["issue_clock_MHz"] = c.issue_clock_MHz;
  out["ridge_points_flop_per_byte"] = {{"in_effect", ridge_json(report.ridge)},
                                       {"spec", ridge_json(report.spec_ridge)}};
  return out;
}

}  // namespace roofcast::views
