#include "harness/measure/counters/counters_cupti.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>

namespace occbench {

bool is_flush_range(double l1_global_load_bytes, double l1_global_store_bytes, double flush_read_bytes) {
  return flush_read_bytes > 0 && l1_global_store_bytes == 0 &&
         std::abs(l1_global_load_bytes - flush_read_bytes) <= 0.01 * flush_read_bytes;
}

std::vector<std::vector<std::size_t>> split_ranges_at_flushes(const std::vector<bool>& flush_ranges, std::size_t launches) {
  std::vector<std::vector<std::size_t>> owned;
  for (std::size_t i = 0; i < flush_ranges.size(); ++i) {
    if (flush_ranges[i]) {
      owned.emplace_back();
      continue;
    }
    if (owned.empty()) throw std::runtime_error(fmt::format("range {} of the batch came before its first flush", i));
    owned.back().push_back(i);
  }
  if (owned.size() != launches)
    throw std::runtime_error(fmt::format("{} flushes among the batch's ranges for its {} launches", owned.size(), launches));
  for (std::size_t l = 0; l < owned.size(); ++l)
    if (owned[l].empty()) throw std::runtime_error(fmt::format("launch {} of the batch made no kernel", l));
  return owned;
}

std::vector<std::vector<std::size_t>> ranges_of_launches(const std::vector<std::vector<double>>& per_range,
                                                         const FlushRanges& flushes, std::size_t launches) {
  std::vector<bool> flush_ranges(per_range.size(), false);
  if (flushes.batched || flushes.per_kernel)
    for (std::size_t range = 0; range < per_range.size(); ++range)
      flush_ranges[range] = is_flush_range(per_range[range][flushes.load_column], per_range[range][flushes.store_column],
                                           flushes.read_bytes);
  if (flushes.batched) return split_ranges_at_flushes(flush_ranges, launches);
  // One launch: every range but the flushes is its.
  std::vector<std::vector<std::size_t>> owned(1);
  for (std::size_t range = 0; range < per_range.size(); ++range)
    if (!flush_ranges[range]) owned.back().push_back(range);
  std::size_t made = per_range.size() - owned.back().size();
  if (flushes.per_kernel && (made != std::size_t(flushes.flushes_per_pass) || owned.back().empty()))
    throw std::runtime_error(fmt::format("the L2 was flushed before each of the launch's {} kernels, yet {} of its {} "
                                         "ranges read as flushes", flushes.flushes_per_pass, made, per_range.size()));
  return owned;
}

namespace {
thread_local bool inside_kernel_flush = false;  // the flush's own launch calls back too
}

void CUPTIAPI CounterSession::State::on_kernel_launch(void* userdata, CUpti_CallbackDomain, CUpti_CallbackId,
                                                      const void* data) {
  auto& k = *static_cast<KernelFlush*>(userdata);
  if (!k.armed || inside_kernel_flush) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT) {
    k.needed = true;
    return;
  }
  // A runtime launch calls back twice (cudaLaunchKernel, then the driver's cuLaunchKernel): one flush.
  if (!k.needed || k.error) return;
  inside_kernel_flush = true;
  auto t0 = std::chrono::steady_clock::now();
  try {
    // The launch's earlier work (a memset, an earlier kernel, on any stream) finishes first, so
    // the flush writes back what it left in the L2 before this kernel starts, as Nsight Compute's.
    OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    k.flush();
    ++k.flushes;
  } catch (...) {
    k.error = std::current_exception();  // no exception may cross CUPTI's frames
  }
  k.flush_s += seconds_since(t0);
  inside_kernel_flush = false;
  k.needed = false;
}

std::string CounterSession::State::subscribe_kernel_flush() {
  if (kernel_flush.subscriber) return "";
  if (!api.callback_missing.empty()) return fmt::format("libcupti lacks {}", api.callback_missing);
  char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "occbench";
  params.oldSubscriberName = other;
  params.oldSubscriberSize = sizeof(other);
  CUpti_SubscriberHandle subscriber = nullptr;
  try {
    check(api.cuptiSubscribe_v2(&subscriber, on_kernel_launch, &kernel_flush, &params), "cuptiSubscribe_v2");
    // Every entry point a kernel can be launched through: the runtime's and the driver's (NVRTC
    // kernels, and what the runtime calls), per-thread default stream variants included.
    const std::pair<CUpti_CallbackDomain, CUpti_CallbackId> launches[] = {
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync},
    };
    for (const auto& [domain, cbid] : launches) check(api.cuptiEnableCallback(1, subscriber, domain, cbid), "cuptiEnableCallback");
  } catch (const CuptiFailure& e) {
    if (subscriber) api.cuptiUnsubscribe(subscriber);
    return other[0] ? fmt::format("{} (the subscriber already there: {})", e.what(), other) : std::string(e.what());
  }
  kernel_flush.subscriber = subscriber;
  return "";
}

void CounterSession::flush_before_each_kernel(std::function<void()> flush, double flush_read_bytes) {
  if (!available()) return;
  if (!flush || flush_read_bytes <= 0) {
    unavailable_reason_ = "measurement.counters_l2_flush \"per_kernel\" needs the read-sweep L2 flush (OCCBENCH_L2_FLUSH=read), "
                          "whose ranges are told apart from the launch's kernels";
    return;
  }
  std::string why = state_->subscribe_kernel_flush();
  if (!why.empty()) {
    unavailable_reason_ = fmt::format("measurement.counters_l2_flush \"per_kernel\" needs CUPTI's callback API: {}", why);
    return;
  }
  state_->kernel_flush.flush = std::move(flush);
  state_->kernel_flush.read_bytes = flush_read_bytes;
}

bool CounterSession::flushes_per_kernel() const { return state_ && state_->kernel_flush.subscriber; }

}  // namespace occbench
