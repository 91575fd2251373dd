// The structure-aware mutator of the libFuzzer build (scripts/fuzz/fuzz.sh): JSON inputs are mutated as
// JSON most of the time (a value replaced by a hostile one, a key dropped or borrowed, a value
// nested deep, a .jsonl's lines torn, doubled or swapped), else byte by byte as libFuzzer does.
#include "tests/fuzz/fuzz_support.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed) {
  std::string input(reinterpret_cast<const char*>(data), size);
  std::string mutated;
  if (occbench::fuzz::mutate_structure(occbench::fuzz::Session::get().target(), input, seed, mutated) &&
      mutated.size() <= max_size) {
    std::copy(mutated.begin(), mutated.end(), data);
    return mutated.size();
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
