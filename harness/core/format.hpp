#pragma once
// The one way the harness writes a number or a duration for people (tables, progress lines,
// reports): three significant digits and a unit for times, "–" where there is no value.
#include <string>

namespace occbench {

// 12.3 ns, 4.56 µs, 789 ms, 1.23 s; "–" for NaN.
std::string format_duration_ms(double ms);

// The number in fmt's `spec` ("{:.1f}"), or "–" for NaN.
std::string format_number(double value, const char* spec);

}  // namespace occbench
