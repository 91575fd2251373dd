#pragma once
// The headers most of the harness's files include (nlohmann/json and fmt above all: each file spent
// 8-17 s of a first build parsing them), precompiled once for all layers where OCCBENCH_PCH is on
// (cmake/OccbenchLayers.cmake; scripts/quickstart.sh's first build). No file includes it by name.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
