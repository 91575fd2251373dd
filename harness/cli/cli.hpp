#pragma once
#include "harness/core/exit_codes.hpp"
#include "harness/family/registry.hpp"

#include <string>

namespace occbench {

int cli_main(int argc, char** argv, const Registry& registry);

// "occbench 0.4.0 (git 1a2b3c4)": what --version prints.
std::string version_text();

}  // namespace occbench
