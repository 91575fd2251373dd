# Each dependency is taken from the system first (Debian: nlohmann-json3-dev, libfmt-dev,
# libcli11-dev, libgtest-dev, libbenchmark-dev); where it is missing, FetchContent downloads it.
include(FetchContent)

macro(occbench_find_or_fetch package target)
  set(options)
  set(one_value URL)
  cmake_parse_arguments(ARG "${options}" "${one_value}" "" ${ARGN})
  find_package(${package} QUIET)
  if(NOT TARGET ${target})
    message(STATUS "occbench: ${package} not found on the system, fetching ${ARG_URL}")
    FetchContent_Declare(${package} URL ${ARG_URL} DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
    FetchContent_MakeAvailable(${package})
  else()
    message(STATUS "occbench: using the system's ${package}")
  endif()
endmacro()

occbench_find_or_fetch(nlohmann_json nlohmann_json::nlohmann_json
  URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz)

# fmt is used header-only: Debian ships it as a shared library only, and the device machine
# that runs our binaries does not have it.
set(FMT_INSTALL OFF CACHE BOOL "" FORCE)
occbench_find_or_fetch(fmt fmt::fmt-header-only
  URL https://github.com/fmtlib/fmt/releases/download/10.2.1/fmt-10.2.1.zip)

occbench_find_or_fetch(CLI11 CLI11::CLI11
  URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.2.tar.gz)

if(OCCBENCH_BUILD_TESTS)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  occbench_find_or_fetch(GTest GTest::gtest_main
    URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz)
endif()

if(OCCBENCH_BUILD_GBENCH)
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  occbench_find_or_fetch(benchmark benchmark::benchmark
    URL https://github.com/google/benchmark/archive/refs/tags/v1.8.3.tar.gz)
endif()

# Expressions of source-defined kernels (launch, sizes, work model): muparser from the system
# (Debian libmuparser-dev); it has no FetchContent fallback.
find_package(muparser REQUIRED)
