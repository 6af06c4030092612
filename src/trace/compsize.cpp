#include "trace/compsize.h"

#define GL_GLES_PROTOTYPES 0
#include <GLES/gl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include "common/image_size.h"
#include "common/pname_count.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/trace_decls.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {

int32_t driver_integer(uint32_t pname) {
  GLint value = 0;
  reinterpret_cast<PFN_gltrace_glGetIntegerv>(next_function(api::kFn_glGetIntegerv))(pname, &value);
  return value;
}

int64_t pname_count(uint32_t pname) {
  return pname_value_count(pname, [](uint32_t n) -> int64_t { return driver_integer(n); });
}

int64_t unpack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height,
                          int64_t depth) {
  if (driver_integer(GL_PIXEL_UNPACK_BUFFER_BINDING) != 0) return -1;
  ImageLayout store{driver_integer(GL_UNPACK_ALIGNMENT),    driver_integer(GL_UNPACK_ROW_LENGTH),
                    driver_integer(GL_UNPACK_IMAGE_HEIGHT), driver_integer(GL_UNPACK_SKIP_PIXELS),
                    driver_integer(GL_UNPACK_SKIP_ROWS),    driver_integer(GL_UNPACK_SKIP_IMAGES)};
  if (depth == 1) store.skip_images = 0, store.image_height = 0;
  return image_bytes(store, format, type, width, height, depth);
}

int64_t pack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height) {
  if (driver_integer(GL_PIXEL_PACK_BUFFER_BINDING) != 0) return -1;
  ImageLayout store{driver_integer(GL_PACK_ALIGNMENT),   driver_integer(GL_PACK_ROW_LENGTH), 0,
                    driver_integer(GL_PACK_SKIP_PIXELS), driver_integer(GL_PACK_SKIP_ROWS),  0};
  return image_bytes(store, format, type, width, height, 1);
}

int64_t texture_data_size(int64_t size) {
  if (size < 0) return size;
  if (driver_integer(GL_PIXEL_UNPACK_BUFFER_BINDING) != 0) return -1;
  return capture_texture_data() ? size : kTextureDataNotCaptured;
}

int64_t compsize_glTexImage2D_pixels(GLenum, GLint, GLint, GLsizei width, GLsizei height, GLint,
                                     GLenum format, GLenum type, const void*) {
  return unpack_image_size(format, type, width, height, 1);
}
int64_t compsize_glTexSubImage2D_pixels(GLenum, GLint, GLint, GLint, GLsizei width, GLsizei height,
                                        GLenum format, GLenum type, const void*) {
  return unpack_image_size(format, type, width, height, 1);
}
int64_t compsize_glTexImage3D_pixels(GLenum, GLint, GLint, GLsizei width, GLsizei height,
                                     GLsizei depth, GLint, GLenum format, GLenum type,
                                     const void*) {
  return unpack_image_size(format, type, width, height, depth);
}
int64_t compsize_glTexSubImage3D_pixels(GLenum, GLint, GLint, GLint, GLint, GLsizei width,
                                        GLsizei height, GLsizei depth, GLenum format, GLenum type,
                                        const void*) {
  return unpack_image_size(format, type, width, height, depth);
}
int64_t compsize_glReadPixels_pixels(GLint, GLint, GLsizei width, GLsizei height, GLenum format,
                                     GLenum type, void*) {
  return pack_image_size(format, type, width, height);
}

// Debug strings: `length` bytes, or NUL-terminated when negative.
int64_t compsize_glPushDebugGroup_message(GLenum, GLuint, GLsizei length, const GLchar*) {
  return length;
}
int64_t compsize_glPushDebugGroupKHR_message(GLenum, GLuint, GLsizei length, const GLchar*) {
  return length;
}
int64_t compsize_glDebugMessageInsert_buf(GLenum, GLenum, GLuint, GLenum, GLsizei length,
                                          const GLchar*) {
  return length;
}
int64_t compsize_glDebugMessageInsertKHR_buf(GLenum, GLenum, GLuint, GLenum, GLsizei length,
                                             const GLchar*) {
  return length;
}
int64_t compsize_glObjectLabel_label(GLenum, GLuint, GLsizei length, const GLchar*) {
  return length;
}
int64_t compsize_glObjectLabelKHR_label(GLenum, GLuint, GLsizei length, const GLchar*) {
  return length;
}

int64_t compsize_glClearBufferfv_value(GLenum buffer, GLint, const GLfloat*) {
  return buffer == GL_COLOR ? 4 : 1;
}
int64_t compsize_glClearBufferiv_value(GLenum buffer, GLint, const GLint*) {
  return buffer == GL_COLOR ? 4 : 1;
}
int64_t compsize_glClearBufferuiv_value(GLenum buffer, GLint, const GLuint*) {
  return buffer == GL_COLOR ? 4 : 1;
}

}  // namespace gltrace::trace
