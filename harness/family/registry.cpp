#include "harness/family/registry.hpp"


#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/core/hash.hpp"

#include <stdexcept>

namespace occbench {

void Params::set(const std::string& name, std::int64_t value) {
  for (auto& item : items_) {
    if (item.first == name) {
      item.second = value;
      return;
    }
  }
  items_.emplace_back(name, value);
}

bool Params::has(std::string_view name) const {
  for (const auto& item : items_)
    if (item.first == name) return true;
  return false;
}

std::int64_t Params::get(std::string_view name) const {
  for (const auto& item : items_)
    if (item.first == name) return item.second;
  throw std::out_of_range(fmt::format("parameter '{}' is not set (have: {})", name, to_string()));
}

std::string Params::to_string() const {
  std::string out;
  for (const auto& item : items_) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", item.first, text(item.first));
  }
  return out;
}

double string_number(std::string_view text) { return double(fnv1a(text) >> 11); }

const ParamLabel* Params::label(std::string_view name) const {
  if (!labels_) return nullptr;
  auto axis = labels_->find(name);
  if (axis == labels_->end() || !has(name)) return nullptr;
  std::int64_t position = get(name);
  return position >= 0 && std::size_t(position) < axis->second.size() ? &axis->second[std::size_t(position)] : nullptr;
}

std::string Params::text(std::string_view name) const {
  const ParamLabel* l = label(name);
  return l ? l->text : std::to_string(get(name));
}

std::string Params::json_text(std::string_view name) const {
  const ParamLabel* l = label(name);
  return l ? l->json : std::to_string(get(name));
}

double Params::number(std::string_view name) const {
  const ParamLabel* l = label(name);
  return l ? l->number : double(get(name));
}

std::optional<std::int64_t> Params::value_of_text(std::string_view name, const std::string& text) const {
  if (labels_)
    if (auto axis = labels_->find(name); axis != labels_->end()) {
      for (std::size_t i = 0; i < axis->second.size(); ++i)
        if (axis->second[i].text == text) return std::int64_t(i);
      return std::nullopt;
    }
  try {
    std::size_t used = 0;
    std::int64_t value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string Axis::check(std::int64_t value) const {
  bool legal;
  if (!labels.empty()) return value >= 0 && std::size_t(value) < labels.size() ? "" : fmt::format("{}: no label at {}", name, value);
  if (!legal_values.empty()) {
    legal = false;
    for (auto v : legal_values) legal = legal || v == value;
  } else {
    legal = value >= min && value <= max && value % multiple_of == 0;
  }
  return legal ? "" : fmt::format("{} must be {}, got {}", name, describe_legal(), value);
}

std::string Axis::describe_legal() const {
  if (!legal_values.empty()) return fmt::format("one of [{}]", fmt::join(legal_values, ", "));
  std::string range = max == std::numeric_limits<std::int64_t>::max()
                          ? fmt::format("at least {}", min)
                          : fmt::format("in [{}, {}]", min, max);
  if (multiple_of > 1) return fmt::format("a multiple of {} {}", multiple_of, range);
  return "an integer " + range;
}

std::vector<std::string> axis_names(const std::vector<Axis>& axes) {
  std::vector<std::string> names;
  for (const auto& axis : axes) names.push_back(axis.name);
  return names;
}

std::string kernel_name_in_signature(std::string_view pretty_function) {
  // gcc: "... [with auto Kernel = ns::k<4>]"; clang: "... [Kernel = &ns::k<4>]".
  constexpr std::string_view marker = "Kernel = ";
  auto at = pretty_function.find(marker);
  if (at == std::string_view::npos) return std::string(pretty_function);
  std::string_view name = pretty_function.substr(at + marker.size());
  name = name.substr(0, name.find_first_of("];"));
  while (!name.empty() && (name.front() == '&' || name.front() == ' ')) name.remove_prefix(1);
  return std::string(name);
}

const Variant* Family::find_variant(std::string_view variant_name) const {
  for (const auto& variant : variants)
    if (variant.name == variant_name) return &variant;
  return nullptr;
}

const Axis* Family::find_size_axis(std::string_view axis_name) const {
  for (const auto& axis : size_axes)
    if (axis.name == axis_name) return &axis;
  return nullptr;
}

Params Family::empty_params() const {
  Params params;
  params.set_labels(labels);
  return params;
}

std::vector<std::string> Family::variant_names() const {
  std::vector<std::string> names;
  for (const auto& variant : variants) names.push_back(variant.name);
  return names;
}

void Registry::add(Family family) {
  if (find(family.name)) throw std::logic_error("family registered twice: " + family.name);
  families_.push_back(std::move(family));
}

const Family* Registry::find(std::string_view family_name) const {
  for (const auto& family : families_)
    if (family.name == family_name) return &family;
  return nullptr;
}

std::vector<std::string> Registry::family_names() const {
  std::vector<std::string> names;
  for (const auto& family : families_) names.push_back(family.name);
  return names;
}

}  // namespace occbench
