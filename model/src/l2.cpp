#include "roofcast/l2.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace roofcast {
namespace {

[[gnu::cold, gnu::noinline]] void throw_bad_input(const char* what) {
  throw std::invalid_argument(std::string("L2 model: ") + what);
}

void check(const L2Input& in) {
  const bool bad = in.tiles_m < 1 || in.tiles_n < 1 || in.resident_blocks < 1 || in.bm < 1 ||
                   in.bn < 1 || !(in.a_panel_bytes >= 0) || !(in.b_panel_bytes >= 0) ||
                   !(in.l2_bytes > 0) || in.slabs_in_flight < 1 ||
                   (in.raster.kind == gemm::RasterKind::kGrouped && in.raster.group < 1);
  if (bad) [[unlikely]] {
    throw_bad_input(
        "tiles, resident blocks, BM, BN, slabs in flight, L2 bytes and the group size must be "
        "positive");
  }
}

/// Rows per group of a grouped order; row-major is g = 1 and column-major g = tiles_m.
double group_rows(std::int64_t tiles_m, const gemm::RasterOrder& raster) {
  switch (raster.kind) {
    case gemm::RasterKind::kRowMajor:
      return 1;
    case gemm::RasterKind::kColumnMajor:
      return static_cast<double>(tiles_m);
    case gemm::RasterKind::kGrouped:
      return static_cast<double>(std::min<std::int64_t>(raster.group, tiles_m));
    case gemm::RasterKind::kZOrder:
      break;
  }
  return 1;
}

/// Bytes of C one block writes: BM * BN * 4 (FP32). C stores allocate in L2 (write-back), so
/// they take room between two uses of an operand panel.
double c_tile_bytes(const L2Input& in) {
  return static_cast<double>(in.bm) * static_cast<double>(in.bn) * 4.0;
}

/// Room for operand reuse: the L2 over kL2CopiesOfSharedData (see the header).
double effective_l2_bytes(const L2Input& in) { return in.l2_bytes / kL2CopiesOfSharedData; }

/// Share of lines that survive `distance_bytes` of distinct data in `capacity_bytes`
/// (set_lru_survival in the header).
double survive(double distance_bytes, double capacity_bytes) {
  return set_lru_survival(distance_bytes / capacity_bytes);
}

/// The parts every reuse shares: the wave, its in-flight retention and the grid.
struct ReuseContext {
  const L2Input* in = nullptr;
  double grid = 0;
  double waves = 0;
  double wave = 0;
  double in_flight_retention = 1;
};

/// Probability that a panel requested again `gap` ids later is still in L2 (see the header).
double reuse_hit(const ReuseContext& ctx, double gap) {
  const double straddle =
      ctx.grid > gap ? std::min(1.0, (ctx.waves - 1) * gap / (ctx.grid - gap)) : 1.0;
  double survive_share = 1;
  if (straddle > 0) {
    const WindowFootprint f =
        window_footprint(ctx.in->tiles_m, ctx.in->tiles_n, ctx.in->raster, std::max(gap, ctx.wave));
    const double blocks = std::max(gap, ctx.wave);
    const double distance = f.rows * ctx.in->a_panel_bytes + f.cols * ctx.in->b_panel_bytes +
                            blocks * c_tile_bytes(*ctx.in);
    survive_share = survive(distance, effective_l2_bytes(*ctx.in));
  }
  return (1 - straddle) * ctx.in_flight_retention + straddle * survive_share;
}

struct Hits {
  double a = 0;
  double b = 0;
};

Hits grouped_hits(const ReuseContext& ctx) {
  const L2Input& in = *ctx.in;
  const double tm = static_cast<double>(in.tiles_m);
  const double tn = static_cast<double>(in.tiles_n);
  const std::int64_t g = static_cast<std::int64_t>(group_rows(in.tiles_m, in.raster));
  const std::int64_t full_groups = in.tiles_m / g;
  const std::int64_t rest = in.tiles_m % g;
  const double groups = static_cast<double>(full_groups + (rest > 0 ? 1 : 0));
  const double gd = static_cast<double>(g);
  Hits h;
  // A row panels: Tn - 1 reuses per row, `height of its group` ids apart.
  h.a = static_cast<double>(full_groups) * gd * (tn - 1) * reuse_hit(ctx, gd);
  if (rest > 0) {
    h.a += static_cast<double>(rest) * (tn - 1) * reuse_hit(ctx, static_cast<double>(rest));
  }
  // B column panels: consecutive ids inside a group, one long gap between groups.
  h.b = tn * (tm - groups) * reuse_hit(ctx, 1);
  if (groups > 1) {
    const double between = gd * tn - gd + 1;
    const double full_between = static_cast<double>(full_groups) - 1;  // full to full
    h.b += tn * full_between * reuse_hit(ctx, between);
    if (rest > 0) {  // into the shorter last group: the gap shrinks along the columns
      const double into_rest = between - (tn - 1) * (gd - static_cast<double>(rest)) / 2;
      h.b += tn * reuse_hit(ctx, into_rest);
    }
  }
  return h;
}

/// Steps of t trailing one bits among L increments 0..L-1: floor((L + 2^t) / 2^(t+1)).
double steps_with_trailing_ones(std::int64_t increments, int t) {
  return static_cast<double>((increments + (std::int64_t{1} << t)) >> (t + 1));
}

Hits z_order_hits(const ReuseContext& ctx) {
  const L2Input& in = *ctx.in;
  const double tm = static_cast<double>(in.tiles_m);
  const double tn = static_cast<double>(in.tiles_n);
  const std::int64_t longest = std::max(in.tiles_m, in.tiles_n);
  Hits h;
  for (int t = 0; t < 62 && (std::int64_t{1} << t) < longest; ++t) {
    const double side = std::ldexp(1.0, t + 1);  // the enclosing aligned square
    const double density = std::min(1.0, tm / side) * std::min(1.0, tn / side);
    const double morton_step = (2 * std::ldexp(1.0, 2 * t) + 1) / 3;
    const double a_steps = tm * steps_with_trailing_ones(in.tiles_n - 1, t);
    const double b_steps = tn * steps_with_trailing_ones(in.tiles_m - 1, t);
    if (a_steps > 0) h.a += a_steps * reuse_hit(ctx, std::max(1.0, morton_step * density));
    if (b_steps > 0) h.b += b_steps * reuse_hit(ctx, std::max(1.0, 2 * morton_step * density));
  }
  return h;
}

}  // namespace

std::string_view to_string(L2Model model) {
  return model == L2Model::kPublished ? "published" : "roofcast";
}

std::optional<L2Model> parse_l2_model(std::string_view text) {
  if (text == "published") return L2Model::kPublished;
  if (text == "roofcast") return L2Model::kRoofcast;
  return std::nullopt;
}

WindowFootprint window_footprint(std::int64_t tiles_m, std::int64_t tiles_n,
                                 const gemm::RasterOrder& raster, double window) {
  const double tm = static_cast<double>(tiles_m);
  const double tn = static_cast<double>(tiles_n);
  const double x = std::clamp(window, 1.0, tm * tn);
  WindowFootprint f;
  if (raster.kind == gemm::RasterKind::kZOrder) {
    f.rows = std::min(tm, std::sqrt(x));
    f.cols = std::min(tn, x / f.rows);
    f.rows = std::min(tm, x / f.cols);
    return f;
  }
  const double g = group_rows(tiles_m, raster);
  const double per_group = g * tn;
  f.rows = std::min(tm, std::min(x, g) * (1 + (x - 1) / per_group));
  f.cols = std::min(tn, 1 + (x - 1) / g);
  return f;
}

L2Result published_hit_rate(const L2Input& in) {
  check(in);
  L2Result r;
  r.model = L2Model::kPublished;
  const WindowFootprint f =
      window_footprint(in.tiles_m, in.tiles_n, in.raster, static_cast<double>(in.resident_blocks));
  r.wave_rows = f.rows;
  r.wave_cols = f.cols;
  const double area = f.rows * f.cols;
  r.hit_rate = 1 - area / (area + f.rows * in.bn + f.cols * in.bm);
  return r;
}

L2Result roofcast_hit_rate(const L2Input& in) {
  check(in);
  L2Result r;
  r.model = L2Model::kRoofcast;
  const double grid = static_cast<double>(in.tiles_m) * static_cast<double>(in.tiles_n);
  const double wave = std::min(static_cast<double>(in.resident_blocks), grid);
  const WindowFootprint f = window_footprint(in.tiles_m, in.tiles_n, in.raster, wave);
  r.wave_rows = f.rows;
  r.wave_cols = f.cols;
  r.in_flight_bytes = (f.rows * in.a_slab_bytes + f.cols * in.b_slab_bytes) * in.slabs_in_flight;
  const double capacity = effective_l2_bytes(in);
  r.in_flight_retention = survive(r.in_flight_bytes, capacity);
  r.wave_footprint_bytes =
      f.rows * in.a_panel_bytes + f.cols * in.b_panel_bytes + wave * c_tile_bytes(in);
  r.cross_wave_retention = survive(r.wave_footprint_bytes, capacity);

  ReuseContext ctx;
  ctx.in = &in;
  ctx.grid = grid;
  ctx.wave = wave;
  ctx.waves = std::ceil(grid / wave);
  ctx.in_flight_retention = r.in_flight_retention;
  const Hits hits =
      in.raster.kind == gemm::RasterKind::kZOrder ? z_order_hits(ctx) : grouped_hits(ctx);
  r.a_hit_rate = hits.a / grid;
  r.b_hit_rate = hits.b / grid;
  const double weight = in.a_panel_bytes + in.b_panel_bytes;
  r.hit_rate = weight > 0
                   ? (r.a_hit_rate * in.a_panel_bytes + r.b_hit_rate * in.b_panel_bytes) / weight
                   : 0.0;
  return r;
}

double set_lru_survival(double distance_over_capacity) {
  // P(Poisson(lambda) < a) = exp(-lambda) * sum_{j < a} lambda^j / j!, lambda = a * x.
  const double lambda = kL2Ways * std::max(0.0, distance_over_capacity);
  double term = std::exp(-lambda);
  double sum = term;
  for (int j = 1; j < kL2Ways; ++j) {
    term *= lambda / j;
    sum += term;
  }
  return std::clamp(sum, 0.0, 1.0);
}

L2Result l2_hit_rate(const L2Input& in, L2Model model) {
  return model == L2Model::kPublished ? published_hit_rate(in) : roofcast_hit_rate(in);
}

double kernel_sector_hit_rate(double operand_hit_rate, double operand_bytes, double c_write_bytes,
                              double c_read_bytes, double local_l2_bytes) {
  const double total = operand_bytes + c_write_bytes + c_read_bytes + std::max(0.0, local_l2_bytes);
  const double misses =
      kMissLookupsPerDramSector * ((1 - operand_hit_rate) * operand_bytes + c_read_bytes);
  return total > 0 ? std::clamp(1 - misses / total, 0.0, 1.0) : 0.0;
}

}  // namespace roofcast
