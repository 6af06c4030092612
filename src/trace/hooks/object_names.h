// The GL objects and EGL contexts an app has, kept while the trace layer is
// loaded, recording or not: the generated wrappers of both of live
// tracing's tables tell it what each call created or deleted (the table's
// effects, codegen/gltrace_codegen/trace.py). GLES cannot list its
// objects, and a capture that starts mid-run must write every one that
// lives (capture_snapshot.cpp). Calls that make or delete objects are rare;
// they take a lock here.
#pragma once

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <EGL/egl.h>
#include <GLES3/gl32.h>

#include <cstdint>
#include <vector>

#include "glstate/object_class.h"
#include "glstate/snapshot.h"

namespace gltrace::trace {

// Called by the generated wrappers after the driver's call, in the context
// current on the calling thread.
void note_created(glstate::ObjectClass cls, int64_t count, const GLuint* names);
void note_created(glstate::ObjectClass cls, GLuint name);
void note_deleted(glstate::ObjectClass cls, int64_t count, const GLuint* names);
void note_deleted(glstate::ObjectClass cls, GLuint name);
void note_context_created(EGLContext context, EGLContext share);
void note_context_destroyed(EGLContext context);

// The objects of a class that `context` sees (its share group's, or its own
// containers), by name. A deleted program or shader stays listed, marked,
// while the driver may still hold it (in use, attached).
std::vector<glstate::SnapshotNames::Object> listed_objects(EGLContext context,
                                                           glstate::ObjectClass cls);

// A mid-run capture's snapshot of `context` in session `generation`:
// whether this thread writes its share group's objects (the first context
// of the group the session snapshots), and, when another context of the
// group was written before, that one (the share_context of the written
// eglCreateContext; else EGL_NO_CONTEXT).
struct GroupClaim {
  bool write_objects = false;
  EGLContext share_with = EGL_NO_CONTEXT;
};
GroupClaim claim_share_group(EGLContext context, uint32_t generation);

}  // namespace gltrace::trace
