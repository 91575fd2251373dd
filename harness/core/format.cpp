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

namespace {

// The length of the well-formed UTF-8 sequence at text[i], or 0.
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  auto byte = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  unsigned c = byte(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 && c >= 0xC2 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E && c <= 0xF4 ? 4 : 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (n == 3 && ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xED && byte(i + 1) >= 0xA0))) return 0;  // overlong, surrogate
  if (n == 4 && ((c == 0xF0 && byte(i + 1) < 0x90) || (c == 0xF4 && byte(i + 1) >= 0x90))) return 0;  // overlong, past U+10FFFF
  return n;
}

}  // namespace

std::string trim(const std::string& text) {
  auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace occbench
