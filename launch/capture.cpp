#include "launch/capture.hpp"

#include "launch/values.hpp"

#include "harness/core/files.hpp"
#include "harness/family/npy.hpp"
#include "harness/records/launch_choice.hpp"
#include "harness/sweep/source_kernels.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace occbench::launch {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

const ElementType* element_type(const std::string& name) {
  for (const auto& t : kElementTypes)
    if (name == t.name) return &t;
  return nullptr;
}

bool is_buffer(const ArgumentDeclaration& a) { return a.role != "scalar"; }

// `text` matches `pattern`, where `*` stands for any run of characters.
bool wildcard_match(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, t = 0, star = std::string::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++, resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p, ++t;
    } else if (star != std::string::npos) {
      p = star + 1, t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// (family, variant) of a declaration's variant ("app/scale"; a variant alone is its own family;
// none: the kernel's name).
std::pair<std::string, std::string> variant_parts(const std::string& variant) {
  std::size_t slash = variant.rfind('/');
  if (slash == std::string::npos) return {variant, variant};
  return {variant.substr(0, slash), variant.substr(slash + 1)};
}

std::pair<std::string, std::string> variant_parts(const KernelDeclaration& d) { return variant_parts(d.variant.empty() ? d.name : d.variant); }

std::size_t buffer_count(const ArgumentDeclaration& a, const std::map<std::string, double>& sizes) {
  return std::size_t(evaluate(a.count, fmt::format("arguments.{}.count", a.name), expression_values({}, sizes), 0, std::int64_t(1) << 40));
}

// A scalar's bytes as a config's value: the shortest text that reads back as the same value.
std::string scalar_text(const ElementType& type, const std::vector<unsigned char>& bytes) {
  auto as = [&](auto value) {
    std::memcpy(&value, bytes.data(), sizeof value);
    return value;
  };
  switch (type.kind) {
    case ElementKind::float32: {
      float v = as(0.0f);
      if (!std::isfinite(v)) throw std::runtime_error("a scalar that is not a finite number cannot be written as a config's value");
      return fmt::format("{}", v);
    }
    case ElementKind::float64: {
      double v = as(0.0);
      if (!std::isfinite(v)) throw std::runtime_error("a scalar that is not a finite number cannot be written as a config's value");
      return fmt::format("{}", v);
    }
    case ElementKind::int32: return fmt::format("{}", as(std::int32_t{}));
    case ElementKind::uint32: return fmt::format("{}", as(std::uint32_t{}));
    case ElementKind::uint8: return fmt::format("{}", as(std::uint8_t{}));
    case ElementKind::int64: return fmt::format("{}", as(std::int64_t{}));
    case ElementKind::uint64: return fmt::format("{}", as(std::uint64_t{}));
  }
  return "0";
}

// `dir`/`file`, where writing it loses nothing: never the kernel's source, nor a folder.
std::string output_path(const fs::path& dir, const std::string& file, const std::string& source) {
  std::string path = (dir / file).string();
  if (std::string problem = output_file_problem(path, {source}); !problem.empty())
    throw std::runtime_error(fmt::format("cannot write the capture's {}: {}", path, problem));
  return path;
}

void write_buffer(const std::string& path, const ElementType& type, const std::vector<unsigned char>& bytes) {
  NpyArray array;
  array.dtype = type.npy;
  array.shape = {bytes.size() / type.bytes};
  array.bytes = bytes;
  write_npy(path, array);
}

// The config's entry for argument `a`, writing its .npy files into `directory`.
ojson argument_entry(const ArgumentDeclaration& a, const CapturedArgument& captured, const fs::path& directory, const std::string& source,
                     ojson& expected) {
  const ElementType& type = *element_type(a.type);
  ojson entry = {{"name", a.name}, {"role", a.role == "input" ? "input" : is_buffer(a) ? "output" : "scalar"}, {"type", a.type}};
  if (!is_buffer(a)) {
    entry["value"] = scalar_text(type, captured.before);
    return entry;
  }
  entry["count"] = (a.role == "output" ? captured.after : captured.before).size() / type.bytes;
  if (a.role == "input" || a.role == "inout") {
    write_buffer(output_path(directory, a.name + ".npy", source), type, captured.before);
    entry["init"] = {{"kind", "npy"}, {"file", a.name + ".npy"}};
  }
  if (a.role == "output" || a.role == "inout") {
    write_buffer(output_path(directory, a.name + ".expected.npy", source), type, captured.after);
    expected[a.name] = a.name + ".expected.npy";
  }
  return entry;
}

ojson kernel_entry(const KernelDeclaration& d) {
  ojson defines = ojson::object();
  for (const auto& [name, value] : d.parameters) defines[name] = name;
  ojson kernel = {{"kernel", d.name},
                  {"grid", ojson(d.grid)},
                  {"block", ojson(d.block)},
                  {"dynamic_smem_bytes", d.dynamic_smem_bytes},
                  {"defines", defines}};
  if (!d.options.empty()) kernel["options"] = d.options;
  return kernel;
}

ojson axes(const KernelDeclaration& d) {
  ojson out = ojson::object();
  for (const auto& [name, value] : d.parameters) {
    auto found = d.values.find(name);
    out[name] = found == d.values.end() ? ojson::array({value}) : ojson(found->second);
  }
  return out;
}

std::string refusal_of_argument(const ArgumentDeclaration& a) {
  // The name becomes a file's (NAME.npy): a C identifier, as a kernel's parameter is.
  if (a.name.empty() || !std::all_of(a.name.begin(), a.name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return fmt::format("argument '{}': expected a name of letters, digits and '_'", a.name);
  static const std::vector<std::string> roles = {"input", "output", "inout", "scalar"};
  if (std::find(roles.begin(), roles.end(), a.role) == roles.end())
    return fmt::format("argument '{}': role '{}', expected one of: {}", a.name, a.role, fmt::join(roles, ", "));
  const ElementType* type = element_type(a.type);
  if (!type) return fmt::format("argument '{}': type '{}', expected one of: {}", a.name, a.type, fmt::join(element_type_names(true), ", "));
  if (is_buffer(a) && type->bytes == 8 && !type->is_float)
    return fmt::format("argument '{}': a buffer of {} (64-bit integers are for scalars only)", a.name, a.type);
  return "";
}

}  // namespace

bool capture_wanted(const std::string& wanted, const KernelDeclaration& d) {
  std::stringstream list(wanted);
  std::string pattern;
  while (std::getline(list, pattern, ','))
    for (const std::string& name : {d.name, d.variant, variant_parts(d.variant).second})
      if (!pattern.empty() && wildcard_match(pattern, name)) return true;
  return false;
}

std::string capture_refusal(const KernelDeclaration& d) {
  if (d.arguments.empty()) return "its declaration lists no arguments (KernelDeclaration::arguments: name, role, type, count)";
  for (const auto& a : d.arguments)
    if (std::string why = refusal_of_argument(a); !why.empty()) return why;
  for (const auto& [name, values] : d.values) {
    auto p = std::find_if(d.parameters.begin(), d.parameters.end(), [&](const auto& q) { return q.first == name; });
    if (p == d.parameters.end()) return fmt::format("values for '{}', which is not one of its parameters", name);
    if (std::find(values.begin(), values.end(), p->second) == values.end())
      return fmt::format("the values of '{}' leave out its default {}", name, p->second);
  }
  return "";
}

std::vector<std::optional<std::size_t>> captured_bytes(const KernelDeclaration& d, const std::map<std::string, double>& sizes) {
  std::vector<std::optional<std::size_t>> bytes;
  for (const auto& a : d.arguments) {
    const ElementType& type = *element_type(a.type);
    if (!is_buffer(a)) bytes.push_back(type.bytes);
    else if (a.count.empty()) bytes.push_back(std::nullopt);
    else bytes.push_back(buffer_count(a, sizes) * type.bytes);
  }
  return bytes;
}

std::size_t element_bytes(const std::string& type) {
  const ElementType* t = element_type(type);
  return t ? t->bytes : 0;
}

std::string capture_directory(const std::string& root, const KernelDeclaration& d, const std::map<std::string, double>& sizes) {
  std::string name = variant_parts(d).second;
  for (const auto& [size, value] : sizes) name += fmt::format("_{}{}", size, std::llround(value));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return (fs::path(root) / name).string();
}

std::string write_capture(const KernelDeclaration& d, const std::map<std::string, double>& sizes,
                          const std::vector<CapturedArgument>& arguments, const CaptureOrigin& origin, const std::string& directory) {
  fs::path dir(directory);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error(fmt::format("cannot make the capture's folder {}: {}", directory, error.message()));
  auto [family, variant] = variant_parts(d);
  ojson sizes_json = ojson::object(), expected = ojson::object(), args = ojson::array();
  for (const auto& [name, value] : sizes) sizes_json[name] = {std::llround(value)};
  for (std::size_t i = 0; i < d.arguments.size(); ++i) args.push_back(argument_entry(d.arguments[i], arguments.at(i), dir, d.source, expected));
  ojson config = {
      {"name", family},
      {"family", family},  // the records' family (else the source file's name): the declaration's variant is family/variant
      {"description", fmt::format("{} captured from the application's launch on {} at {} (launched with {}); verified against "
                                  "what that launch left in its outputs",
                                  d.name, origin.gpu_name, sizes_text(sizes), parameters_text(origin.parameters))},
      {"source", fs::absolute(d.source).string()},
      {"sizes", sizes_json},
      {"axes", axes(d)},
      {"arguments", args},
      {"kernels", {{variant, kernel_entry(d)}}},
      {"reference", {{"npy", expected}}}};
  if (!d.restrictions.empty()) config["restrictions"] = d.restrictions;
  std::string path = output_path(dir, "config.json", d.source);
  write_text_file(path, config.dump(2) + "\n");
  return path;
}

}  // namespace occbench::launch
