#pragma once
#include "harness/family/registry.hpp"

#include <string>

namespace occbench {

// Exit codes: 0 success; 1 a point failed verification or the run broke; 2 bad input (config,
// arguments, files); 3 no GPU where one is needed.
enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitBadInput = 2, kExitNoGpu = 3 };

int cli_main(int argc, char** argv, const Registry& registry);

// "occbench 0.4.0 (git 1a2b3c4)": what --version prints.
std::string version_text();

}  // namespace occbench
