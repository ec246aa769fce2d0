#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

#include <vector>

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

namespace {

constexpr std::string_view kShort[] = {"",     "naive", "smem", "tile1d", "tile2d", "vec",
                                       "bank", "warp",  "dbuf", "async",  "cluster"};

}  // namespace

std::string kernel_id(const TileConfig& c) {
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

namespace {

/// `text` for an error message: printable ASCII as is, every other byte as \xNN, cut at 64.
std::string shown(std::string_view text) {
  constexpr std::size_t kMaxShown = 64;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      out += static_cast<char>(byte);
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "'";
}

/// A canonical decimal of at most 9 digits (digits only, no sign, no leading zero but "0"
/// itself), as std::to_string writes it; empty for anything else. The tile bounds decide the
/// range later, so that "r04-tile2d-8192x..." is refused as out of range, not as junk.
std::optional<int> decimal(std::string_view text) {
  constexpr std::size_t kMaxDigits = 9;  // below 2^31
  if (text.empty() || text.size() > kMaxDigits || (text.size() > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  int value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    value = value * 10 + (ch - '0');
  }
  return value;
}

/// Whether `part` is `prefix` then `count` canonical decimals joined by 'x' ("w64x32",
/// "128x128x8"); the numbers go to out[0..count).
bool numbers_of(std::string_view part, std::string_view prefix, int* out, int count) {
  if (part.substr(0, prefix.size()) != prefix) return false;
  part.remove_prefix(prefix.size());
  for (int i = 0; i < count; ++i) {
    const std::size_t end = i + 1 < count ? part.find('x') : part.size();
    if (end == std::string_view::npos) return false;
    const std::optional<int> value = decimal(part.substr(0, end));
    if (!value) return false;
    out[i] = *value;
    part.remove_prefix(i + 1 < count ? end + 1 : end);
  }
  return part.empty();
}

/// `part` is `prefix` then one canonical decimal: the number, or empty.
std::optional<int> number_after(std::string_view part, std::string_view prefix) {
  if (part.size() <= prefix.size() || part.substr(0, prefix.size()) != prefix) return std::nullopt;
  return decimal(part.substr(prefix.size()));
}

bool refuse(std::string* problem, const std::string& why) {
  if (problem != nullptr) *problem = why;
  return false;
}

/// The config of `id`'s parts, unchecked against the tile bounds and rules; false (and
/// `problem`) when a part is missing, out of place or not what kernel_id writes.
bool parse_parts(std::string_view id, TileConfig& c, std::string* problem) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = id.find('-', start);
    parts.push_back(id.substr(start, end == std::string_view::npos ? id.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  std::size_t next = 0;
  const auto at_end = [&] { return next >= parts.size(); };
  const auto missing = [&](const char* what) {
    return refuse(problem, std::string("missing ") + what + " after " +
                               shown(id.substr(0, parts[next - 1].data() + parts[next - 1].size() -
                                                      id.data())));
  };
  // rNN: r01..r09, r10.
  const std::string_view rung_part = parts[next++];
  const std::optional<int> rung =
      rung_part.size() == 3 && rung_part[0] == 'r' && rung_part[1] >= '0' && rung_part[1] <= '9' &&
              rung_part[2] >= '0' && rung_part[2] <= '9'
          ? std::optional<int>((rung_part[1] - '0') * 10 + (rung_part[2] - '0'))
          : std::nullopt;
  if (!rung || *rung < 1 || *rung > gemm::kRungCount) {
    return refuse(problem, "the id starts with " + shown(rung_part) +
                               ", not the rung r01..r10 (e.g. 'r07-warp-...')");
  }
  c.rung = *rung;
  if (at_end()) return missing("the rung's short name");
  const std::string_view name = parts[next++];
  if (name != kShort[c.rung]) {
    return refuse(problem, "rung " + std::to_string(c.rung) + " is '" +
                               std::string(kShort[c.rung]) + "', not " + shown(name));
  }
  if (at_end()) return missing("the block tile BMxBNxBK");
  int block[3] = {0, 0, 0};
  if (!numbers_of(parts[next], "", block, 3)) {
    return refuse(problem, shown(parts[next]) + " is not the block tile BMxBNxBK (e.g. 128x128x8)");
  }
  ++next;
  c.bm = block[0];
  c.bn = block[1];
  c.bk = block[2];
  if (at_end()) return missing("the thread tile tTMxTN");
  int pair[2] = {0, 0};
  if (!parts[next].empty() && parts[next][0] == 'w') {
    if (!numbers_of(parts[next], "w", pair, 2)) {
      return refuse(problem, shown(parts[next]) + " is not the warp tile wWMxWN (e.g. w64x32)");
    }
    if (pair[0] == 0) {
      return refuse(problem, "warp tile " + shown(parts[next]) +
                                 ": WM is > 0 when written (kernel_id leaves out WM = 0)");
    }
    c.wm = pair[0];
    c.wn = pair[1];
    ++next;
    if (at_end()) return missing("the thread tile tTMxTN");
  }
  if (!numbers_of(parts[next], "t", pair, 2)) {
    return refuse(problem, shown(parts[next]) + " is not the thread tile tTMxTN (e.g. t8x8)");
  }
  c.tm = pair[0];
  c.tn = pair[1];
  ++next;
  if (at_end()) return missing("the threads per block (e.g. 256t)");
  {
    const std::string_view part = parts[next];
    const std::optional<int> threads = !part.empty() && part.back() == 't'
                                           ? decimal(part.substr(0, part.size() - 1))
                                           : std::nullopt;
    if (!threads) {
      return refuse(problem, shown(part) + " is not the threads per block (e.g. 256t)");
    }
    c.threads = *threads;
    ++next;
  }
  // The optional parts, each at most once, in kernel_id's order, each only when not the default.
  c.stages = 1;
  c.vector_width = 1;
  c.layout = SmemLayout::kPlain;
  c.cluster = 1;
  enum Optional : int { kNone = 0, kStages = 1, kVector = 2, kLayout = 3, kCluster = 4 };
  int last = kNone;
  for (; !at_end(); ++next) {
    const std::string_view part = parts[next];
    int kind = kNone;
    std::optional<int> value;
    if ((value = number_after(part, "s"))) {
      kind = kStages;
      c.stages = *value;
    } else if ((value = number_after(part, "v"))) {
      kind = kVector;
      c.vector_width = *value;
    } else if ((value = number_after(part, "c"))) {
      kind = kCluster;
      c.cluster = *value;
    } else if (const std::optional<SmemLayout> layout = gemm::parse_smem_layout(part)) {
      if (*layout == SmemLayout::kPlain) {
        return refuse(problem, "'plain' is the default layout: kernel_id leaves it out");
      }
      kind = kLayout;
      c.layout = *layout;
    } else {
      return refuse(problem, shown(part) +
                                 " is none of the optional parts sS (stages), vV (vector "
                                 "width), padded or swizzled (layout), cC (cluster)");
    }
    if (kind <= last) {
      return refuse(problem, shown(part) +
                                 " is out of place: the optional parts come at most once, in "
                                 "the order sS, vV, layout, cC");
    }
    if (value && *value == 1) {
      return refuse(problem, shown(part) + ": 1 is the default, which kernel_id leaves out");
    }
    last = kind;
  }
  return true;
}

}  // namespace

std::optional<TileConfig> parse_kernel_id(std::string_view id, std::string* problem) {
  TileConfig c{};
  if (!parse_parts(id, c, problem)) return std::nullopt;
  if (const char* out_of_range = gemm::tile_bounds_problem(c)) {
    refuse(problem, std::string("a number is out of range: ") + out_of_range);
    return std::nullopt;
  }
  if (const char* rule = violated_rule(c)) {
    refuse(problem,
           "the config breaks a tile rule of rung " + std::to_string(c.rung) + ": " + rule);
    return std::nullopt;
  }
  // Every part was checked to be the canonical text of its field; this holds by construction.
  if (kernel_id(c) != id) {
    refuse(problem, "not in kernel_id's canonical form (it writes " + shown(kernel_id(c)) + ")");
    return std::nullopt;
  }
  return c;
}

std::size_t find_kernel(std::string_view id) {
  for (std::size_t i = 0; i < kRegistrySize; ++i) {
    if (kernel_id(kRegistry[i].config) == id) return i;
  }
  return kRegistrySize;
}

std::size_t find_compiled_kernel(std::string_view id) {
  for (std::size_t i = 0; i < kCompiledSize; ++i) {
    if (kernel_id(compiled_config(i)) == id) return i;
  }
  return kCompiledSize;
}

}  // namespace roofcast::kernels
