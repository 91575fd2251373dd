#pragma once
// The order in which a compile worker (plan --compile-share W/N, harness/run/compile_workers.hpp)
// goes through a list's kernels. One space's compile times differ by 60x (Kernel Tuner's
// convolution: 0.15 s at a 1 x 1 tile, 8.8 s at 8 x 8, on one core), and a run waits for its
// last kernel: a heavy one left to the end holds up the whole run (on the H100 a random sample of
// 120 waited 7.5 s at its end for a 8 x 8 tile the workers came to last). So each worker takes,
// of the next kernels nobody has compiled or claimed, the one guessed the costliest from the
// compilations seen so far (longest first), its own order breaking ties until there are enough.
// Compilations other processes are still running count too, as taking at least as long as they
// have so far: the heavy kernels are the last to finish, so a guess from finished ones alone learns
// of them last (on the H100 a 6 x 8 tile, its kind unseen among the finished, was started 7.6 s
// into a random sample and ended 4.9 s after every other kernel).
#include "harness/family/registry.hpp"
#include "harness/compile/nvrtc_compiler.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// Compile time guessed from the compilations seen: in log space, the mean of all plus, for each
// parameter, how far the mean of those with the point's value lies from it (a tile twice as wide
// multiplies the time). A value not seen yet counts as the costliest seen of its parameter: what
// has not finished yet is what takes longest.
class CompileCostGuess {
 public:
  // No guess before `min_samples` compilations finished.
  explicit CompileCostGuess(int min_samples = kMinSamples) : min_samples_(min_samples) {}
  void add(const Params& params, double compile_ms);
  // A compilation still running, believed to take `at_least_ms`: it counts in the guess, not
  // towards min_samples.
  void add_unfinished(const Params& params, double at_least_ms);
  // log(ms) guessed, or none before min_samples compilations finished.
  std::optional<double> guess_log_ms(const Params& params) const;
  static constexpr int kMinSamples = 8;

 private:
  struct Mean {
    double sum = 0;
    int count = 0;
    double value() const { return sum / count; }
  };
  void add_log(const Params& params, double log_ms);
  std::map<std::string, std::map<std::int64_t, Mean>> by_value_;  // parameter -> its value -> log ms
  Mean all_;
  int finished_ = 0;
  int min_samples_;
};

// Worker `index` of `count` through `requests` (params[i]: the point that asked for request i).
class CompileTurns {
 public:
  CompileTurns(std::vector<NvrtcRequest> requests, std::vector<Params> params, unsigned index, unsigned count,
               std::string cache_dir = nvrtc_cache_dir());
  // The next request to compile: of the next kWindow in this worker's order that no process has
  // compiled or claimed, the costliest guessed (the first before there is a guess); none at the end.
  std::optional<std::size_t> next();
  // What this worker compiled (compile_ms: NVRTC's time), learned from.
  void compiled(std::size_t i, double compile_ms);
  const NvrtcRequest& request(std::size_t i) const { return requests_[i]; }
  static constexpr std::size_t kWindow = 128;

 private:
  std::vector<std::size_t> open_window();
  CompileCostGuess guess_now();
  const NvrtcCacheEntry& entry(std::size_t i);  // request i's, its key computed on the first look
  std::vector<NvrtcRequest> requests_;
  std::vector<std::optional<NvrtcCacheEntry>> entries_;
  std::vector<Params> params_;
  std::string cache_dir_;
  std::vector<std::size_t> order_;  // each worker starts at its own index (a lone one from the end)
  std::vector<char> settled_;       // compiled (here or elsewhere), claimed elsewhere, or taken here
  std::size_t cursor_ = 0;          // into order_: everything before it is settled
  CompileCostGuess guess_;              // from the compilations finished
  std::vector<std::size_t> elsewhere_;  // settled by another process, its time not learned yet
};

}  // namespace occbench
