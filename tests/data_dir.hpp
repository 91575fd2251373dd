#pragma once
// Where the tests find the shipped configs and examples: $OCCBENCH_DATA_DIR, else the nearest
// folder above the test binary that holds configs/schema.json (the checkout it was built in, or a
// copy of it with the binaries inside, as the device machine runs them), else the current folder;
// never a path of the machine that built them.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace occbench::test_support {

inline std::string data_dir() {
  static const std::string dir = [] {
    if (const char* given = std::getenv("OCCBENCH_DATA_DIR"); given && *given) return std::string(given);
    namespace fs = std::filesystem;
    std::error_code ec;
    for (fs::path p = fs::read_symlink("/proc/self/exe", ec).parent_path(); !ec && !p.empty(); p = p.parent_path()) {
      if (fs::exists(p / "configs" / "schema.json", ec)) return p.string();
      if (p == p.root_path()) break;
    }
    return fs::current_path(ec).string();
  }();
  return dir;
}

}  // namespace occbench::test_support

// The tests' one name for it.
#define OCCBENCH_SOURCE_DIR (::occbench::test_support::data_dir())
