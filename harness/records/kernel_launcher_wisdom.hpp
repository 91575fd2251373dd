#pragma once
// Kernel Launcher's wisdom files (KERNEL.wisdom: a JSON header line {"version": "1.0", "key",
// "objective", "tunable_parameters": [...]}, then a line per result {"config": [values in the
// header's order], "problem_size": [x, y, z], "environment": {"device_name", ...}, OBJECTIVE:
// value}) as occbench results, one per device, so that occbench::launch chooses from them as from
// its own (launch_choice.hpp): variant KEY, sizes x, y and z (a missing one 1), the tunable
// parameters as axes, the objective "time" as timing.median_ms (Kernel Tuner's milliseconds, which
// Kernel Launcher's tuning keeps). What does not map: another objective (the file is refused,
// saying so), parameters that are not whole numbers (those lines are left out), and the
// architecture (a wisdom line names only its device: no same-architecture fallback from them).
#include "harness/records/merge.hpp"

#include <string>
#include <vector>

namespace occbench {

// Whether `path` names a wisdom file (ends in .wisdom).
bool is_kernel_launcher_wisdom(const std::string& path);

// The file's results, one ShardOutput per device name; throws ResultsFileError naming the file,
// the line and what was expected.
std::vector<ShardOutput> kernel_launcher_wisdom(const std::string& path);

}  // namespace occbench
