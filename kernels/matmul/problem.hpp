#pragma once
// The matmul problem at one size: random A and B, C poisoned, the cuBLAS handle, the reference.
// In a header so that GPU tests can reach the buffers and the handle.
#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/registry.hpp"

#include <cublas_v2.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace occbench::matmul {

// The math mode every cublas_sgemm point runs in: plain FP32 (no TF32 tensor-core math).
inline constexpr cublasMath_t kCublasMathMode = CUBLAS_DEFAULT_MATH;

class MatmulProblem : public Problem {
 public:
  MatmulProblem(std::size_t m, std::size_t n, std::size_t k, std::uint64_t seed);
  ~MatmulProblem() override;

  void poison_outputs() override;
  Verification verify() override;

  int m() const { return int(m_); }
  int n() const { return int(n_); }
  int k() const { return int(k_); }
  const float* a() const { return a_.get(); }
  const float* b() const { return b_.get(); }
  float* c() { return c_.get(); }
  cublasHandle_t cublas() const { return handle_; }
  // The rows the reference computes (all rows at small sizes).
  const std::vector<std::size_t>& rows() const { return rows_; }

 private:
  std::size_t m_, n_, k_;
  std::vector<float> a_host_, b_host_;
  DeviceBuffer<float> a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
  std::vector<std::size_t> rows_;
  std::vector<double> ref_, scale_;  // computed by the first verify()
};

}  // namespace occbench::matmul
