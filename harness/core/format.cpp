#include "harness/core/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace occbench {

std::string format_duration_ms(double ms) {
  if (std::isnan(ms)) return "–";
  double a = std::fabs(ms);
  auto three = [](double v, const char* unit) {
    double x = std::fabs(v);
    return fmt::format(fmt::runtime(x >= 100 ? "{:.1f} {}" : x >= 10 ? "{:.2f} {}" : "{:.3f} {}"), v, unit);
  };
  if (a < 1e-3) return three(ms * 1e6, "ns");
  if (a < 1) return three(ms * 1e3, "µs");
  if (a < 1000) return three(ms, "ms");
  return three(ms / 1e3, "s");
}

std::string format_number(double value, const char* spec) {
  return std::isnan(value) ? std::string("–") : fmt::format(fmt::runtime(spec), value);
}

}  // namespace occbench
