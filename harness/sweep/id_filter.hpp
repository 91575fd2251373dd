#pragma once
// --filter: a regular expression searched anywhere in a point's id (as Google Benchmark's
// --benchmark_filter), in RE2's syntax. RE2 matches in time linear in the id whatever the pattern
// and bounds its memory and nesting, so no pattern a user types can hang or crash a command.
#include <memory>
#include <string>

namespace re2 {
class RE2;
}

namespace occbench {

class IdFilter {
 public:
  IdFilter() = default;  // matches every id
  // Throws std::invalid_argument with RE2's reason where `pattern` is not a valid expression.
  explicit IdFilter(const std::string& pattern);
  bool matches(const std::string& id) const;

 private:
  std::shared_ptr<const re2::RE2> expression_;
};

}  // namespace occbench
