#include "roofcast/gemm_json.hpp"

#include <string>

namespace roofcast::gemm {

nlohmann::json config_json(const TileConfig& c) {
  return {{"rung", c.rung},      {"layout", std::string(to_string(c.layout))},
          {"bm", c.bm},          {"bn", c.bn},
          {"bk", c.bk},          {"tm", c.tm},
          {"tn", c.tn},          {"wm", c.wm},
          {"wn", c.wn},          {"threads", c.threads},
          {"stages", c.stages},  {"vector_width", c.vector_width},
          {"cluster", c.cluster}};
}

nlohmann::json problem_json(const Problem& p) {
  return {{"m", p.m}, {"n", p.n}, {"k", p.k}, {"flops", p.flops()}};
}

}  // namespace roofcast::gemm
