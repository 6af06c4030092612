#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>
// After gl32.h, which defines what it needs.
#include <GLES2/gl2ext.h>

#include <algorithm>
#include <cstring>
#include <ctime>

#include "common/extension_list.h"
#include "gl_loader/call.h"
#include "glreplay/profile_timeline.h"
#include "glreplay/profiler.h"
#include "glreplay/session.h"
#include "gltrace/api/roles.h"

namespace gltrace::glreplay {

namespace {

// Timestamps in flight on one context before the oldest is waited for:
// enough for many frames of heavy apps, bounded whatever the trace.
constexpr size_t kMaxPending = 16384;
// Queries made at once when a context's free list is empty.
constexpr GLsizei kQueryBatch = 256;
// A pair of clock readings every so many frames (the GPU's clock drifts
// against the CPU's).
constexpr uint64_t kClockPairEvery = 60;

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

uint64_t integer_of(const Value& v) {
  switch (v.kind) {
    case format::ValueKind::kSint:
      return v.sint > 0 ? static_cast<uint64_t>(v.sint) : 0;
    case format::ValueKind::kUint:
      return v.uint;
    default:
      return 0;
  }
}

// Pointer data the call passed: what it uploads.
uint64_t data_bytes(const ReplayCall& call) {
  uint64_t bytes = 0;
  for (const Value& v : call.args)
    if (v.kind == format::ValueKind::kData) bytes += v.bytes().size();
  for (const ClientArray& a : call.client_arrays)
    if (a.data) bytes += a.data->size();
  for (const BufferWrite& w : call.buffer_writes)
    if (w.data) bytes += w.data->size();
  return bytes;
}

}  // namespace

GpuSpan gpu_span(const Profile& profile, uint32_t first_work, uint32_t count) {
  GpuSpan span;
  for (uint32_t i = first_work; i < first_work + count && i < profile.work.size(); ++i) {
    const WorkRecord& w = profile.work[i];
    if (!w.gpu_measured) continue;
    if (span.measured == 0 || w.gpu_start_ns < span.start_ns) span.start_ns = w.gpu_start_ns;
    span.end_ns = std::max(span.end_ns, w.gpu_start_ns + w.gpu_ns);
    span.busy_ns += w.gpu_ns;
    span.disjoint = span.disjoint || w.disjoint;
    ++span.measured;
  }
  return span;
}

Profiler::Profiler(Session& session) : session_(session) {
  profile_.functions.resize(api::kFunctionIdLimit);
  vertex_params_.assign(api::kFunctionIdLimit, {-2, -2});
}

Profiler::~Profiler() = default;

Profiler::ContextTimer& Profiler::timer_of(uint32_t context) { return timers_[context]; }

// Whether the context has timestamps: checked at its first GPU work.
bool Profiler::check_timer(ContextTimer& timer) {
  if (timer.checked) return timer.available;
  timer.checked = true;
  auto get_string = GL_CALL(session_.gl(), glGetString);
  // GLES 1 has no programs: their binding is not asked there.
  const char* version =
      get_string != nullptr ? reinterpret_cast<const char*>(get_string(GL_VERSION)) : nullptr;
  timer.es1 = version != nullptr && strncmp(version, "OpenGL ES-C", 11) == 0;
  const gl_loader::Driver& gl = session_.gl();
  timer.available = get_string != nullptr &&
                    extension_listed(get_string(GL_EXTENSIONS), "GL_EXT_disjoint_timer_query") &&
                    GL_CALL(gl, glGenQueriesEXT) != nullptr &&
                    GL_CALL(gl, glQueryCounterEXT) != nullptr &&
                    GL_CALL(gl, glGetQueryObjectuivEXT) != nullptr &&
                    GL_CALL(gl, glGetQueryObjectui64vEXT) != nullptr;
  if (timer.available) {
    if (profile_.gpu_timer.empty())
      profile_.gpu_timer = "GL_EXT_disjoint_timer_query timestamps before and after each call";
    read_clock_pair();
  } else if (profile_.no_gpu_time.empty()) {
    profile_.no_gpu_time = "the driver has no GL_EXT_disjoint_timer_query on the trace's context";
  }
  return timer.available;
}

uint32_t Profiler::query(ContextTimer& timer) {
  if (timer.free.empty()) {
    timer.free.resize(kQueryBatch);
    GL_CALL(session_.gl(), glGenQueriesEXT)(kQueryBatch, timer.free.data());
  }
  uint32_t name = timer.free.back();
  timer.free.pop_back();
  return name;
}

void Profiler::read_clock_pair() {
  auto get = GL_CALL(session_.gl(), glGetInteger64vEXT);
  if (get == nullptr) get = GL_CALL(session_.gl(), glGetInteger64v);
  if (get == nullptr) return;
  GLint64 gpu = 0;
  uint64_t before = now_ns();
  get(GL_TIMESTAMP_EXT, &gpu);
  uint64_t after = now_ns();
  if (gpu > 0)
    profile_.clock_pairs.push_back({before + (after - before) / 2, static_cast<uint64_t>(gpu)});
}

void Profiler::read_results(ContextTimer& timer, size_t wait_for) {
  const gl_loader::Driver& gl = session_.gl();
  auto available = GL_CALL(gl, glGetQueryObjectuivEXT);
  auto result = GL_CALL(gl, glGetQueryObjectui64vEXT);
  auto get_error = GL_CALL(gl, glGetError);
  while (!timer.pending.empty()) {
    const Pending& p = timer.pending.front();
    if (wait_for == 0) {
      GLuint done = 0;
      available(p.end, GL_QUERY_RESULT_AVAILABLE_EXT, &done);
      if (done == 0) break;
    } else {
      --wait_for;
      ++profile_.waits;
    }
    GLuint64 begin = 0, end = 0;
    result(p.begin, GL_QUERY_RESULT_EXT, &begin);
    result(p.end, GL_QUERY_RESULT_EXT, &end);
    WorkRecord& w = profile_.work[p.work];
    // Not the context the queries are of (it went without us): lost.
    if (get_error != nullptr && get_error() != GL_NO_ERROR) {
      ++profile_.unmeasured;
    } else {
      w.gpu_start_ns = begin;
      w.gpu_ns = end >= begin ? end - begin : 0;
      w.gpu_measured = true;
    }
    timer.free.push_back(p.begin);
    timer.free.push_back(p.end);
    timer.pending.pop_front();
  }
}

void Profiler::begin_frame_if_needed(uint64_t now) {
  if (frame_open_) return;
  frame_open_ = true;
  FrameRecord frame;
  frame.number = session_.frame();
  frame.cpu_start_ns = now;
  frame.first_work = static_cast<uint32_t>(profile_.work.size());
  profile_.frames.push_back(frame);
}

void Profiler::before_call(const ReplayCall& call) {
  const uint32_t fn = call.function;
  uint64_t now = now_ns();
  begin_frame_if_needed(now);
  running_work_ = false;
  const bool gles = api::kFunctionInfo[fn].api == api::Api::kGles;
  // An EGL call that may take the context from this thread (eglMakeCurrent,
  // eglReleaseThread, eglDestroyContext, eglTerminate): its results are read
  // while they can be.
  if (!gles && !api::has_role(fn, api::kRoleSwap) &&
      api::has_role(fn, api::kRoleThreadBound | api::kRoleDeletes) && call.context != 0) {
    auto it = timers_.find(call.context);
    if (it != timers_.end() && !it->second.pending.empty()) read_results(it->second, SIZE_MAX);
  }
  if (gles && api::has_role(fn, api::kRoleGpuWork)) {
    ContextTimer& timer = timer_of(call.context);
    const gl_loader::Driver& gl = session_.gl();
    check_timer(timer);
    WorkRecord w;
    w.seq = call.seq;
    w.function = fn;
    w.thread = call.thread;
    w.context = call.context;
    w.frame = session_.frame();
    // What it draws with and into, as the trace names them (looked up
    // again only when the replay's binding changed).
    if (auto get = GL_CALL(gl, glGetIntegerv); get != nullptr && !timer.es1) {
      GLint framebuffer = 0, program = 0;
      get(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
      get(GL_CURRENT_PROGRAM, &program);
      if (static_cast<uint64_t>(framebuffer) != timer.last_framebuffer_replay) {
        timer.last_framebuffer_replay = static_cast<uint64_t>(framebuffer);
        timer.last_framebuffer =
            session_.recorded_name(ObjectClass::kFramebuffer, timer.last_framebuffer_replay)
                .value_or(timer.last_framebuffer_replay);
      }
      if (static_cast<uint64_t>(program) != timer.last_program_replay) {
        timer.last_program_replay = static_cast<uint64_t>(program);
        timer.last_program =
            session_.recorded_name(ObjectClass::kProgram, timer.last_program_replay)
                .value_or(timer.last_program_replay);
      }
      w.framebuffer = timer.last_framebuffer;
      w.program = timer.last_program;
    }
    if (api::has_role(fn, api::kRoleDraw)) {
      auto& [count, instances] = vertex_params_[fn];
      if (count == -2) {
        count = instances = -1;
        const api::FunctionInfo& info = api::kFunctionInfo[fn];
        for (uint32_t i = 0; i < info.param_count; ++i) {
          std::string_view name = info.params[i].name;
          if (name == "count") count = static_cast<int16_t>(i);
          if (name == "instancecount" || name == "primcount") instances = static_cast<int16_t>(i);
        }
      }
      if (count >= 0 && static_cast<size_t>(count) < call.args.size()) {
        w.vertices = integer_of(call.args[static_cast<size_t>(count)]);
        if (instances >= 0 && static_cast<size_t>(instances) < call.args.size())
          w.vertices *= integer_of(call.args[static_cast<size_t>(instances)]);
      }
    }
    // A new render pass where the context or its framebuffer changed.
    FrameRecord& frame = profile_.frames.back();
    if (frame.work_count == 0 || w.context != last_pass_context_ ||
        w.framebuffer != last_pass_framebuffer_) {
      RenderPass pass;
      pass.frame = w.frame;
      pass.context = w.context;
      pass.framebuffer = w.framebuffer;
      pass.first_work = static_cast<uint32_t>(profile_.work.size());
      profile_.passes.push_back(pass);
      last_pass_context_ = w.context;
      last_pass_framebuffer_ = w.framebuffer;
    }
    w.pass = static_cast<uint32_t>(profile_.passes.size() - 1);
    ++profile_.passes.back().work_count;
    ++frame.work_count;
    if (api::has_role(fn, api::kRoleDraw | api::kRoleOtherDraw)) ++frame.draws;
    frame.vertices += w.vertices;
    profile_.work.push_back(w);
    running_work_ = true;
    running_timer_ = &timer;
    if (timer.available) {
      timer.thread = call.thread;
      running_pending_begin_ = query(timer);
      GL_CALL(gl, glQueryCounterEXT)(running_pending_begin_, GL_TIMESTAMP_EXT);
    }
  }
  call_start_ns_ = now_ns();
}

void Profiler::after_call(const ReplayCall& call) {
  uint64_t now = now_ns();
  call_ns_ = now - call_start_ns_;
  FunctionCost& cost = profile_.functions[call.function];
  ++cost.calls;
  cost.cpu_ns += call_ns_;
  FrameRecord& frame = profile_.frames.back();
  ++frame.calls;
  frame.cpu_calls_ns += call_ns_;
  frame.data_bytes += data_bytes(call);
  last_context_ = call.context;
  if (timeline_ != nullptr) timeline_->call(call, call_start_ns_, call_ns_);
  if (!running_work_) return;
  running_work_ = false;
  WorkRecord& w = profile_.work.back();
  w.cpu_start_ns = call_start_ns_;
  w.cpu_ns = call_ns_;
  ContextTimer& timer = *running_timer_;
  if (!timer.available) return;
  uint32_t end = query(timer);
  GL_CALL(session_.gl(), glQueryCounterEXT)(end, GL_TIMESTAMP_EXT);
  timer.pending.push_back(
      {running_pending_begin_, end, static_cast<uint32_t>(profile_.work.size() - 1)});
  // Too many in flight: the oldest is waited for.
  if (timer.pending.size() > kMaxPending) read_results(timer, 1);
}

void Profiler::frame_ended() {
  if (!frame_open_) return;
  frame_open_ = false;
  profile_.frames.back().cpu_end_ns = now_ns();
  profile_.frames.back().ended = true;
  if (timeline_ != nullptr) timeline_->frame(profile_.frames.back());
  auto it = timers_.find(last_context_);
  if (it == timers_.end() || !it->second.available) return;
  read_results(it->second, 0);
  // What is still pending starts now: a pbuffer's swap flushes nothing, and
  // a query's result is never ready before its work is flushed.
  if (!it->second.pending.empty()) GL_CALL(session_.gl(), glFlush)();
  // A disjoint event since the last look: this frame's times and those of
  // the frames before whose results were not read yet may be off.
  GLint disjoint = 0;
  if (auto get = GL_CALL(session_.gl(), glGetIntegerv)) get(GL_GPU_DISJOINT_EXT, &disjoint);
  if (disjoint != 0) {
    ++profile_.disjoint_events;
    for (size_t i = profile_.frames.size(); i-- > disjoint_checked_frames_;)
      profile_.frames[i].disjoint = true;
  }
  disjoint_checked_frames_ = profile_.frames.size();
  if (profile_.frames.size() % kClockPairEvery == 0) read_clock_pair();
}

void Profiler::thread_exiting(uint32_t thread) {
  for (auto& [context, timer] : timers_)
    if (timer.thread == thread && !timer.pending.empty()) read_results(timer, SIZE_MAX);
}

void Profiler::finish() {
  // The other threads' contexts were read as they ended: what is left is
  // this thread's.
  for (auto& [context, timer] : timers_)
    if (!timer.pending.empty()) read_results(timer, SIZE_MAX);
  if (frame_open_) {
    frame_open_ = false;
    profile_.frames.back().cpu_end_ns = now_ns();
  }
  // Frames with no call at all (none were opened) are not kept; work
  // inherits its frame's disjoint mark.
  for (const FrameRecord& frame : profile_.frames)
    if (frame.disjoint)
      for (uint32_t i = frame.first_work; i < frame.first_work + frame.work_count; ++i)
        profile_.work[i].disjoint = true;
}

}  // namespace gltrace::glreplay
