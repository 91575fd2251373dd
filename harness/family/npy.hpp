#pragma once
// NumPy .npy files (format 1.0-3.0, little-endian, C order): inputs and expected outputs of
// source-defined kernels.
#include "harness/core/bad_input.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace occbench {

struct NpyArray {
  std::string dtype;                // NumPy's descr: "<f4", "<f8", "<i4", "<u4", "|u1"
  std::vector<std::uint64_t> shape;
  std::vector<unsigned char> bytes;  // the elements, as stored
  std::uint64_t count() const;  // the shape's product (shapes whose product overflows are refused)
};

// A .npy file that cannot be used: bad input (exit 2), naming the file.
class NpyError : public BadInput {
 public:
  using BadInput::BadInput;
};

// Throws NpyError naming the file and what is wrong (not .npy, Fortran order, big-endian, ...).
NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace occbench
