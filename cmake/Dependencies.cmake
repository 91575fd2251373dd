# Every dependency comes from the system (Debian/Ubuntu packages; scripts/install-deps.sh installs
# them). One that is missing stops configuring at once, naming the package and the command that
# installs it, rather than trying a download that a machine without the internet never finishes.
# -DOCCBENCH_FETCH_MISSING=ON downloads what is missing instead (FetchContent, 30 s per download).
option(OCCBENCH_FETCH_MISSING "Download a dependency the system lacks (FetchContent) instead of stopping" OFF)
include(FetchContent)

# The one message for a missing dependency: what it is, the package, the command.
function(occbench_missing what debian_package)
  message(FATAL_ERROR
    "occbench needs ${what}, which CMake did not find.\n"
    "  Install it:  sudo apt-get install ${debian_package}\n"
    "  (or every dependency at once: bash scripts/install-deps.sh --test; on other systems, the package that\n"
    "  provides it, or -DOCCBENCH_FETCH_MISSING=ON to download it). `occbench doctor` checks a machine.")
endfunction()

# find_package(<package>), else the message above, else (OCCBENCH_FETCH_MISSING) a download of `url`.
macro(occbench_require package target what debian_package url)
  find_package(${package} QUIET)
  if(TARGET ${target})
    message(STATUS "occbench: using the system's ${package}")
  elseif(OCCBENCH_FETCH_MISSING AND NOT "${url}" STREQUAL "")
    message(STATUS "occbench: ${package} not found on the system, fetching ${url}")
    FetchContent_Declare(${package} URL ${url} DOWNLOAD_EXTRACT_TIMESTAMP TRUE TIMEOUT 30)
    FetchContent_MakeAvailable(${package})
  else()
    occbench_missing("${what}" ${debian_package})
  endif()
endmacro()

occbench_require(nlohmann_json nlohmann_json::nlohmann_json "nlohmann/json (JSON for Modern C++)" nlohmann-json3-dev
                 https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz)
# fmt as a library, not header-only: header-only, every file compiled fmt's implementation again
# (a 2-core build of occbench took 179 s against 116 s). The GPU machine gets libfmt beside the
# binaries (scripts/device/device_build.sh).
occbench_require(fmt fmt::fmt "fmt (C++ formatting)" libfmt-dev
                 https://github.com/fmtlib/fmt/releases/download/10.2.1/fmt-10.2.1.zip)
occbench_require(CLI11 CLI11::CLI11 "CLI11 (the command line)" libcli11-dev
                 https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.2.tar.gz)
# Expressions of source-defined kernels (launch, sizes, work model).
occbench_require(muparser muparser::muparser "muparser (expressions of your own kernels' configs)" libmuparser-dev "")

# --filter: RE2 matches in time linear in the id, whatever the pattern (std::regex backtracked
# exponentially on '(.*)*(.*)*x' and overflowed the stack on 20,000 nested groups). Debian ships
# no CMake package for it: pkg-config finds it; CMAKE_DISABLE_FIND_PACKAGE_re2 hides it (tests).
if(NOT CMAKE_DISABLE_FIND_PACKAGE_re2)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(re2 QUIET IMPORTED_TARGET GLOBAL re2)
  endif()
endif()
if(TARGET PkgConfig::re2)
  add_library(re2::re2 ALIAS PkgConfig::re2)
  message(STATUS "occbench: using the system's re2")
else()
  occbench_missing("RE2 (regular expressions of --filter)" libre2-dev)
endif()

if(OCCBENCH_BUILD_TESTS)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  occbench_require(GTest GTest::gtest_main "GoogleTest (the tests; -DOCCBENCH_BUILD_TESTS=OFF builds without them)"
                   libgtest-dev https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz)
endif()

if(OCCBENCH_BUILD_GBENCH)
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  occbench_require(benchmark benchmark::benchmark
                   "Google Benchmark (the occbench_gbench front end; -DOCCBENCH_BUILD_GBENCH=OFF builds without it)"
                   libbenchmark-dev https://github.com/google/benchmark/archive/refs/tags/v1.8.3.tar.gz)
endif()
