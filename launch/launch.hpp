#pragma once
// occbench::launch: tuned kernels in the application. An application declares a kernel once (its
// source file, its name, its tunable parameters with defaults, its launch as expressions of the
// parameters and the problem's sizes, as a config's `kernels` entry) and launches it with its own
// device pointers and scalars. At the first launch on a GPU at a problem size it picks the
// configuration from the results files it was given (harness/records/launch_choice.hpp: this
// GPU's best at the nearest recorded size, else its architecture's, else the defaults), says once
// in the log which and why, and compiles it with NVRTC through occbench's on-disk cache; a later
// launch there costs a map lookup more than a plain one. Never a crash for lack of tuning data: a
// results file that cannot be read, or a tuned configuration that does not compile, leaves the
// defaults, with a line saying so. With OCCBENCH_CAPTURE naming the kernel, its first launch at
// each size is also written out as a config that occbench tunes (capture.hpp).
#include "harness/records/launch_choice.hpp"
#include "launch/declaration.hpp"

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace occbench::launch {

class Kernel {
 public:
  // Reads the results files (one that cannot be read is named in `log` and left out).
  explicit Kernel(KernelDeclaration declaration, std::ostream& log = std::cerr);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  // Launches on the current device for a problem of `sizes` (the names the results' configs give
  // their sizes), `args` as cudaLaunchKernel takes them: the address of each argument.
  void launch(const std::map<std::string, double>& sizes, void** args, cudaStream_t stream = nullptr);
  // The configuration at `sizes` on the current device (chosen and compiled where it was not yet).
  const LaunchChoice& choice(const std::map<std::string, double>& sizes);
  // The kernel there, as the runtime's launch and attribute calls take it.
  const void* function(const std::map<std::string, double>& sizes);
  // Its parameters' values there: the chosen point's, the defaults for the rest.
  std::vector<std::pair<std::string, std::int64_t>> parameters(const std::map<std::string, double>& sizes);

 private:
  struct Ready {
    LaunchChoice choice;
    std::vector<std::pair<std::string, std::int64_t>> parameters;
    cudaKernel_t kernel = nullptr;
    dim3 grid, block;
    std::size_t dynamic_smem_bytes = 0;
    std::string gpu_name;
    bool capture_pending = false;  // OCCBENCH_CAPTURE names the kernel: its first launch here is written out
  };
  Ready& ready(const std::map<std::string, double>& sizes);
  Ready prepare(int device, const std::map<std::string, double>& sizes);
  void capture_launch(Ready& r, const std::map<std::string, double>& sizes, void** args, cudaStream_t stream);
  cudaKernel_t compile(int device, const std::vector<std::pair<std::string, std::int64_t>>& parameters, std::string& how);
  KernelDeclaration declaration_;
  std::ostream& log_;
  std::string source_text_;
  std::vector<ShardOutput> results_;
  std::map<std::pair<int, std::map<std::string, double>>, Ready> ready_;  // by device and sizes
  std::vector<cudaLibrary_t> libraries_;
  bool capture_ = false;  // OCCBENCH_CAPTURE names this kernel and it can be captured
};

}  // namespace occbench::launch
