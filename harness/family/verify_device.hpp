#pragma once
// The comparison of harness/family/verify.hpp, run on the GPU: the output never leaves the device, so a
// point of a 1 GiB output is verified in a millisecond instead of a download and a CPU pass.
// Same rule, same figures (max relative error, mismatches, the first mismatch's detail).
#include "harness/family/device_buffer.hpp"
#include "harness/family/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace occbench {

Verification compare_on_device(const float* out_device, const float* ref_device, std::size_t count, double tolerance,
                               double abs_floor);
Verification compare_on_device(const float* out_device, const double* ref_device, std::size_t count, double tolerance,
                               double abs_floor);

// The user-kernel (source family) rule, |got - want| <= abs_tolerance + rel_tolerance * |want|
// (false for NaN), on the GPU for an output of `kind` elements, against expected values already on
// the device (the reference variant's outputs, kept there). max_rel_error as the host computes
// it; first_mismatch is the lowest failing index (count when none), for the caller's detail.
enum class ElementKind { float32, float64, int32, uint32, uint8, int64, uint64 };
// f(T{}) for `kind`'s element type T: the one place a kind becomes a type (loads, stores, fills, compares).
template <typename F>
decltype(auto) visit_element_kind(ElementKind kind, F&& f) {
  switch (kind) {
    case ElementKind::float64: return f(double{});
    case ElementKind::int32: return f(std::int32_t{});
    case ElementKind::uint32: return f(std::uint32_t{});
    case ElementKind::uint8: return f(std::uint8_t{});
    case ElementKind::int64: return f(std::int64_t{});
    case ElementKind::uint64: return f(std::uint64_t{});
    case ElementKind::float32: break;
  }
  return f(float{});
}
Verification compare_elements_on_device(ElementKind kind, const void* out_device, const void* expected_device,
                                        std::size_t count, double abs_tolerance, double rel_tolerance,
                                        std::size_t& first_mismatch);

// A family's CPU reference kept on the device: uploaded at the first compare (the family computes
// it once per problem), reused by every variant and launch configuration of that size.
template <typename Ref>
class DeviceReference {
 public:
  Verification compare(const float* out_device, const std::vector<Ref>& host_reference, double tolerance, double abs_floor) {
    if (device_.size() != host_reference.size()) {
      device_ = DeviceBuffer<Ref>(host_reference.size());
      device_.upload(host_reference);
    }
    return compare_on_device(out_device, device_.get(), host_reference.size(), tolerance, abs_floor);
  }

 private:
  DeviceBuffer<Ref> device_;
};

}  // namespace occbench
