#include "trace/hooks/context_state.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "format/encoders.h"
#include "format/schema.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

// Per session (contexts are numbered per session). A map a new session
// replaces is kept, not freed: a thread may still hold one of its states.
using TracedContexts = std::unordered_map<uint32_t, std::unique_ptr<TracedContext>>;
std::mutex g_contexts_mutex;
TracedContexts* g_contexts = new TracedContexts();

}  // namespace

TracedContext* context_state(ThreadState* thread) {
  if (thread->context_data != nullptr && thread->context_data_index == thread->context)
    return static_cast<TracedContext*>(thread->context_data);
  std::lock_guard<std::mutex> lock(g_contexts_mutex);
  auto& state = (*g_contexts)[thread->context];
  if (state == nullptr) state = std::make_unique<TracedContext>();
  thread->context_data = state.get();
  thread->context_data_index = thread->context;
  return state.get();
}

bool switch_thread_context(CallRecorder& rec, const void* ctx, uint32_t* index) {
  bool created = false;
  *index = ctx != nullptr ? context_index(handle_bits(ctx), &created) : 0;
  rec.thread()->context = *index;
  rec.set_context(*index);
  return created;
}

void write_context_strings(wire::Encoder& body) {
  auto gl_string = [](GLenum name) {
    const GLubyte* s = NEXT(glGetString)(name);
    return s != nullptr ? reinterpret_cast<const char*>(s) : "";
  };
  schema::context::set_gl_vendor(body, gl_string(GL_VENDOR));
  schema::context::set_gl_renderer(body, gl_string(GL_RENDERER));
  schema::context::set_gl_version(body, gl_string(GL_VERSION));
}

void current_desktop_version(int* major, int* minor, uint32_t* profile_mask) {
  const auto* version = reinterpret_cast<const char*>(NEXT(glGetString)(GL_VERSION));
  if (version == nullptr || sscanf(version, "%d.%d", major, minor) != 2) *major = 1, *minor = 0;
  *profile_mask = 0;
  if (*major * 10 + *minor >= 32) {
    GLint mask = 0;
    NEXT(glGetIntegerv)(0x9126 /* GL_CONTEXT_PROFILE_MASK */, &mask);
    *profile_mask = static_cast<uint32_t>(mask);
  }
}

void reset_context_states() {
  std::lock_guard<std::mutex> lock(g_contexts_mutex);
  g_contexts = new TracedContexts();
}

}  // namespace gltrace::trace
