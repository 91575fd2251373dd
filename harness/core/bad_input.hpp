#pragma once
// Bad input: what every command refuses with exit 2 (kExitBadInput), its message naming the file
// (or flag), where in it and what was expected. ConfigError and ResultsFileError are its kinds.
#include <stdexcept>
#include <string>

namespace occbench {

class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // "FILE: WHERE: EXPECTED", each part kept for the caller that reports it in its own terms.
  BadInput(std::string file, std::string where, std::string expected)
      : std::runtime_error(file + ": " + where + ": " + expected),
        file_(std::move(file)),
        where_(std::move(where)),
        expected_(std::move(expected)) {}
  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string file_, where_, expected_;
};

}  // namespace occbench
