#pragma once
// A record's optional figure: the number, or null where there is none (a probe that did not run,
// a ratio without a denominator).
#include <nlohmann/json.hpp>

#include <optional>

namespace occbench {

template <typename Number>
nlohmann::ordered_json optional_number(const std::optional<Number>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace occbench
