#include "roofcast/gemm.hpp"

#include <charconv>

namespace roofcast::gemm {

std::string_view to_string(SmemLayout layout) {
  switch (layout) {
    case SmemLayout::kPlain:
      return "plain";
    case SmemLayout::kPadded:
      return "padded";
    case SmemLayout::kSwizzled:
      return "swizzled";
  }
  return "unknown";
}

std::string_view to_string(RasterKind kind) {
  switch (kind) {
    case RasterKind::kRowMajor:
      return "row_major";
    case RasterKind::kColumnMajor:
      return "column_major";
    case RasterKind::kGrouped:
      return "grouped";
    case RasterKind::kZOrder:
      return "z_order";
  }
  return "unknown";
}

std::string to_string(const RasterOrder& order) {
  std::string text(to_string(order.kind));
  if (order.kind == RasterKind::kGrouped) text += ":" + std::to_string(order.group);
  return text;
}

std::optional<SmemLayout> parse_smem_layout(std::string_view text) {
  for (SmemLayout layout : {SmemLayout::kPlain, SmemLayout::kPadded, SmemLayout::kSwizzled}) {
    if (text == to_string(layout)) return layout;
  }
  return std::nullopt;
}

std::optional<RasterOrder> parse_raster_order(std::string_view text) {
  for (RasterKind kind : {RasterKind::kRowMajor, RasterKind::kColumnMajor, RasterKind::kZOrder}) {
    if (text == to_string(kind)) return RasterOrder{kind, 1};
  }
  constexpr std::string_view kGroupedPrefix = "grouped:";
  if (text.substr(0, kGroupedPrefix.size()) != kGroupedPrefix) return std::nullopt;
  const std::string_view digits = text.substr(kGroupedPrefix.size());
  int group = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), group);
  if (error != std::errc() || end != digits.data() + digits.size() || group < 1) {
    return std::nullopt;
  }
  return RasterOrder{RasterKind::kGrouped, group};
}

}  // namespace roofcast::gemm
