// Error hooks: error mode reads each call's error itself (modes.cpp) and
// keeps it for the app, whose next glGetError still gets it, once.
#include "gltrace/api/trace_decls.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {

bool take_pending_gl_error(GLenum& result) {
  ThreadState* thread = recording() ? thread_state() : nullptr;
  if (thread == nullptr || thread->pending_gl_error == 0) return true;
  result = thread->pending_gl_error;
  thread->pending_gl_error = 0;
  return false;
}

}  // namespace gltrace::trace
