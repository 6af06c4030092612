#include "trace/hooks/gpu_time.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/extension_list.h"
#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"
#include "trace/hooks/context_state.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {

namespace schema = gltrace::schema;

struct GpuTimer {
  bool checked = false;
  bool available = false;
  std::vector<GLuint> free;  // query names to reuse
  struct Pending {
    GLuint begin = 0, end = 0;
    uint64_t seq = 0;
  };
  // A ring of kGpuTimesInFlight, oldest at `head`: made once, at the
  // context's first GPU work, so the app's thread allocates nothing per call.
  std::vector<Pending> pending;
  size_t head = 0, count = 0;
  uint64_t polls = 0;
};

void GpuTimerDeleter::operator()(GpuTimer* timer) const { delete timer; }

namespace {

// Queries made at once when a context has none free.
constexpr GLsizei kQueryBatch = 256;
// A GpuClock record every so many swaps of a context (the GPU's clock
// drifts against the CPU's), and at its first.
constexpr uint64_t kClockEvery = 60;

void read_results_at_exit();

// The current context's timer, when it has timestamps (null otherwise).
GpuTimer* current_timer(ThreadState* thread) {
  if (thread == nullptr || thread->context == 0 || mode() != Mode::kFull) return nullptr;
  TracedContext* context = context_state(thread);
  if (context->desktop_gl) return nullptr;
  if (!context->gpu_timer) context->gpu_timer.reset(new GpuTimer);
  GpuTimer* timer = context->gpu_timer.get();
  if (!timer->checked) {
    timer->checked = true;
    timer->available =
        extension_listed(NEXT(glGetString)(GL_EXTENSIONS), "GL_EXT_disjoint_timer_query") &&
        NEXT(glGenQueriesEXT) != nullptr && NEXT(glQueryCounterEXT) != nullptr &&
        NEXT(glGetQueryObjectuivEXT) != nullptr && NEXT(glGetQueryObjectui64vEXT) != nullptr;
    if (timer->available) {
      timer->pending.resize(kGpuTimesInFlight);
      static std::atomic<bool> at_exit{false};
      if (!at_exit.exchange(true)) atexit(read_results_at_exit);
    }
  }
  return timer->available ? timer : nullptr;
}

GLuint take_query(GpuTimer* timer) {
  if (timer->free.empty()) {
    timer->free.resize(kQueryBatch);
    NEXT(glGenQueriesEXT)(kQueryBatch, timer->free.data());
  }
  GLuint name = timer->free.back();
  timer->free.pop_back();
  return name;
}

void write_clock(ThreadState* thread) {
  auto get = NEXT(glGetInteger64vEXT);
  if (get == nullptr) get = NEXT(glGetInteger64v);
  if (get == nullptr) return;
  GLint64 gpu = 0;
  uint64_t before = now_ns();
  get(GL_TIMESTAMP_EXT, &gpu);
  uint64_t after = now_ns();
  if (gpu <= 0) return;
  AppendGuard guard(thread);
  if (!guard.ok()) return;
  uint8_t body[32];
  uint8_t* p = schema::gpu_clock::put_time_ns(body, trace_time(before + (after - before) / 2));
  p = schema::gpu_clock::put_gpu_ns(p, static_cast<uint64_t>(gpu));
  append_record(thread, schema::record::kGpuClock, body, static_cast<size_t>(p - body));
}

// Writes the results the GPU has finished (with `wait`, all of them; with
// `at_least`, the oldest so many whether finished or not).
void read_results(ThreadState* thread, GpuTimer* timer, bool wait, size_t at_least = 0) {
  if (timer->polls++ % kClockEvery == 0) write_clock(thread);
  // A disjoint event since the last look may have touched what is read now.
  GLint disjoint = 0;
  NEXT(glGetIntegerv)(GL_GPU_DISJOINT_EXT, &disjoint);
  AppendGuard guard(thread);
  while (timer->count != 0) {
    GpuTimer::Pending& p = timer->pending[timer->head];
    if (!wait && at_least == 0) {
      GLuint done = 0;
      NEXT(glGetQueryObjectuivEXT)(p.end, GL_QUERY_RESULT_AVAILABLE_EXT, &done);
      if (done == 0) break;
    }
    if (at_least != 0) --at_least;
    GLuint64 begin = 0, end = 0;
    NEXT(glGetQueryObjectui64vEXT)(p.begin, GL_QUERY_RESULT_EXT, &begin);
    NEXT(glGetQueryObjectui64vEXT)(p.end, GL_QUERY_RESULT_EXT, &end);
    if (guard.ok()) {
      uint8_t body[48];
      uint8_t* at = schema::gpu_time::put_seq(body, p.seq);
      at = schema::gpu_time::put_gpu_start_ns(at, begin);
      at = schema::gpu_time::put_duration_ns(at, end >= begin ? end - begin : 0);
      if (disjoint != 0) at = schema::gpu_time::put_disjoint(at, true);
      append_record(thread, schema::record::kGpuTime, body, static_cast<size_t>(at - body));
    }
    timer->free.push_back(p.begin);
    timer->free.push_back(p.end);
    timer->head = (timer->head + 1) % timer->pending.size();
    --timer->count;
  }
  // What is still pending starts now: a pbuffer's swap flushes nothing, and
  // a query's result is never ready before its work is flushed.
  if (timer->count != 0 && !wait) NEXT(glFlush)();
}

// An app that exits with its context current leaves its last frames' times
// pending: read at exit on the exiting thread, by an atexit handler
// registered at the first timer, after the driver's own (as the read-backs
// of hooks/frames.cpp are).
void read_results_at_exit() {
  if (!recording() || mode() != Mode::kFull) return;
  ThreadState* thread = thread_state();
  if (thread->context == 0 || thread->busy.load(std::memory_order_acquire)) return;
  if (GpuTimer* timer = current_timer(thread); timer != nullptr && timer->count != 0)
    read_results(thread, timer, true);
}

}  // namespace

uint32_t gpu_time_at_call_start(uint32_t function) {
  const bool gles =
      function < api::kFunctionIdLimit && api::kFunctionInfo[function].api == api::Api::kGles;
  if (gles && !api::has_role(function, api::kRoleGpuWork)) return 0;
  ThreadState* thread = thread_state();
  if (!recording() || thread == nullptr) return 0;
  GpuTimer* timer = current_timer(thread);
  if (timer == nullptr) return 0;
  if (gles) {
    GLuint begin = take_query(timer);
    NEXT(glQueryCounterEXT)(begin, GL_TIMESTAMP_EXT);
    return begin;
  }
  // EGL: a swap reads what has finished; a call that may take the context
  // away reads everything first.
  if (api::has_role(function, api::kRoleSwap))
    read_results(thread, timer, false);
  else if (api::has_role(function, api::kRoleThreadBound | api::kRoleDeletes) && timer->count != 0)
    read_results(thread, timer, true);
  return 0;
}

void gpu_time_at_call_end(ThreadState* thread, uint64_t seq, uint32_t begin) {
  GpuTimer* timer = current_timer(thread);
  if (timer == nullptr) return;
  GLuint end = take_query(timer);
  NEXT(glQueryCounterEXT)(end, GL_TIMESTAMP_EXT);
  if (timer->count == timer->pending.size()) read_results(thread, timer, false, 1);
  timer->pending[(timer->head + timer->count) % timer->pending.size()] = {begin, end, seq};
  ++timer->count;
}

void gpu_time_cancel(uint32_t begin) {
  if (GpuTimer* timer = current_timer(thread_state())) timer->free.push_back(begin);
}

}  // namespace gltrace::trace
