// The order in which a compile worker takes a list's kernels (harness/compile/compile_order.hpp):
// its own order until enough compilations are seen, then the costliest guessed first, leaving
// what is compiled or claimed elsewhere. NVRTC compiles without a GPU.
#include "harness/compile/compile_order.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace occbench;
namespace fs = std::filesystem;

namespace {

Params params_of(std::int64_t width, std::int64_t copy) {
  Params p;
  p.set("width", width);
  p.set("copy", copy);
  return p;
}

NvrtcRequest request_of(const Params& p) {
  NvrtcRequest r;
  r.source_path = "turns.cu";
  r.source_text = "extern \"C\" __global__ void k(float* o) { o[threadIdx.x] = WIDTH + COPY; }\n";
  r.options = {fmt::format("-DWIDTH={}", p.get("width")), fmt::format("-DCOPY={}", p.get("copy"))};
  r.name_expressions = {"k"};
  return r;
}

}  // namespace

TEST(CompileCostGuess, AddsEachParametersEffectAndCountsAValueNotSeenAsTheCostliest) {
  CompileCostGuess guess;
  EXPECT_FALSE(guess.guess_log_ms(params_of(1, 0))) << "no guess before kMinSamples";
  for (std::int64_t w : {1, 2, 4, 8})
    for (std::int64_t c : {0, 1}) guess.add(params_of(w, c), 100.0 * double(w) * (c + 1));  // time: width x (copy + 1)
  auto at = [&](std::int64_t w, std::int64_t c) { return *guess.guess_log_ms(params_of(w, c)); };
  EXPECT_GT(at(8, 1), at(8, 0));
  EXPECT_GT(at(8, 0), at(4, 0));
  EXPECT_GT(at(4, 1), at(1, 1));
  EXPECT_NEAR(at(8, 1) - at(1, 1), std::log(8.0), 1e-9) << "additive in log space: a multiplied time";
  EXPECT_DOUBLE_EQ(at(16, 0), at(8, 0)) << "a width not seen yet: the costliest seen";
}

// Kernels compiled by another worker (their times in the cache's entries) and by this one teach
// the guess; then the worker takes the open ones costliest first, and leaves one another process
// has claimed.
TEST(CompileTurns, TakesItsOwnOrderThenTheCostliestGuessedFirst) {
  fs::path cache = fs::temp_directory_path() / ("occbench_compile_turns_" + std::to_string(::getpid()));
  fs::remove_all(cache);
  std::vector<NvrtcRequest> requests;
  std::vector<Params> params;
  for (std::int64_t w = 1; w <= 9; ++w) params.push_back(params_of(w, 0));
  for (std::int64_t w : {2, 9, 5, 7}) params.push_back(params_of(w, 1));
  for (const auto& p : params) requests.push_back(request_of(p));
  auto ms_of = [&](std::size_t i) { return 10.0 * double(params[i].get("width")); };
  for (std::size_t other : {1u, 3u, 5u, 7u}) {  // compiled by another worker first
    std::string key = nvrtc_compile(requests[other], cache.string()).cache_key;
    fs::path meta = cache / (key + ".json");
    nlohmann::json entry = nlohmann::json::parse(std::ifstream(meta));
    entry["compile_ms"] = ms_of(other);
    std::ofstream(meta) << entry.dump();
  }
  std::string claimed_key = nvrtc_compile(requests[12], (cache / "elsewhere").string()).cache_key;
  std::ofstream(cache / (claimed_key + ".lock")) << "some-other-host 1";  // a fresh claim of another host's process

  CompileTurns worker(requests, params, 0, 2, cache.string());
  for (std::size_t expected : {0u, 2u, 4u, 6u}) {  // 4, then 8 compilations seen
    ASSERT_EQ(worker.next(), expected) << "its own order while there is no guess";
    worker.compiled(expected, ms_of(expected));
  }
  std::vector<std::size_t> taken;
  while (std::optional<std::size_t> i = worker.next()) taken.push_back(*i);
  ASSERT_EQ(taken.size(), 4u) << "the claimed one (12) left to its process";
  EXPECT_EQ(params[taken[0]].get("width"), 9) << "the costliest guessed first (a width not seen: the costliest)";
  EXPECT_EQ(params[taken.back()].get("width"), 2) << "the cheapest last";
  fs::remove_all(cache);
}

// A kernel another process has been compiling for seconds teaches the guess before it ends: its
// parameter values count as at least that costly (the heavy kernels are the last to finish).
TEST(CompileTurns, CountsWhatOthersAreStillCompilingAsCostly) {
  fs::path cache = fs::temp_directory_path() / ("occbench_compile_running_" + std::to_string(::getpid()));
  fs::remove_all(cache);
  std::vector<Params> params;
  for (std::int64_t w = 1; w <= 8; ++w) params.push_back(params_of(w, 0));  // 0-7: finished elsewhere, 10 ms each
  params.push_back(params_of(1, 1));                                          // 8: another process's, 5 s so far
  params.push_back(params_of(9, 0));                                          // 9, 10: open
  params.push_back(params_of(9, 1));
  std::vector<NvrtcRequest> requests;
  for (const auto& p : params) requests.push_back(request_of(p));
  for (std::size_t other = 0; other < 8; ++other) {
    std::string key = nvrtc_compile(requests[other], cache.string()).cache_key;
    nlohmann::json entry = nlohmann::json::parse(std::ifstream(cache / (key + ".json")));
    entry["compile_ms"] = 10.0;
    std::ofstream(cache / (key + ".json")) << entry.dump();
  }
  std::string running_key = nvrtc_compile(requests[8], (cache / "elsewhere").string()).cache_key;
  fs::path lock = cache / (running_key + ".lock");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::ofstream(lock) << host << " " << ::getpid();  // a live process of this host holds it
  fs::last_write_time(lock, fs::file_time_type::clock::now() - std::chrono::seconds(5));
  ASSERT_EQ(NvrtcCacheEntry(requests[8], cache.string()).state(), CompileState::compiling_elsewhere);
  std::optional<CompileTime> so_far = NvrtcCacheEntry(requests[8], cache.string()).compile_time();
  ASSERT_TRUE(so_far && !so_far->finished);
  EXPECT_NEAR(so_far->ms, 5000.0, 1000.0);
  ASSERT_TRUE(NvrtcCacheEntry(requests[0], cache.string()).compile_time()->finished);

  CompileTurns worker(requests, params, 0, 2, cache.string());
  EXPECT_EQ(worker.next(), 10u) << "copy=1 has taken 5 s so far elsewhere: (9, 1) before (9, 0)";
  EXPECT_EQ(worker.next(), 9u);
  EXPECT_EQ(worker.next(), std::nullopt) << "the running one left to its process";
  fs::remove_all(cache);
}
