#include "harness/core/json.hpp"

#include "harness/core/bad_input.hpp"

#include <fmt/format.h>

namespace occbench {

namespace {

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
std::string library_reason(std::string what) {
  if (std::size_t tag = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag != std::string::npos)
    what = what.substr(tag + 2);
  if (std::size_t colon = what.rfind(": "); what.rfind("parse error", 0) == 0 && colon != std::string::npos)
    what = what.substr(colon + 2);
  return what;
}

}  // namespace

std::string line_and_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("line {}, column {}", line, column);
}

ordered_json parse_json(const std::string& text, const std::string& source) {
  // The parser itself keeps its depth on the heap; the callback stops it before a value is
  // built deeper than any later step can handle. It is told the depth of each value it builds.
  auto bound_depth = [&](int depth, nlohmann::detail::parse_event_t, ordered_json&) {
    if (depth >= kMaxJsonDepth)  // depth counts from 0: the outermost value's
      throw BadInput(source, "$", fmt::format("a value nested more than {} levels deep; expected at most {} levels", kMaxJsonDepth,
                                              kMaxJsonDepth));
    return true;
  };
  try {
    return ordered_json::parse(text, bound_depth);
  } catch (const ordered_json::parse_error& e) {
    throw BadInput(source, line_and_column(text, e.byte), "malformed JSON: " + library_reason(e.what()));
  } catch (const ordered_json::exception& e) {  // out_of_range 406: a number beyond a double's range
    throw BadInput(source, "$", library_reason(e.what()) + "; expected JSON whose numbers fit a double (at most about 1.8e308)");
  }
}

}  // namespace occbench
