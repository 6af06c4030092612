// EGL image hooks: an image whose source a replay cannot recreate keeps
// its pixels, read when it was made, as the Call's image_source.
#define GL_GLES_PROTOTYPES 0
#include <cstring>

#include "common/process.h"
#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/trace_decls.h"
#include "trace/compsize.h"
#include "trace/hooks/context_state.h"
#include "trace/hooks/egl_image_attribs.h"
#include "trace/hooks/read_back.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

// Reads what an EGL image holds, RGBA8, into thread->pixels: a texture of
// ours is bound to the image, attached to a framebuffer of ours and read
// (the app's state put back: ReadBackScope, and the 2D texture binding).
// nullptr on success, else why not.
const char* read_image_pixels(ThreadState* thread, EGLImage image, int64_t width_hint,
                              int64_t height_hint, GLsizei* width, GLsizei* height) {
  if (thread->context == 0) return "no context was current";
  int version = context_state(thread)->client_version;
  if (version < 2) return "an ES 1 context was current";
  auto target_texture = NEXT(glEGLImageTargetTexture2DOES);
  if (target_texture == nullptr) return "the driver has no glEGLImageTargetTexture2DOES";
  ReadBackScope scope(thread);
  GLint texture_binding = driver_integer(GL_TEXTURE_BINDING_2D);
  const char* failure = nullptr;
  GLuint texture = 0, framebuffer = 0;
  NEXT(glGenTextures)(1, &texture);
  NEXT(glBindTexture)(GL_TEXTURE_2D, texture);
  target_texture(GL_TEXTURE_2D, static_cast<GLeglImageOES>(image));
  if (NEXT(glGetError)() != GL_NO_ERROR) failure = "the image cannot back a GL_TEXTURE_2D";
  // Its size: asked of the texture where ES 3.1 can, else the attributes.
  GLint w = static_cast<GLint>(width_hint), h = static_cast<GLint>(height_hint);
  if (failure == nullptr && version >= 3 && NEXT(glGetTexLevelParameteriv) != nullptr) {
    GLint qw = 0, qh = 0;
    NEXT(glGetTexLevelParameteriv)(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &qw);
    NEXT(glGetTexLevelParameteriv)(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &qh);
    if (NEXT(glGetError)() == GL_NO_ERROR && qw > 0 && qh > 0) {
      w = qw;
      h = qh;
    }
  }
  if (failure == nullptr && (w <= 0 || h <= 0 || int64_t{w} * h > (int64_t{1} << 26)))
    failure = "the image's size is unknown";
  if (failure == nullptr) {
    NEXT(glGenFramebuffers)(1, &framebuffer);
    scope.prepare(framebuffer, 0);
    NEXT(glFramebufferTexture2D)
    (scope.framebuffer_target(), GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    if (NEXT(glCheckFramebufferStatus)(scope.framebuffer_target()) != GL_FRAMEBUFFER_COMPLETE)
      failure = "the image cannot be a color attachment";
  }
  if (failure == nullptr) {
    thread->pixels.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
    NEXT(glReadPixels)(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, thread->pixels.data());
    if (NEXT(glGetError)() != GL_NO_ERROR) failure = "glReadPixels of the image failed";
  }
  if (framebuffer != 0) NEXT(glDeleteFramebuffers)(1, &framebuffer);
  NEXT(glBindTexture)(GL_TEXTURE_2D, static_cast<GLuint>(texture_binding));
  NEXT(glDeleteTextures)(1, &texture);
  *width = w;
  *height = h;
  return failure;
}

// Call.image_source: the image's pixels (or why not), so a replay can
// recreate an image whose source it cannot.
void write_image_source(CallRecorder& rec, EGLImage image, int64_t width_hint,
                        int64_t height_hint) {
  ThreadState* thread = rec.thread();
  GLsizei width = 0, height = 0;
  const char* failure = !capture_texture_data() ? "texture data capture is off"
                                                : read_image_pixels(thread, image, width_hint,
                                                                    height_hint, &width, &height);
  wire::Encoder& call = rec.call_encoder();
  size_t m = schema::call::begin_image_source(call);
  if (failure == nullptr) {
    schema::image_source::set_width(call, static_cast<uint64_t>(width));
    schema::image_source::set_height(call, static_cast<uint64_t>(height));
    schema::image_source::set_blob(
        call, store_blob(thread, thread->pixels.data(), thread->pixels.size()));
  } else {
    schema::image_source::set_not_captured(call, failure);
  }
  call.end_nested(m);
}

// GLTRACE_IMAGE_PIXELS=all: images of GL objects get their pixels recorded
// too (what each image held when it was made, for a reader of the trace).
bool image_pixels_of_gl_objects() {
  static const bool all = [] {
    const char* value = env_get("GLTRACE_IMAGE_PIXELS");
    return value != nullptr && strcmp(value, "all") == 0;
  }();
  return all;
}

// An image of a GL object is recreated from the replay's copy of it; any
// other source is gone by replay time: its pixels are kept. A snapshot's
// image of no context is made of its pixels (no source object was written).
template <typename T>
void record_source(CallRecorder& rec, EGLenum target, EGLContext ctx, const T* attrib_list,
                   EGLImage result) {
  if (result != EGL_NO_IMAGE && mode() == Mode::kFull &&
      (!is_gl_image_target(target) || image_pixels_of_gl_objects() ||
       (rec.snapshot() && ctx == EGL_NO_CONTEXT)))
    write_image_source(rec, result, attrib_value(attrib_list, EGL_WIDTH),
                       attrib_value(attrib_list, EGL_HEIGHT));
}

}  // namespace

void record_image_source(CallRecorder& rec, EGLDisplay /*dpy*/, EGLContext ctx, EGLenum target,
                         EGLClientBuffer /*buffer*/, const EGLAttrib* attrib_list,
                         EGLImage result) {
  record_source(rec, target, ctx, attrib_list, result);
}

void record_image_source(CallRecorder& rec, EGLDisplay /*dpy*/, EGLContext ctx, EGLenum target,
                         EGLClientBuffer /*buffer*/, const EGLint* attrib_list,
                         EGLImageKHR result) {
  record_source(rec, target, ctx, attrib_list, result);
}

}  // namespace gltrace::trace
