#pragma once
// The one way the harness reads a value of a result record's section: record[section][key] where
// it is there and of the right type, else a stand-in (the records of skipped points, of older
// versions, of other tools hold less).
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace occbench {

using ordered_json = nlohmann::ordered_json;

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
