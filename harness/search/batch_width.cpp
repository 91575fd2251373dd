#include "harness/search/batch_width.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace occbench {

void TimesTold::add(const PointTimes& times) {
  slowest_compile_s_ = std::max(slowest_compile_s_, times.compile_s);
  measure_s_.push_back(times.measure_s);
}

double TimesTold::median_measure_s() const {
  if (measure_s_.empty()) return 0;
  std::vector<double> sorted = measure_s_;
  std::size_t half = sorted.size() / 2;
  std::nth_element(sorted.begin(), sorted.begin() + long(half), sorted.end());
  double upper = sorted[half];
  if (sorted.size() % 2) return upper;
  return (*std::max_element(sorted.begin(), sorted.begin() + long(half)) + upper) / 2;
}

namespace {

// ceil(c / m), 1 before anything is measured or where nothing costs compiling, at most `most`.
std::size_t width_for_compiling(const BatchWidth& w, std::size_t most) {
  if (w.told == 0 || w.slowest_compile_s <= 0) return 1;
  // Less a hair: equal times (0.1 s ten times over) must not round 10 up to 11.
  double wanted = w.median_measure_s > 0 ? std::ceil(w.slowest_compile_s / w.median_measure_s - 1e-9) : double(most);
  return std::size_t(std::clamp(wanted, 1.0, double(most)));
}

}  // namespace

BatchWidth batch_width(const BatchWidthRule& rule, const TimesTold& times, std::size_t free_room) {
  BatchWidth out;
  std::size_t most = std::max<std::size_t>(1, rule.most);
  out.told = times.told();
  out.slowest_compile_s = times.slowest_compile_s();
  out.median_measure_s = times.median_measure_s();
  out.for_compiling = width_for_compiling(out, most);
  out.width = std::max(out.for_compiling, std::min(most, free_room));
  return out;
}

std::string describe(const BatchWidth& width, const BatchWidthRule& rule) {
  std::string what = width.width == 1 ? std::string("one point at a time") : fmt::format("batches of {}", width.width);
  if (width.width > width.for_compiling) return what + ": the strategy's next points do not depend on results";
  if (width.told == 0) return what + ": nothing measured yet";
  return fmt::format("{}: the slowest kernel so far compiled in {:.3g} s, a point measures in {:.3g} s (median of {}), at most {}", what,
                     width.slowest_compile_s, width.median_measure_s, width.told, std::max<std::size_t>(1, rule.most));
}

}  // namespace occbench
