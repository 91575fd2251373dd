#include "harness/sweep/id_filter.hpp"

#include <re2/re2.h>

#include <stdexcept>

namespace occbench {

IdFilter::IdFilter(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);  // the caller says what is wrong, naming the flag
  auto expression = std::make_shared<const re2::RE2>(pattern, options);
  if (!expression->ok()) throw std::invalid_argument(expression->error());
  expression_ = std::move(expression);
}

bool IdFilter::matches(const std::string& id) const { return !expression_ || re2::RE2::PartialMatch(id, *expression_); }

}  // namespace occbench
