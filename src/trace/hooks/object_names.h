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
// After gl32.h: GLeglImageOES.
#include <GLES2/gl2ext.h>

#include <cstdint>
#include <vector>

#include "glstate/compressed_shadow.h"
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
// glLinkProgram: the shaders it linked with (their types and sources, read
// back now), for a snapshot of a program whose shaders are detached later.
void note_program_linked(GLuint program);
void note_context_destroyed(EGLContext context);
// A compressed upload the driver took: its bytes are kept (GLES cannot read
// them back) once keep_compressed_copies was called.
void note_compressed_upload(const glstate::CompressedUpload& upload);

// EGL images and their GL siblings (the objects that share an image's
// storage: a texture or renderbuffer it was made of, those the app targeted
// at it), so a snapshot links them again rather than copying each one's
// pixels apart (a write through one must show through the others).
void note_image_created(EGLImage image, EGLDisplay dpy, EGLContext ctx, EGLenum target,
                        EGLClientBuffer buffer, const EGLint* attribs);
void note_image_created(EGLImage image, EGLDisplay dpy, EGLContext ctx, EGLenum target,
                        EGLClientBuffer buffer, const EGLAttrib* attribs);
void note_image_destroyed(EGLImage image);
// glEGLImageTarget*: the object bound to `target` in the current context
// (a texture or a renderbuffer, `cls`) is a sibling of `image` now.
void note_image_target(glstate::ObjectClass cls, GLenum target, GLeglImageOES image);
// glTexImage*, glTexStorage*, glRenderbufferStorage*...: the object bound to
// `target` has storage of its own now (an image's sibling no more).
void note_storage_defined(glstate::ObjectClass cls, GLenum target);
// The image `name` of `context` shares storage with (image 0: none; a
// handle the app destroyed may live on as a number of ours), its display,
// and whether no snapshot of `epoch` wrote that image yet (it is marked
// written).
glstate::SnapshotNames::Image image_of_object(EGLContext context, glstate::ObjectClass cls,
                                              GLuint name, uint32_t epoch);

// The images of `display` the app has that no snapshot of `epoch` wrote
// yet (they are marked written). Each is made again of its source object
// where the snapshot wrote that (context set, the app's target, buffer and
// GL attributes), else of its pixels (context none).
struct UnwrittenImage {
  EGLImage image = EGL_NO_IMAGE;
  EGLContext context = EGL_NO_CONTEXT;
  EGLenum target = EGL_GL_TEXTURE_2D;
  EGLClientBuffer buffer = nullptr;
  std::vector<EGLint> attribs;  // up to EGL_NONE
};
std::vector<UnwrittenImage> unwritten_images(EGLDisplay display, uint32_t epoch);

// A traceable process keeps copies of compressed uploads, at most
// `limit_bytes` in all (0: none), for a capture's snapshot.
void keep_compressed_copies(size_t limit_bytes);
// The memory the copies take, and the compressed bytes uploaded from the
// app's memory since they were kept (both 0 when none are).
void compressed_copy_bytes(uint64_t* held, uint64_t* uploaded);
// What is kept of a level of `texture` (its `face`) in `context`'s group.
bool compressed_level(EGLContext context, GLuint texture, GLenum face, GLint level,
                      glstate::CompressedLevel* out);

// The objects of a class that `context` sees (its share group's, or its own
// containers), by name. A deleted program or shader stays listed, marked,
// while the driver may still hold it (in use, attached).
std::vector<glstate::SnapshotNames::Object> listed_objects(EGLContext context,
                                                           glstate::ObjectClass cls);

// The shaders `program` of `context` last linked with (empty: not known).
std::vector<glstate::LinkedShader> linked_shaders(EGLContext context, GLuint program);

// A snapshot of `context` in snapshot epoch `epoch` (session.h): what
// of its share group's objects this thread writes (all of them, for the
// first context of the group the session snapshots; else the contents of
// those written then, which threads that had not joined yet may have
// changed untraced), and, when another context of the group was written
// before, that one (the share_context of the written eglCreateContext;
// else EGL_NO_CONTEXT).
struct GroupClaim {
  glstate::SharedObjects shared = glstate::SharedObjects::kNone;
  EGLContext share_with = EGL_NO_CONTEXT;
};
GroupClaim claim_share_group(EGLContext context, uint32_t epoch);

// The buffers or textures of `context`'s group the session's first snapshot
// of the group wrote, that still live (SharedObjects::kContents).
std::vector<glstate::SnapshotNames::Object> written_objects(EGLContext context,
                                                            glstate::ObjectClass cls);

}  // namespace gltrace::trace
