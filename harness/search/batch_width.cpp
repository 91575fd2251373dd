#include "harness/search/batch_width.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace occbench {

namespace {

// ceil(c / m), 1 before anything is measured or where nothing costs compiling, at most `most`.
std::size_t width_for_compiling(const PointTimes& mean, std::size_t told, std::size_t most) {
  if (told == 0 || mean.compile_s <= 0) return 1;
  // Less a hair: means of equal times (0.1 s ten times over) must not round 10 up to 11.
  double wanted = mean.measure_s > 0 ? std::ceil(mean.compile_s / mean.measure_s - 1e-9) : double(most);
  return std::size_t(std::clamp(wanted, 1.0, double(most)));
}

}  // namespace

BatchWidth batch_width(const BatchWidthRule& rule, const PointTimes& sum, std::size_t told, std::size_t free_room) {
  BatchWidth out;
  out.told = told;
  std::size_t most = std::max<std::size_t>(1, rule.most);
  if (told > 0) out.mean = {sum.compile_s / double(told), sum.measure_s / double(told)};
  out.for_compiling = width_for_compiling(out.mean, told, most);
  out.width = std::max(out.for_compiling, std::min(most, free_room));
  return out;
}

std::string describe(const BatchWidth& width, const BatchWidthRule& rule) {
  std::string what = width.width == 1 ? std::string("one point at a time") : fmt::format("batches of {}", width.width);
  if (width.width > width.for_compiling) return what + ": the strategy's next points do not depend on results";
  if (width.told == 0) return what + ": nothing measured yet";
  return fmt::format("{}: compiling {:.3g} s a kernel, measuring {:.3g} s a point (means over {} point(s)), at most {}", what,
                     width.mean.compile_s, width.mean.measure_s, width.told, std::max<std::size_t>(1, rule.most));
}

}  // namespace occbench
