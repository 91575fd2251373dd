#include "harness/sweep/spec.hpp"

#include <fmt/format.h>

namespace occbench {

ConfigError::ConfigError(std::string file, std::string json_path, std::string expected)
    : std::runtime_error(fmt::format("{}: {}: {}", file, json_path, expected)),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      expected_(std::move(expected)) {}

}  // namespace occbench
