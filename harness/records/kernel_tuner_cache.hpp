#pragma once
// Kernel Tuner's cache files as occbench's records, so that `occbench replay` and the search
// strategies run on a space Kernel Tuner measured: each cached configuration a point of the
// variant named by the cache's kernel, its "time" the point's median (Kernel Tuner records the
// mean of its iterations), an error ("CompilationFailedConfig", ...) a failed point. Kernel
// Tuner leaves a cache open (no closing "}\n}") while it tunes; such a file is read too.
#include "harness/records/merge.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace occbench {

// Whether a parsed document is a Kernel Tuner cache (an object with "cache" and "tune_params_keys").
bool is_kernel_tuner_cache(const nlohmann::ordered_json& doc);

// The cache's file text closed where Kernel Tuner left it open; the text itself otherwise.
std::string closed_kernel_tuner_cache(const std::string& text);

// The cache as a results file; throws ResultsFileError naming the file, the entry and what was
// expected (occbench's parameters are integers).
ShardOutput kernel_tuner_cache_output(const nlohmann::ordered_json& doc, const std::string& path);

}  // namespace occbench
