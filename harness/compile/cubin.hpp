#pragma once
// What a cubin (an ELF file) records of its kernels and variables, read from its symbol table and
// sections: no GPU and no CUDA library needed.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// A cubin's symbols: each name, and whether it is a function (else a variable); none where it is not an ELF file.
std::vector<std::pair<std::string, bool>> cubin_symbol_names(const std::string& cubin);

// The size in bytes of the data symbol `lowered_name` (a __constant__ or __device__ variable) in a
// cubin (an ELF file), read from its symbol table; nullopt where there is no such symbol.
std::optional<std::size_t> cubin_symbol_bytes(const std::string& cubin, const std::string& lowered_name);

// What ptxas's report says of a kernel, as the cubin itself records it: registers per thread and
// stack frame (the .nv.info attributes EIATTR_REGCOUNT and EIATTR_FRAME_SIZE), static shared
// memory (the size of .nv.shared.KERNEL, less the system's `reserved_smem_bytes` per block where
// the cubin reserves it: .nv.reservedSmem). For where NVRTC's log lacks the report (seen on the
// H100 machine); spills are not recorded there. nullopt where the cubin has no such kernel.
struct CubinKernelResources {
  int registers = 0;
  std::size_t stack_frame_bytes = 0;
  std::size_t static_smem_bytes = 0;
};
std::optional<CubinKernelResources> cubin_kernel_resources(const std::string& cubin, const std::string& lowered_name,
                                                           std::size_t reserved_smem_bytes);

}  // namespace occbench
