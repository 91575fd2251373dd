// occbench's fuzz target: every entry point that reads user input, run in-process through the
// command line itself (cli_main), on inputs a structure-aware mutator makes from the shipped
// configs, examples and recorded results. Built with Clang's -fsanitize=fuzzer,address,undefined
// (scripts/fuzz/fuzz.sh), and without libFuzzer as a replayer of kept inputs (standalone_main.cpp,
// a CTest test). One input, one target: OCCBENCH_FUZZ_TARGET names it (targets.hpp).
//
// The promise each input is held to (a broken one aborts, so libFuzzer keeps the input):
//  - no crash, no sanitizer report, no run over libFuzzer's -timeout (10 s in scripts/fuzz/fuzz.sh);
//  - every command exits 0 or 2 (3, no GPU, for a run that would measure; 1 where the target
//    says a failure is an answer), and an exit 2 says "error:" with the file or the flag, never
//    a library's words (nlohmann's "[json.exception", libstdc++'s "basic_filebuf");
//  - no input file is changed; what validate accepts, run --dry-run and plan accept too.
#include "tests/fuzz/fuzz_support.hpp"

#include <cstdint>
#include <string>

using occbench::fuzz::Session;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Session::start();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Session::get().run_one(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
