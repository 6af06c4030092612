// The trace hooks' state per GL context: what client memory, mappings and
// read-backs of a context are in play. Contexts are numbered per session.
#pragma once

// The trace layer calls the driver through its next functions only.
#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/fixed_arrays.h"
#include "trace/hooks/gpu_time.h"
#include "trace/session.h"

namespace gltrace::trace {

inline constexpr int kMaxAttribs = 32;

// Vertex-array state of VAO 0 (the only one that may use client memory).
struct ClientAttrib {
  const void* pointer = nullptr;
  GLint size = 4;
  GLenum type = GL_FLOAT;
  GLsizei stride = 0;
};

// A buffer mapped in a context: through its binding to `target`, or by name
// (glMapNamedBuffer*: target 0, `buffer`).
struct Mapping {
  GLenum target;
  GLuint buffer;
  uint8_t* pointer;
  int64_t offset;
  int64_t length;
  GLbitfield access;
};

// A framebuffer read-back in flight: glReadPixels into a pixel-pack buffer,
// a fence, and the copy out later (when its slot is needed again, at the
// next swap, or when the context is released), so the app does not wait for
// the GPU at every swap or draw.
struct PendingRead {
  GLuint buffer = 0;  // the pack buffer (a name of ours in the app's namespace)
  GLsync fence = nullptr;
  size_t capacity = 0;
  bool in_flight = false;
  uint64_t frame = 0, seq = 0;
  GLsizei width = 0, height = 0;
  const char* origin = "";
};

// Read-backs in flight per context: after-draw ones come several per frame.
inline constexpr size_t kReadsInFlight = 4;

// What the trace layer keeps of one of the app's contexts (the replay's
// counterpart is glreplay::ReplayContext).
class CallRecorder;

// The calling thread's context becomes `ctx` (null: none) from this call on,
// as the trace numbers it (*index); true when the trace had not seen it,
// whose Context record is then due (before the call's own).
bool switch_thread_context(CallRecorder& rec, const void* ctx, uint32_t* index);

// A Context record's GL_VENDOR, GL_RENDERER and GL_VERSION, of the current context.
void write_context_strings(wire::Encoder& body);

// The current desktop GL context's version (from GL_VERSION: GL 2.1 has no
// GL_MAJOR_VERSION query, an error the app would read) and its
// GL_CONTEXT_PROFILE_MASK (GL 3.2 on; else 0).
void current_desktop_version(int* major, int* minor, uint32_t* profile_mask);

struct TracedContext {
  int client_version = 2;
  // A desktop OpenGL context (EGL_OPENGL_API).
  bool desktop_gl = false;
  // Generic attributes pointing into client memory, and the fixed-function
  // arrays of GLES 1 and desktop GL (glVertexPointer...) by slot
  // (common/fixed_arrays.h).
  uint32_t client_mask = 0;
  ClientAttrib attribs[kMaxAttribs];
  uint32_t fixed_mask = 0;
  ClientAttrib fixed[fixed_arrays::kSlots];
  std::vector<Mapping> mappings;
  PendingRead reads[kReadsInFlight];
  size_t next_read = 0;  // reads[next_read % kReadsInFlight] is the oldest
  // A draw call was made since the context's last frame end (see
  // hooks/frames.cpp, glFinish).
  bool drew = false;
  GpuTimerPtr gpu_timer;  // trace --gpu-time: its queries (made at its first GPU work)
};

// The state of the thread's current context (made on first use).
TracedContext* context_state(ThreadState* thread);

}  // namespace gltrace::trace
