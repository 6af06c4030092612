#include "trace/compsize.h"

#include <algorithm>
#include <string>
#include <string_view>

#define GL_GLES_PROTOTYPES 0
#include <GLES/gl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include "gltrace/api/functions.h"
#include "gltrace/api/trace_decls.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {
namespace {

int64_t format_components(uint32_t format) {
  switch (format) {
    case GL_RGBA:
    case GL_RGBA_INTEGER:
    case GL_BGRA_EXT:
      return 4;
    case GL_RGB:
    case GL_RGB_INTEGER:
      return 3;
    case GL_RG:
    case GL_RG_INTEGER:
    case GL_LUMINANCE_ALPHA:
      return 2;
    default:
      return 1;  // RED, ALPHA, LUMINANCE, DEPTH, STENCIL, *_INTEGER
  }
}

// Bytes per pixel; 0 for an unknown type.
int64_t pixel_bytes(uint32_t format, uint32_t type) {
  switch (type) {
    case GL_UNSIGNED_BYTE:
    case GL_BYTE:
      return format_components(format);
    case GL_UNSIGNED_SHORT:
    case GL_SHORT:
    case GL_HALF_FLOAT:
    case GL_HALF_FLOAT_OES:
      return 2 * format_components(format);
    case GL_UNSIGNED_INT:
    case GL_INT:
    case GL_FLOAT:
      return 4 * format_components(format);
    case GL_UNSIGNED_SHORT_5_6_5:
    case GL_UNSIGNED_SHORT_4_4_4_4:
    case GL_UNSIGNED_SHORT_5_5_5_1:
      return 2;
    case GL_UNSIGNED_INT_2_10_10_10_REV:
    case GL_UNSIGNED_INT_10F_11F_11F_REV:
    case GL_UNSIGNED_INT_5_9_9_9_REV:
    case GL_UNSIGNED_INT_24_8:
      return 4;
    case GL_FLOAT_32_UNSIGNED_INT_24_8_REV:
      return 8;
    default:
      return 0;
  }
}

struct PixelStore {
  int64_t alignment, row_length, image_height, skip_pixels, skip_rows, skip_images;
};

int64_t image_size(const PixelStore& store, uint32_t format, uint32_t type, int64_t width,
                   int64_t height, int64_t depth) {
  if (width <= 0 || height <= 0 || depth <= 0) return 0;
  int64_t bpp = pixel_bytes(format, type);
  if (bpp == 0) return -1;
  int64_t alignment = store.alignment > 0 ? store.alignment : 4;
  int64_t row_pixels = store.row_length > 0 ? store.row_length : width;
  int64_t row_bytes = (row_pixels * bpp + alignment - 1) / alignment * alignment;
  int64_t rows = store.image_height > 0 ? store.image_height : height;
  return (store.skip_images + depth - 1) * rows * row_bytes +
         (store.skip_rows + height - 1) * row_bytes + (store.skip_pixels + width) * bpp;
}

// Values in a uniform of this type (glGetActiveUniform's type).
int64_t type_components(GLenum type) {
  switch (type) {
    case GL_FLOAT_VEC2:
    case GL_INT_VEC2:
    case GL_UNSIGNED_INT_VEC2:
    case GL_BOOL_VEC2:
      return 2;
    case GL_FLOAT_VEC3:
    case GL_INT_VEC3:
    case GL_UNSIGNED_INT_VEC3:
    case GL_BOOL_VEC3:
      return 3;
    case GL_FLOAT_VEC4:
    case GL_INT_VEC4:
    case GL_UNSIGNED_INT_VEC4:
    case GL_BOOL_VEC4:
    case GL_FLOAT_MAT2:
      return 4;
    case GL_FLOAT_MAT2x3:
    case GL_FLOAT_MAT3x2:
      return 6;
    case GL_FLOAT_MAT2x4:
    case GL_FLOAT_MAT4x2:
      return 8;
    case GL_FLOAT_MAT3:
      return 9;
    case GL_FLOAT_MAT3x4:
    case GL_FLOAT_MAT4x3:
      return 12;
    case GL_FLOAT_MAT4:
      return 16;
    default:
      return 1;  // scalars, samplers, images, atomic counters
  }
}

template <typename Pfn>
Pfn driver(uint32_t id) {
  return reinterpret_cast<Pfn>(next_function(id));
}

}  // namespace

int32_t driver_integer(uint32_t pname) {
  GLint value = 0;
  reinterpret_cast<PFN_gltrace_glGetIntegerv>(next_function(api::kFn_glGetIntegerv))(pname, &value);
  return value;
}

int64_t pname_count(uint32_t pname) {
  switch (pname) {
    case GL_VIEWPORT:
    case GL_SCISSOR_BOX:
    case GL_COLOR_CLEAR_VALUE:
    case GL_COLOR_WRITEMASK:
    case GL_BLEND_COLOR:
    case GL_TEXTURE_BORDER_COLOR_EXT:
    case GL_CURRENT_VERTEX_ATTRIB:
    case GL_CURRENT_COLOR:
    case GL_FOG_COLOR:
    case GL_LIGHT_MODEL_AMBIENT:
    case GL_AMBIENT:
    case GL_DIFFUSE:
    case GL_SPECULAR:
    case GL_EMISSION:
    case GL_POSITION:
    case GL_TEXTURE_ENV_COLOR:
    case GL_CURRENT_TEXTURE_COORDS:
    case GL_AMBIENT_AND_DIFFUSE:
      return 4;
    case GL_SPOT_DIRECTION:
    case GL_CURRENT_NORMAL:
      return 3;
    case GL_ALIASED_LINE_WIDTH_RANGE:
    case GL_ALIASED_POINT_SIZE_RANGE:
    case GL_DEPTH_RANGE:
    case GL_MAX_VIEWPORT_DIMS:
    case GL_SMOOTH_LINE_WIDTH_RANGE:
    case GL_SMOOTH_POINT_SIZE_RANGE:
      return 2;
    case GL_DEVICE_UUID_EXT:
    case GL_DRIVER_UUID_EXT:
      return GL_UUID_SIZE_EXT;
    case GL_DEVICE_LUID_EXT:
      return GL_LUID_SIZE_EXT;
    case GL_MODELVIEW_MATRIX:
    case GL_PROJECTION_MATRIX:
    case GL_TEXTURE_MATRIX:
      return 16;
    case GL_COMPRESSED_TEXTURE_FORMATS:
      return driver_integer(GL_NUM_COMPRESSED_TEXTURE_FORMATS);
    case GL_SHADER_BINARY_FORMATS:
      return driver_integer(GL_NUM_SHADER_BINARY_FORMATS);
    case GL_PROGRAM_BINARY_FORMATS:
      return driver_integer(GL_NUM_PROGRAM_BINARY_FORMATS);
    default:
      return 1;
  }
}

int64_t uniform_components(uint32_t program, int32_t location) {
  // Only queries that cannot fail: a GL error they raised would be the app's
  // to read.
  if (location < 0 || driver<PFN_gltrace_glIsProgram>(api::kFn_glIsProgram)(program) != GL_TRUE)
    return 0;
  auto get_program = driver<PFN_gltrace_glGetProgramiv>(api::kFn_glGetProgramiv);
  GLint linked = GL_FALSE, uniforms = 0, max_name = 0;
  get_program(program, GL_LINK_STATUS, &linked);
  if (linked != GL_TRUE) return 0;
  get_program(program, GL_ACTIVE_UNIFORMS, &uniforms);
  get_program(program, GL_ACTIVE_UNIFORM_MAX_LENGTH, &max_name);
  auto active_uniform = driver<PFN_gltrace_glGetActiveUniform>(api::kFn_glGetActiveUniform);
  auto uniform_location = driver<PFN_gltrace_glGetUniformLocation>(api::kFn_glGetUniformLocation);
  std::string name(static_cast<size_t>(std::max(max_name, 1)), '\0');
  for (GLint i = 0; i < uniforms; ++i) {
    GLsizei length = 0;
    GLint size = 0;
    GLenum type = 0;
    active_uniform(program, static_cast<GLuint>(i), static_cast<GLsizei>(name.size()), &length,
                   &size, &type, name.data());
    std::string uniform(name.data(), static_cast<size_t>(std::max(length, 0)));
    if (uniform_location(program, uniform.c_str()) == location) return type_components(type);
    // An array's elements have locations of their own, not always in a row.
    constexpr std::string_view kFirst = "[0]";
    if (size > 1 && uniform.ends_with(kFirst)) {
      std::string base = uniform.substr(0, uniform.size() - kFirst.size());
      for (GLint k = 1; k < size; ++k) {
        std::string element = base + "[" + std::to_string(k) + "]";
        if (uniform_location(program, element.c_str()) == location) return type_components(type);
      }
    }
  }
  return 0;
}

int64_t uniform_block_param_count(uint32_t program, uint32_t block, uint32_t pname) {
  if (pname != GL_UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES) return 1;
  // The call just made had these arguments: this query fails only where it
  // failed, and a GL error flag keeps the first error.
  GLint count = 0;
  driver<PFN_gltrace_glGetActiveUniformBlockiv>(api::kFn_glGetActiveUniformBlockiv)(
      program, block, GL_UNIFORM_BLOCK_ACTIVE_UNIFORMS, &count);
  return count;
}

int64_t unpack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height,
                          int64_t depth) {
  if (driver_integer(GL_PIXEL_UNPACK_BUFFER_BINDING) != 0) return -1;
  PixelStore store{driver_integer(GL_UNPACK_ALIGNMENT),    driver_integer(GL_UNPACK_ROW_LENGTH),
                   driver_integer(GL_UNPACK_IMAGE_HEIGHT), driver_integer(GL_UNPACK_SKIP_PIXELS),
                   driver_integer(GL_UNPACK_SKIP_ROWS),    driver_integer(GL_UNPACK_SKIP_IMAGES)};
  if (depth == 1) store.skip_images = 0, store.image_height = 0;
  return image_size(store, format, type, width, height, depth);
}

int64_t pack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height) {
  if (driver_integer(GL_PIXEL_PACK_BUFFER_BINDING) != 0) return -1;
  PixelStore store{driver_integer(GL_PACK_ALIGNMENT),   driver_integer(GL_PACK_ROW_LENGTH), 0,
                   driver_integer(GL_PACK_SKIP_PIXELS), driver_integer(GL_PACK_SKIP_ROWS),  0};
  return image_size(store, format, type, width, height, 1);
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
