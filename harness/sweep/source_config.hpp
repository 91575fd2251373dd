#pragma once
// Inside the user-kernel family (harness/sweep/source_family.hpp): reading the keys a source
// config adds (source, compile, arguments, kernels, reference, work). Every refusal is a
// ConfigError naming the config file, the JSON path and what was expected.
#include "harness/sweep/source_kernels.hpp"
#include "harness/sweep/spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& expected) const { throw ConfigError(file_, path, expected); }
  const std::string& file() const { return file_; }

  const json& object(const json& v, const std::string& path, const std::vector<std::string>& keys) const {
    if (!v.is_object()) fail(path, fmt::format("expected an object, got {}", v.type_name()));
    for (const auto& item : v.items())
      if (std::find(keys.begin(), keys.end(), item.key()) == keys.end())
        fail(path + "." + item.key(), fmt::format("unknown key '{}'; valid keys here: {}", item.key(), fmt::join(keys, ", ")));
    return v;
  }
  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string() || v.get<std::string>().empty()) fail(path, fmt::format("expected a non-empty string, got {}", v.dump()));
    return v.get<std::string>();
  }
  double number(const json& v, const std::string& path, double min = -INFINITY) const {
    if (!v.is_number() || v.get<double>() < min)
      fail(path, fmt::format("expected a number{}, got {}", std::isinf(min) ? "" : fmt::format(" of at least {}", min), v.dump()));
    return v.get<double>();
  }
  Expression expression(const json& v, const std::string& path, const std::vector<std::string>& names) const {
    if (v.is_number_integer()) return Expression(v.dump(), names, file_, path);
    if (!v.is_string())
      fail(path, fmt::format("expected an expression (a string such as \"ceil_div(n, block_size)\", or an integer), got {}", v.dump()));
    return Expression(v.get<std::string>(), names, file_, path);
  }
  std::string one_of(const json& v, const std::string& path, const std::vector<std::string>& choices) const {
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    if (!v.is_string() || std::find(choices.begin(), choices.end(), s) == choices.end())
      fail(path, fmt::format("expected one of: {}; got {}", fmt::join(choices, ", "), v.dump()));
    return s;
  }
  // A file named relative to the config's folder, which must exist.
  std::string file_path(const json& v, const std::string& path, const fs::path& base) const {
    fs::path p = string(v, path);
    if (p.is_relative()) p = base / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      fail(path, fmt::format("expected an existing file; {} {}", p.string(), fs::exists(p, ec) ? "is not a regular file" : "does not exist"));
    return p.lexically_normal().string();
  }

 private:
  std::string file_;
};

bool is_identifier(const std::string& s);
// The keys of doc[key] where it is an object, in order.
std::vector<std::string> object_keys(const json& doc, const char* key);

// The axes a source config names: its sizes, its shared axes (occupancy_limit, the harness's, left
// out) and every name an expression may use.
struct SourceAxes {
  std::vector<std::string> size_names, shared_axes, all_names;
};
SourceAxes source_axes(const Reader& r, const json& doc);
// An axis whose values the config gives (checked there, not here); a labelled axis has its labels.
Axis free_axis(const Reader& r, const std::string& name, const std::string& path, const char* what,
               const AxisLabels* labels = nullptr);


// $.compile: options and defines every variant shares; its include_dirs go into state.include_options.
struct CompileSettings {
  std::vector<std::string> options;
  json defines = json::object();
};
CompileSettings parse_compile(const Reader& r, const json& doc, const fs::path& base, SourceState& state);

// $.arguments, in the kernel's parameter order: at least one output.
std::vector<Argument> parse_arguments(const Reader& r, const json& doc, const SourceAxes& axes, const fs::path& base);
// $.kernels: one variant each.
std::vector<KernelSpec> parse_kernels(const Reader& r, const json& doc, const SourceAxes& axes, const CompileSettings& compile);
// $.reference: a reference variant (state.reference_kernel and its axes) or expected outputs from .npy files.
void parse_reference(const Reader& r, const json& doc, const fs::path& base, SourceState& state);

// $.guard_zone_gib: the guard zone on each side of every buffer argument, in bytes (0: none).
std::size_t parse_guard_zone(const Reader& r, const json& doc);

// Every combination of the config's values for `names` (sizes, then the kernel's axes: its
// variant_axes first, else the shared axes), a labelled axis's values as their positions in
// `labels`. Values that are not lists of integers or labels are left to the config's own checks.
std::vector<Params> config_points(const json& doc, const std::string& variant, const std::vector<std::string>& names,
                                  const std::shared_ptr<const AxisLabels>& labels);
// How many there are, counted from the lists' lengths (a double: it may pass 2^64).
double config_combinations(const json& doc, const std::string& variant, const std::vector<std::string>& names);
// The first of them (each name's first value), without listing the rest; none where a name has no value.
std::vector<Params> first_config_point(const json& doc, const std::string& variant, const std::vector<std::string>& names,
                                       const std::shared_ptr<const AxisLabels>& labels);

}  // namespace occbench
