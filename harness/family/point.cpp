#include "harness/family/point.hpp"

#include <fmt/format.h>

namespace occbench {

std::string point_id(const std::string& family, const std::string& variant, const Params& params) {
  std::string id = family + "/" + variant;
  for (const auto& item : params.items()) id += fmt::format("/{}={}", item.first, params.text(item.first));
  return id;
}

}  // namespace occbench
