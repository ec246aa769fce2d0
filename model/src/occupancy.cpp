#include "roofcast/occupancy.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>

#include "roofcast/ceil_div.hpp"

namespace roofcast {
namespace {

constexpr int kUnlimited = LimitBlocks::kUnlimited;

// Operands are non-negative. Most divisors here (warp size, allocation units, granularities,
// sub-partitions) are powers of two: a shift then replaces the division.
int quotient(int x, int y) {
  const auto dividend = static_cast<unsigned>(x);
  const auto divisor = static_cast<unsigned>(y);
  // x & (x - 1) clears the lowest set bit (cheaper than std::has_single_bit without popcnt).
  if (divisor != 0 && (divisor & (divisor - 1)) == 0) {
    return static_cast<int>(dividend >> std::countr_zero(divisor));
  }
  return static_cast<int>(dividend / divisor);
}
int divide_round_up(int x, int y) { return quotient(x + y - 1, y); }
int round_up(int x, int y) { return divide_round_up(x, y) * y; }
int round_down(int x, int y) { return quotient(x, y) * y; }
/// A 64-bit count as an int, INT_MAX when larger (it then exceeds every limit it is compared
/// with: the launch's sums and products are formed in 64 bits, never in int).
int saturated(std::int64_t value) { return value > INT_MAX ? INT_MAX : static_cast<int>(value); }
std::int64_t round_up64(std::int64_t x, std::int64_t y) { return ceil_div(x, y) * y; }

int carveout_bytes_at(const SmLimits& sm, std::size_t index) {
  return sm.shared_memory_carveouts_KiB[index] * 1024;
}

/// Smallest legal carveout >= bytes, or -1 when none is large enough.
int legal_carveout_at_least(const SmLimits& sm, int bytes) {
  for (std::size_t i = 0; i < sm.shared_memory_carveouts_KiB.size(); ++i) {
    if (carveout_bytes_at(sm, i) >= bytes) return carveout_bytes_at(sm, i);
  }
  return -1;
}

/// The carveout requested: the default is the SM's capacity; a percentage p gives
/// floor(p * capacity / 100) rounded up to the next legal carveout (cuda_occupancy.h).
int requested_carveout_bytes(const SmLimits& sm, const std::optional<int>& percent) {
  if (!percent) return sm.shared_memory_per_sm_bytes;
  const std::int64_t bytes =
      static_cast<std::int64_t>(*percent) * sm.shared_memory_per_sm_bytes / 100;
  return legal_carveout_at_least(sm, static_cast<int>(bytes));
}

/// Carveout in effect for a block allocating `allocation` bytes: the request when it holds
/// one block, else the smallest legal carveout that does (-1 when none does).
int effective_carveout_bytes(const SmLimits& sm, int requested, int allocation) {
  return requested >= allocation ? requested : legal_carveout_at_least(sm, allocation);
}

/// roundup(static + dynamic + reserved, granularity), formed in 64 bits, INT_MAX when larger.
int shared_memory_allocation(const SmLimits& sm, std::int64_t total_bytes) {
  return saturated(round_up64(total_bytes + sm.reserved_shared_memory_per_block_bytes,
                              sm.shared_memory_allocation_granularity_bytes));
}

int register_blocks(const SmLimits& sm, int registers_per_warp, int warps) {
  if (registers_per_warp == 0) return kUnlimited;
  const int registers_per_subpartition =
      quotient(sm.registers_per_sm, sm.register_file_subpartitions);
  const int warps_per_subpartition = quotient(registers_per_subpartition, registers_per_warp);
  return quotient(warps_per_subpartition * sm.register_file_subpartitions, warps);
}

/// Largest registers per thread for which the register limit still allows `target`
/// blocks of `warps` warps: A <= floor((R_sm / P) / ceil(target * W / P)) and
/// A * roundup(W, warp_granularity) <= R_block, A rounded down to the allocation unit,
/// r = A / warp_size.
int max_registers_for_blocks(const SmLimits& sm, int warps, int target) {
  const int registers_per_subpartition = sm.registers_per_sm / sm.register_file_subpartitions;
  const int warps_needed = divide_round_up(target * warps, sm.register_file_subpartitions);
  int per_warp = registers_per_subpartition / warps_needed;
  per_warp = std::min(per_warp,
                      sm.max_registers_per_block / round_up(warps, sm.warp_allocation_granularity));
  per_warp = round_down(per_warp, sm.register_allocation_unit);
  return std::min(sm.max_registers_per_thread, per_warp / sm.warp_size);
}

// Bounds far past any GPU's limits that keep every int product and sum below 2^31.
constexpr int kMaxThreads = 1 << 24;
constexpr int kMaxRegisters = 1 << 16;
constexpr int kMaxBytes = 1 << 30;

[[gnu::cold, gnu::noinline]] void report_bad_arguments(const SmLimits& sm,
                                                       const KernelLaunch& launch) {
  auto require = [](const char* name, int value, int low, int high) {
    if (value < low || value > high) {
      throw std::invalid_argument(std::string(name) + " must be within " + std::to_string(low) +
                                  ".." + std::to_string(high) + ", got " + std::to_string(value));
    }
  };
  require("threads_per_block", launch.threads_per_block, 1, kMaxThreads);
  require("registers_per_thread", launch.registers_per_thread, 0, kMaxRegisters);
  require("static_shared_memory_bytes", launch.static_shared_memory_bytes, 0, kMaxBytes);
  require("dynamic_shared_memory_bytes", launch.dynamic_shared_memory_bytes, 0, kMaxBytes);
  if (launch.carveout_percent) require("carveout_percent", *launch.carveout_percent, 0, 100);
  if (launch.max_dynamic_shared_memory_bytes) {
    // cudaFuncSetAttribute refuses a maximum above opt-in - static.
    require(
        "max_dynamic_shared_memory_bytes", *launch.max_dynamic_shared_memory_bytes, 0,
        std::max(0, sm.shared_memory_per_block_optin_bytes - launch.static_shared_memory_bytes));
  }
}

/// One branch on the hot path; the cold path names the argument at fault. A negative value
/// cast to unsigned exceeds every bound.
void check_arguments(const SmLimits& sm, const KernelLaunch& launch) {
  // Each test as 0 or 1, or-ed without branches.
  auto above = [](int value, int bound) -> unsigned {
    return static_cast<unsigned>(value) > static_cast<unsigned>(bound);
  };
  const int max_dynamic = launch.max_dynamic_shared_memory_bytes.value_or(0);
  const unsigned bad = static_cast<unsigned>(launch.threads_per_block <= 0) |
                       above(launch.threads_per_block, kMaxThreads) |
                       above(launch.registers_per_thread, kMaxRegisters) |
                       above(launch.static_shared_memory_bytes, kMaxBytes) |
                       above(launch.dynamic_shared_memory_bytes, kMaxBytes) |
                       above(launch.carveout_percent.value_or(0), 100) |
                       above(max_dynamic, kMaxBytes) |
                       (max_dynamic > 0 && max_dynamic > sm.shared_memory_per_block_optin_bytes -
                                                             launch.static_shared_memory_bytes);
  if (bad) [[unlikely]] {
    report_bad_arguments(sm, launch);
  }
}

}  // namespace

std::string limiter_names(unsigned limiters) {
  static const std::pair<unsigned, const char*> kNames[] = {
      {kLimitWarps, "warps"},
      {kLimitRegisters, "registers"},
      {kLimitSharedMemory, "shared_memory"},
      {kLimitBlocks, "blocks"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((limiters & bit) == 0) continue;
    if (!out.empty()) out += "+";
    out += name;
  }
  return out.empty() ? "none" : out;
}

std::string to_string(LaunchFailure failure) {
  switch (failure) {
    case LaunchFailure::kNone:
      return "none";
    case LaunchFailure::kThreadsExceedBlockLimit:
      return "threads per block exceed the GPU's maximum";
    case LaunchFailure::kRegistersExceedThreadLimit:
      return "registers per thread exceed the GPU's maximum";
    case LaunchFailure::kRegistersExceedBlockLimit:
      return "registers per block exceed the GPU's per-block register file";
    case LaunchFailure::kDynamicSharedMemoryExceedsKernelMax:
      return "dynamic shared memory exceeds the kernel's maximum dynamic shared memory";
    case LaunchFailure::kSharedMemoryExceedsBlockLimit:
      return "shared memory per block exceeds the GPU's per-block limit";
    case LaunchFailure::kNoBlockFitsOnSm:
      return "no block fits on an SM (a warp's registers exceed a register-file sub-partition, "
             "or the block's shared memory the largest carveout)";
  }
  return "unknown";
}

std::string to_string(SweepAxis axis) {
  switch (axis) {
    case SweepAxis::kRegisters:
      return "regs";
    case SweepAxis::kSharedMemory:
      return "smem";
    case SweepAxis::kThreads:
      return "threads";
  }
  return "unknown";
}

OccupancyResult compute_occupancy_limits(const SmLimits& sm, const KernelLaunch& launch) {
  check_arguments(sm, launch);
  OccupancyResult result;
  BlockAllocation& allocation = result.allocation;

  // Warps: max_warps_per_sm / ceil(T / warp_size); 0 above the per-block thread limit.
  allocation.warps = divide_round_up(launch.threads_per_block, sm.warp_size);
  result.max_warps = quotient(sm.max_threads_per_sm, sm.warp_size);
  const bool threads_fit = launch.threads_per_block <= sm.max_threads_per_block;
  result.limit.warps = threads_fit ? quotient(result.max_warps, allocation.warps) : 0;

  // Registers, allocated per warp in units; the per-block check rounds warps up to the
  // warp allocation granularity (the hardware assumes all sub-partitions allocate at once).
  allocation.registers_per_warp =
      round_up(launch.registers_per_thread * sm.warp_size, sm.register_allocation_unit);
  allocation.registers_per_block =
      saturated(std::int64_t{allocation.registers_per_warp} * allocation.warps);
  const std::int64_t registers_assumed_per_block =
      std::int64_t{allocation.registers_per_warp} *
      round_up64(allocation.warps, sm.warp_allocation_granularity);
  const bool registers_fit_thread = launch.registers_per_thread <= sm.max_registers_per_thread;
  const bool registers_fit_block = registers_assumed_per_block <= sm.max_registers_per_block &&
                                   allocation.registers_per_block <= sm.max_registers_per_block;
  result.limit.registers =
      registers_fit_thread && registers_fit_block
          ? register_blocks(sm, allocation.registers_per_warp, allocation.warps)
          : 0;

  // Shared memory: static + dynamic + reserved, rounded to the granularity.
  allocation.max_dynamic_shared_memory_bytes = launch.max_dynamic_shared_memory_bytes.value_or(
      std::max(0, sm.shared_memory_per_block_optin_bytes - launch.static_shared_memory_bytes));
  const std::int64_t total_bytes =
      std::int64_t{launch.static_shared_memory_bytes} + launch.dynamic_shared_memory_bytes;
  allocation.shared_memory_bytes = shared_memory_allocation(sm, total_bytes);
  const std::int64_t max_usage = static_cast<std::int64_t>(launch.static_shared_memory_bytes) +
                                 sm.reserved_shared_memory_per_block_bytes +
                                 allocation.max_dynamic_shared_memory_bytes;
  allocation.shared_memory_limit_bytes = (max_usage > sm.shared_memory_per_block_default_bytes
                                              ? sm.shared_memory_per_block_optin_bytes
                                              : sm.shared_memory_per_block_default_bytes) +
                                         sm.reserved_shared_memory_per_block_bytes;
  const bool dynamic_fits =
      launch.dynamic_shared_memory_bytes <= allocation.max_dynamic_shared_memory_bytes;
  const bool shared_memory_fits =
      allocation.shared_memory_bytes <= allocation.shared_memory_limit_bytes;
  result.carveout_requested_bytes = requested_carveout_bytes(sm, launch.carveout_percent);
  const int effective =
      effective_carveout_bytes(sm, result.carveout_requested_bytes, allocation.shared_memory_bytes);
  // No legal carveout holds a block that exceeds the SM: report the request.
  result.carveout_bytes = effective < 0 ? result.carveout_requested_bytes : effective;
  result.limit.shared_memory = !dynamic_fits || !shared_memory_fits  ? 0
                               : allocation.shared_memory_bytes == 0 ? kUnlimited
                               : effective < 0
                                   ? 0
                                   : quotient(effective, allocation.shared_memory_bytes);

  result.limit.blocks = sm.max_blocks_per_sm;

  const LimitBlocks& limit = result.limit;
  result.blocks_per_sm =
      std::min({limit.warps, limit.registers, limit.shared_memory, limit.blocks});
  if (limit.warps == result.blocks_per_sm) result.limiters |= kLimitWarps;
  if (limit.registers == result.blocks_per_sm) result.limiters |= kLimitRegisters;
  if (limit.shared_memory == result.blocks_per_sm) result.limiters |= kLimitSharedMemory;
  if (limit.blocks == result.blocks_per_sm) result.limiters |= kLimitBlocks;

  if (!threads_fit) {
    result.failure = LaunchFailure::kThreadsExceedBlockLimit;
  } else if (!registers_fit_thread) {
    result.failure = LaunchFailure::kRegistersExceedThreadLimit;
  } else if (!registers_fit_block) {
    result.failure = LaunchFailure::kRegistersExceedBlockLimit;
  } else if (!dynamic_fits) {
    // With the default maximum (opt-in - static) the GPU's per-block limit is what is exceeded.
    result.failure = launch.max_dynamic_shared_memory_bytes
                         ? LaunchFailure::kDynamicSharedMemoryExceedsKernelMax
                         : LaunchFailure::kSharedMemoryExceedsBlockLimit;
  } else if (!shared_memory_fits) {
    result.failure = LaunchFailure::kSharedMemoryExceedsBlockLimit;
  } else if (result.blocks_per_sm == 0) {
    result.failure = LaunchFailure::kNoBlockFitsOnSm;
  }

  result.active_warps = result.blocks_per_sm * allocation.warps;
  result.occupancy = static_cast<double>(result.active_warps) / result.max_warps;
  return result;
}

Headroom compute_headroom(const SmLimits& sm, const KernelLaunch& launch,
                          const OccupancyResult& at) {
  Headroom headroom;
  // Headroom is relative to at least one resident block (the formulas divide by it).
  if (!at.launchable() || at.blocks_per_sm < 1) return headroom;
  const int blocks = at.blocks_per_sm;
  const int target = blocks + 1;
  const int warps = at.allocation.warps;
  const LimitBlocks& limit = at.limit;

  // Registers: closed form, see max_registers_for_blocks.
  headroom.registers_addable =
      max_registers_for_blocks(sm, warps, blocks) - launch.registers_per_thread;
  const int others_for_registers = std::min({limit.warps, limit.shared_memory, limit.blocks});
  if (others_for_registers >= target) {
    const int registers = max_registers_for_blocks(sm, warps, target);
    if (registers >= 1) headroom.registers_to_gain_block = launch.registers_per_thread - registers;
  }

  // Shared memory: within one carveout region (allocations sharing one carveout C) the
  // blocks are floor(C / S), non-increasing in S; walk the regions (at most the carveout
  // list) instead of scanning bytes.
  const int granularity = sm.shared_memory_allocation_granularity_bytes;
  const int reserved = sm.reserved_shared_memory_per_block_bytes;
  const int requested = at.carveout_requested_bytes;
  const int limit_bytes = round_down(at.allocation.shared_memory_limit_bytes, granularity);
  const int total_bytes = launch.static_shared_memory_bytes + launch.dynamic_shared_memory_bytes;
  const int current = at.allocation.shared_memory_bytes;

  // Largest allocation reachable from `current` upwards keeping `blocks`.
  int largest = current;
  for (int allocation = std::max(current, granularity);;) {
    const int carveout = effective_carveout_bytes(sm, requested, allocation);
    if (allocation > limit_bytes || carveout < 0 || carveout / allocation < blocks) break;
    const int region_end = std::min(requested >= allocation ? requested : carveout, limit_bytes);
    const int keeps_blocks = round_down(carveout / blocks, granularity);
    largest = std::min(region_end, keeps_blocks);
    if (keeps_blocks < region_end || region_end == limit_bytes) break;
    allocation = region_end + granularity;
  }
  const int largest_total =
      std::min(std::max(0, largest - reserved),
               launch.static_shared_memory_bytes + at.allocation.max_dynamic_shared_memory_bytes);
  headroom.shared_memory_addable_bytes = std::max(0, largest_total - total_bytes);

  // Largest allocation below `current` that gains a block, over every carveout region.
  const int others_for_shared_memory = std::min({limit.warps, limit.registers, limit.blocks});
  if (others_for_shared_memory >= target && current > 0) {
    const int smallest = round_up(reserved, granularity);  // the allocation of 0 bytes
    std::optional<int> best;
    if (smallest == 0) best = 0;  // no reserved bytes: an empty block is unlimited
    auto consider = [&](int region_begin, int region_end, int carveout) {
      const int candidate =
          std::min({region_end, round_down(carveout / target, granularity), current - granularity});
      if (candidate > region_begin && candidate >= std::max(smallest, granularity) &&
          (!best || candidate > *best)) {
        best = candidate;
      }
    };
    if (requested > 0) consider(0, requested, requested);
    int previous = requested;
    for (std::size_t i = 0; i < sm.shared_memory_carveouts_KiB.size(); ++i) {
      const int carveout = carveout_bytes_at(sm, i);
      if (carveout <= requested) continue;
      consider(previous, carveout, carveout);
      previous = carveout;
    }
    if (best) {
      const int kept_total = std::max(0, *best - reserved);
      headroom.shared_memory_to_gain_block_bytes = total_bytes - kept_total;
    }
  }
  return headroom;
}

OccupancyResult compute_occupancy(const SmLimits& sm, const KernelLaunch& launch) {
  OccupancyResult result = compute_occupancy_limits(sm, launch);
  result.headroom = compute_headroom(sm, launch, result);
  return result;
}

std::vector<SweepPoint> sweep_occupancy(const SmLimits& sm, const KernelLaunch& base,
                                        SweepAxis axis) {
  std::vector<SweepPoint> points;
  auto add = [&](int value, const KernelLaunch& launch) {
    const OccupancyResult result = compute_occupancy_limits(sm, launch);
    points.push_back(
        {value, result.blocks_per_sm, result.occupancy, result.limiters, result.failure});
  };
  KernelLaunch launch = base;
  switch (axis) {
    case SweepAxis::kRegisters:
      for (int registers = 1; registers <= sm.max_registers_per_thread; ++registers) {
        launch.registers_per_thread = registers;
        add(registers, launch);
      }
      break;
    case SweepAxis::kSharedMemory: {
      const int end =
          std::max(0, sm.shared_memory_per_block_optin_bytes - base.static_shared_memory_bytes);
      for (int bytes = 0; bytes <= end; bytes += sm.shared_memory_allocation_granularity_bytes) {
        launch.dynamic_shared_memory_bytes = bytes;
        add(bytes, launch);
      }
      break;
    }
    case SweepAxis::kThreads:
      for (int threads = sm.warp_size; threads <= sm.max_threads_per_block;
           threads += sm.warp_size) {
        launch.threads_per_block = threads;
        add(threads, launch);
      }
      break;
  }
  return points;
}

std::vector<SweepStep> staircase(const std::vector<SweepPoint>& points) {
  std::vector<SweepStep> steps;
  for (const SweepPoint& point : points) {
    if (!steps.empty()) {
      SweepStep& last = steps.back();
      // Equal blocks per SM is not enough: along the threads axis the same blocks hold other
      // warps, so a step is a run of equal occupancy too.
      if (last.point.blocks_per_sm == point.blocks_per_sm &&
          last.point.occupancy == point.occupancy && last.point.limiters == point.limiters &&
          last.point.failure == point.failure) {
        last.last_value = point.value;
        continue;
      }
    }
    steps.push_back({point.value, point.value, point});
  }
  return steps;
}

}  // namespace roofcast
