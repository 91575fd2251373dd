#include "harness/sweep/axis_labels.hpp"

#include "harness/core/json.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace occbench {

namespace {

// One value of a labelled axis as its label; refused where it cannot be one.
ParamLabel make_label(const Reader& r, const json& v, const std::string& path) {
  ParamLabel l;
  l.json = v.dump();
  l.text = value_text(v);
  if (v.is_string()) {
    if (l.text.empty() || l.text.find_first_of("/\"'\\\n\r") != std::string::npos)
      r.fail(path, fmt::format("expected a value without '/', quotes, backslashes or line breaks (it is part of each point's id), got {}", l.json));
    l.is_string = true;
    l.number = string_number(l.text);
  } else if (v.is_boolean()) {
    l.number = v.get<bool>() ? 1 : 0;
  } else if (v.is_number()) {
    l.number = v.get<double>();
  } else {
    r.fail(path, fmt::format("expected an integer, a number, a string or true/false, got {}", l.json));
  }
  return l;
}

// Whether a config list of values makes its axis a labelled one: some value is not an integer.
bool labelled_values(const json& values) {
  return values.is_array() && std::any_of(values.begin(), values.end(), [](const json& v) { return !v.is_number_integer(); });
}

}  // namespace

namespace {

// Whether a config value is the label: the same string, the same boolean, or the same number (1 and
// 1.0 alike). Compared field by field, without parsing: an axis of thousands of values looks each
// up among the others (parsing each label took 30 s under the fuzzer's sanitizers at 2,436 values).
bool same_value(const ParamLabel& l, const json& v) {
  bool boolean = l.json == "true" || l.json == "false";
  if (v.is_string()) return l.is_string && l.text == v.get_ref<const std::string&>();
  if (v.is_boolean()) return boolean && l.json == (v.get<bool>() ? "true" : "false");
  if (v.is_number()) return !l.is_string && !boolean && l.number == v.get<double>();
  return false;
}

}  // namespace

std::optional<std::int64_t> label_position(const std::vector<ParamLabel>& labels, const json& value) {
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (same_value(labels[i], value)) return std::int64_t(i);
  return std::nullopt;
}

std::shared_ptr<const AxisLabels> parse_axis_labels(const Reader& r, const json& doc, const SourceAxes& axes) {
  // Every list of each launch axis: the shared one, then each variant's.
  std::vector<std::pair<std::string, const json*>> lists;
  std::vector<std::string> paths;
  auto add = [&](const json& object, const std::string& path) {
    if (!object.is_object()) return;
    for (const auto& item : object.items())
      if (std::find(axes.size_names.begin(), axes.size_names.end(), item.key()) == axes.size_names.end()) {
        lists.emplace_back(item.key(), &item.value());
        paths.push_back(path + "." + item.key());
      }
  };
  if (doc.contains("axes")) add(doc["axes"], "$.axes");
  if (doc.contains("variant_axes") && doc["variant_axes"].is_object())
    for (const auto& v : doc["variant_axes"].items()) add(v.value(), "$.variant_axes." + v.key());
  // The reference's value of a labelled axis is one of its labels, swept or not (as an integer
  // axis's reference value need not be among the swept ones).
  json reference_values = json::object();
  if (doc.contains("reference") && doc["reference"].is_object() && doc["reference"].contains("params") &&
      doc["reference"]["params"].is_object())
    for (const auto& item : doc["reference"]["params"].items()) reference_values[item.key()] = json::array({item.value()});
  std::set<std::string> labelled;
  for (const auto& [name, values] : lists)
    if (labelled_values(*values)) labelled.insert(name);
  for (const auto& item : reference_values.items())
    if (labelled.count(item.key())) {
      lists.emplace_back(item.key(), &item.value());
      paths.push_back("$.reference.params." + item.key());
    }
  auto labels = std::make_shared<AxisLabels>();
  for (std::size_t i = 0; i < lists.size(); ++i) {
    const auto& [name, values] = lists[i];
    if (!labelled.count(name)) continue;
    std::vector<ParamLabel>& axis = (*labels)[name];
    for (std::size_t j = 0; j < values->size(); ++j)
      if (!label_position(axis, (*values)[j]))
        axis.push_back(make_label(r, (*values)[j], paths[i].rfind("$.reference", 0) == 0 ? paths[i] : fmt::format("{}[{}]", paths[i], j)));
  }
  return labels->empty() ? nullptr : std::shared_ptr<const AxisLabels>(std::move(labels));
}

}  // namespace occbench
