#include "harness/compile/nvcc_compiler.hpp"
#include "harness/compile/cubin.hpp"
#include "harness/core/files.hpp"
#include "harness/core/format.hpp"
#include "harness/core/process.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <memory>
#include <mutex>
#include <regex>
#include <unistd.h>

namespace occbench {

namespace fs = std::filesystem;

namespace {

// A scratch folder, removed with its files when this goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "occbench-nvcc-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("occbench: could not make a scratch folder for nvcc in " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The source as nvcc compiles it: errors name the request's file, and each name expression is
// referred to from host code, so that nvcc instantiates and keeps its kernel or variable.
std::string source_for_nvcc(const NvrtcRequest& request) {
  std::string path;  // as a string literal of the #line directive
  for (char c : request.source_path) path += (c == '"' || c == '\\') ? std::string{'\\', c} : std::string{c};
  std::string text =
      fmt::format("#line 1 \"{}\"\n{}\n#line 1 \"name expressions of {}\"\n", path, request.source_text, path);
  for (std::size_t i = 0; i < request.name_expressions.size(); ++i) {
    const std::string& name = request.name_expressions[i];
    std::string address = name.rfind('&', 0) == 0 ? name : "&" + name;
    text += fmt::format("static const void* const occbench_name_{} __attribute__((unused)) = (const void*)({});\n", i, address);
  }
  return text;
}

std::string without_spaces(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
  return text;
}

// "void tile_kernel<4>(float*, int)" -> "tile_kernel<4>"; "ns::x" stays.
std::string without_signature(const std::string& demangled) {
  int depth = 0;
  std::size_t end = demangled.size();
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == '(' && depth == 0) {
      end = i;
      break;
    }
  }
  std::string name = demangled.substr(0, end);
  if (name.rfind("void ", 0) == 0) name = name.substr(5);
  return name;
}

std::string demangled(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : symbol;
}

}  // namespace

std::optional<std::string> lowered_name_among(const std::string& expression,
                                               const std::vector<std::pair<std::string, bool>>& symbols) {
  bool variable = expression.rfind('&', 0) == 0;
  std::string wanted = without_spaces(variable ? expression.substr(1) : expression);
  for (const auto& [symbol, is_function] : symbols)
    if (is_function != variable && symbol == wanted) return symbol;
  for (const auto& [symbol, is_function] : symbols)
    if (is_function != variable && without_spaces(without_signature(demangled(symbol))) == wanted) return symbol;
  return std::nullopt;
}

std::string nvcc_path() {
  static const std::string found = [] {
    for (const auto& include : toolkit_include_candidates())
      if (fs::path nvcc = fs::path(include).parent_path() / "bin" / "nvcc"; ::access(nvcc.c_str(), X_OK) == 0) return nvcc.string();
    return std::string("nvcc");  // PATH's, if any: nvcc_version says whether it runs
  }();
  return found;
}

std::string nvcc_version() {
  static std::once_flag once;
  static std::string version;
  std::call_once(once, [] {
    ProgramRun run = run_program({nvcc_path(), "--version"});
    std::smatch match;
    if (run.status == 0 && std::regex_search(run.output, match, std::regex(R"(release (\d+\.\d+))"))) version = match[1];
  });
  return version;
}

NvccOutput nvcc_compile_program(const NvrtcRequest& request, const std::vector<std::string>& options) {
  if (nvcc_version().empty())
    throw NvrtcCompileError(fmt::format("{}: \"compile\": {{\"compiler\": \"nvcc\"}}, but no nvcc runs here (looked in {})",
                                        request.source_path, kNvccPlaces));
  ScratchDir scratch;
  fs::path source = scratch.path() / "source.cu", cubin = scratch.path() / "source.cubin";
  write_text_file(source.string(), source_for_nvcc(request));
  std::vector<std::string> argv = {nvcc_path(), "-cubin", "-o", cubin.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(source.string());
  ProgramRun run = run_program(argv, scratch.path().string());  // whatever else nvcc writes stays in the scratch folder
  int status = run.status;
  NvccOutput out;
  out.log = valid_utf8(run.output);  // it quotes the source, which may not be UTF-8
  while (!out.log.empty() && out.log.back() == '\n') out.log.pop_back();
  if (status != 0)
    throw NvrtcCompileError(fmt::format("nvcc could not compile {} for sm_{} ({}):\n{}", request.source_path, request.arch,
                                        status < 0 ? "it did not run, or a signal stopped it" : fmt::format("exit status {}", status),
                                        out.log));
  out.cubin = read_file(cubin.string()).value_or("");
  std::vector<std::pair<std::string, bool>> symbols = cubin_symbol_names(out.cubin);
  for (const auto& name : request.name_expressions) {
    std::optional<std::string> lowered = lowered_name_among(name, symbols);
    if (!lowered) throw name_not_found("nvcc", request.source_path, name);
    out.lowered[name] = *lowered;
  }
  return out;
}

}  // namespace occbench
