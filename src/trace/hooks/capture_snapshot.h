// A capture that starts mid-run (live tracing's attach, a start after N
// frames) begins each thread with a snapshot of what its context holds, so
// the trace replays from its first frame: the EGL objects the thread uses,
// written as the calls that made them (hooks/contexts.cpp), then, after its
// eglMakeCurrent, the GL objects and state by glstate's writer, reading the
// driver through the layer below (docs/trace-format.md, "Snapshots").
#pragma once

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <EGL/egl.h>

#include "glstate/snapshot.h"
#include "trace/hooks/frames.h"

namespace gltrace::trace {

// The GL part, on the joining thread, with `context` (an EGLContext or a
// GLXContext) current on it drawing to `draw`, and its synthetic
// eglMakeCurrent or glXMakeContextCurrent recorded; `shared`: what of the
// share group's objects (object_names.h, claim_share_group).
void record_gl_snapshot(const Drawable& draw, void* context, glstate::SharedObjects shared);

}  // namespace gltrace::trace
