#pragma once
// A kernel family defined by a config instead of C++: the user's CUDA source (compiled at run
// time with NVRTC), its arguments (buffers sized by expressions, their initial values, scalars),
// each variant's kernel name, launch and work model as expressions of the point's parameters, and
// how to verify (a reference variant's outputs, or expected outputs from .npy files). Built into
// the same Family/Variant/Problem shape as the built-in families, so the runner, plan, writers
// and the Google Benchmark front end treat both alike.
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace occbench {

// The top-level keys a source config adds to a built-in family's ("source", "arguments", ...).
const std::vector<std::string>& source_config_keys();

// Throws ConfigError naming `config_file`, the JSON path and what was expected. Paths in the
// config (source, .npy files, include folders) are relative to the config file's folder.
std::shared_ptr<const Family> build_source_family(const nlohmann::ordered_json& doc, const std::string& source);

}  // namespace occbench
