#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace occbench {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

namespace {

bool holds_configs(const std::filesystem::path& dir) {
  std::error_code error;
  return !dir.empty() && std::filesystem::is_directory(dir / "configs", error);
}

}  // namespace

std::string data_dir() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("OCCBENCH_DATA_DIR"); dir && *dir) return dir;
  std::error_code error;
  fs::path exe = fs::canonical("/proc/self/exe", error);
  if (error) return "";
  fs::path bin = exe.parent_path();
  for (const fs::path& candidate : {bin.parent_path() / "share" / "occbench", bin.parent_path(), bin.parent_path().parent_path()})
    if (holds_configs(candidate)) return candidate.lexically_normal().string();
  return "";
}

std::string shipped_config_path(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(name, error) || name.find('/') != std::string::npos) return name;
  std::string dir = data_dir();
  if (dir.empty()) return name;
  for (const std::string& file : {name, name + ".json"})
    if (fs::path path = fs::path(dir) / "configs" / file; fs::is_regular_file(path, error)) return path.string();
  return name;
}

void write_text_file(const std::string& path, const std::string& text) {
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot open for writing", path));
  out << text;
  if (!out.flush()) throw std::runtime_error(fmt::format("{}: write failed", path));
}

}  // namespace occbench
