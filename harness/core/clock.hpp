#pragma once
// The one wall-clock reading of the harness: every time_use figure (and the counters' added_*)
// is seconds of the steady clock since a start.
#include <chrono>

namespace occbench {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace occbench
