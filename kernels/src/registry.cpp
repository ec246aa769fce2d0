#include "roofcast/kernels/registry.hpp"

namespace roofcast::kernels {

// Every registry entry satisfies its rung's rules (the kernels static_assert the same).
static_assert(
    [] {
      for (const RegistryEntry& e : kRegistry) {
        if (violated_rule(e.config) != nullptr) return false;
      }
      return true;
    }(),
    "a kRegistry entry breaks its rung's tile rules: see violated_rule()");

std::string_view rung_name(int rung) {
  switch (rung) {
    case 1:
      return "naive";
    case 2:
      return "shared-memory tiling";
    case 3:
      return "1D register thread tiling";
    case 4:
      return "2D register thread tiling";
    case 5:
      return "float4 loads, A transposed";
    case 6:
      return "bank-conflict-free layout";
    case 7:
      return "warp tiling";
    case 8:
      return "double buffering";
    case 9:
      return "cp.async pipeline";
    case 10:
      return "Hopper thread-block cluster";
  }
  return "unknown rung";
}

std::string kernel_id(const TileConfig& c) {
  static constexpr std::string_view kShort[] = {"",     "naive", "smem", "tile1d", "tile2d", "vec",
                                                "bank", "warp",  "dbuf", "async",  "cluster"};
  const int rung = c.rung >= 1 && c.rung <= gemm::kRungCount ? c.rung : 0;
  std::string id = (c.rung < 10 ? "r0" : "r") + std::to_string(c.rung) + "-" +
                   std::string(kShort[rung]) + "-" + std::to_string(c.bm) + "x" +
                   std::to_string(c.bn) + "x" + std::to_string(c.bk);
  if (c.wm > 0) id += "-w" + std::to_string(c.wm) + "x" + std::to_string(c.wn);
  id += "-t" + std::to_string(c.tm) + "x" + std::to_string(c.tn);
  id += "-" + std::to_string(c.threads) + "t";
  if (c.stages != 1) id += "-s" + std::to_string(c.stages);
  if (c.vector_width != 1) id += "-v" + std::to_string(c.vector_width);
  if (c.layout != SmemLayout::kPlain) id += "-" + std::string(gemm::to_string(c.layout));
  if (c.cluster != 1) id += "-c" + std::to_string(c.cluster);
  return id;
}

std::size_t find_kernel(std::string_view id) {
  for (std::size_t i = 0; i < kRegistrySize; ++i) {
    if (kernel_id(kRegistry[i].config) == id) return i;
  }
  return kRegistrySize;
}

}  // namespace roofcast::kernels
