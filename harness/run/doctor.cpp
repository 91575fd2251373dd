#include "harness/run/doctor.hpp"
#include "harness/compile/nvcc_compiler.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/core/files.hpp"
#include "harness/core/process.hpp"
#include "harness/measure/counters/counters.hpp"
#include "harness/measure/device.hpp"
#include "harness/measure/nvml.hpp"
#include "harness/model/kernel_resources.hpp"
#include "harness/sweep/expression.hpp"
#include "harness/compile/nvrtc_compiler.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <unistd.h>

namespace occbench {

namespace {

namespace fs = std::filesystem;

constexpr const char* kWithoutGpu =
    "without one, list, validate, plan --gpu KEY, run --dry-run, report, compare and merge work";

std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

// The first line a program prints for `--version` that names a version, or "".
std::string program_version(const std::string& path) {
  std::string output = run_program({path, "--version"}).output;
  std::size_t at = output.find("ersion");
  if (at == std::string::npos) return "";
  std::size_t begin = output.rfind('\n', at), end = output.find_first_of("\r\n", at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// A program on the PATH, else in the CUDA toolkit's bin/ (where nvcc's tools live), or "".
std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/local/cuda/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

Capability tool(const std::string& name, const std::string& what, const std::string& fix) {
  std::string path = find_program(name);
  if (path.empty()) return {name, false, fmt::format("not on the PATH ({})", what), fix};
  std::string version = program_version(path);
  return {name, true, version.empty() ? path : fmt::format("{} ({})", path, version), ""};
}

// The toolkit's nvcc, for configs with "compile": {"compiler": "nvcc"} (NVRTC, the default, needs none).
Capability nvcc_check() {
  std::string version = nvcc_version();
  if (version.empty())
    return {"nvcc", false, "none runs here (\"compiler\": \"nvcc\" in a config's compile block needs it)",
            "install the CUDA toolkit's compiler, or set CUDA_HOME to a toolkit that has one"};
  return {"nvcc", true, fmt::format("nvcc {} ({}): for \"compile\": {{\"compiler\": \"nvcc\"}}", version, nvcc_path()), ""};
}

Capability gpu_check(const std::optional<std::string>& no_gpu) {
  if (no_gpu) return {"GPU", false, *no_gpu, fmt::format("a machine with an NVIDIA GPU and its driver; {}", kWithoutGpu), true};
  int count = 0, driver = 0, runtime = 0;
  OCCBENCH_CUDA_CHECK(cudaGetDeviceCount(&count));
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::string names;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    OCCBENCH_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    names += fmt::format("{}{}: {} (sm_{}{}, {} SMs)", d ? "; " : "", d, p.name, p.major, p.minor, p.multiProcessorCount);
  }
  std::string nvml_driver = Nvml::get().driver_version();
  return {"GPU", true,
          fmt::format("{}; driver {}(CUDA {}), runtime {}", names, nvml_driver.empty() ? "" : nvml_driver + " ",
                      cuda_version_text(driver), cuda_version_text(runtime)),
          "", true};
}

// Whether this build has machine code the GPU runs (a build for other architectures does not).
Capability machine_code_check(const DeviceInfo& device) {
  std::vector<int> built = built_cuda_architectures();
  int wanted = device.compute_major * 10 + device.compute_minor;
  auto arch = sass_arch_for(device.compute_major, device.compute_minor, built);
  if (!arch)
    return {"machine code", false, fmt::format("this build has code for {}, none of which runs on sm_{}", arch_list_text(built), wanted),
            fmt::format("rebuild for it: CUDA_ARCHS=\"{}\" bash scripts/build.sh (or -DCMAKE_CUDA_ARCHITECTURES={})", wanted, wanted),
            true};
  return {"machine code", true, fmt::format("this build's sm_{} code runs on the GPU's sm_{} (built: {})", *arch, wanted, arch_list_text(built)),
          "", true};
}

// Opens CUPTI's range profiler as `run --counters` does (it counts nothing).
Capability counters_check() {
  std::unique_ptr<CounterSession> session = CounterSession::open(0);
  if (session->available())
    return {"hardware counters", true,
            fmt::format("CUPTI's range profiler on {}, {} replays per launch (run --counters)", session->chip(), session->passes()),
            ""};
  const std::string& why = session->unavailable_reason();
  std::string fix = why.find("permission") != std::string::npos
                        ? "run as root, or let users profile: the driver option NVreg_RestrictProfilingToAdminUsers=0 "
                          "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
                        : "timings work without counters; the reason says what CUPTI refused";
  return {"hardware counters", false, why, fix};
}

Capability clock_locking_check(void* nvml_device, const std::string& nvml_why) {
  if (!nvml_device) return {"clock locking", false, nvml_why, "the NVIDIA driver's NVML (libnvidia-ml.so.1)"};
  if (geteuid() != 0)
    return {"clock locking", false, "NVML locks clocks only for root (nvmlDeviceSetGpuLockedClocks)",
            "run as root, or have an admin lock them (nvidia-smi --lock-gpu-clocks)"};
  return {"clock locking", true, "running as root: NVML may lock the SM clock (not tried: doctor changes no clock)", ""};
}

Capability energy_check(void* nvml_device, const std::string& nvml_why) {
  if (!nvml_device) return {"energy counter", false, nvml_why, "the NVIDIA driver's NVML (libnvidia-ml.so.1)"};
  std::string why;
  std::optional<double> joules = Nvml::get().total_energy_j(nvml_device, why);
  if (!joules) return {"energy counter", false, why, "a GPU of Volta or later with a driver that reads its energy"};
  return {"energy counter", true, fmt::format("NVML total energy: {:.0f} J since the driver loaded", *joules), ""};
}

std::vector<Capability> device_checks() {
  std::vector<Capability> checks;
  DeviceInfo device = query_device(0);
  checks.push_back(machine_code_check(device));
  checks.push_back(counters_check());
  std::string nvml_why;
  void* nvml_device = Nvml::get().device(device.pci_bus_id, &nvml_why);
  checks.push_back(clock_locking_check(nvml_device, nvml_why));
  checks.push_back(energy_check(nvml_device, nvml_why));
  return checks;
}

Capability cache_check() {
  fs::path dir = nvrtc_cache_dir();
  std::error_code error;
  fs::create_directories(dir, error);
  fs::path probe = dir / fmt::format(".doctor-{}", getpid());
  bool writable = true;
  try {
    write_text_file(probe.string(), "");
  } catch (const std::exception&) {
    writable = false;
  }
  fs::remove(probe, error);
  if (!writable)
    return {"NVRTC cache", false, fmt::format("{} cannot be written", dir.string()),
            "set OCCBENCH_CACHE_DIR to a folder you may write (your own kernels then compile each run anew)"};
  return {"NVRTC cache", true, fmt::format("{} (writable; OCCBENCH_CACHE_DIR moves it)", dir.string()), ""};
}

Capability shipped_files_check() {
  std::string dir = data_dir();
  if (dir.empty())
    return {"shipped files", false, "no configs/ beside this occbench (neither installed nor in its source tree)",
            "cmake --install build --prefix P, or set OCCBENCH_DATA_DIR; configs given by path still work"};
  return {"shipped files", true, fmt::format("{} (configs/, examples/: `occbench run adjacent_difference` finds them)", dir), ""};
}

Capability plotting_check() {
  bool ok = std::system("python3 -c 'import matplotlib' >/dev/null 2>&1") == 0 ||
            std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
  if (!ok) return {"plots", false, "no python3 with matplotlib", "pip install -r plots/requirements.txt, or apt-get install python3-matplotlib"};
  return {"plots", true, "python3 with matplotlib (plots/occplot.py)", ""};
}

}  // namespace

std::vector<Capability> check_capabilities() {
  std::optional<std::string> no_gpu = no_gpu_reason();
  std::vector<Capability> checks = {gpu_check(no_gpu)};
  if (no_gpu) {
    for (const char* name : {"machine code", "hardware counters", "clock locking", "energy counter"})
      checks.push_back({name, false, "no GPU here", "a GPU (above)"});
  } else {
    for (auto& c : device_checks()) checks.push_back(std::move(c));
  }
  checks.push_back({"NVRTC", true, fmt::format("NVRTC {}: your own kernels compile at run time", nvrtc_version()), ""});
  checks.push_back(nvcc_check());
  checks.push_back({"muparser", true, fmt::format("muparser {}: your own kernels' expressions", expression_library_version()), ""});
  checks.push_back(cache_check());
  checks.push_back(shipped_files_check());
  checks.push_back(plotting_check());
  checks.push_back(tool("ncu", "Nsight Compute, for scripts/ncu/ncu_agreement.py", "install Nsight Compute (it comes with the CUDA toolkit) and put it on the PATH"));
  checks.push_back(tool("compute-sanitizer", "for scripts/device/device_check.sh", "it comes with the CUDA toolkit: put its bin/ on the PATH"));
  return checks;
}

std::string format_capabilities(const std::vector<Capability>& capabilities) {
  std::string text;
  for (const auto& c : capabilities) {
    text += fmt::format("  {:<3} {:<18} {}\n", c.ok ? "ok" : "no", c.name, c.detail);
    if (!c.ok && !c.fix.empty()) text += fmt::format("  {:<3} {:<18} fix: {}\n", "", "", c.fix);
  }
  for (const auto& c : capabilities)
    if (c.needed_to_run && !c.ok)
      return text + fmt::format("\nRuns cannot work here ({}: {}); {}.\n", c.name, c.detail, kWithoutGpu);
  return text + "\nRuns can work here.\n";
}

int doctor_exit_code(const std::vector<Capability>& capabilities) {
  for (const auto& c : capabilities)
    if (c.needed_to_run && !c.ok) return 1;
  return 0;
}

}  // namespace occbench
