#include "harness/family/host_hooks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace occbench {

HostHooks& host_hooks() {
  static HostHooks hooks;
  return hooks;
}

const HostArray* find_host_array(const std::string& name) {
  const auto& arrays = host_hooks().arrays;
  auto found = arrays.find(name);
  return found == arrays.end() ? nullptr : &found->second;
}

std::string host_names_expected(const char* what, const std::vector<std::string>& names) {
  if (names.empty())
    return fmt::format("the name of one of the {} handed over in memory; none was (host items come from the Python "
                       "package, occbench.tune_kernel, not from a config run by the command)",
                       what);
  return fmt::format("the name of one of the {} handed over in memory ({})", what, fmt::join(names, ", "));
}

}  // namespace occbench
