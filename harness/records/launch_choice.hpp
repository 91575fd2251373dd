#pragma once
// Which configuration an application launches a kernel with on the GPU at hand, at its problem
// size, from the results files of its tuning (issue 58's selection rule; `occbench best` is the
// same choice for one run). In this order:
//   1. this GPU's own records (the device's name): its best at the recorded problem size nearest
//      the wanted one;
//   2. else those of a GPU of the same architecture (compute capability): their best at the
//      nearest size, the fastest GPU's where several recorded it;
//   3. else none: the application's defaults.
// Nearest: the least sum over the size axes of |log2(recorded / wanted)| (twice or half as large
// are as near), a size recorded without an axis the application names (or with an axis it does
// not) never; ties go to the larger recorded size (its tiles fit the wanted problem, which is
// smaller). The reason says which and why, for the application's log.
#include "harness/records/best.hpp"
#include "harness/records/merge.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

struct LaunchTarget {
  std::string gpu_name;            // "NVIDIA H200" (cudaDeviceProp::name)
  std::string compute_capability;  // "9.0"
  std::map<std::string, double> sizes;  // the problem: "m" 4000, "n" 4000
};

struct LaunchChoice {
  enum class From { this_gpu, same_architecture, defaults };
  From from = From::defaults;
  std::optional<BestPoint> best;  // none: the defaults
  std::string gpu;                // the GPU whose records it came from
  std::string reason;             // one line
};

// "this_gpu", "same_architecture" or "defaults": where a choice came from, as the Python package
// and the records of an application name it.
const char* from_name(LaunchChoice::From from);

// The results a launch chooses from in one file: an `occbench run` results file (.json or .jsonl),
// or a Kernel Launcher wisdom file (.wisdom, one per device: kernel_launcher_wisdom.hpp). Throws
// ResultsFileError naming the file.
std::vector<ShardOutput> read_launch_results(const std::string& path);
// Those of every file of `paths`; a file that cannot be read is left out, with why (path, message):
// tuning data missing or broken means the defaults, never an error.
struct LaunchResults {
  std::vector<ShardOutput> results;
  std::vector<std::pair<std::string, std::string>> left_out;
};
LaunchResults read_launch_results(const std::vector<std::string>& paths);

// The choice for `variant` ("family/variant", or a variant's name alone) among `results`.
LaunchChoice choose_launch(const std::vector<ShardOutput>& results, const std::string& variant, const LaunchTarget& target,
                           const Objective& objective = {});

// "m=4000 n=4096" (whole sizes as integers), as the reasons and the log name a problem.
std::string sizes_text(const std::map<std::string, double>& sizes);

// How far a recorded size is from the wanted one (see above); nullopt where their axes differ or
// a size is not a positive number.
std::optional<double> size_distance(const nlohmann::ordered_json& recorded, const std::map<std::string, double>& wanted);

}  // namespace occbench
