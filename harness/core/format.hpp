#pragma once
// The one way the harness writes a number or a duration for people (tables, progress lines,
// reports): three significant digits and a unit for times, "–" where there is no value.
#include <string>

namespace occbench {

// 12.3 ns, 4.56 µs, 789 ms, 1.23 s; "–" for NaN.
std::string format_duration_ms(double ms);

// The number in fmt's `spec` ("{:.1f}"), or "–" for NaN.
std::string format_number(double value, const char* spec);

// `text` as valid UTF-8, each byte that is not part of a well-formed sequence replaced by U+FFFD:
// a compiler's log quotes the source, whose Latin-1 byte made the record's JSON unwritable.
std::string valid_utf8(const std::string& text);

// `text` without its leading and trailing spaces and tabs.
std::string trim(const std::string& text);

}  // namespace occbench
