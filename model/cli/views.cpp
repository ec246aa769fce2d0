#include "views.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace roofcast::views {
namespace {

using nlohmann::json;

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

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
  OccupancyReport report{gpu, launch, compute_occupancy(gpu.sm, launch), sweep_axis, {}};
  if (sweep_axis) report.sweep = staircase(sweep_occupancy(gpu.sm, launch, *sweep_axis));
  return report;
}

std::string occupancy_text(const OccupancyReport& report) {
  const SmLimits& sm = report.gpu.sm;
  const OccupancyResult& r = report.result;
  const BlockAllocation& a = r.allocation;
  std::string out;
  out += "GPU     " + gpu_title(report.gpu) + "\n";
  out += "kernel  " + kernel_text(report.launch, a) + "\n\n";

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

std::string staircase_gnuplot_script(const OccupancyReport& report, const std::string& svg_path) {
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
  script += "set output '" + svg_path + "'\n";
  script += format("set title \"%s: occupancy staircase over %s\\n{/*0.85 %s}\"\n",
                   report.gpu.name.c_str(), sweep_axis_title(axis).c_str(), fixed.c_str());
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

}  // namespace roofcast::views
