#include "harness/sweep/spec.hpp"

#include "harness/family/host_hooks.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace occbench {

bool Restriction::allows(const Params& params) const {
  for (const auto& name : uses)
    if (!params.has(name)) return true;
  if (!host_condition.empty()) {
    const auto& conditions = host_hooks().conditions;
    auto found = conditions.find(host_condition);
    if (found == conditions.end())
      throw ConfigError(file, path + ".host", fmt::format("the condition '{}' handed over in memory", host_condition));
    return found->second(params);
  }
  double value = expression.evaluate(params);
  // A condition is true or false: a value such as 16 (from "block_size * 2") or inf (from "1/0")
  // is a mistake in the config, not a point kept.
  if (value != 0 && value != 1)
    throw ConfigError(file, path, fmt::format("the restriction \"{}\" gives {} at {}; expected a condition, true or "
                                                           "false, such as \"block_size * items <= 1024\"",
                                                           text, value, params.to_string()));
  return value == 1;
}

void check_size_combinations(const nlohmann::ordered_json& sizes, const std::string& file) {
  if (!sizes.is_object()) return;  // its own check says what it should be
  std::uint64_t combinations = 1;
  for (const auto& item : sizes.items()) {
    std::uint64_t count = item.value().is_array() ? std::max<std::size_t>(item.value().size(), 1) : 1;
    if (__builtin_mul_overflow(combinations, count, &combinations) || combinations > kSizeCombinationsAtMost)
      throw ConfigError(file, "$.sizes",
                        fmt::format("at most {} combinations of sizes (each is a problem of its own, with its buffers and "
                                    "reference); these lists combine to more: sweep fewer sizes, or run them as separate configs",
                                    kSizeCombinationsAtMost));
  }
}

}  // namespace occbench
