#pragma once
// Registration that reads like `occbench list`'s table: a family's name and description, its size
// axes with their legal values, then each variant with its axes and its launch, work and run.
//
//   return FamilyBuilder("transpose", "out-of-place float32 transpose ...")
//       .size(axis("rows", "rows of the input").in(1, 65535 * 32))
//       .problem(...).device_bytes(...)
//       .variant(VariantBuilder("naive", "coalesced reads ...").axis(block_rows).launch(...).work(...).run(...));
//
// It only fills Family / Variant / Axis (harness/family/registry.hpp), whose fields stay public.
#include "harness/family/registry.hpp"

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// axis("block_size", "threads per block").in(32, 1024).multiple_of(32).by_default(256)
class AxisBuilder {
 public:
  AxisBuilder(std::string name, std::string description) {
    axis_.name = std::move(name);
    axis_.description = std::move(description);
  }
  AxisBuilder& in(std::int64_t min, std::int64_t max) {
    axis_.min = min;
    axis_.max = max;
    return *this;
  }
  AxisBuilder& at_least(std::int64_t min) {
    axis_.min = min;
    return *this;
  }
  AxisBuilder& multiple_of(std::int64_t step) {
    axis_.multiple_of = step;
    return *this;
  }
  AxisBuilder& one_of(std::vector<std::int64_t> legal_values) {
    axis_.legal_values = std::move(legal_values);
    return *this;
  }
  AxisBuilder& by_default(std::int64_t value) {
    axis_.default_value = value;
    return *this;
  }
  operator Axis() const { return axis_; }

 private:
  Axis axis_;
};

inline AxisBuilder axis(std::string name, std::string description) {
  return AxisBuilder(std::move(name), std::move(description));
}

// A kernel's launch: launch_of(kernel_ref<&k>(), {grid_x, grid_y}, {block_x, block_y}, dynamic_smem_bytes).
inline LaunchSpec launch_of(const KernelRef& kernel, Dim3 grid, Dim3 block, std::size_t dynamic_smem_bytes = 0) {
  LaunchSpec l;
  l.grid = grid;
  l.block = block;
  l.dynamic_smem_bytes = dynamic_smem_bytes;
  l.set_kernel(kernel);
  return l;
}

inline dim3 to_dim3(Dim3 d) { return dim3(d.x, d.y, d.z); }

class VariantBuilder {
 public:
  VariantBuilder(std::string name, std::string description) {
    variant_.name = std::move(name);
    variant_.description = std::move(description);
  }
  VariantBuilder& host() {
    variant_.executor = Executor::host;
    return *this;
  }
  VariantBuilder& axis(Axis a) {
    variant_.axes.push_back(std::move(a));
    return *this;
  }
  VariantBuilder& notes(std::string text) {
    variant_.notes = std::move(text);
    return *this;
  }
  VariantBuilder& check(std::function<std::string(const Params&)> f) {
    variant_.check = std::move(f);
    return *this;
  }
  VariantBuilder& launch(std::function<LaunchSpec(const Params&)> f) {
    variant_.launch = std::move(f);
    return *this;
  }
  VariantBuilder& work(std::function<WorkModel(const Params&)> f) {
    variant_.work = std::move(f);
    return *this;
  }
  VariantBuilder& run(std::function<void(Problem&, const Params&, const LaunchSpec&, cudaStream_t)> f) {
    variant_.run = std::move(f);
    return *this;
  }
  // run with the family's own problem type: fn(FamilyProblem&, params, launch, stream).
  template <typename FamilyProblem, typename Fn>
  VariantBuilder& run_on(Fn fn) {
    variant_.run = [fn](Problem& problem, const Params& params, const LaunchSpec& l, cudaStream_t stream) {
      fn(static_cast<FamilyProblem&>(problem), params, l, stream);
    };
    return *this;
  }
  operator Variant() const { return variant_; }

 private:
  Variant variant_;
};

class FamilyBuilder {
 public:
  FamilyBuilder(std::string name, std::string description) {
    family_.name = std::move(name);
    family_.description = std::move(description);
  }
  FamilyBuilder& size(Axis a) {
    family_.size_axes.push_back(std::move(a));
    return *this;
  }
  FamilyBuilder& check_sizes(std::function<std::string(const Params&)> f) {
    family_.check_sizes = std::move(f);
    return *this;
  }
  FamilyBuilder& device_bytes(std::function<std::uint64_t(const Params&)> f) {
    family_.device_bytes = std::move(f);
    return *this;
  }
  // The problem at given sizes, with random inputs from the seed.
  FamilyBuilder& problem(std::function<std::unique_ptr<Problem>(const Params&, std::uint64_t)> f) {
    family_.make_problem = std::move(f);
    return *this;
  }
  FamilyBuilder& reference_axes(std::vector<std::string> names) {
    family_.reference_axes = std::move(names);
    return *this;
  }
  FamilyBuilder& variant(Variant v) {
    family_.variants.push_back(std::move(v));
    return *this;
  }
  operator Family() const { return family_; }

 private:
  Family family_;
};

}  // namespace occbench
