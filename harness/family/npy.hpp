#pragma once
// NumPy .npy files (format 1.0-3.0, little-endian, C order): inputs and expected outputs of
// source-defined kernels.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace occbench {

struct NpyArray {
  std::string dtype;                // NumPy's descr: "<f4", "<f8", "<i4", "<u4", "|u1"
  std::vector<std::uint64_t> shape;
  std::vector<unsigned char> bytes;  // the elements, as stored
  std::uint64_t count() const;
};

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws NpyError naming the file and what is wrong (not .npy, Fortran order, big-endian, ...).
NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace occbench
