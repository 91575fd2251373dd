#include "harness/family/guarded_buffer.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/core/driver_api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace occbench {

namespace {

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// Why zones cannot be mapped here: the buffer falls back to cudaMalloc.
struct GuardUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The driver's virtual memory calls, looked up once.
struct Vmm {
  decltype(cuMemGetAllocationGranularity)* granularity = driver_function<decltype(cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
  decltype(cuMemAddressReserve)* reserve = driver_function<decltype(cuMemAddressReserve)>("cuMemAddressReserve");
  decltype(cuMemAddressFree)* free_range = driver_function<decltype(cuMemAddressFree)>("cuMemAddressFree");
  decltype(cuMemCreate)* create = driver_function<decltype(cuMemCreate)>("cuMemCreate");
  decltype(cuMemRelease)* release = driver_function<decltype(cuMemRelease)>("cuMemRelease");
  decltype(cuMemMap)* map = driver_function<decltype(cuMemMap)>("cuMemMap");
  decltype(cuMemUnmap)* unmap = driver_function<decltype(cuMemUnmap)>("cuMemUnmap");
  decltype(cuMemSetAccess)* set_access = driver_function<decltype(cuMemSetAccess)>("cuMemSetAccess");
  decltype(cuGetErrorName)* error_name = driver_function<decltype(cuGetErrorName)>("cuGetErrorName");

  bool complete() const { return granularity && reserve && free_range && create && release && map && unmap && set_access && error_name; }
  void check(CUresult r, const char* call) const {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    error_name(r, &name);
    throw GuardUnavailable(fmt::format("{} failed: {}", call, name ? name : "unknown error"));
  }
};

const Vmm& vmm() {
  static const Vmm v;
  return v;
}

__global__ void count_changed_bytes_kernel(const unsigned char* p, std::size_t n, unsigned long long* count) {
  unsigned long long changed = 0;
  const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x, stride = std::size_t(gridDim.x) * blockDim.x;
  if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && n % 16 == 0) {
    const uint4* v = reinterpret_cast<const uint4*>(p);
    for (std::size_t i = first; i < n / 16; i += stride) {
      uint4 w = v[i];
      changed += (__popc(__vcmpne4(w.x, ~0u)) + __popc(__vcmpne4(w.y, ~0u)) + __popc(__vcmpne4(w.z, ~0u)) +
                  __popc(__vcmpne4(w.w, ~0u))) / 8;
    }
  } else {
    for (std::size_t i = first; i < n; i += stride) changed += p[i] != 0xFF;
  }
  for (int offset = 16; offset > 0; offset /= 2) changed += __shfl_down_sync(0xffffffffu, changed, offset);
  if (threadIdx.x % 32 == 0 && changed) atomicAdd(count, changed);
}

}  // namespace

GuardLayout guard_layout(std::size_t bytes, std::size_t granularity, std::size_t zone_bytes, std::size_t chunk_bytes) {
  GuardLayout l;
  l.chunk_bytes = round_up(std::min(chunk_bytes, zone_bytes), granularity);
  l.zone_bytes = round_up(zone_bytes, l.chunk_bytes);
  l.body_offset = l.zone_bytes;
  l.body_bytes = round_up(std::max<std::size_t>(bytes, 1), granularity);
  l.upper_offset = l.body_offset + l.body_bytes;
  l.data_offset = l.upper_offset - round_up(bytes, 256);
  l.reserve_bytes = l.upper_offset + l.zone_bytes;
  return l;
}

// The reserved range, the three physical allocations and their mappings; undone in reverse.
struct GuardedBuffer::Mapping {
  GuardLayout layout;
  CUdeviceptr base = 0;
  CUmemGenericAllocationHandle body = 0, lower = 0, upper = 0;
  std::vector<std::pair<CUdeviceptr, std::size_t>> mapped;
  DeviceBuffer<unsigned long long> counts{2};

  Mapping(std::size_t bytes, std::size_t zone_bytes) {
    const Vmm& v = vmm();
    if (!v.complete()) throw GuardUnavailable("the driver has no virtual memory management entry points");
    int device = 0;
    OCCBENCH_CUDA_CHECK(cudaGetDevice(&device));
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    std::size_t granularity = 0;
    v.check(v.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "cuMemGetAllocationGranularity");
    layout = guard_layout(bytes, granularity, zone_bytes, kChunkBytes);
    try {
      map_all(v, prop, granularity);
    } catch (...) {
      undo();
      throw;
    }
  }
  ~Mapping() { undo(); }

  void map_all(const Vmm& v, const CUmemAllocationProp& prop, std::size_t granularity) {
    v.check(v.reserve(&base, layout.reserve_bytes, granularity, 0, 0), "cuMemAddressReserve");
    v.check(v.create(&body, layout.body_bytes, &prop, 0), "cuMemCreate");
    v.check(v.create(&lower, layout.chunk_bytes, &prop, 0), "cuMemCreate");
    v.check(v.create(&upper, layout.chunk_bytes, &prop, 0), "cuMemCreate");
    auto map = [&](std::size_t offset, std::size_t size, CUmemGenericAllocationHandle handle) {
      v.check(v.map(base + offset, size, 0, handle, 0), "cuMemMap");
      mapped.emplace_back(base + offset, size);
    };
    for (std::size_t offset = 0; offset < layout.zone_bytes; offset += layout.chunk_bytes) {
      map(offset, layout.chunk_bytes, lower);
      map(layout.upper_offset + offset, layout.chunk_bytes, upper);
    }
    map(layout.body_offset, layout.body_bytes, body);
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    v.check(v.set_access(base, layout.reserve_bytes, &access, 1), "cuMemSetAccess");
  }

  // Best effort: nothing here may throw (a destructor's, and after a lost context).
  void undo() {
    const Vmm& v = vmm();
    for (const auto& [ptr, size] : mapped) v.unmap(ptr, size);
    mapped.clear();
    for (CUmemGenericAllocationHandle* h : {&body, &lower, &upper})
      if (*h) v.release(*h), *h = 0;
    if (base) v.free_range(base, layout.reserve_bytes), base = 0;
  }

  unsigned char* at(std::size_t offset) const { return reinterpret_cast<unsigned char*>(base + offset); }

  // The ranges that must keep 0xFF bytes: below the buffer, then above it.
  std::vector<std::pair<std::size_t, std::size_t>> watched(std::size_t bytes, bool above) const {
    if (!above) return {{0, layout.chunk_bytes}, {layout.body_offset, layout.data_offset - layout.body_offset}};
    return {{layout.data_offset + bytes, layout.upper_offset - layout.data_offset - bytes}, {layout.upper_offset, layout.chunk_bytes}};
  }

  void fill(std::size_t bytes) {
    for (bool above : {false, true})
      for (const auto& [offset, size] : watched(bytes, above))
        poison_bytes(at(offset), size);
  }

  GuardWrites count(std::size_t bytes) {
    OCCBENCH_CUDA_CHECK(cudaMemset(counts.get(), 0, 2 * sizeof(unsigned long long)));
    for (bool above : {false, true})
      for (const auto& [offset, size] : watched(bytes, above)) {
        if (!size) continue;
        count_changed_bytes_kernel<<<1024, 256>>>(at(offset), size, counts.get() + int(above));
        OCCBENCH_CHECK_LAUNCH();
      }
    std::vector<unsigned long long> host = counts.download();
    return GuardWrites{host[0], host[1]};
  }
};

GuardedBuffer::GuardedBuffer(std::size_t bytes, std::size_t zone_bytes) : bytes_(bytes) {
  if (!bytes) return;
  if (zone_bytes) {
    try {
      mapping_ = std::make_unique<Mapping>(bytes, zone_bytes);
      mapping_->fill(bytes);
      data_ = mapping_->at(mapping_->layout.data_offset);
    } catch (const GuardUnavailable& e) {
      why_unguarded_ = e.what();
    }
  }
  if (!mapping_) {
    plain_ = DeviceBuffer<unsigned char>(bytes);
    data_ = plain_.get();
  }
}

GuardedBuffer::GuardedBuffer() = default;
GuardedBuffer::~GuardedBuffer() = default;
GuardedBuffer::GuardedBuffer(GuardedBuffer&& other) noexcept { *this = std::move(other); }
GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& other) noexcept {
  std::swap(mapping_, other.mapping_);
  std::swap(plain_, other.plain_);
  std::swap(data_, other.data_);
  std::swap(bytes_, other.bytes_);
  std::swap(why_unguarded_, other.why_unguarded_);
  return *this;
}

void GuardedBuffer::upload(const std::vector<unsigned char>& host) {
  OCCBENCH_CUDA_CHECK(cudaMemcpy(data_, host.data(), std::min(bytes_, host.size()), cudaMemcpyHostToDevice));
}

void GuardedBuffer::poison() {
  poison_bytes(data_, bytes_);
}

GuardWrites GuardedBuffer::take_writes() {
  if (!mapping_) return {};
  GuardWrites w = mapping_->count(bytes_);
  if (w.any()) mapping_->fill(bytes_);
  return w;
}

}  // namespace occbench
