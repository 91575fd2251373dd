#pragma once
// The exit codes of every occbench command.

namespace occbench {

// Exit codes: 0 success; 1 a point failed verification or the run broke; 2 bad input (config,
// arguments, files); 3 no GPU where one is needed.
enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitBadInput = 2, kExitNoGpu = 3 };

}  // namespace occbench
