#pragma once
// Arithmetic over a point's parameters, written in a config ("ceil_div(n, block_size)",
// "8 * n"): parsed by muparser (a maintained library, Debian libmuparser-dev), checked when the
// config is read so that a typo is refused before anything runs.
#include "harness/family/registry.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace occbench {

// Functions beyond muparser's own (min, max, abs, sqrt, log2, ...): ceil(x), floor(x),
// ceil_div(a, b) = ceil(a / b), and the operator a % b (remainder).
class Expression {
 public:
  Expression() = default;
  // `variables`: the names the expression may use. Throws ConfigError(file, json_path, ...) naming
  // the expression and the unknown or invalid part; an assignment ("a = 1") or a list ("a, b") is
  // refused: an expression computes one value.
  Expression(const std::string& text, const std::vector<std::string>& variables, const std::string& file,
             const std::string& json_path);

  const std::string& text() const;
  bool empty() const { return !impl_; }
  // The variable names the expression uses, of those it was given.
  std::vector<std::string> used_variables() const;
  // Every variable must be in `params`; throws ConfigError naming the expression otherwise.
  double evaluate(const Params& params) const;
  // The value, which must be a whole number in [min, max]; else ConfigError naming the
  // expression, the config location and the value.
  std::int64_t evaluate_integer(const Params& params, std::int64_t min, std::int64_t max) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// muparser's version ("2.3.3 (Release)"), for occbench doctor.
std::string expression_library_version();

}  // namespace occbench
