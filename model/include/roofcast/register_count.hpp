// The one register count of roofcast: registers per thread from what a thread keeps live. Both
// estimates use it: the model's estimate_registers (registers.hpp, a config's need when ptxas has
// not counted it) and the tile rules' launch-bounds estimates (kernels/rules_rungs_*.hpp: the
// __launch_bounds__ minimum blocks and the rule that a config fits the register file). They
// differ only in what they count as live and in `scalar_registers`, each a named constant beside
// its caller; docs/model.md#register-estimate. C++17: the CUDA ladder includes it.
#pragma once

namespace roofcast {

/// What one thread keeps in registers at the peak of its K loop, 32-bit registers.
struct LiveRegisters {
  int accumulators = 0;       // TM * TN outputs
  int fragments = 0;          // A and B fragment values of the k steps live at once
  int staging = 0;            // global values held across the compute phase (prefetch)
  int transient_staging = 0;  // global values live only before the compute phase
  int pipeline = 0;           // stage index and shared offsets of a multi-stage pipeline
};

/// accumulators + max(fragments, transient_staging) + staging + scalar_registers + pipeline.
/// scalar_registers: addresses, sizes, indices, predicates, loop state and scalars.
constexpr int register_count(const LiveRegisters& live, int scalar_registers) {
  const int fragments_or_transient =
      live.fragments > live.transient_staging ? live.fragments : live.transient_staging;
  return live.accumulators + fragments_or_transient + live.staging + scalar_registers +
         live.pipeline;
}

}  // namespace roofcast
