#pragma once
// `occbench doctor`: what this machine can do, one line per capability, each OK or not with the
// reason and the fix. The questions a new user on a real machine asks first: is there a GPU, does
// this build run on it, may this process read hardware counters (the ERR_NVGPUCTRPERM wall), lock
// clocks, read the energy counter; are NVRTC, ncu, compute-sanitizer and muparser there; can the
// NVRTC cache be written; where are the shipped configs. It changes nothing (no clock is locked).
#include <iosfwd>
#include <string>
#include <vector>

namespace occbench {

struct Capability {
  std::string name;
  bool ok = false;
  std::string detail;          // what was found, or why not
  std::string fix;             // how to get it, where it is not ok
  bool needed_to_run = false;  // `occbench run` cannot work without it
};

std::vector<Capability> check_capabilities();

// One line per capability ("ok   GPU  ..." / "no   counters  ...; fix: ..."), then what follows
// for runs. Pure, for tests.
std::string format_capabilities(const std::vector<Capability>& capabilities);
// 0 where every capability a run needs is there, else 1. Pure, for tests.
int doctor_exit_code(const std::vector<Capability>& capabilities);

}  // namespace occbench
