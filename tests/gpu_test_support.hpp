#pragma once
// GPU tests skip, with the reason, where no CUDA device can be used.
#include "harness/device.hpp"

#include <gtest/gtest.h>

#define OCCBENCH_REQUIRE_GPU()                                  \
  do {                                                          \
    if (auto reason = ::occbench::no_gpu_reason())              \
      GTEST_SKIP() << "GPU test skipped: " << *reason;          \
  } while (0)
