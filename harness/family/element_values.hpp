#pragma once
// A user kernel's initial values (harness/sweep/source_family), one formula for the host and the GPU
// (harness/family/random_device.cu): element i of an input stream, then its conversion to the element
// type. Operations rounded one by one on the GPU, as on the host, so both store the same bits.
#include "harness/family/random_hash.hpp"

#include <math.h>

#include <cstdint>
#include <type_traits>

namespace occbench {

// uniform_real: a + (b - a) u; uniform_integer: floor(a + (b - a + 1) u); iota: a + b i;
// constant: a. u = unit_random(seed, stream, i).
enum class InitFormula { uniform_real, uniform_integer, iota, constant };

OCCBENCH_HOST_DEVICE inline double init_value_at(InitFormula formula, double a, double b, std::uint64_t seed,
                                                 std::uint64_t stream, std::uint64_t i) {
#if defined(__CUDA_ARCH__)
  switch (formula) {
    case InitFormula::uniform_real:
      return __dadd_rn(a, __dmul_rn(b - a, unit_random_at(seed, stream, i)));
    case InitFormula::uniform_integer:
      return floor(__dadd_rn(a, __dmul_rn(b - a + 1, unit_random_at(seed, stream, i))));
    case InitFormula::iota:
      return __dadd_rn(a, __dmul_rn(b, double(i)));
    default:
      return a;
  }
#else
  switch (formula) {
    case InitFormula::uniform_real:
      return a + (b - a) * unit_random_at(seed, stream, i);
    case InitFormula::uniform_integer:
      return floor(a + (b - a + 1) * unit_random_at(seed, stream, i));
    case InitFormula::iota:
      return a + b * double(i);
    default:
      return a;
  }
#endif
}

// A value as element type T: floats rounded to nearest; integers rounded half away from zero and
// clamped to the type's range (64-bit signed: converted as is; unsigned: negatives to 0).
template <typename T>
OCCBENCH_HOST_DEVICE inline T to_element(double value) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(value);
  } else {
    value = round(value);
    if constexpr (sizeof(T) == 8) {
      if constexpr (std::is_signed_v<T>) return T(value);
      return T(value > 0 ? value : 0.0);
    } else {
      const double low = std::is_signed_v<T> ? -2147483648.0 : 0.0;
      const double high = sizeof(T) == 1 ? 255.0 : (std::is_signed_v<T> ? 2147483647.0 : 4294967295.0);
      return T(value < low ? low : (value > high ? high : value));
    }
  }
}

}  // namespace occbench
