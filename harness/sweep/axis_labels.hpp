#pragma once
// A config's labelled axes (harness/family/registry.hpp's ParamLabel): launch axes of a kernel of
// one's own whose values are strings, floats or booleans, as Kernel Tuner's parameters may be.
#include "harness/sweep/source_config.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace occbench {

// Each launch axis of $.axes or $.variant_axes whose values are not all integers, with every value
// it is given there or in $.reference.params, in the order first given. A value must be a string
// (non-empty; no '/', quote, backslash or line break: it is part of point ids), a number or
// true/false. nullptr where the config has none.
std::shared_ptr<const AxisLabels> parse_axis_labels(const Reader& r, const json& doc, const SourceAxes& axes);
// A config value's position among its axis's labels, or nullopt.
std::optional<std::int64_t> label_position(const std::vector<ParamLabel>& labels, const json& value);

}  // namespace occbench
