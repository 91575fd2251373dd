#pragma once
// A stencil point, for the stencil family's CPU and GPU tests.
#include "harness/family/registry.hpp"

namespace occbench {

inline Params stencil_point(int width, int height, int filter, int bx, int by) {
  Params p;
  p.set("width", width);
  p.set("height", height);
  p.set("filter_size", filter);
  p.set("block_x", bx);
  p.set("block_y", by);
  return p;
}

}  // namespace occbench
