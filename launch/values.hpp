#pragma once
// The values a declaration's expressions read (its parameters and the problem's sizes), the
// evaluation of those expressions, and the parameters as the log and a capture write them: one
// piece for the launch (launch.cpp) and the capture (capture.cpp).
#include "harness/family/registry.hpp"

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace occbench::launch {

using Parameters = std::vector<std::pair<std::string, std::int64_t>>;

// The parameters and the sizes (each size rounded to a whole number), by name.
Params expression_values(const Parameters& parameters, const std::map<std::string, double>& sizes);

// `text` over `values`, a whole number in [least, most]; else ConfigError naming occbench::launch
// and `where` ("grid[0]", "arguments.C.count").
std::int64_t evaluate(const std::string& text, const std::string& where, const Params& values, std::int64_t least,
                      std::int64_t most = INT_MAX);

// "BLOCK=256 TILE=4".
std::string parameters_text(const Parameters& parameters);

}  // namespace occbench::launch
