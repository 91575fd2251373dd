#pragma once
// One point of a sweep: a variant of a family at one set of parameter values, and its id.
#include "harness/family/registry.hpp"

#include <cstddef>
#include <string>

namespace occbench {

struct Point {
  std::size_t index = 0;
  const Family* family = nullptr;
  const Variant* variant = nullptr;
  Params sizes;   // the family's size axes only
  Params params;  // sizes followed by the variant's launch axes
  std::string id; // "family/variant/n=16777216/block_size=256": stable key for resume and compare
};

std::string point_id(const std::string& family, const std::string& variant, const Params& params);

}  // namespace occbench
