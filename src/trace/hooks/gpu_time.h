// gltrace trace --gpu-time: what each draw, clear, blit and dispatch costs
// the GPU, from timer queries (EXT_disjoint_timer_query) on the app's own
// context: a GL_TIMESTAMP before and after each such call (api::kRoleGpuWork).
// Nothing waits for the GPU: at each swap the results it has finished are
// written as GpuTime records (format/records.h); they are waited for only
// before the context may go (eglMakeCurrent, eglDestroyContext,
// eglReleaseThread, eglTerminate) or when kGpuTimesInFlight are pending.
// GpuClock records tie the GPU's clock to the trace's.
//
// The app's own GL_GPU_DISJOINT_EXT reads see only disjoint events since
// the layer's last look (at each swap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace gltrace::trace {

struct ThreadState;

// Timestamp pairs a context may have in flight before the oldest is waited for.
inline constexpr size_t kGpuTimesInFlight = 4096;

// A context's queries (TracedContext::gpu_timer).
struct GpuTimer;
struct GpuTimerDeleter {
  void operator()(GpuTimer* timer) const;
};
using GpuTimerPtr = std::unique_ptr<GpuTimer, GpuTimerDeleter>;

// At a call's start (CallRecorder, with --gpu-time): before GPU work, its
// first timestamp (the query's name, 0 when none); before a swap, the
// finished results are written; before a call that may take the context
// away, all of them. 0 for every call but GPU work.
uint32_t gpu_time_at_call_start(uint32_t function);
// After the GPU work whose first timestamp was `begin`: the second, and the
// pair waits for its results. The call's seq names it.
void gpu_time_at_call_end(ThreadState* thread, uint64_t seq, uint32_t begin);
// The call is not recorded after all: its query is given back.
void gpu_time_cancel(uint32_t begin);

}  // namespace gltrace::trace
