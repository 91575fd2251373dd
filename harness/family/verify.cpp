#include "harness/family/verify.hpp"

#include "harness/core/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace occbench {

namespace {

template <typename Ref>
Verification compare_range(const float* out, const Ref* ref, std::size_t begin, std::size_t end, double tolerance,
                           double abs_floor, const std::size_t* positions) {
  Verification v;
  for (std::size_t k = begin; k < end; ++k) {
    double expected = double(ref[k]);
    double got = double(out[k]);
    double scale = std::max(std::fabs(expected), abs_floor);
    double error = std::fabs(got - expected) / (scale > 0 ? scale : 1.0);
    bool bad = !std::isfinite(got) || !(error <= tolerance);
    if (std::isfinite(error)) v.max_rel_error = std::max(v.max_rel_error, error);
    else v.max_rel_error = INFINITY;
    if (bad) {
      if (v.mismatches == 0)
        v.detail = fmt::format("first at element {}: got {:.9g}, expected {:.9g}", positions ? positions[k] : k, got, expected);
      ++v.mismatches;
    }
  }
  return v;
}

// The ranges on all host cores, merged in order: the first mismatch is the lowest range's.
template <typename Ref>
Verification compare(const float* out, const Ref* ref, std::size_t count, double tolerance, double abs_floor,
                     const std::size_t* positions) {
  std::vector<Verification> parts(parallel_ranges(count));
  parallel_for(count, [&](unsigned part, std::size_t begin, std::size_t end) {
    parts[part] = compare_range(out, ref, begin, end, tolerance, abs_floor, positions);
  });
  Verification v;
  v.tolerance = tolerance;
  v.checked = count;
  for (const auto& part : parts) {
    if (v.mismatches == 0 && part.mismatches > 0) v.detail = part.detail;
    v.mismatches += part.mismatches;
    v.max_rel_error = std::max(v.max_rel_error, part.max_rel_error);
  }
  v.status = v.mismatches == 0 ? "passed" : "failed";
  return v;
}

}  // namespace

Verification compare_values(const float* out, const double* ref, std::size_t count, double tolerance, double abs_floor,
                            const std::size_t* positions) {
  return compare(out, ref, count, tolerance, abs_floor, positions);
}

Verification compare_values(const float* out, const float* ref, std::size_t count, double tolerance, double abs_floor) {
  return compare(out, ref, count, tolerance, abs_floor, static_cast<const std::size_t*>(nullptr));
}

}  // namespace occbench
