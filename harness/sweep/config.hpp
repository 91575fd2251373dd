#pragma once
// Parses a sweep config and checks it against the registry before anything runs. Every refusal
// is a ConfigError naming the file, the JSON path and what was expected.
#include "harness/family/registry.hpp"
#include "harness/sweep/spec.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace occbench {

// A sweep's name names its result files (NAME-GPU-TIME.json): at most this long.
inline constexpr std::size_t kMaxSweepNameLength = 128;

SweepSpec parse_sweep_file(const std::string& path, const Registry& registry);
SweepSpec parse_sweep_text(const std::string& text, const std::string& source, const Registry& registry);
SweepSpec parse_sweep_json(const nlohmann::ordered_json& doc, const std::string& source, const Registry& registry);
// "unknown variant 'x' of family 'f'; valid variants: a, b": for the config's list and --variants.
std::string unknown_variant_message(const std::string& name, const Family& family);

}  // namespace occbench
