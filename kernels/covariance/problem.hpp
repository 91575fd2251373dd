#pragma once
// The covariance problem at one size: D (host copy kept for the reference) and C on the device,
// the cuBLAS handle and workspace for cublas_syrk, and the reference, computed on the first verify().
#include <cuda_runtime.h>  // before device_buffer.hpp: the typed cudaMalloc overload, for .cpp files

#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/registry.hpp"

#include <cublas_v2.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace occbench::covariance {

// cuBLAS's recommended workspace on Hopper; set on the handle at every run (cublasSetStream
// resets it), so the library never allocates inside a timed run.
inline constexpr std::size_t kCublasWorkspaceBytes = std::size_t(32) << 20;

class CovarianceProblem : public Problem {
 public:
  CovarianceProblem(std::uint32_t m, std::uint32_t n, std::uint64_t seed);
  ~CovarianceProblem() override;
  CovarianceProblem(const CovarianceProblem&) = delete;
  CovarianceProblem& operator=(const CovarianceProblem&) = delete;

  void poison_outputs() override { cov_.poison(); }
  Verification verify() override;

  std::uint32_t m() const { return m_; }
  std::uint32_t n() const { return n_; }
  const float* data() const { return data_.get(); }
  float* cov() { return cov_.get(); }
  cublasHandle_t cublas() const { return cublas_; }
  void* cublas_workspace() const { return workspace_.get(); }
  const std::vector<float>& host_data() const { return host_data_; }
  // Whether verify() compares every entry (small sizes) or a sample.
  bool checks_full_matrix() const;

 private:
  void compute_reference();

  std::uint32_t m_, n_;
  std::uint64_t seed_;
  std::vector<float> host_data_;
  DeviceBuffer<float> data_, cov_;
  DeviceBuffer<std::uint8_t> workspace_;
  cublasHandle_t cublas_ = nullptr;
  bool have_reference_ = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> positions_;  // empty: every entry
  std::vector<double> expected_, diagonal_;
};

inline CovarianceProblem& problem_of(Problem& p) { return static_cast<CovarianceProblem&>(p); }

}  // namespace occbench::covariance
