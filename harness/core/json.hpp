#pragma once
// The one way the harness reads a value of a result record's section: record[section][key] where
// it is there and of the right type, else a stand-in (the records of skipped points, of older
// versions, of other tools hold less).
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace occbench {

using ordered_json = nlohmann::ordered_json;

// How deep a value a user's JSON may nest. occbench's own files nest 6 levels; a value 150,000
// levels deep overflowed the stack of the steps after parsing (copies, dumps).
inline constexpr int kMaxJsonDepth = 100;

// The one way occbench parses JSON it is given (configs, results, records, Kernel Tuner files):
// `text` read from `source` (a file's name, or "FILE line N"). Throws BadInput naming the source,
// the line and column and what was wrong: malformed JSON, a value nested deeper than
// kMaxJsonDepth, a number beyond a double's range (1e999).
ordered_json parse_json(const std::string& text, const std::string& source);

// "line L, column C" of a byte offset (1-based) into `text`.
std::string line_and_column(const std::string& text, std::size_t byte);

// A value as text beside its name (ids, tables, #define lines): a string as it is, any other value
// as JSON ("float_type=double", "alpha=0.5", "use_fma=true").
inline std::string value_text(const ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// record[section][key] as a number, or `missing` (NaN unless given).
inline double number_at(const ordered_json& record, const char* section, const char* key, double missing = NAN) {
  if (!record.contains(section) || !record[section].is_object()) return missing;
  const ordered_json& s = record[section];
  return s.contains(key) && s[key].is_number() ? s[key].get<double>() : missing;
}

// record[section][key] as a string, or "".
inline std::string text_at(const ordered_json& record, const char* section, const char* key) {
  if (!record.contains(section) || !record[section].is_object()) return "";
  const ordered_json& s = record[section];
  return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : "";
}

}  // namespace occbench
