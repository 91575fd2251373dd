#include "launch/values.hpp"

#include "harness/sweep/expression.hpp"

#include <fmt/format.h>

#include <cmath>

namespace occbench::launch {

Params expression_values(const Parameters& parameters, const std::map<std::string, double>& sizes) {
  Params values;
  for (const auto& [name, value] : parameters) values.set(name, value);
  for (const auto& [name, value] : sizes) values.set(name, std::llround(value));
  return values;
}

std::int64_t evaluate(const std::string& text, const std::string& where, const Params& values, std::int64_t least, std::int64_t most) {
  std::vector<std::string> names;
  for (const auto& [name, value] : values.items()) names.push_back(name);
  return Expression(text, names, "occbench::launch", where).evaluate_integer(values, least, most);
}

std::string parameters_text(const Parameters& parameters) {
  std::string text;
  for (const auto& [name, value] : parameters) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

}  // namespace occbench::launch
