#pragma once
// Owning device allocation, for kernel families' problems.
#include "harness/core/cuda_check.hpp"

#include <cstddef>
#include <vector>

namespace occbench {

// 0xFF bytes: every float and double element becomes NaN, so an unwritten element fails (and a
// guard zone holds them, so that any other byte there is a write out of bounds).
inline void poison_bytes(void* device_pointer, std::size_t bytes) {
  if (bytes) OCCBENCH_CUDA_CHECK(cudaMemset(device_pointer, 0xFF, bytes));
}

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_) OCCBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    OCCBENCH_CUDA_CHECK(cudaMemcpy(data_, host.data(), std::min(bytes(), host.size() * sizeof(T)), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_) OCCBENCH_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  void poison() { poison_bytes(data_, bytes()); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace occbench
