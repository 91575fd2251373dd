#pragma once
// A sweep as the user wrote it, once parsed and checked (harness/sweep/config.hpp parses it): its
// family, variants, axes and measurement settings, and what the command line selected. A
// ConfigError names the file, the JSON path and what was expected.
#include "harness/core/bad_input.hpp"
#include "harness/family/registry.hpp"
#include "harness/measure/settings.hpp"
#include "harness/sweep/expression.hpp"
#include "harness/sweep/strategy.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

using AxisValues = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

// What the command line narrows or overrides in a sweep (harness/sweep/selection.hpp applies it):
// --variants, --filter (a regular expression searched in each point id), --set / --axis.
struct PointSelection {
  std::vector<std::string> variants;  // empty: the config's variants
  std::string filter;                 // empty: every point
  // axis -> its values as a JSON list (integers; a labelled axis's strings, numbers, booleans),
  // replacing the config's (sizes or launch axes)
  std::vector<std::pair<std::string, nlohmann::ordered_json>> overrides;
  std::vector<std::string> flags;     // each override as typed, for messages ("--set block_size=128,256")
  int shard_index = 0, shard_count = 0;  // --shard K/N (harness/sweep/shard.hpp); count 0: the whole sweep
  bool empty() const { return variants.empty() && filter.empty() && overrides.empty() && shard_count == 0; }
};

// A config's restriction: an expression over its sizes and axes ("block_size * items <= 512");
// a point whose parameters make it 0 (false) is never built. It constrains the points that have
// every name it uses (a variant without one of its axes is not constrained by it).
struct Restriction {
  std::string text, path, file;  // as written, where ("$.restrictions[0]") and in which config
  Expression expression;
  std::string host_condition;    // {"host": NAME, "uses": [...]}: a caller's condition in memory (uses: the names it reads)
  std::vector<std::string> uses;
  // True where it does not apply; throws ConfigError where it gives neither true nor false.
  bool allows(const Params& params) const;
};

// Each combination of a sweep's sizes is a problem of its own (its buffers, its reference): at most
// this many, checked from the config's lists before anything is built (sixteen sizes of ten values
// each were enumerated until memory ran out).
constexpr std::uint64_t kSizeCombinationsAtMost = 100000;
// Throws ConfigError at $.sizes (of `file`) where the lists of `sizes` (a config's "sizes" object)
// combine to more than kSizeCombinationsAtMost.
void check_size_combinations(const nlohmann::ordered_json& sizes, const std::string& file);

struct SweepSpec {
  std::string source;  // the file it came from
  std::string name;
  std::string description;
  std::string family;
  // Set when the config names CUDA source ("source") instead of a built-in family: the family
  // built from the config (harness/sweep/source_family), which the sweep's points point into.
  std::shared_ptr<const Family> source_family;
  std::vector<std::string> variants;
  std::string baseline;
  AxisValues sizes;                                        // the family's size axes
  AxisValues axes;                                         // launch axes shared by all variants that accept them
  std::vector<std::pair<std::string, AxisValues>> variant_axes;  // per-variant overrides
  std::vector<Restriction> restrictions;  // "restrictions": points they rule out are never built
  MeasurementSettings measurement;
  std::optional<Strategy> search;  // "search": how a run chooses its points (flags override it)
  nlohmann::ordered_json raw;  // the input as given, echoed in every result file
  PointSelection selection;    // from the command line; echoed in the record's run block
};

class ConfigError : public BadInput {
 public:
  ConfigError(std::string file, std::string json_path, std::string expected)
      : BadInput(std::move(file), std::move(json_path), std::move(expected)) {}
  const std::string& json_path() const { return where(); }
};

}  // namespace occbench
