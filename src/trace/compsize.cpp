#include "trace/compsize.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLES_PROTOTYPES 0
#include <GLES/gl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include "common/image_size.h"
#include "common/pname_count.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/trace_decls.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {
namespace {

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

// Bytes of `count` path names of `type` at `names` (NV_path_rendering): a
// fixed size each, or UTF-8/UTF-16 characters read as far as `count` of them
// reach (the driver reads that far).
int64_t path_names_bytes(int64_t count, GLenum type, const void* names) {
  if (count <= 0) return 0;
  if (names == nullptr) return -1;
  if (type == GL_UTF8_NV || type == GL_UTF16_NV) {
    const auto* p = static_cast<const uint8_t*>(names);
    int64_t bytes = 0;
    for (int64_t k = 0; k < count; ++k) {
      if (type == GL_UTF16_NV) {
        uint16_t unit;
        memcpy(&unit, p + bytes, 2);
        bytes += unit >= 0xD800 && unit < 0xDC00 ? 4 : 2;  // a surrogate pair
      } else {
        uint8_t lead = p[bytes];
        bytes += lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      }
    }
    return bytes;
  }
  return count * path_name_bytes(type);
}

// A font name (NV_path_rendering's font targets all take a C string): its
// bytes and the NUL.
int64_t font_name_bytes(const void* name) {
  return name != nullptr ? static_cast<int64_t>(strlen(static_cast<const char*>(name))) + 1 : -1;
}

// How many values a path's array holds (glGetPathParameterivNV of `pname`).
int64_t path_count(GLuint path, GLenum pname) {
  GLint count = 0;
  NEXT(glGetPathParameterivNV)(path, pname, &count);
  return count;
}

// The planes an exported DMA-BUF image has: the query the app made before
// the export (it writes one fd, stride and offset per plane), made again.
int64_t dma_buf_planes(EGLDisplay display, EGLImageKHR image) {
  int planes = 0;
  auto query = NEXT(eglExportDMABUFImageQueryMESA);
  if (query == nullptr || query(display, image, nullptr, &planes, nullptr) != EGL_TRUE) return -1;
  return std::clamp(planes, 0, 4);  // a DMA-BUF has at most 4 planes
}

}  // namespace

int32_t driver_integer(uint32_t pname) {
  GLint value = 0;
  NEXT(glGetIntegerv)(pname, &value);
  return value;
}

int64_t pname_count(uint32_t pname) {
  return pname_value_count(pname, [](uint32_t n) -> int64_t { return driver_integer(n); });
}

int64_t uniform_components(uint32_t program, int32_t location) {
  // Only queries that cannot fail: a GL error they raised would be the app's
  // to read.
  if (location < 0 || NEXT(glIsProgram)(program) != GL_TRUE) return 0;
  auto get_program = NEXT(glGetProgramiv);
  GLint linked = GL_FALSE, uniforms = 0, max_name = 0;
  get_program(program, GL_LINK_STATUS, &linked);
  if (linked != GL_TRUE) return 0;
  get_program(program, GL_ACTIVE_UNIFORMS, &uniforms);
  get_program(program, GL_ACTIVE_UNIFORM_MAX_LENGTH, &max_name);
  auto active_uniform = NEXT(glGetActiveUniform);
  auto uniform_location = NEXT(glGetUniformLocation);
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
  NEXT(glGetActiveUniformBlockiv)(program, block, GL_UNIFORM_BLOCK_ACTIVE_UNIFORMS, &count);
  return count;
}

int64_t unpack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height,
                          int64_t depth) {
  if (driver_integer(GL_PIXEL_UNPACK_BUFFER_BINDING) != 0) return -1;
  return image_bytes(unpack_layout(driver_integer, depth), format, type, width, height, depth);
}

int64_t pack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height) {
  if (driver_integer(GL_PIXEL_PACK_BUFFER_BINDING) != 0) return -1;
  return image_bytes(pack_layout(driver_integer), format, type, width, height, 1);
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
int64_t compsize_glTexImage3DOES_pixels(GLenum, GLint, GLenum, GLsizei width, GLsizei height,
                                        GLsizei depth, GLint, GLenum format, GLenum type,
                                        const void*) {
  return unpack_image_size(format, type, width, height, depth);
}
int64_t compsize_glTexSubImage3DOES_pixels(GLenum, GLint, GLint, GLint, GLint, GLsizei width,
                                           GLsizei height, GLsizei depth, GLenum format,
                                           GLenum type, const void*) {
  return unpack_image_size(format, type, width, height, depth);
}
// Images of the pack layout, one after another (QCOM_extended_get).
int64_t compsize_glExtGetTexSubImageQCOM_texels(GLenum, GLint, GLint, GLint, GLint, GLsizei width,
                                                GLsizei height, GLsizei depth, GLenum format,
                                                GLenum type, void*) {
  int64_t image = pack_image_size(format, type, width, height);
  return image < 0 || depth <= 0 ? image : image * depth;
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
int64_t compsize_glObjectPtrLabel_label(const void*, GLsizei length, const GLchar*) {
  return length;
}
// A name the call reads, NUL-terminated (its GLchar* is not const).
int64_t compsize_glGetPerfQueryIdByNameINTEL_queryName(GLchar*, GLuint*) { return -1; }

int64_t compsize_glClearBufferfv_value(GLenum buffer, GLint, const GLfloat*) {
  return buffer == GL_COLOR ? 4 : 1;
}
int64_t compsize_glClearBufferiv_value(GLenum buffer, GLint, const GLint*) {
  return buffer == GL_COLOR ? 4 : 1;
}
int64_t compsize_glClearBufferuiv_value(GLenum buffer, GLint, const GLuint*) {
  return buffer == GL_COLOR ? 4 : 1;
}

// NV_path_rendering.
int64_t compsize_glCoverFillPathInstancedNV_paths(GLsizei n, GLenum type, const void* paths, GLuint,
                                                  GLenum, GLenum, const GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glCoverStrokePathInstancedNV_paths(GLsizei n, GLenum type, const void* paths,
                                                    GLuint, GLenum, GLenum, const GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glStencilFillPathInstancedNV_paths(GLsizei n, GLenum type, const void* paths,
                                                    GLuint, GLenum, GLuint, GLenum,
                                                    const GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glStencilStrokePathInstancedNV_paths(GLsizei n, GLenum type, const void* paths,
                                                      GLuint, GLint, GLuint, GLenum,
                                                      const GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glStencilThenCoverFillPathInstancedNV_paths(GLsizei n, GLenum type,
                                                             const void* paths, GLuint, GLenum,
                                                             GLuint, GLenum, GLenum,
                                                             const GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glStencilThenCoverStrokePathInstancedNV_paths(GLsizei n, GLenum type,
                                                               const void* paths, GLuint, GLint,
                                                               GLuint, GLenum, GLenum,
                                                               const GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glGetPathMetricsNV_paths(GLbitfield, GLsizei n, GLenum type, const void* paths,
                                          GLuint, GLsizei, GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glGetPathSpacingNV_paths(GLenum, GLsizei n, GLenum type, const void* paths, GLuint,
                                          GLfloat, GLfloat, GLenum, GLfloat*) {
  return path_names_bytes(n, type, paths);
}
int64_t compsize_glPathGlyphsNV_charcodes(GLuint, GLenum, const void*, GLbitfield, GLsizei n,
                                          GLenum type, const void* charcodes, GLenum, GLuint,
                                          GLfloat) {
  return path_names_bytes(n, type, charcodes);
}
int64_t compsize_glPathGlyphsNV_fontName(GLuint, GLenum, const void* name, GLbitfield, GLsizei,
                                         GLenum, const void*, GLenum, GLuint, GLfloat) {
  return font_name_bytes(name);
}
int64_t compsize_glPathGlyphRangeNV_fontName(GLuint, GLenum, const void* name, GLbitfield, GLuint,
                                             GLsizei, GLenum, GLuint, GLfloat) {
  return font_name_bytes(name);
}
int64_t compsize_glPathGlyphIndexRangeNV_fontName(GLenum, const void* name, GLbitfield, GLuint,
                                                  GLfloat, GLuint*) {
  return font_name_bytes(name);
}
int64_t compsize_glPathGlyphIndexArrayNV_fontName(GLuint, GLenum, const void* name, GLbitfield,
                                                  GLuint, GLsizei, GLuint, GLfloat) {
  return font_name_bytes(name);
}
int64_t compsize_glGetPathCommandsNV_commands(GLuint path, GLubyte*) {
  return path_count(path, GL_PATH_COMMAND_COUNT_NV);
}
int64_t compsize_glGetPathCoordsNV_coords(GLuint path, GLfloat*) {
  return path_count(path, GL_PATH_COORD_COUNT_NV);
}
int64_t compsize_glGetPathDashArrayNV_dashArray(GLuint path, GLfloat*) {
  return path_count(path, GL_PATH_DASH_ARRAY_COUNT_NV);
}

int64_t compsize_eglExportDMABUFImageMESA_fds(EGLDisplay display, EGLImageKHR image, int*, EGLint*,
                                              EGLint*) {
  return dma_buf_planes(display, image);
}
int64_t compsize_eglExportDMABUFImageMESA_strides(EGLDisplay display, EGLImageKHR image, int*,
                                                  EGLint*, EGLint*) {
  return dma_buf_planes(display, image);
}
int64_t compsize_eglExportDMABUFImageMESA_offsets(EGLDisplay display, EGLImageKHR image, int*,
                                                  EGLint*, EGLint*) {
  return dma_buf_planes(display, image);
}

}  // namespace gltrace::trace
