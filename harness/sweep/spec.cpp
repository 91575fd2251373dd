#include "harness/sweep/spec.hpp"

#include <fmt/format.h>

namespace occbench {

ConfigError::ConfigError(std::string file, std::string json_path, std::string expected)
    : std::runtime_error(fmt::format("{}: {}: {}", file, json_path, expected)),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      expected_(std::move(expected)) {}

bool Restriction::allows(const Params& params) const {
  for (const auto& name : uses)
    if (!params.has(name)) return true;
  return expression.evaluate(params) != 0;
}

}  // namespace occbench
