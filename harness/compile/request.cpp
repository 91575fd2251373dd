#include "harness/compile/request.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#ifndef OCCBENCH_CUDA_INCLUDE_DIR
#define OCCBENCH_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace occbench {

namespace fs = std::filesystem;

const char* compiler_name(Compiler compiler) { return compiler == Compiler::nvcc ? "nvcc" : "nvrtc"; }

NvrtcCompileError name_not_found(const std::string& compiler, const std::string& source_path, const std::string& expression) {
  return NvrtcCompileError(fmt::format("{} compiled {} but found no {} '{}' in it", compiler, source_path,
                                       expression.rfind('&', 0) == 0 ? "variable" : "kernel", expression));
}

std::vector<std::string> toolkit_include_candidates() {
  std::vector<std::string> includes;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(variable); root && *root) includes.push_back((fs::path(root) / "include").string());
  includes.push_back(OCCBENCH_CUDA_INCLUDE_DIR);
  includes.push_back("/usr/local/cuda/include");
  return includes;
}

std::vector<std::string> toolkit_include_dirs() {
  for (const auto& include : toolkit_include_candidates()) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(include) / "cuda_runtime.h", ec)) continue;
    std::vector<std::string> dirs;
    if (fs::is_directory(fs::path(include) / "cccl", ec)) dirs.push_back((fs::path(include) / "cccl").string());
    dirs.push_back(include);
    return dirs;
  }
  return {};
}

}  // namespace occbench
