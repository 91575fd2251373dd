#pragma once
// GPU tests skip, with the reason, where no CUDA device can be used.
#include "harness/core/cuda_check.hpp"
#include "harness/measure/device.hpp"
#include "harness/family/registry.hpp"

#include <gtest/gtest.h>

#define OCCBENCH_REQUIRE_GPU()                                  \
  do {                                                          \
    if (auto reason = ::occbench::no_gpu_reason())              \
      GTEST_SKIP() << "GPU test skipped: " << *reason;          \
  } while (0)

namespace occbench {

// Poisons the outputs, runs the variant once at `params` and compares with the CPU reference.
inline Verification run_and_verify(const Variant& v, Problem& problem, const Params& params,
                                   cudaStream_t stream = nullptr) {
  LaunchSpec launch = v.launch ? v.launch(params) : LaunchSpec{};
  problem.poison_outputs();
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  v.run(problem, params, launch, stream);
  OCCBENCH_CHECK_LAUNCH();
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return problem.verify();
}

}  // namespace occbench
