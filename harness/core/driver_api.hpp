#pragma once
// A CUDA driver API function through the runtime's entry point: occbench links no libcuda (the
// toolkit's stub library would shadow the driver's own on the GPU machine), so the few driver
// calls it makes (the current context for CUPTI, virtual memory for guard zones) come from here.
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace occbench {

// `symbol`'s function as declared by this toolkit's cuda.h (F: its type, e.g.
// decltype(cuMemCreate)), or nullptr where the driver has none.
template <typename F>
F* driver_function(const char* symbol) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(symbol, &entry, CUDA_VERSION, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<F*>(entry);
}

}  // namespace occbench
