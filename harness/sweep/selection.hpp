#pragma once
// Part of a sweep, from the command line: the same narrowing and overrides for `run`, `plan` and
// the Google Benchmark front end, checked like the config itself (a ConfigError naming the flag).
//   --variants global,vectorized        only these of the config's variants
//   --filter REGEX                      only points whose id matches (searched, RE2 syntax)
//   --set block_size=128,256            replace an axis's values (a size axis or a launch axis)
//   --axis "block_size=[128,256]"       the same in nvbench's spelling
#include "harness/sweep/spec.hpp"
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace occbench {

// Adds one --set/--axis value ("axis=v1,v2" or "axis=[v1,v2]") to the selection; `flag` names the
// option in messages. Throws ConfigError when it is not of that form.
void add_axis_override(PointSelection& selection, const std::string& flag, const std::string& text);

// Adds a comma-separated --variants list; throws ConfigError on an empty name.
void add_variant_names(PointSelection& selection, const std::string& text);

// The sweep with the selection applied, validated as a config would be: the config's JSON with
// the variants and axes replaced is parsed again (spec.raw stays the input as given). Throws
// ConfigError naming the flag and what was expected: an unknown variant or axis, an illegal value,
// a filter that is not a regular expression or that matches none of the sweep's points.
SweepSpec apply_selection(const SweepSpec& spec, const PointSelection& selection, const Registry& registry);

// For the record's run block: {"variants": [...], "filter": "...", "set": {axis: [values]}}; null
// when nothing was selected.
nlohmann::ordered_json to_json(const PointSelection& selection);

}  // namespace occbench
