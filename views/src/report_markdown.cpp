// gpu_report_markdown: reports/<gpu>/README.md rendered from a GpuReport.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/views/report_views.hpp"

namespace roofcast::views {

namespace {

using validation::CaseAccuracy;
using validation::ErrorSummary;

std::string tflops(std::optional<double> value) {
  return value ? format("%.2f", *value) : std::string("–");
}

std::string signed_percent(double value) { return format("%+.1f%%", value); }

std::string error_text(double measured, double predicted) {
  return signed_percent(100 * (predicted - measured) / measured);
}

/// A model name for prose: "shared_memory" -> "shared memory".
std::string term_text(std::string_view term) {
  std::string text(term);
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

std::string limiter_text(unsigned limiters) { return term_text(limiter_names(limiters)); }

std::string stall_text(const std::vector<std::pair<std::string, double>>& stalls) {
  std::string text;
  for (const auto& [reason, cycles] : stalls) {
    if (!text.empty()) text += ", ";
    text += term_text(reason) + format(" %.2f", cycles);
  }
  return text.empty() ? "–" : text;
}

/// Blocks per wave and waves as a fraction: grid / (blocks per SM * SMs, whole clusters).
std::string waves_text(const Prediction& p) {
  if (p.waves.blocks_per_wave <= 0) return "–";
  const double waves =
      static_cast<double>(p.waves.grid_blocks) / static_cast<double>(p.waves.blocks_per_wave);
  return format("%.2f (%.0f%%)", waves, 100 * p.waves.tail_efficiency);
}

/// Whether the model's blocks per SM equal the runtime's for every row, as a sentence.
std::string runtime_agreement(const GpuReport& r) {
  int rows = 0;
  std::string differing;
  for (const ReportLadderRow& row : r.ladder) {
    if (!row.runtime_blocks_per_sm) continue;
    ++rows;
    if (*row.runtime_blocks_per_sm != row.prediction.occupancy.blocks_per_sm) {
      differing += (differing.empty() ? "" : ", ") + row.kernel;
    }
  }
  if (rows == 0) return "The run recorded no runtime occupancy.";
  if (differing.empty()) {
    return format(
        "The runtime's blocks/SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor, "
        "recorded by the run) equal the model's for all %d rows.",
        rows);
  }
  return "The runtime's blocks/SM differ from the model's for: " + differing + ".";
}

double peak_of(const GpuReport& r) { return r.roofline.ceilings.ffma_TFLOPS.value(); }

/// A step's rate as % of its GPU's FP32 peak: its GFLOPS, or its % of a baseline whose GFLOPS
/// the source gives, over the peak; empty when either is unknown.
std::optional<double> pct_of_peak(const PublishedLadder& ladder, const PublishedStep& step) {
  if (!ladder.fp32_peak_TFLOPS) return std::nullopt;
  std::optional<double> gflops = step.gflops;
  if (!gflops && step.pct_of_cublas && ladder.baseline_gflops) {
    gflops = *step.pct_of_cublas / 100 * *ladder.baseline_gflops;
  }
  if (!gflops) return std::nullopt;
  return 100 * *gflops / (1000 * *ladder.fp32_peak_TFLOPS);
}

/// "25–40" or "68.7 (41% of peak)" or "69.7 / 70.8" for a published ladder's steps mapped to a
/// rung (rung 0: its baseline).
std::string published_cell(const PublishedLadder& ladder, int rung) {
  if (rung == 0) {
    if (!ladder.baseline_gflops || !ladder.fp32_peak_TFLOPS) return "100";
    return format("100 (%.0f%% of peak)",
                  100 * *ladder.baseline_gflops / (1000 * *ladder.fp32_peak_TFLOPS));
  }
  std::string text;
  for (const PublishedStep& step : ladder.steps) {
    if (step.maps_to_rung != rung) continue;
    if (!text.empty()) text += " / ";
    if (step.pct_of_cublas_min) {
      text += format("%g–%g", *step.pct_of_cublas_min, *step.pct_of_cublas_max);
    } else if (step.pct_of_cublas) {
      text += format("%.1f", *step.pct_of_cublas);
    } else {
      text += format("%.0f GFLOPS", *step.gflops);
    }
    if (const auto peak = pct_of_peak(ladder, step)) text += format(" (%.0f%% of peak)", *peak);
  }
  return text.empty() ? "–" : text;
}

/// The published ladders run on this GPU, their steps predicted (GpuReport::published_checks).
void published_checks_markdown(std::ostringstream& md, const GpuReport& r) {
  if (r.published_checks.empty()) return;
  const std::string transferred =
      r.transferred_calibration ? r.transferred_calibration->gpu_id : std::string();
  md << "### Published measurements on this GPU, predicted\n\n"
     << "Each published step with a rate and a rung, against the prediction of the roofcast "
        "config with the author's tiles (block, warp and thread tile, threads, as the author's "
        "launcher sets them; the ladder file's `kernel`; how the kernels still differ is listed "
        "below the table), else of that rung's headline config (marked *headline*), at the "
        "published size (fastest predicted raster order, registers estimated). The published "
        "rates come from the authors' own kernels, clocks and toolkits: this checks the model's "
        "direction on a GPU roofcast has never run, it fits nothing.\n\n"
     << "| ladder | size | step | rung | roofcast config | published TFLOPS | predicted | error |";
  if (!transferred.empty()) md << " with " << transferred << "'s scales | error |";
  md << "\n|---|---|---|---:|---|---:|---:|---:|";
  if (!transferred.empty()) md << "---:|---:|";
  md << "\n";
  for (const PublishedCheck& check : r.published_checks) {
    for (const PublishedCheckRow& row : check.rows) {
      md << "| " << check.ladder_id << " | " << problem_label(check.problem) << " | " << row.step
         << " | " << row.rung << " | `" << row.kernel << "`"
         << (row.authors_tiles ? "" : " *headline*") << " | "
         << format("%.2f", row.published_TFLOPS) << " | ";
      if (row.predicted_TFLOPS) {
        md << format("%.2f", *row.predicted_TFLOPS) << " | "
           << error_text(row.published_TFLOPS, *row.predicted_TFLOPS) << " |";
      } else {
        md << "– | – |";
      }
      if (!transferred.empty()) {
        if (row.transferred_TFLOPS) {
          md << " " << format("%.2f", *row.transferred_TFLOPS) << " | "
             << error_text(row.published_TFLOPS, *row.transferred_TFLOPS) << " |";
        } else {
          md << " – | – |";
        }
      }
      md << "\n";
    }
  }
  md << "\n";
  for (const PublishedCheck& check : r.published_checks) {
    for (const PublishedCheckRow& row : check.rows) {
      if (!row.authors_tiles) continue;
      md << "- `" << check.ladder_id << "` " << row.step << ", `" << row.kernel
         << "`: " << row.kernel_note << "\n";
    }
  }
  md << "\n";
  for (const PublishedCheck& check : r.published_checks) {
    md << "- `" << check.ladder_id << "` (" << check.author << "), " << check.rows.size()
       << " steps: MAPE "
       << (check.mape_percent ? format("%.1f%%", *check.mape_percent) : std::string("–"));
    if (!transferred.empty() && check.transferred_mape_percent) {
      md << format(", with %s's scales %.1f%%", transferred.c_str(),
                   *check.transferred_mape_percent);
    }
    md << "\n";
  }
  md << "\n";
}

std::string banner(const GpuReport& r) {
  const int cc = r.gpu.compute_capability.number();
  std::ostringstream md;
  md << "> **Not validated on hardware.** No roofcast measurement of the " << r.gpu.name
     << " exists: every number below is a prediction of the model from the spec file `data/gpus/"
     << r.gpu.id << ".json` (datasheet ceilings, assumed latencies"
     << (r.calibration ? "" : ", no calibration: every fitted scale at 1") << ") and the kernel "
     << "registry (registers estimated, nothing compiled). On the H200, where it is validated, "
        "the uncalibrated model's error is several times the calibrated one "
        "([reports/h200-sxm](../h200-sxm/README.md)).\n>\n"
     << "> **The run that would validate it:** on a machine with this GPU and the CUDA toolkit, ";
  if (cc < 80) {
    md << "build the ladder for sm_" << cc
       << ". The project's CUDA 13 toolkit no longer targets sm_70, so this needs a CUDA 12 "
          "build (`-DROOFCAST_LADDER_ARCHITECTURES="
       << cc
       << "`, not done yet), and rungs 9 (cp.async, compute capability 8.0) and 10 (clusters, 9.0) "
          "cannot run. Then ";
  } else if (cc < 90) {
    md << "build with `-DROOFCAST_LADDER_ARCHITECTURES=" << cc
       << "-real` (rung 10 needs compute capability 9.0 and is skipped), then ";
  } else {
    md << "build with `-DROOFCAST_LADDER_ARCHITECTURES=" << cc << "-real`, then ";
  }
  md << "run `roofcast-validate --ncu --out data/measurements/" << r.gpu.id
     << "/sgemm-ladder.json` (and `roofcast-occupancy-check --check --out data/measurements/"
     << r.gpu.id << "/occupancy-runtime.json`), commit both, fit the calibration with "
     << "`roofcast accuracy --gpu " << r.gpu.id << " --write-calibration data/calibration/"
     << r.gpu.id << ".json`, rebuild, and run `roofcast report --gpu " << r.gpu.id
     << "`: this page then becomes a validation report.\n\n";
  return md.str();
}

void context_section(std::ostringstream& md, const GpuReport& r) {
  const GpuSpec& g = r.gpu;
  md << "## 1. Context\n\n| | |\n|---|---|\n";
  md << "| GPU (spec) | " << g.name << ", " << g.architecture << ", compute capability "
     << g.compute_capability.major << "." << g.compute_capability.minor << ", " << g.chip.sm_count
     << " SMs, boost clock " << format("%.0f", g.chip.boost_clock_MHz) << " MHz, L2 "
     << format("%.0f", g.chip.l2_bytes / 1048576.0) << " MiB, DRAM "
     << format("%.0f", g.chip.dram_bytes / 1073741824.0) << " GiB at "
     << format("%.0f", g.chip.dram_bw_GBps) << " GB/s (`data/gpus/" << g.id << ".json`) |\n";
  for (const ReportRun& run : r.runs) {
    md << "| run: " << run.what << " | `" << run.path << "`: " << run.tool << " at revision "
       << run.revision << ", " << run.date_utc << "; " << run.gpu_name << "; driver " << run.driver
       << ", CUDA runtime " << run.cuda;
    if (!run.cublas.empty()) md << ", cuBLAS " << run.cublas;
    md << "; SM clock " << format("%.0f", run.sm_clock_rated_MHz) << " MHz rated";
    if (run.sm_clock_min_MHz) {
      md << ", NVML read " << format("%.0f", *run.sm_clock_min_MHz) << "–"
         << format("%.0f", *run.sm_clock_max_MHz) << " MHz before and after each case";
    }
    md << ", memory clock " << format("%.0f", run.memory_clock_MHz) << " MHz; " << run.cases
       << " cases";
    if (run.ncu_cases > 0) md << " (" << run.ncu_cases << " with Nsight Compute)";
    md << "; " << run.extra << " |\n";
  }
  if (r.occupancy_agreement) {
    md << "| occupancy model | " << r.occupancy_agreement->first
       << " runtime answers and launches recomputed by the model: " << r.occupancy_agreement->second
       << " mismatches |\n";
  }
  md << "| model | sources SHA-256 `" << r.model_digest
     << "` (model/, the kernel registry, tile rules and anatomies, data/gpus, data/calibration: it "
        "changes "
        "whenever they do, and the reports are then regenerated) |\n";
  if (r.calibration) {
    const StoredCalibration& c = *r.calibration;
    const Calibration& p = c.parameters;
    md << "| calibration | `" << r.calibration_path << "`, fitted on `" << c.measurement
       << "` (revision " << c.measurement_revision << "), split `" << c.training_split << "` ("
       << c.training_cases << " training, " << c.held_out_cases << " held-out cases): issue ×"
       << format("%.3f", p.issue_scale) << ", data-path weight in the issue group "
       << format("%.3f", p.shared_memory_scale) << ", latency ×" << format("%.3f", p.latency_scale)
       << ", L2 ×" << format("%.2f", p.l2_scale) << ", DRAM ×" << format("%.2f", p.dram_scale)
       << ", launch overhead " << format("%.1f", p.launch_overhead_s * 1e6) << " µs |\n";
  } else if (r.accuracy) {
    const Calibration& p = r.accuracy->fit.calibration;
    md << "| calibration | not committed (`" << r.calibration_path
       << "` does not exist): fitted by this report on the run's training split `"
       << r.accuracy->training_split << "`: issue ×" << format("%.3f", p.issue_scale)
       << ", data-path weight in the issue group " << format("%.3f", p.shared_memory_scale)
       << ", latency ×" << format("%.3f", p.latency_scale) << ", L2 ×" << format("%.2f", p.l2_scale)
       << ", DRAM ×" << format("%.2f", p.dram_scale) << ", launch overhead "
       << format("%.1f", p.launch_overhead_s * 1e6) << " µs |\n";
  } else {
    md << "| calibration | none (`" << r.calibration_path
       << "` does not exist): every scale 1, no launch overhead |\n";
  }
  md << "| figures | " << r.gnuplot_version << " |\n\n";
  if (r.earlier_runs.empty()) return;
  md << "**Earlier runs** (kept under `data/measurements/" << r.gpu.id
     << "/runs/`, replaced when kernels or the case list changed). Δ compares the measured "
        "TFLOPS of the cases both runs have (same kernel, set, shape and raster order; a kernel "
        "whose code changed in between differs for that reason, not noise). The last column "
        "predicts every timed registry case of that run with today's model and calibration, "
        "no refit.\n\n"
     << "| run | date | cases | in common | median \\|Δ\\| | 90th pct \\|Δ\\| | max \\|Δ\\| "
        "(case) | cuBLAS at "
     << problem_label(r.problem)
     << " | model MAPE on it |\n|---|---|---:|---:|---:|---:|---|---:|---:|\n";
  for (const EarlierRun& e : r.earlier_runs) {
    md << "| " << e.run.revision << " | " << e.run.date_utc << " | " << e.run.cases << " | "
       << e.common_cases << " | " << format("%.2f%%", e.median_abs_difference_pct) << " | "
       << format("%.2f%%", e.p90_abs_difference_pct) << " | "
       << format("%.1f%%", e.max_abs_difference_pct) << " (`" << e.max_difference_case << "`) | "
       << tflops(e.cublas_TFLOPS) << " | "
       << format("%.1f%% (%d cases)", e.model_mape_pct, e.predicted_cases) << " |\n";
  }
  md << "\n";
}

void ceilings_section(std::ostringstream& md, const GpuReport& r) {
  const Ceilings& c = r.roofline.ceilings;
  md << "## 2. Ceilings: datasheet and measured\n\n"
     << "| level | datasheet | measured | measured / datasheet | ridge point, datasheet | ridge "
        "point in effect |\n|---|---:|---:|---:|---:|---:|\n";
  auto row = [&](const char* name, const LevelCeiling& ceiling, const char* unit, double spec_ridge,
                 double ridge) {
    md << "| " << name << " | "
       << (ceiling.spec > 0 ? format("%.6g %s", ceiling.spec, unit) : std::string("–"));
    if (ceiling.spec_source == CeilingSource::kDerivedFromSpec) md << " (derived)";
    md << " | " << (ceiling.measured ? format("%.6g %s", *ceiling.measured, unit) : "not measured")
       << " | "
       << (ceiling.measured && ceiling.spec > 0 ? format("%.2f", *ceiling.measured / ceiling.spec)
                                                : std::string("–"))
       << " | " << (spec_ridge > 0 ? format("%.1f FLOP/B", spec_ridge) : std::string("–")) << " | "
       << (ridge > 0 ? format("%.1f FLOP/B", ridge) : std::string("–")) << " |\n";
  };
  row("FFMA (FP32)", c.ffma_TFLOPS, "TFLOPS", 0, 0);
  row("shared memory", c.shared_memory_GBps, "GB/s", r.roofline.spec_ridge.shared_memory,
      r.roofline.ridge.shared_memory);
  row("L2", c.l2_GBps, "GB/s", r.roofline.spec_ridge.l2, r.roofline.ridge.l2);
  row("DRAM", c.dram_GBps, "GB/s", r.roofline.spec_ridge.dram, r.roofline.ridge.dram);
  md << "\nGB is 10⁹ bytes. The shared-memory datasheet figure is derived: banks × 4 bytes × SMs × "
        "boost clock. The vendor gives no L2 bandwidth: an L2 datasheet figure is the spec's "
        "`microarchitecture.l2_bw_GBps` (a published measurement, cited in the spec). A ridge "
        "point is the FFMA ceiling over "
        "the level's bandwidth: below it the level bounds a kernel.\n\n";
  const Latencies& l = r.latencies;
  const MicroarchitectureFacts& facts = r.gpu.microarchitecture;
  // measured > the spec's microarchitecture fact (with its source) > the generic assumption.
  auto l2_share_text = [](const std::vector<L2ShareRow>& table) {
    if (table.empty()) return std::string("–");
    std::string text;
    for (const L2ShareRow& row : table) {
      text += (text.empty() ? "" : ", ") + std::to_string(row.sms) + " SMs " +
              format("%.1f", row.bytes_per_cycle_per_sm);
    }
    return text + " bytes per cycle";
  };
  auto fact_source = [&r](bool measured, const std::optional<double>& fact, const char* field,
                          const char* assumption) {
    if (measured) return std::string("measured");
    if (fact) {
      const auto source = r.gpu.sources.find(std::string("microarchitecture.") + field);
      return "spec: " + (source != r.gpu.sources.end() ? source->second : std::string("?"));
    }
    return std::string("assumed (") + assumption + ")";
  };
  md << "Per-architecture facts of the time model (measured, else the spec's `microarchitecture` "
        "block with its source, else the model's generic assumption):\n\n"
     << "| fact | value | source |\n|---|---:|---|\n"
     << "| shared-memory latency | " << format("%.1f cycles", l.shared_memory_cycles) << " | "
     << fact_source(l.shared_memory_measured, facts.shared_memory_latency_cycles,
                    "shared_memory_latency_cycles", "reference: 20–30")
     << " |\n| L2 latency | " << format("%.1f cycles", l.l2_cycles) << " | "
     << fact_source(l.l2_measured, facts.l2_latency_cycles, "l2_latency_cycles",
                    "reference: about 200")
     << " |\n| DRAM latency | " << format("%.1f cycles", l.dram_cycles) << " | "
     << fact_source(l.dram_measured, facts.dram_latency_cycles, "dram_latency_cycles",
                    "reference: 300–400")
     << " |\n| dependent FFMA latency | " << format("%.0f cycles", l.ffma_cycles) << " | "
     << fact_source(false, facts.ffma_latency_cycles, "ffma_latency_cycles", "4 from Volta on")
     << " |\n| a warp's own stalls per instruction | "
     << format("%.2f cycles", facts.warp_own_stall_cycles.value_or(kAssumedWarpOwnStallCycles))
     << " | "
     << fact_source(false, facts.warp_own_stall_cycles, "warp_own_stall_cycles",
                    "0: a warp alone issues every cycle")
     << " |\n| unaligned copy paths, extra stalls per instruction | "
     << format("%.2f cycles", facts.unaligned_copy_stall_cycles.value_or(0)) << " | "
     << fact_source(false, facts.unaligned_copy_stall_cycles, "unaligned_copy_stall_cycles", "0")
     << " |\n| stage barrier wait per K tile, bulk copies (rung 10) | "
     << format("%.0f cycles", facts.bulk_copy_stage_wait_cycles.value_or(0)) << " | "
     << fact_source(false, facts.bulk_copy_stage_wait_cycles, "bulk_copy_stage_wait_cycles", "0")
     << " |\n| the same, cp.async fallback (rung 10) | "
     << format("%.0f cycles", facts.fallback_stage_wait_cycles.value_or(0)) << " | "
     << fact_source(false, facts.fallback_stage_wait_cycles, "fallback_stage_wait_cycles", "0")
     << " |\n| L2 read rate per SM with few SMs reading (a small grid's share) | "
     << l2_share_text(facts.l2_read_share) << " | "
     << fact_source(false, facts.l2_read_share.empty() ? std::nullopt : std::optional<double>(1.0),
                    "l2_read_share", "every SM's share, as at full load")
     << " |\n\n";
  if (!r.microbenchmark_methods.empty()) {
    md << "How each was measured (the run's own words):\n\n";
    for (const auto& [name, method] : r.microbenchmark_methods) {
      md << "- `" << name << "`: " << method << "\n";
    }
    md << "\n";
  }
}

void ladder_section(std::ostringstream& md, const GpuReport& r) {
  md << "## 3. The ladder\n\nAt " << problem_label(r.problem) << ". ";
  if (r.validated) {
    md << "Every rung's headline config (the kernel registry's `Role::kLadder` entries) in its "
          "fastest measured raster order. % FFMA peak is of the measured FFMA ceiling ("
       << format("%.2f", peak_of(r))
       << " TFLOPS). Error = (predicted − measured) / measured. Occupancy, waves, L2 and the "
          "bounds are the model's, from the run's registers and shared memory. "
       << runtime_agreement(r)
       << " L2 measured is Nsight Compute's "
          "`lts__t_sector_hit_rate` over every sector. Stalls: the three largest Nsight Compute "
          "stall reasons, warp cycles per issued instruction.\n\n";
    md << "| rung | config | raster | measured TFLOPS | % cuBLAS | % FFMA peak | predicted TFLOPS "
          "| error | blocks/SM (occupancy, limiter) | regs | smem KiB | waves (tail efficiency) | "
          "L2 hit measured / predicted | bound: roofline level / time term | largest stalls "
          "|\n|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|\n";
  } else {
    md << "Every rung's headline config in its fastest predicted raster order, registers "
          "estimated. % FP32 peak is of the datasheet FP32 peak ("
       << format("%.2f", peak_of(r)) << " TFLOPS).";
    if (r.transferred_calibration) {
      md << " A second estimate applies the global scales fitted on the "
         << r.transferred_calibration->gpu_id << " (`data/calibration/"
         << r.transferred_calibration->gpu_id
         << ".json`), the measured GPU nearest in compute capability: uncalibrated, the model "
            "takes the larger of the issue and shared-memory terms (the roofline's full "
            "overlap), calibrated their norm, with the issue and latency scales, contention "
            "share and launch overhead fitted there; whether they hold here is what a "
            "measurement would tell. `roofcast predict`, `rank`, `ladder` and Python "
            "apply these scales by default on this GPU (calibration_for_gpu; `--uncalibrated` "
            "for none).";
    }
    md << "\n\n| rung | config | raster | predicted TFLOPS | "
       << (r.transferred_calibration ? "with " + r.transferred_calibration->gpu_id + "'s scales | "
                                     : std::string())
       << "% FP32 peak | blocks/SM (occupancy, limiter) | regs (estimated) | smem KiB | waves "
          "(tail efficiency) | L2 hit predicted | bound: roofline level / time term |\n|---|---|"
          "---|---:|"
       << (r.transferred_calibration ? "---:|" : "") << "---:|---|---:|---:|---:|---:|---|\n";
  }
  for (const ReportLadderRow& row : r.ladder) {
    const Prediction& p = row.prediction;
    if (!row.supported) {
      const int needed = kernels::minimum_compute_capability(
          kernels::kRegistry[kernels::find_kernel(row.kernel)].config);
      md << "| " << row.rung << " | `" << row.kernel << "` | – | needs compute capability "
         << needed / 10 << "." << needed % 10 << " |";
      const int cells = r.validated ? 11 : (r.transferred_calibration ? 8 : 7);
      for (int cell = 0; cell < cells; ++cell) md << " |";
      md << "\n";
      continue;
    }
    const std::string occupancy =
        format("%d (%.1f%%, %s)", p.occupancy.blocks_per_sm, 100 * p.occupancy.occupancy,
               limiter_text(p.occupancy.limiters).c_str());
    const std::string bound =
        term_text(to_string(p.roofline.binding)) + " / " + term_text(to_string(p.binding));
    md << "| " << row.rung << " | `" << row.kernel << "` | " << gemm::to_string(row.raster);
    if (r.validated) {
      const double measured = *row.measured_TFLOPS;
      md << " | " << format("%.2f", measured) << " | "
         << (r.cublas_TFLOPS ? format("%.1f", 100 * measured / *r.cublas_TFLOPS) : "–") << " | "
         << format("%.1f", 100 * measured / peak_of(r)) << " | " << format("%.2f", p.tflops)
         << " | " << error_text(measured, p.tflops) << " | " << occupancy << " | "
         << p.registers_per_thread << " | " << format("%.1f", p.shared_memory_bytes / 1024.0)
         << " | " << waves_text(p) << " | "
         << (row.measured_l2_hit_pct ? format("%.1f", *row.measured_l2_hit_pct) : "–") << " / "
         << format("%.1f", 100 * p.l2_sector_hit_rate) << " | " << bound << " | "
         << stall_text(row.top_stalls) << " |\n";
    } else {
      md << " | " << format("%.2f", p.tflops);
      if (r.transferred_calibration) md << " | " << tflops(row.transferred_TFLOPS);
      md << " | " << format("%.1f", 100 * p.tflops / peak_of(r)) << " | " << occupancy << " | "
         << p.registers_per_thread << " | " << format("%.1f", p.shared_memory_bytes / 1024.0)
         << " | " << waves_text(p) << " | " << format("%.1f", 100 * p.l2_sector_hit_rate) << " | "
         << bound << " |\n";
    }
  }
  if (r.validated && r.cublas_TFLOPS) {
    md << "| – | cuBLAS SGEMM (default math, no TF32) | – | " << format("%.2f", *r.cublas_TFLOPS)
       << " | 100 | " << format("%.1f", 100 * *r.cublas_TFLOPS / peak_of(r))
       << " | | | | | | | | | |\n";
  }
  md << "\n";

  // Published ladders.
  md << "### Against published ladders\n\n"
     << (r.validated ? "roofcast's column is the measured % of cuBLAS above (same run, same "
                       "size). "
                     : "roofcast's column is the predicted % of the FP32 peak: there is no "
                       "cuBLAS measurement to divide by, so it is not the same ratio as the "
                       "published columns. ")
     << "The others are % of cuBLAS as published, on their own GPUs and sizes (sources below); "
        "a step appears under the rung that does the same thing. In parentheses, the same rate "
        "as % of that GPU's datasheet FP32 peak, where the source gives the rates: cuBLAS itself "
        "reaches different shares of the peak on different GPUs and toolkits (last row), so "
        "the peak share compares the kernels more directly than the cuBLAS share.\n\n";
  if (r.notes && !r.notes->general.empty()) md << r.notes->general << "\n\n";
  const double datasheet_peak = r.roofline.ceilings.ffma_TFLOPS.spec;  // like the published peaks
  md << "| rung | roofcast, " << r.gpu.id << " |";
  for (const PublishedLadder& ladder : r.published)
    md << " " << ladder.gpu << " (" << ladder.author << ") |";
  if (r.notes) md << " why ours differs |";
  md << "\n|---|---:|";
  for (std::size_t i = 0; i < r.published.size(); ++i) md << "---:|";
  if (r.notes) md << "---|";
  md << "\n";
  for (const ReportLadderRow& row : r.ladder) {
    md << "| " << rung_label(row.rung, row.kernel) << " | ";
    if (!row.supported) {
      md << "–";
    } else if (r.validated && r.cublas_TFLOPS) {
      md << format("%.1f", 100 * *row.measured_TFLOPS / *r.cublas_TFLOPS);
      if (datasheet_peak > 0) {
        md << format(" (%.0f%% of peak)", 100 * *row.measured_TFLOPS / datasheet_peak);
      }
    } else {
      md << format("%.1f of peak", 100 * row.prediction.tflops / peak_of(r));
    }
    md << " |";
    for (const PublishedLadder& ladder : r.published)
      md << " " << published_cell(ladder, row.rung) << " |";
    if (r.notes) {
      const auto note = r.notes->rungs.find(row.rung);
      const bool first_of_rung = &row == &*std::find_if(r.ladder.begin(), r.ladder.end(),
                                                        [&](const ReportLadderRow& other) {
                                                          return other.rung == row.rung;
                                                        });
      md << " " << (note != r.notes->rungs.end() && first_of_rung ? note->second : std::string())
         << " |";
    }
    md << "\n";
  }
  md << "| cuBLAS | "
     << (r.validated && r.cublas_TFLOPS && datasheet_peak > 0
             ? format("100 (%.0f%% of peak)", 100 * *r.cublas_TFLOPS / datasheet_peak)
             : std::string("–"))
     << " |";
  for (const PublishedLadder& ladder : r.published) md << " " << published_cell(ladder, 0) << " |";
  if (r.notes) md << " |";
  md << "\n\n";
  if (r.notes) {
    md << "The notes come from `" << r.notes->file << "`, written for measurement revision "
       << r.notes->measurement_revision;
    if (r.validated && !r.runs.empty() &&
        r.runs.front().revision != r.notes->measurement_revision) {
      md << " — **stale: the measurement above is revision " << r.runs.front().revision
         << "; re-read the notes against it**";
    }
    md << ".\n\n";
  }
  for (const PublishedLadder& ladder : r.published) {
    md << "- **" << ladder.gpu << " (" << ladder.author << ")**: " << ladder.title << ", "
       << ladder.problem << ", against " << ladder.baseline << ". " << ladder.url << ". "
       << ladder.note << " (`" << ladder.file << "`, id `" << ladder.id << "`)\n";
  }
  md << "\n";
  published_checks_markdown(md, r);

  // Every size.
  md << "### Every ladder size\n\n"
     << (r.validated ? "Measured → predicted TFLOPS (error), fastest measured raster order per "
                       "rung and size; training cases are the square power-of-two sizes.\n\n"
                     : "Predicted TFLOPS, fastest predicted raster order per rung and size.\n\n");
  md << "| rung |";
  for (const gemm::Problem& p : r.by_size.problems) md << " " << problem_label(p) << " |";
  md << "\n|---|";
  for (std::size_t i = 0; i < r.by_size.problems.size(); ++i) md << "---:|";
  md << "\n";
  for (std::size_t k = 0; k < r.by_size.kernels.size(); ++k) {
    md << "| " << rung_label(r.by_size.rungs[k], r.by_size.kernels[k]) << " |";
    for (const SizeCell& cell : r.by_size.cells[k]) {
      if (cell.measured_TFLOPS && cell.predicted_TFLOPS) {
        md << " "
           << format("%.2f → %.2f (%s)", *cell.measured_TFLOPS, *cell.predicted_TFLOPS,
                     error_text(*cell.measured_TFLOPS, *cell.predicted_TFLOPS).c_str())
           << " |";
      } else {
        md << " " << tflops(cell.predicted_TFLOPS) << " |";
      }
    }
    md << "\n";
  }
  if (r.validated) {
    md << "| cuBLAS |";
    for (const auto& value : r.by_size.cublas_TFLOPS) md << " " << tflops(value) << " |";
    md << "\n";
  }
  md << "\n";
}

void figures_section(std::ostringstream& md, const GpuReport& r) {
  md << "## 4. Figures\n\n### Hierarchical roofline\n\n![hierarchical roofline](roofline.svg)\n\n"
     << "Each rung's headline config at " << problem_label(r.problem)
     << " appears once per memory level, at its arithmetic intensity there (FLOPs over the bytes "
        "the model moves through shared memory, requests from L2, and reads from DRAM; "
     << (r.validated ? "the filled DRAM points use the bytes Nsight Compute counted, read plus "
                       "written"
                     : "all predicted")
     << "). A point below a level's roof and left of its ridge is bound by that level.\n\n";
  if (r.validated) {
    md << "### Predicted versus measured\n\n![predicted vs measured](predicted-vs-measured.svg)\n\n"
       << "Every timed registry case of the run (ladder and tile sweeps, duplicates once), "
          "predicted with the calibration fitted on the training split.\n\n";
  }
  if (!r.tile_curves.empty()) {
    md << "### The tile sweep\n\n![tile sweep](tile-sweep.svg)\n\n"
       << "Every registered config of rungs 4–10 (row-major for rungs 4–6, grouped:8 for 7–10), "
          "grouped by block tile; the curve is the best config of each tile.\n\n"
       << "| size | configs | measured optimum | predicted optimum |\n|---|---:|---|---|\n";
    for (const TileCurve& curve : r.tile_curves) {
      const TilePoint& p = curve.tiles[curve.predicted_optimum];
      md << "| " << problem_label(curve.problem) << " | " << curve.configs.size() << " | ";
      if (curve.measured_optimum) {
        const TilePoint& m = curve.tiles[*curve.measured_optimum];
        md << format("%dx%d: `%s`, %.2f TFLOPS", m.bm, m.bn, m.measured_best_kernel.c_str(),
                     *m.measured_best_TFLOPS);
      } else {
        md << "not measured";
      }
      md << " | "
         << format("%dx%d: `%s`, %.2f TFLOPS predicted", p.bm, p.bn,
                   p.predicted_best_kernel.c_str(), p.predicted_best_TFLOPS)
         << " |\n";
    }
    md << "\n";
  }
  if (!r.occupancy.empty()) {
    const KernelLaunch& l = r.occupancy.front().launch;
    const OccupancyResult& o = r.occupancy.front().result;
    md << "### Occupancy staircases of the top rung's config\n\n"
       << "`" << r.occupancy_kernel << "`: " << l.threads_per_block << " threads, "
       << l.registers_per_thread << " registers per thread ("
       << (r.occupancy_registers_measured ? "as compiled" : "estimated") << "), "
       << l.static_shared_memory_bytes + l.dynamic_shared_memory_bytes
       << " bytes of shared memory per block: " << o.blocks_per_sm << " block(s) per SM, "
       << format("%.1f", 100 * o.occupancy) << "% occupancy, limited by "
       << limiter_text(o.limiters) << ". Each staircase varies one resource with the others "
       << "held; the red point is the kernel.\n\n"
       << "![occupancy over registers](occupancy-registers.svg)\n"
       << "![occupancy over shared memory](occupancy-shared-memory.svg)\n"
       << "![occupancy over block size](occupancy-threads.svg)\n\n";
  }
  if (!r.l2_raster.empty()) {
    md << "### L2 hit rate by raster order\n\n![L2 hit rate by raster order](l2-raster.svg)\n\n";
    double roofcast_error = 0;
    double published_error = 0;
    int compared = 0;
    for (const L2RasterRow& row : r.l2_raster) {
      if (!row.measured_pct || !validation::comparable_hit_rate(*row.measured_pct)) continue;
      roofcast_error += std::abs(row.predicted_pct - *row.measured_pct);
      published_error += std::abs(row.published_pct - *row.measured_pct);
      ++compared;
    }
    md << "Rungs 7–10 take the block raster order at launch; the hit rate is over every L2 "
          "sector (operands and C).";
    if (compared > 0) {
      md << format(
          " Over these %d cases the mean |error| is %.1f pp for roofcast's model and "
          "%.1f pp for the published formula (a measured rate above 100%%, which rung "
          "10's multicast produces, is left out).",
          compared, roofcast_error / compared, published_error / compared);
    }
    if (r.validated) {
      md << "\n\n| rung | size | raster | measured | roofcast | published formula | measured "
            "TFLOPS | predicted TFLOPS |\n|---|---|---|---:|---:|---:|---:|---:|\n";
    } else {
      md << "\n\n| rung | size | raster | roofcast | published formula | predicted TFLOPS "
            "|\n|---|---|---|---:|---:|---:|\n";
    }
    for (const L2RasterRow& row : r.l2_raster) {
      md << "| " << row.rung << " | " << problem_label(row.problem) << " | "
         << gemm::to_string(row.raster) << " | ";
      if (r.validated) {
        md << (row.measured_pct ? format("%.1f", *row.measured_pct) : "–") << " | ";
      }
      md << format("%.1f", row.predicted_pct) << " | " << format("%.1f", row.published_pct)
         << " | ";
      if (r.validated) md << tflops(row.measured_TFLOPS) << " | ";
      md << format("%.2f", row.predicted_TFLOPS) << " |\n";
    }
    md << "\n";
  }
}

void summary_row(std::ostringstream& md, const char* name, const ErrorSummary& s) {
  md << "| " << name << " | " << s.cases << " | " << format("%.1f%%", s.mape_percent) << " | "
     << format("%.1f%%", s.max_abs_error_percent) << " | `" << s.worst_case << "` |\n";
}

void errors_section(std::ostringstream& md, const GpuReport& r) {
  md << "## 5. Error summary\n\n";
  if (!r.accuracy) {
    md << "No measurement: no error can be stated for this GPU. The H200 report shows how the "
          "model does where it is measured.\n\n";
    return;
  }
  const validation::ModelAccuracy& a = *r.accuracy;
  md << "MAPE = mean |predicted − measured| / measured of TFLOPS, training split `"
     << a.training_split << "` (the calibration was fitted on it) and held out (every case "
     << "whose config or shape is held out, over the ladder run and the measured sample).\n\n"
     << "| cases | count | MAPE | worst \\|error\\| | worst case |\n|---|---:|---:|---:|---|\n";
  summary_row(md, "training", a.training);
  summary_row(md, "held out", a.held_out);
  summary_row(md, "all", a.all);
  summary_row(md, "all, uncalibrated", a.uncalibrated_all);
  if (r.transferred_accuracy) {
    const validation::ModelAccuracy& t = *r.transferred_accuracy;
    md << "\nThis GPU has no calibration of its own: the parameters above were fitted by this "
          "report on this run. A prediction for it takes "
       << t.calibration_from
       << "'s committed calibration (the measured GPU nearest in compute capability, register "
          "model included), fitted on "
       << t.calibration_from
       << " and never on this GPU; its error on the same cases is how the model carries to a "
          "GPU it was not fitted on (`roofcast accuracy --gpu "
       << r.gpu.id << " --calibration-of " << t.calibration_from << "`):\n\n"
       << "| cases | count | MAPE | worst \\|error\\| | worst case |\n|---|---:|---:|---:|---|\n";
    summary_row(md, "training split", t.training);
    summary_row(md, "held out", t.held_out);
    summary_row(md, "all", t.all);
    if (t.held_out_both.cases > 0) summary_row(md, "held-out configs x shapes", t.held_out_both);
  }
  if (!r.earlier_runs.empty()) {
    const EarlierRun& last = r.earlier_runs.back();
    md << "\nFor scale, the measurement's own noise: the " << last.common_cases
       << " cases this run shares with the one before it (" << last.run.revision << ") differ by "
       << format("%.2f%%", last.median_abs_difference_pct) << " in the median and "
       << format("%.2f%%", last.p90_abs_difference_pct)
       << " at the 90th percentile (section 1, earlier runs).\n";
  }
  md << "\n| rung | cases | MAPE | worst case |\n|---|---:|---:|---|\n";
  for (const auto& [rung, s] : a.per_rung) {
    md << "| " << rung << " | " << s.cases << " | " << format("%.1f%%", s.mape_percent) << " | `"
       << s.worst_case << "` " << format("(%.1f%%)", s.max_abs_error_percent) << " |\n";
  }
  for (bool training : {false, true}) {
    std::vector<const CaseAccuracy*> cases;
    for (const CaseAccuracy& c : a.cases) {
      if (!c.duplicate && c.training == training) cases.push_back(&c);
    }
    std::stable_sort(cases.begin(), cases.end(), [](const CaseAccuracy* x, const CaseAccuracy* y) {
      return std::abs(x->error_percent) > std::abs(y->error_percent);
    });
    if (cases.size() > 8) cases.resize(8);
    md << "\nWorst " << (training ? "training" : "held-out")
       << " cases:\n\n| case | measured TFLOPS | predicted | error | bound by "
          "|\n|---|---:|---:|---:|---|\n";
    for (const CaseAccuracy* c : cases) {
      md << "| `" << c->name << "` | " << format("%.2f", c->measured_tflops) << " | "
         << format("%.2f", c->predicted_tflops) << " | " << signed_percent(c->error_percent)
         << " | " << term_text(to_string(c->binding)) << " |\n";
    }
  }
  md << "\n**Ranking the tile sweep** (held out): does the model order the configs as the GPU "
        "does, and is its first choice the fastest?\n\n"
     << "| size | configs | Spearman | model's top-1, measured | % of the measured best | best of "
        "top 5 |\n|---|---:|---:|---|---:|---:|\n";
  for (const validation::SweepShape& s : a.sweep) {
    md << "| " << problem_label(s.problem) << " | " << s.configs << " | "
       << format("%.3f", s.spearman) << " | `" << s.predicted_best << "` "
       << format("%.2f", s.predicted_best_measured_tflops) << " | "
       << format("%.1f%%", 100 * s.top1_fraction) << " | "
       << format("%.1f%%", 100 * s.best_of_top5_fraction) << " |\n";
  }
  md << format("\nOver both sweeps together the Spearman correlation is %.3f.\n\n",
               a.sweep_spearman_all);
  md << "**L2 hit rate against Nsight Compute** (every case with Nsight Compute data):\n\n"
     << "| model | cases | mean \\|error\\| | worst | worst case | not comparable (measured > "
        "100%) "
        "|\n|---|---:|---:|---:|---|---:|\n";
  for (const validation::L2Agreement& l2 : a.l2) {
    md << "| " << (l2.model == L2Model::kRoofcast ? "roofcast" : "published formula") << " | "
       << l2.cases << " | " << format("%.2f pp", l2.mean_abs_error_pp) << " | "
       << format("%.1f pp", l2.max_abs_error_pp) << " | `" << l2.worst_case << "` | "
       << l2.not_comparable.size() << " |\n";
  }
  md << "\n";
  if (r.selection) {
    const validation::SelectionReport& s = *r.selection;
    md << "**Selection** ([selection.md](selection.md)): the first choice among every registered "
          "config at "
       << s.shapes.size() << " shapes of a separate run, registers estimated:\n\n"
       << "| selector | worst top-1 | mean top-1 | shapes top-1 ≥ 95% | worst best-of-5 | mean "
          "Spearman |\n|---|---:|---:|---:|---:|---:|\n";
    const char* names[] = {"roofcast", "highest occupancy", "largest tile",
                           "Triton's former formula"};
    for (int i = 0; i < tune::kSelectorCount; ++i) {
      const validation::SelectorSummary& m = s.summary[i];
      md << "| " << names[i] << " | " << format("%.1f%%", 100 * m.min_top1_of_best) << " | "
         << format("%.1f%%", 100 * m.mean_top1_of_best) << " | " << m.shapes_top1_at_least_95
         << " / " << s.shapes.size() << " | " << format("%.1f%%", 100 * m.min_best_of_top5_of_best)
         << " | " << format("%.3f", m.mean_spearman) << " |\n";
    }
    md << "\n";
  }
}

/// Issue 15's generalisation: held-out configs at held-out shapes of the measured sample only.
void generalisation_section(std::ostringstream& md, const GpuReport& r) {
  if (!r.accuracy || r.accuracy->sample.empty()) return;
  const validation::ModelAccuracy& a = *r.accuracy;
  md << "## 6. Generalisation: held-out configs and shapes\n\n"
     << "The measured sample ([docs/sample.md](../../docs/sample.md)): configs drawn with a "
        "fixed seed from the enumerated space of rungs 4-10, with the registry's, measured at "
     << a.sample.size()
     << " shapes (drawn from a stated distribution, and the sweeps' shapes). One split, fixed "
        "before any fit (`tune::case_held_out`): a case is held out when its config or its "
        "shape is. The calibration and the register model are fitted on training cases only; "
        "below, only cases whose config **and** shape were held out.\n\n";
  double worst_rung = 0;
  int worst_rung_number = 0;
  for (const auto& [rung, s] : a.per_rung_held_out_both) {
    if (rung >= 4 && s.mape_percent > worst_rung) {
      worst_rung = s.mape_percent;
      worst_rung_number = rung;
    }
  }
  double worst_first = 1, worst_top5 = 1, worst_spearman = 1;
  int held_shapes = 0;
  for (const validation::SweepShape& s : a.sample) {
    if (!s.held_out) continue;
    ++held_shapes;
    worst_first = std::min(worst_first, s.top1_fraction);
    worst_top5 = std::min(worst_top5, s.best_of_top5_fraction);
    worst_spearman = std::min(worst_spearman, s.spearman);
  }
  const auto& reg = a.registers.held_out;
  md << "| metric (held out) | goal | now |\n|---|---:|---:|\n"
     << "| MAPE, held-out configs × held-out shapes (" << a.held_out_both.cases
     << " cases, ptxas registers) | ≤ 6% | " << format("%.1f%%", a.held_out_both.mape_percent)
     << " |\n| the same, registers estimated (a config never compiled) | – | "
     << format("%.1f%%", a.held_out_both_estimated.mape_percent)
     << " |\n| worst rung, held-out × held-out | ≤ 9% | "
     << format("%.1f%% (rung %d)", worst_rung, worst_rung_number)
     << " |\n| first choice among all sampled configs, worst of " << held_shapes
     << " held-out shapes | ≥ 97% | " << format("%.1f%%", 100 * worst_first)
     << " |\n| best of the model's top 5, worst held-out shape | ≥ 99.5% | "
     << format("%.1f%%", 100 * worst_top5) << " |\n| Spearman, worst held-out shape | ≥ 0.95 | "
     << format("%.3f", worst_spearman) << " |\n| register estimate, mean \\|error\\| on "
     << reg.configs << " held-out configs | ≤ 4 | " << format("%.1f", reg.mean_abs_error)
     << " |\n| spills predicted right, held-out configs | ≥ 95% | "
     << format("%.1f%%", 100 * reg.spills_correct) << " |\n";
  // The fitted scales of time terms: the fitted parameters that must be positive (shares, the
  // data path's weight and the launch overhead may be 0: CalibrationParameter::zero_allowed).
  double lowest_scale = INFINITY, highest_scale = -INFINITY;
  std::string scales;
  for (int i = 0; i < kFittedParameterCount; ++i) {
    const CalibrationParameter& parameter = kCalibrationParameters[static_cast<std::size_t>(i)];
    if (parameter.zero_allowed || !a.fit.fitted[static_cast<std::size_t>(i)]) continue;
    const double value = a.fit.calibration.*parameter.field;
    lowest_scale = std::min(lowest_scale, value);
    highest_scale = std::max(highest_scale, value);
    scales += std::string(scales.empty() ? "" : ", ") + std::string(parameter.name) + " " +
              format("%.3f", value);
  }
  if (!scales.empty()) {
    md << "| fitted scales of time terms, each within | 0.8..1.25 | " << scales << " ("
       << (lowest_scale >= 0.8 && highest_scale <= 1.25 ? "all within" : "not all within")
       << ") |\n";
  }
  md << "\n";
  md << "Calibration scales (fitted on the training cases; each is 1 at face value):";
  for (int i = 0; i < kFittedParameterCount; ++i) {
    const CalibrationParameter& parameter = kCalibrationParameters[static_cast<std::size_t>(i)];
    md << (i ? ", " : " ") << "`" << parameter.name << "` "
       << format("%.3g", a.fit.calibration.*parameter.field)
       << (a.fit.fitted[static_cast<std::size_t>(i)] ? "" : " (not fitted)");
  }
  md << ". `shared_memory_scale` is not a scale but the weight of the data-path time in the issue "
        "group, sqrt((issue_scale × issue)² + (shared_memory_scale × data path)²): held at 1 "
        "(0 is the roofline's max of the two); the L2 and DRAM scales stay 1 (measured "
        "bandwidths are the ceilings).\n\n";
  md << "![held-out configs at held-out shapes: predicted vs measured](generalisation.svg)\n\n";
  md << "| rung | cases | MAPE | worst case |\n|---|---:|---:|---|\n";
  for (const auto& [rung, s] : a.per_rung_held_out_both) {
    md << "| " << rung << " | " << s.cases << " | " << format("%.1f%%", s.mape_percent) << " | `"
       << s.worst_case << "` " << format("(%.1f%%)", s.max_abs_error_percent) << " |\n";
  }
  md << "\n**Selection per held-out shape** (every sampled and registered config of rungs 4-10 "
        "measured there; ptxas registers):\n\n"
     << "| shape | configs | Spearman | model's first choice, measured | % of the measured best "
        "| best of top 5 | exact ties (measured >2% apart) |\n|---|---:|---:|---|---:|---:|---:|\n";
  int ties = 0;
  int ties_apart = 0;
  for (const validation::SweepShape& s : a.sample) {
    if (!s.held_out) continue;
    md << "| " << problem_label(s.problem) << " | " << s.configs << " | "
       << format("%.3f", s.spearman) << " | `" << s.predicted_best << "` "
       << format("%.2f", s.predicted_best_measured_tflops) << " | "
       << format("%.1f%%", 100 * s.top1_fraction) << " | "
       << format("%.1f%%", 100 * s.best_of_top5_fraction) << " | " << s.tied_pairs << " ("
       << s.tied_pairs_measured_apart << ") |\n";
    ties += s.tied_pairs;
    ties_apart += s.tied_pairs_measured_apart;
  }
  md << "\nExact ties: " << ties << " pairs of configs at these shapes are predicted in exactly "
     << "the same time, " << ties_apart << " of them measured more than 2% apart (the goal: none; "
     << "they are configs whose every term is equal: warp shapes, stage counts and padded against "
     << "swizzled layouts that the model does not tell apart).\n";
  md << "\n**Register estimate against ptxas** (sm_90, nvcc 13.0; the fitted register model, "
        "training configs "
     << a.registers.training.configs << ": mean |error| "
     << format("%.1f", a.registers.training.mean_abs_error) << ", held out " << reg.configs << ": "
     << format("%.1f", reg.mean_abs_error) << ", worst " << reg.max_abs_error << " (`" << reg.worst
     << "`)):\n\n![register estimate against ptxas](registers.svg)\n\n";
}

}  // namespace

std::string problem_label(const gemm::Problem& p) {
  if (p.m == p.n && p.n == p.k) return std::to_string(p.m) + "³";
  return std::to_string(p.m) + "×" + std::to_string(p.n) + "×" + std::to_string(p.k);
}

std::string rung_label(int rung, const std::string& kernel, bool short_form) {
  if (rung != 6) return std::to_string(rung);
  const bool swizzled = kernel.find("swizzled") != std::string::npos;
  if (short_form) return swizzled ? "6s" : "6p";
  return swizzled ? "6 (swizzled)" : "6 (padded)";
}

std::string gpu_report_markdown(const GpuReport& r) {
  std::ostringstream md;
  md << "# roofcast " << (r.validated ? "validation report" : "prediction report (not validated)")
     << ": " << r.gpu.name << " (`" << r.gpu.id << "`)\n\n"
     << "<!-- Generated by `roofcast report --gpu " << r.gpu.id
     << "` from the committed measurements, the model and data/reference; do not edit by hand. "
        "A CI test regenerates it and fails on any difference. -->\n\n";
  if (!r.validated) md << banner(r);
  if (r.validated && r.accuracy) {
    const ReportLadderRow* top = nullptr;
    for (const ReportLadderRow& row : r.ladder) {
      if (top == nullptr || *row.measured_TFLOPS > *top->measured_TFLOPS) top = &row;
    }
    const validation::ModelAccuracy& a = *r.accuracy;
    md << "On the " << r.gpu.name << ", roofcast predicts the TFLOPS of " << a.held_out.cases
       << " held-out SGEMM cases with a mean absolute error of "
       << format("%.1f%%", a.held_out.mape_percent) << " ("
       << format("%.1f%%", a.training.mape_percent) << " on its " << a.training.cases
       << " training cases, " << format("%.1f%%", a.uncalibrated_all.mape_percent)
       << " uncalibrated";
    if (r.transferred_accuracy) {
      md << "; with " << r.transferred_accuracy->calibration_from
         << "'s calibration, fitted there and never on this GPU, "
         << format("%.1f%%", r.transferred_accuracy->all.mape_percent) << " over all "
         << r.transferred_accuracy->all.cases << " cases";
    }
    md << ")";
    if (a.held_out_both.cases > 0) {
      md << "; on the " << a.held_out_both.cases
         << " cases of the measured sample whose config and shape were both held out, "
         << format("%.1f%%", a.held_out_both.mape_percent) << " ("
         << format("%.1f%%", a.held_out_both_estimated.mape_percent)
         << " with registers estimated, [section "
            "6](#6-generalisation-held-out-configs-and-shapes))";
    }
    if (!a.sweep.empty()) {
      double worst_top1 = 1;
      for (const validation::SweepShape& s : a.sweep)
        worst_top1 = std::min(worst_top1, s.top1_fraction);
      md << ", orders the held-out tile sweeps with Spearman "
         << format("%.3f", a.sweep_spearman_all)
         << ", and its first choice in each sweep measures at least "
         << format("%.1f%%", 100 * worst_top1) << " of the fastest config measured there";
    }
    md << ". The ladder's best rung, `" << top->kernel << "`, measures "
       << format("%.2f", *top->measured_TFLOPS) << " TFLOPS at " << problem_label(r.problem);
    if (r.cublas_TFLOPS) {
      md << ", " << format("%.1f%%", 100 * *top->measured_TFLOPS / *r.cublas_TFLOPS)
         << " of cuBLAS in the same run";
    }
    md << ".\n\n";
  }
  md << "![the ladder at " << problem_label(r.problem) << "](ladder.svg)\n\n";
  md << "Sections: [1. Context](#1-context) · [2. Ceilings](#2-ceilings-datasheet-and-measured) · "
        "[3. The ladder](#3-the-ladder) · [4. Figures](#4-figures) · [5. Error "
        "summary](#5-error-summary) · ";
  if (r.accuracy && !r.accuracy->sample.empty()) {
    md << "[6. Generalisation](#6-generalisation-held-out-configs-and-shapes) · "
          "[7. Regenerating](#7-regenerating)\n\n";
  } else {
    md << "[6. Regenerating](#6-regenerating)\n\n";
  }
  context_section(md, r);
  ceilings_section(md, r);
  ladder_section(md, r);
  figures_section(md, r);
  errors_section(md, r);
  generalisation_section(md, r);
  md << "## " << (r.accuracy && !r.accuracy->sample.empty() ? "7" : "6") << ". Regenerating\n\n"
     << "From the repository root, after building (`bash scripts/main.sh` or `cmake --build "
        "build`):\n\n```sh\nbuild/cli/roofcast report --gpu "
     << r.gpu.id
     << "\n```\n\nIt reads only committed files (no GPU, no clock, no git): "
        "`data/measurements/"
     << r.gpu.id
     << "/` when present, the spec, the embedded calibration, `data/reference/` and `data/notes/`. "
     << "`report_cli_test` regenerates every committed report in CI and fails on any difference, "
        "so a change to the model, the kernels' registry or the data that moves a number also "
        "has to regenerate the reports.\n";
  return md.str();
}

}  // namespace roofcast::views
