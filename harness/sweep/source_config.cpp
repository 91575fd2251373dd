#include "harness/sweep/source_config.hpp"
#include "harness/sweep/axis_labels.hpp"
#include "harness/compile/nvcc_compiler.hpp"

#include "harness/core/format.hpp"
#include "harness/family/harness_axes.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>

namespace occbench {

namespace {

// The bits of a 64-bit integer scalar written as a whole number that its type holds ("18446744073709551615"), or nullopt.
std::optional<std::uint64_t> integer_literal_bits(const json& v, const ElementType& type) {
  if (type.is_float || type.bytes != 8) return std::nullopt;
  std::string text = trim(v.is_number_integer() ? v.dump() : v.is_string() ? v.get<std::string>() : "");
  if (text.empty()) return std::nullopt;
  bool is_signed = type.kind == ElementKind::int64;
  std::size_t minus = text.rfind('-');
  if (text.find_first_not_of(is_signed ? "-0123456789" : "0123456789") != std::string::npos || (minus != std::string::npos && minus != 0))
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  std::uint64_t bits = is_signed ? std::uint64_t(std::strtoll(text.c_str(), &end, 10)) : std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  return bits;
}

// An array handed over in memory (harness/family/host_hooks.hpp) of the argument's element type;
// its count is checked against each size's where the buffers are made.
std::string host_array_name(const Reader& r, const json& v, const std::string& path, const ElementType& type) {
  std::string name = r.string(v, path);
  const HostArray* array = find_host_array(name);
  if (!array) r.fail(path, host_names_expected("arrays", host_keys(host_hooks().arrays)) + fmt::format(", got '{}'", name));
  if (array->dtype != type.npy)
    r.fail(path, fmt::format("the array '{}' holds {} elements; the argument is {} ({})", name, array->dtype, type.name, type.npy));
  return name;
}

Initializer parse_init(const Reader& r, const json& v, const std::string& path, const ElementType& type, const fs::path& base) {
  Initializer init;
  r.object(v, path, {"kind", "min", "max", "mean", "stddev", "start", "step", "value", "file", "array"});
  if (!v.contains("kind")) r.fail(path + ".kind", "missing; expected one of: uniform, normal, iota, constant, npy, host");
  init.kind = r.one_of(v["kind"], path + ".kind", {"uniform", "normal", "iota", "constant", "npy", "host"});
  auto allowed = [&](std::vector<std::string> keys) {
    keys.push_back("kind");
    r.object(v, path, keys);
  };
  if (init.kind == "uniform") {
    allowed({"min", "max"});
    if (!type.is_float) init.low = 0, init.high = type.bytes == 1 ? 255 : 1000;
    if (v.contains("min")) init.low = r.number(v["min"], path + ".min");
    if (v.contains("max")) init.high = r.number(v["max"], path + ".max");
    if (!(init.high > init.low))
      r.fail(path + ".max", fmt::format("expected max > min (random inputs are never all one value), got min {} and max {}",
                                        init.low, init.high));
  } else if (init.kind == "normal") {
    allowed({"mean", "stddev"});
    if (v.contains("mean")) init.mean = r.number(v["mean"], path + ".mean");
    if (v.contains("stddev")) init.stddev = r.number(v["stddev"], path + ".stddev");
    if (!(init.stddev > 0)) r.fail(path + ".stddev", fmt::format("expected a standard deviation > 0, got {}", init.stddev));
  } else if (init.kind == "iota") {
    allowed({"start", "step"});
    if (v.contains("start")) init.start = r.number(v["start"], path + ".start");
    if (v.contains("step")) init.step = r.number(v["step"], path + ".step");
  } else if (init.kind == "constant") {
    allowed({"value"});
    if (!v.contains("value")) r.fail(path + ".value", "missing; expected the number every element holds");
    init.value = r.number(v["value"], path + ".value");
  } else if (init.kind == "host") {
    allowed({"array"});
    if (!v.contains("array")) r.fail(path + ".array", "missing; expected the name of an array handed over in memory");
    init.host_array = host_array_name(r, v["array"], path + ".array", type);
  } else {
    allowed({"file"});
    if (!v.contains("file")) r.fail(path + ".file", "missing; expected the .npy file that holds the values");
    init.npy_path = r.file_path(v["file"], path + ".file", base);
  }
  return init;
}

Argument parse_argument(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& size_names,
                        const std::vector<std::string>& all_names, const fs::path& base) {
  Argument a;
  a.path = path;
  r.object(v, path, {"name", "type", "role", "count", "value", "init", "tolerance", "zero_before_launch", "global", "compare"});
  if (!v.contains("name")) r.fail(path + ".name", "missing; expected the kernel parameter's name");
  a.name = r.string(v["name"], path + ".name");
  if (!v.contains("role")) r.fail(path + ".role", "missing; expected one of: input, output, scalar");
  std::string role = r.one_of(v["role"], path + ".role", {"input", "output", "scalar"});
  a.role = role == "input" ? Argument::Role::input : role == "output" ? Argument::Role::output : Argument::Role::scalar;
  bool scalar = a.role == Argument::Role::scalar;
  auto types = element_type_names(scalar);
  if (!v.contains("type")) r.fail(path + ".type", fmt::format("missing; expected one of: {}", fmt::join(types, ", ")));
  std::string type = r.one_of(v["type"], path + ".type", types);
  for (const auto& t : kElementTypes)
    if (type == t.name) a.type = &t;

  auto only_for = [&](const char* key, bool allowed, const char* which) {
    if (v.contains(key) && !allowed) r.fail(path + "." + key, fmt::format("'{}' applies only to {} arguments", key, which));
  };
  only_for("value", scalar, "scalar");
  only_for("count", !scalar, "input and output");
  only_for("init", a.role != Argument::Role::scalar, "input and output");
  only_for("tolerance", a.role == Argument::Role::output, "output");
  only_for("compare", a.role == Argument::Role::output, "output");
  only_for("zero_before_launch", a.role == Argument::Role::output, "output");
  only_for("global", a.role != Argument::Role::output, "input and scalar");
  if (v.contains("global")) {
    if (!v["global"].is_boolean()) r.fail(path + ".global", fmt::format("expected true or false, got {}", v["global"].dump()));
    a.global = v["global"].get<bool>();
  }
  if (scalar) {
    if (!v.contains("value")) r.fail(path + ".value", "missing; expected an expression of the point's parameters");
    a.value = r.expression(v["value"], path + ".value", all_names);
    a.literal_bits = integer_literal_bits(v["value"], *a.type);
    return a;
  }
  if (!v.contains("count"))
    r.fail(path + ".count", fmt::format("missing; expected the number of elements, an expression of the sizes ({})",
                                        fmt::join(size_names, ", ")));
  a.count = r.expression(v["count"], path + ".count", size_names);
  if (a.role == Argument::Role::input) {
    if (v.contains("init")) a.init = parse_init(r, v["init"], path + ".init", *a.type, base);
    else if (!a.type->is_float) a.init.low = 0, a.init.high = a.type->bytes == 1 ? 255 : 1000;
    return a;
  }
  // An output's starting values, instead of NaN before each verified launch: from memory (Kernel
  // Tuner's arguments, whose outputs start as the caller's arrays) or from a file (a captured
  // launch's buffer that the kernel reads and writes).
  if (v.contains("init")) {
    a.init = parse_init(r, v["init"], path + ".init", *a.type, base);
    if (a.init.kind != "host" && a.init.kind != "npy")
      r.fail(path + ".init.kind", "expected \"host\" or \"npy\" for an output (its starting values); an output "
                                  "otherwise starts as NaN so that an element the kernel never writes cannot pass");
  }
  if (v.contains("compare"))
    a.compare = r.one_of(v["compare"], path + ".compare", {"elements", "sum"}) == "sum" ? Argument::Compare::sum
                                                                                         : Argument::Compare::elements;
  a.rel_tolerance = a.type->is_float ? (a.type->bytes == 4 ? 1e-5 : 1e-12) : 0;
  if (v.contains("tolerance")) {
    const auto& t = r.object(v["tolerance"], path + ".tolerance", {"abs", "rel"});
    if (t.contains("abs")) a.abs_tolerance = r.number(t["abs"], path + ".tolerance.abs", 0);
    if (t.contains("rel")) a.rel_tolerance = r.number(t["rel"], path + ".tolerance.rel", 0);
  }
  if (v.contains("zero_before_launch")) {
    if (!v["zero_before_launch"].is_boolean())
      r.fail(path + ".zero_before_launch", fmt::format("expected true or false, got {}", v["zero_before_launch"].dump()));
    a.zero_before_launch = v["zero_before_launch"].get<bool>();
  }
  return a;
}

// Whether `shape` (a kernel's name with each {expression} as 0) names a function: a qualified
// name ("scale", "ns::scale") and, optionally, template arguments in balanced <...> that end it.
bool is_kernel_name(const std::string& shape) {
  std::size_t bracket = std::min(shape.find('<'), shape.size());
  std::string name = shape.substr(0, bracket);
  if (name.rfind("::", 0) == 0) name = name.substr(2);
  for (std::size_t begin = 0;;) {
    std::size_t end = std::min(name.find("::", begin), name.size());
    if (!is_identifier(name.substr(begin, end - begin))) return false;
    if (end == name.size()) break;
    begin = end + 2;
  }
  if (bracket == shape.size()) return true;
  int depth = 0;
  for (std::size_t i = bracket; i < shape.size(); ++i) {
    depth += shape[i] == '<' ? 1 : shape[i] == '>' ? -1 : 0;
    if (depth == 0) return i + 1 == shape.size();  // the arguments' '>' ends the name
    if (depth < 0) return false;
  }
  return false;
}

// "tile_kernel<{chunk_size}, {block_size / 32}>": literal text and {expressions}.
std::vector<std::pair<std::string, Expression>> parse_kernel_name(const Reader& r, const json& v, const std::string& path,
                                                                  const std::vector<std::string>& names) {
  std::string text = r.string(v, path);
  std::vector<std::pair<std::string, Expression>> parts;
  std::size_t at = 0;
  while (at < text.size()) {
    auto open = text.find('{', at);
    auto stray = text.find('}', at);
    if (stray < open) r.fail(path, fmt::format("in \"{}\": a '}}' at position {} closes no '{{'", text, stray + 1));
    if (open == std::string::npos) {
      parts.emplace_back(text.substr(at), Expression{});
      break;
    }
    if (open > at) parts.emplace_back(text.substr(at, open - at), Expression{});
    auto close = text.find('}', open);
    if (close == std::string::npos) r.fail(path, fmt::format("in \"{}\": the '{{' at position {} is never closed", text, open + 1));
    parts.emplace_back("", Expression(text.substr(open + 1, close - open - 1), names, r.file(), path));
    at = close + 1;
  }
  std::string shape;
  for (const auto& [literal, expression] : parts) shape += expression.empty() ? literal : "0";
  if (!is_kernel_name(shape))
    r.fail(path, fmt::format("expected a __global__ function's name, optionally with template arguments "
                             "(\"tile_kernel<{{chunk_size}}>\"), got \"{}\"", text));
  return parts;
}

void parse_dims(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& names, Expression out[3]) {
  if (v.is_array()) {
    if (v.empty() || v.size() > 3) r.fail(path, fmt::format("expected 1 to 3 expressions (x, y, z), got {}", v.size()));
    for (std::size_t d = 0; d < v.size(); ++d) out[d] = r.expression(v[d], fmt::format("{}[{}]", path, d), names);
  } else {
    out[0] = r.expression(v, path, names);
  }
}

void parse_work(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& names, KernelSpec& k) {
  r.object(v, path, {"flops", "global_bytes", "dram_bytes", "bytes_in_flight_per_warp"});
  if (v.contains("flops")) k.flops = r.expression(v["flops"], path + ".flops", names);
  if (v.contains("global_bytes")) k.global_bytes = r.expression(v["global_bytes"], path + ".global_bytes", names);
  if (v.contains("dram_bytes")) k.dram_bytes = r.expression(v["dram_bytes"], path + ".dram_bytes", names);
  if (v.contains("bytes_in_flight_per_warp"))
    k.bytes_in_flight_per_warp = r.expression(v["bytes_in_flight_per_warp"], path + ".bytes_in_flight_per_warp", names);
}

void parse_defines(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& names,
                   std::vector<std::pair<std::string, Expression>>& out) {
  if (!v.is_object()) r.fail(path, fmt::format("expected an object of macro names and expressions, got {}", v.dump()));
  for (const auto& item : v.items()) {
    if (!is_identifier(item.key()))
      r.fail(path + "." + item.key(), fmt::format("expected a macro name (letters, digits, '_'), got '{}'", item.key()));
    out.emplace_back(item.key(), r.expression(item.value(), path + "." + item.key(), names));
  }
}

namespace {

// Compiler options that write files of their own naming (nvcc's --output-file=my_scale.cu wrote a
// cubin over the kernel's source; -save-temps left six files in the current folder): occbench
// compiles into its own scratch folder and reads the cubin from there, so they are refused.
const char* const kWritingOptions[] = {
    "-o", "--output-file", "-odir", "--output-directory", "-save-temps", "--save-temps", "-keep", "--keep", "-keep-dir",
    "--keep-dir", "-M", "-MM", "-MD", "-MMD", "-MF", "-MT", "-MP", "--dependency-output", "--generate-dependencies",
    "--generate-nonsystem-dependencies", "--generate-dependencies-with-compile", "--generate-nonsystem-dependencies-with-compile",
    "--generate-dependency-targets", "-lib", "--lib", "-link", "--link", "-run", "--run", "-dryrun", "--dryrun", "-optf",
    "--options-file", "-Xlinker", "--linker-options", "-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir"};

// The option's name: "--output-file=x" -> "--output-file".
std::string option_name(const std::string& option) { return option.substr(0, option.find('=')); }

}  // namespace

std::vector<std::string> parse_options(const Reader& r, const json& v, const std::string& path) {
  if (!v.is_array()) r.fail(path, fmt::format("expected a list of NVRTC options such as [\"-DUSE_X\", \"--use_fast_math\"], got {}", v.dump()));
  std::vector<std::string> options;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string o = r.string(v[i], fmt::format("{}[{}]", path, i));
    if (o[0] != '-') r.fail(fmt::format("{}[{}]", path, i), fmt::format("expected an option starting with '-', got \"{}\"", o));
    if (o.rfind("-arch", 0) == 0 || o.rfind("--gpu-architecture", 0) == 0)
      r.fail(fmt::format("{}[{}]", path, i), "the architecture is the device's own (or plan's --gpu); leave it out");
    for (const char* writing : kWritingOptions)
      if (option_name(o) == writing)
        r.fail(fmt::format("{}[{}]", path, i),
               fmt::format("\"{}\" makes the compiler write files, or run programs, of its own choosing (it can write over "
                           "your source); occbench compiles into its own scratch folder: leave it out",
                           o));
    options.push_back(o);
  }
  return options;
}

}  // namespace

bool is_identifier(const std::string& s) {
  return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> object_keys(const json& doc, const char* key) {
  std::vector<std::string> keys;
  if (doc.contains(key) && doc[key].is_object())
    for (const auto& item : doc[key].items()) keys.push_back(item.key());
  return keys;
}

namespace {

// The config's values for `name` (the variant's own, the sizes', the shared axes'), or nullptr.
const json* config_values(const json& doc, const std::string& variant, const std::string& name) {
  static const json kNone;
  auto member = [](const json& object, const std::string& key) -> const json& {
    return object.is_object() && object.contains(key) ? object[key] : kNone;
  };
  for (const json* where : {&member(member(doc, "variant_axes"), variant), &member(doc, "sizes"), &member(doc, "axes")})
    if (member(*where, name).is_array()) return &member(*where, name);
  return nullptr;
}

}  // namespace

namespace {

// A config value of `name` as an engine value: an integer, or its position among the axis's labels.
std::optional<std::int64_t> engine_value(const json& v, const std::string& name, const std::shared_ptr<const AxisLabels>& labels) {
  if (labels)
    if (auto axis = labels->find(name); axis != labels->end()) return label_position(axis->second, v);
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return std::nullopt;
}

}  // namespace

std::vector<Params> first_config_point(const json& doc, const std::string& variant, const std::vector<std::string>& names,
                                       const std::shared_ptr<const AxisLabels>& labels) {
  Params point;
  point.set_labels(labels);
  for (const auto& name : names) {
    const json* values = config_values(doc, variant, name);
    if (!values) continue;
    std::optional<std::int64_t> first;
    for (const auto& v : *values)
      if ((first = engine_value(v, name, labels))) break;
    if (!first) return {};
    point.set(name, *first);
  }
  return {point};
}

double config_combinations(const json& doc, const std::string& variant, const std::vector<std::string>& names) {
  double count = 1;
  for (const auto& name : names)
    if (const json* values = config_values(doc, variant, name)) count *= double(values->size());
  return count;
}

std::vector<Params> config_points(const json& doc, const std::string& variant, const std::vector<std::string>& names,
                                  const std::shared_ptr<const AxisLabels>& labels) {
  std::vector<Params> points{Params{}};
  points.front().set_labels(labels);
  for (const auto& name : names) {
    const json* values = config_values(doc, variant, name);
    if (!values) continue;
    std::vector<Params> next;
    for (const auto& point : points)
      for (const auto& v : *values)
        if (std::optional<std::int64_t> value = engine_value(v, name, labels)) {
          Params p = point;
          p.set(name, *value);
          next.push_back(std::move(p));
        }
    points = std::move(next);
  }
  return points;
}


SourceAxes source_axes(const Reader& r, const json& doc) {
  // Axes: whatever the config's sizes, axes and variant_axes name (their values are checked there).
  if (!doc.contains("sizes") || !doc["sizes"].is_object() || doc["sizes"].empty())
    r.fail("$.sizes", "expected an object of size axes with their values, e.g. {\"n\": [1048576]}");
  SourceAxes axes;
  axes.size_names = object_keys(doc, "sizes");
  axes.shared_axes = object_keys(doc, "axes");
  // occupancy_limit and sm_clock_mhz are the harness's axes (harness/family/harness_axes), not the kernel's.
  axes.shared_axes.erase(std::remove_if(axes.shared_axes.begin(), axes.shared_axes.end(),
                                        [](const std::string& name) { return is_harness_axis_name(name); }),
                         axes.shared_axes.end());
  axes.all_names = axes.size_names;
  // A name is a size or an axis, never both: the axis's values would silently replace the size's.
  auto refuse_size_name = [&](const std::string& name, const std::string& path) {
    if (std::find(axes.size_names.begin(), axes.size_names.end(), name) != axes.size_names.end())
      r.fail(path, fmt::format("'{}' is a size ($.sizes.{}) and an axis here; expected each name once, as a size or as an axis",
                               name, name));
  };
  for (const auto& a : axes.shared_axes) {
    refuse_size_name(a, "$.axes." + a);
    axes.all_names.push_back(a);
  }
  if (!doc.contains("variant_axes") || !doc["variant_axes"].is_object()) return axes;
  for (const auto& item : doc["variant_axes"].items())
    if (item.value().is_object())
      for (const auto& axis : item.value().items()) {
        refuse_size_name(axis.key(), "$.variant_axes." + item.key() + "." + axis.key());
        if (std::find(axes.all_names.begin(), axes.all_names.end(), axis.key()) == axes.all_names.end())
          axes.all_names.push_back(axis.key());
      }
  return axes;
}

Axis free_axis(const Reader& r, const std::string& name, const std::string& path, const char* what, const AxisLabels* labels) {
  if (!is_identifier(name))
    r.fail(path, fmt::format("expected an axis name of letters, digits and '_' (it is used in expressions), got '{}'", name));
  Axis axis;
  axis.name = name;
  axis.description = what;
  axis.min = std::numeric_limits<std::int64_t>::min();
  if (labels)
    if (auto found = labels->find(name); found != labels->end()) axis.labels = found->second;
  return axis;
}

// $.compile.compiler: NVRTC (in process) or the toolkit's nvcc (harness/compile/nvcc_compiler.hpp).
Compiler parse_compiler(const Reader& r, const json& v) {
  std::string name = r.string(v, "$.compile.compiler");
  if (name != compiler_name(Compiler::nvrtc) && name != compiler_name(Compiler::nvcc))
    r.fail("$.compile.compiler", fmt::format("expected \"nvrtc\" (the default) or \"nvcc\", got '{}'", name));
  Compiler compiler = name == compiler_name(Compiler::nvcc) ? Compiler::nvcc : Compiler::nvrtc;
  if (compiler == Compiler::nvcc && nvcc_version().empty())  // else every point would fail to compile
    r.fail("$.compile.compiler", fmt::format("\"nvcc\", but no nvcc runs here (looked in {}): install the CUDA toolkit's "
                                             "compiler, set CUDA_HOME, or use \"nvrtc\"",
                                             kNvccPlaces));
  return compiler;
}

CompileSettings parse_compile(const Reader& r, const json& doc, const fs::path& base, SourceState& state) {
  CompileSettings settings;
  if (!doc.contains("compile")) return settings;
  const auto& c = r.object(doc["compile"], "$.compile", {"compiler", "options", "defines", "include_dirs"});
  if (c.contains("compiler")) state.compiler = parse_compiler(r, c["compiler"]);
  if (c.contains("options")) settings.options = parse_options(r, c["options"], "$.compile.options");
  if (c.contains("defines")) settings.defines = c["defines"];
  if (!c.contains("include_dirs")) return settings;
  const auto& dirs = c["include_dirs"];
  if (!dirs.is_array()) r.fail("$.compile.include_dirs", fmt::format("expected a list of folders, got {}", dirs.dump()));
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    std::string path = fmt::format("$.compile.include_dirs[{}]", i);
    fs::path dir = r.string(dirs[i], path);
    if (dir.is_relative()) dir = base / dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) r.fail(path, fmt::format("expected an existing folder; {} is not one", dir.string()));
    state.include_options.push_back("-I" + dir.lexically_normal().string());
  }
  return settings;
}

std::vector<Argument> parse_arguments(const Reader& r, const json& doc, const SourceAxes& axes, const fs::path& base) {
  if (!doc.contains("arguments") || !doc["arguments"].is_array() || doc["arguments"].empty())
    r.fail("$.arguments", "expected a list of the kernel's parameters in order, e.g. [{\"name\": \"out\", \"type\": \"float32\", "
                          "\"role\": \"output\", \"count\": \"n\"}, ...]");
  std::vector<Argument> arguments;
  bool any_output = false;
  for (std::size_t i = 0; i < doc["arguments"].size(); ++i) {
    Argument a = parse_argument(r, doc["arguments"][i], fmt::format("$.arguments[{}]", i), axes.size_names, axes.all_names, base);
    for (const auto& other : arguments)
      if (other.name == a.name) r.fail(a.path + ".name", fmt::format("'{}' names two arguments", a.name));
    any_output = any_output || a.role == Argument::Role::output;
    arguments.push_back(std::move(a));
  }
  // Expected outputs from memory name the outputs they check; with none, none is required (Kernel
  // Tuner's tuning without an answer).
  bool from_memory = doc.contains("reference") && doc["reference"].is_object() && doc["reference"].contains("host");
  if (!any_output && !from_memory) r.fail("$.arguments", "expected at least one argument with \"role\": \"output\" (what is verified)");
  return arguments;
}

namespace {

// A variant's axes: its own list, else the shared axes and its variant_axes.
std::vector<std::string> kernel_axes(const Reader& r, const json& doc, const json& v, const std::string& variant,
                                     const std::string& path, const SourceAxes& axes) {
  std::vector<std::string> names;
  if (v.contains("axes")) {
    const auto& list = v["axes"];
    if (!list.is_array()) r.fail(path + ".axes", fmt::format("expected a list of axis names, got {}", list.dump()));
    for (std::size_t i = 0; i < list.size(); ++i) names.push_back(r.string(list[i], fmt::format("{}.axes[{}]", path, i)));
    return names;
  }
  names = axes.shared_axes;
  if (doc.contains("variant_axes") && doc["variant_axes"].is_object() && doc["variant_axes"].contains(variant))
    for (const auto& axis : object_keys(doc["variant_axes"], variant.c_str()))
      if (!is_harness_axis_name(axis) && std::find(names.begin(), names.end(), axis) == names.end()) names.push_back(axis);
  return names;
}

// "launch": {"host": NAME}: the caller computes the grid, block, dynamic shared memory and defines
// (Kernel Tuner's problem_size, grid_div and block_size_names), in place of those keys.
void parse_host_launch(const Reader& r, const json& v, const std::string& path, KernelSpec& k) {
  for (const char* key : {"grid", "block", "dynamic_smem_bytes"})
    if (v.contains(key)) r.fail(path + "." + key, "expected either \"launch\" (from the caller) or grid, block and dynamic_smem_bytes");
  const json& launch = r.object(v["launch"], path + ".launch", {"host"});
  if (!launch.contains("host")) r.fail(path + ".launch.host", "missing; expected the name of a launch handed over in memory");
  k.host_launch = r.string(launch["host"], path + ".launch.host");
  if (!host_hooks().launches.count(k.host_launch))
    r.fail(path + ".launch.host", host_names_expected("launches", host_keys(host_hooks().launches)) +
                                      fmt::format(", got '{}'", k.host_launch));
}

KernelSpec parse_kernel(const Reader& r, const json& doc, const std::string& variant, const json& value, const SourceAxes& axes,
                        const CompileSettings& compile) {
  std::string path = "$.kernels." + variant;
  if (!is_identifier(variant)) r.fail(path, fmt::format("expected a variant name of letters, digits and '_', got '{}'", variant));
  const auto& v = r.object(value, path,
                           {"kernel", "description", "grid", "block", "dynamic_smem_bytes", "defines", "options", "axes", "work", "launch"});
  KernelSpec k;
  k.variant = variant;
  k.path = path;
  k.axes = kernel_axes(r, doc, v, variant, path, axes);
  std::vector<std::string> names = axes.size_names;
  names.insert(names.end(), k.axes.begin(), k.axes.end());
  if (!v.contains("kernel")) r.fail(path + ".kernel", "missing; expected the __global__ function's name, e.g. \"tile_kernel<{chunk_size}>\"");
  k.name_parts = parse_kernel_name(r, v["kernel"], path + ".kernel", names);
  if (v.contains("launch")) {
    parse_host_launch(r, v, path, k);
  } else {
    if (!v.contains("grid")) r.fail(path + ".grid", "missing; expected the number of blocks, e.g. \"ceil_div(n, block_size)\" or [x, y, z]");
    if (!v.contains("block")) r.fail(path + ".block", "missing; expected the threads per block, e.g. \"block_size\" or [x, y, z]");
    parse_dims(r, v["grid"], path + ".grid", names, k.grid);
    parse_dims(r, v["block"], path + ".block", names, k.block);
  }
  if (v.contains("dynamic_smem_bytes")) k.dynamic_smem = r.expression(v["dynamic_smem_bytes"], path + ".dynamic_smem_bytes", names);
  parse_defines(r, compile.defines, "$.compile.defines", names, k.defines);
  if (v.contains("defines")) parse_defines(r, v["defines"], path + ".defines", names, k.defines);
  k.options = compile.options;
  if (v.contains("options")) {
    auto more = parse_options(r, v["options"], path + ".options");
    k.options.insert(k.options.end(), more.begin(), more.end());
  }
  parse_work(r, doc.value("work", json::object()), "$.work", names, k);
  if (v.contains("work")) parse_work(r, v["work"], path + ".work", names, k);
  if (v.contains("description")) k.description = r.string(v["description"], path + ".description");
  return k;
}

// The reference variant and its launch axes: $.reference.params, else each axis's first value in the config.
void parse_reference_variant(const Reader& r, const json& doc, const json& ref, SourceState& state) {
  std::string name = r.string(ref["variant"], "$.reference.variant");
  std::vector<std::string> variants;
  for (std::size_t i = 0; i < state.kernels.size(); ++i) {
    variants.push_back(state.kernels[i].variant);
    if (state.kernels[i].variant == name) state.reference_kernel = int(i);
  }
  if (state.reference_kernel < 0)
    r.fail("$.reference.variant", fmt::format("unknown variant '{}'; the kernels are: {}", name, fmt::join(variants, ", ")));
  const KernelSpec& k = state.kernels[std::size_t(state.reference_kernel)];
  json params = ref.value("params", json::object());
  r.object(params, "$.reference.params", k.axes);
  for (const auto& axis : k.axes) {
    std::string path = "$.reference.params." + axis;
    if (params.contains(axis)) {
      std::optional<std::int64_t> value = engine_value(params[axis], axis, state.labels);
      if (!value)
        r.fail(path, state.labels && state.labels->count(axis)
                         ? fmt::format("expected one of the values of '{}' in the config, got {}", axis, params[axis].dump())
                         : fmt::format("expected an integer, got {}", params[axis].dump()));
      state.reference_axes.set(axis, *value);
      continue;
    }
    const json* values = config_values(doc, name, axis);  // the variant's own values, else the shared ones
    std::optional<std::int64_t> first;
    if (values && !values->empty()) first = engine_value((*values)[0], axis, state.labels);
    if (!first) r.fail(path, fmt::format("missing; expected the value of '{}' for the reference run", axis));
    state.reference_axes.set(axis, *first);
  }
}

// Each output's expected values from a .npy file.
void parse_reference_files(const Reader& r, const json& files, const fs::path& base, SourceState& state) {
  std::vector<std::string> outputs;
  for (const auto& a : state.arguments)
    if (a.role == Argument::Role::output) outputs.push_back(a.name);
  r.object(files, "$.reference.npy", outputs);
  for (auto& a : state.arguments) {
    if (a.role != Argument::Role::output) continue;
    if (!files.contains(a.name)) r.fail("$.reference.npy." + a.name, "missing; expected the .npy file of this output's expected values");
    a.expected_npy = r.file_path(files[a.name], "$.reference.npy." + a.name, base);
  }
}

// Expected outputs handed over in memory, for the outputs named (Kernel Tuner's answer: an output
// it leaves out is not compared; with none, only a verification function, the guard zones and
// faults judge a point).
void parse_reference_host(const Reader& r, const json& arrays, SourceState& state) {
  std::vector<std::string> outputs;
  for (const auto& a : state.arguments)
    if (a.role == Argument::Role::output) outputs.push_back(a.name);
  r.object(arrays, "$.reference.host", outputs);
  for (auto& a : state.arguments)
    if (arrays.contains(a.name)) a.expected_host = host_array_name(r, arrays[a.name], "$.reference.host." + a.name, *a.type);
}

}  // namespace

std::vector<KernelSpec> parse_kernels(const Reader& r, const json& doc, const SourceAxes& axes, const CompileSettings& compile) {
  if (!doc.contains("kernels") || !doc["kernels"].is_object() || doc["kernels"].empty())
    r.fail("$.kernels", "expected an object of variants, e.g. {\"global\": {\"kernel\": \"global_kernel\", \"grid\": "
                        "\"ceil_div(n, block_size)\", \"block\": \"block_size\"}}");
  std::vector<KernelSpec> kernels;
  for (const auto& item : doc["kernels"].items()) kernels.push_back(parse_kernel(r, doc, item.key(), item.value(), axes, compile));
  return kernels;
}

void parse_reference(const Reader& r, const json& doc, const fs::path& base, SourceState& state) {
  // Verification: a reference variant's outputs, expected outputs from .npy files or from memory,
  // and where the caller hands one over, its function.
  if (!doc.contains("reference"))
    r.fail("$.reference", "missing; expected {\"variant\": NAME} (a kernel whose outputs the others must match) or "
                          "{\"npy\": {OUTPUT: FILE}} (expected outputs)");
  const auto& ref = r.object(doc["reference"], "$.reference", {"variant", "params", "npy", "host", "verify"});
  if (int(ref.contains("variant")) + int(ref.contains("npy")) + int(ref.contains("host")) != 1)
    r.fail("$.reference", "expected exactly one of \"variant\", \"npy\" and \"host\"");
  if (ref.contains("variant")) parse_reference_variant(r, doc, ref, state);
  else if (ref.contains("npy")) parse_reference_files(r, ref["npy"], base, state);
  else parse_reference_host(r, ref["host"], state);
  if (ref.contains("verify")) {
    state.host_verifier = r.string(ref["verify"], "$.reference.verify");
    if (!host_hooks().verifiers.count(state.host_verifier))
      r.fail("$.reference.verify", host_names_expected("verification functions", host_keys(host_hooks().verifiers)) +
                                       fmt::format(", got '{}'", state.host_verifier));
  }
}

std::size_t parse_guard_zone(const Reader& r, const json& doc) {
  if (!doc.contains("guard_zone_gib")) return kDefaultGuardZoneBytes;
  const json& v = doc["guard_zone_gib"];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1024)
    r.fail("$.guard_zone_gib", fmt::format("expected an integer from 0 (no guard zones) to 1024, got {}", v.dump()));
  return std::size_t(v.get<std::int64_t>()) << 30;
}

}  // namespace occbench
