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

namespace gltrace::trace {

// --- Desktop OpenGL ----------------------------------------------------------
// Enums of desktop GL the GLES headers lack, by value.
namespace {
namespace desktop {
constexpr GLenum kTextureWidth = 0x1000, kTextureHeight = 0x1001, kTextureDepth = 0x8071;
constexpr GLenum kTextureCompressedImageSize = 0x86A0;
constexpr GLenum kCoeff = 0x0A00, kOrder = 0x0A01, kDomain = 0x0A02;
constexpr GLenum kColorTableWidth = 0x80D9, kHistogramWidth = 0x8026;
constexpr GLenum kConvolutionWidth = 0x8018, kConvolutionHeight = 0x8019;
constexpr GLenum kProgramLength = 0x8627;  // ARB and NV alike
constexpr GLenum kPixelMapFirst = 0x0C70, kPixelMapLast = 0x0C79, kPixelMapSizeOffset = 0x40;
}  // namespace desktop

bool pack_buffer_bound() { return driver_integer(GL_PIXEL_PACK_BUFFER_BINDING) != 0; }

// Bytes a level of `width` x `height` x `depth` texels takes when read back
// (-1 with a pack buffer bound, as pack_image_size says).
int64_t level_pack_bytes(GLenum format, GLenum type, GLint width, GLint height, GLint depth) {
  return pack_image_size(format, type, width, static_cast<int64_t>(height) * std::max(depth, 1));
}

// A texture level read back: its size, asked of the driver with the same
// target and level (a query that fails only where the call failed).
template <typename LevelParameter>
int64_t texture_level_bytes(LevelParameter level_parameter, GLenum format, GLenum type) {
  GLint width = 0, height = 0, depth = 0;
  level_parameter(desktop::kTextureWidth, &width);
  level_parameter(desktop::kTextureHeight, &height);
  level_parameter(desktop::kTextureDepth, &depth);
  return level_pack_bytes(format, type, width, height, depth);
}

template <typename LevelParameter>
int64_t compressed_level_bytes(LevelParameter level_parameter) {
  if (pack_buffer_bound()) return -1;
  GLint size = 0;
  level_parameter(desktop::kTextureCompressedImageSize, &size);
  return size;
}

// An evaluator map's query (glGetMap*v): GL_ORDER has one value per
// dimension, GL_DOMAIN two, GL_COEFF every control point's components.
int64_t map_query_values(GLenum target, GLenum query) {
  int64_t dimensions = map_dimensions(target);
  bool two_d = dimensions == 2;
  if (query == desktop::kOrder) return dimensions;
  if (query == desktop::kDomain) return 2 * dimensions;
  if (query != desktop::kCoeff) return 0;
  GLint order[2] = {0, 0};
  NEXT(glGetMapiv)(target, desktop::kOrder, order);
  return static_cast<int64_t>(order[0]) * (two_d ? order[1] : 1) * map_components(target);
}

int64_t program_string_bytes(GLint length) { return length > 0 ? length : 0; }

}  // namespace

int64_t pixel_map_size(uint32_t map) {
  if (pack_buffer_bound()) return -1;
  if (map < desktop::kPixelMapFirst || map > desktop::kPixelMapLast) return 0;
  return driver_integer(map + desktop::kPixelMapSizeOffset);
}

int64_t compsize_glGetTexImage_pixels(GLenum target, GLint level, GLenum format, GLenum type,
                                      void*) {
  auto level_parameter = [&](GLenum pname, GLint* v) {
    NEXT(glGetTexLevelParameteriv)(target, level, pname, v);
  };
  return texture_level_bytes(level_parameter, format, type);
}
int64_t compsize_glGetTextureImageEXT_pixels(GLuint texture, GLenum target, GLint level,
                                             GLenum format, GLenum type, void*) {
  return texture_level_bytes(
      [&](GLenum pname, GLint* v) {
        NEXT(glGetTextureLevelParameterivEXT)(texture, target, level, pname, v);
      },
      format, type);
}
int64_t compsize_glGetMultiTexImageEXT_pixels(GLenum texunit, GLenum target, GLint level,
                                              GLenum format, GLenum type, void*) {
  return texture_level_bytes(
      [&](GLenum pname, GLint* v) {
        NEXT(glGetMultiTexLevelParameterivEXT)(texunit, target, level, pname, v);
      },
      format, type);
}

int64_t compsize_glGetCompressedTexImage_img(GLenum target, GLint level, void*) {
  return compressed_level_bytes([&](GLenum pname, GLint* v) {
    NEXT(glGetTexLevelParameteriv)(target, level, pname, v);
  });
}
int64_t compsize_glGetCompressedTexImageARB_img(GLenum target, GLint level, void* img) {
  return compsize_glGetCompressedTexImage_img(target, level, img);
}
int64_t compsize_glGetCompressedTextureImageEXT_img(GLuint texture, GLenum target, GLint lod,
                                                    void*) {
  return compressed_level_bytes([&](GLenum pname, GLint* v) {
    NEXT(glGetTextureLevelParameterivEXT)(texture, target, lod, pname, v);
  });
}
int64_t compsize_glGetCompressedMultiTexImageEXT_img(GLenum texunit, GLenum target, GLint lod,
                                                     void*) {
  return compressed_level_bytes([&](GLenum pname, GLint* v) {
    NEXT(glGetMultiTexLevelParameterivEXT)(texunit, target, lod, pname, v);
  });
}

int64_t compsize_glGetMapdv_v(GLenum target, GLenum query, GLdouble*) {
  return map_query_values(target, query);
}
int64_t compsize_glGetMapfv_v(GLenum target, GLenum query, GLfloat*) {
  return map_query_values(target, query);
}
int64_t compsize_glGetMapiv_v(GLenum target, GLenum query, GLint*) {
  return map_query_values(target, query);
}

// The imaging subset's tables and filters, at the size the driver holds.
int64_t compsize_glGetColorTable_table(GLenum target, GLenum format, GLenum type, void*) {
  GLint width = 0;
  NEXT(glGetColorTableParameteriv)(target, desktop::kColorTableWidth, &width);
  return level_pack_bytes(format, type, width, 1, 1);
}
int64_t compsize_glGetColorTableEXT_data(GLenum target, GLenum format, GLenum type, void* data) {
  return compsize_glGetColorTable_table(target, format, type, data);
}
int64_t compsize_glGetHistogram_values(GLenum target, GLboolean, GLenum format, GLenum type,
                                       void*) {
  GLint width = 0;
  NEXT(glGetHistogramParameteriv)(target, desktop::kHistogramWidth, &width);
  return level_pack_bytes(format, type, width, 1, 1);
}
int64_t compsize_glGetHistogramEXT_values(GLenum target, GLboolean reset, GLenum format,
                                          GLenum type, void* values) {
  return compsize_glGetHistogram_values(target, reset, format, type, values);
}
// The minimum and the maximum.
int64_t compsize_glGetMinmax_values(GLenum, GLboolean, GLenum format, GLenum type, void*) {
  return level_pack_bytes(format, type, 2, 1, 1);
}
int64_t compsize_glGetMinmaxEXT_values(GLenum target, GLboolean reset, GLenum format, GLenum type,
                                       void* values) {
  return compsize_glGetMinmax_values(target, reset, format, type, values);
}
int64_t compsize_glGetConvolutionFilter_image(GLenum target, GLenum format, GLenum type, void*) {
  GLint width = 0, height = 0;
  NEXT(glGetConvolutionParameteriv)(target, desktop::kConvolutionWidth, &width);
  NEXT(glGetConvolutionParameteriv)(target, desktop::kConvolutionHeight, &height);
  return level_pack_bytes(format, type, width, height, 1);
}
int64_t compsize_glGetConvolutionFilterEXT_image(GLenum target, GLenum format, GLenum type,
                                                 void* image) {
  return compsize_glGetConvolutionFilter_image(target, format, type, image);
}
int64_t compsize_glGetSeparableFilter_row(GLenum target, GLenum format, GLenum type, void*, void*,
                                          void*) {
  GLint width = 0;
  NEXT(glGetConvolutionParameteriv)(target, desktop::kConvolutionWidth, &width);
  return level_pack_bytes(format, type, width, 1, 1);
}
int64_t compsize_glGetSeparableFilter_column(GLenum target, GLenum format, GLenum type, void*,
                                             void*, void*) {
  GLint height = 0;
  NEXT(glGetConvolutionParameteriv)(target, desktop::kConvolutionHeight, &height);
  return level_pack_bytes(format, type, height, 1, 1);
}
int64_t compsize_glGetSeparableFilterEXT_row(GLenum target, GLenum format, GLenum type, void* row,
                                             void* column, void* span) {
  return compsize_glGetSeparableFilter_row(target, format, type, row, column, span);
}
int64_t compsize_glGetSeparableFilterEXT_column(GLenum target, GLenum format, GLenum type,
                                                void* row, void* column, void* span) {
  return compsize_glGetSeparableFilter_column(target, format, type, row, column, span);
}

// Assembly programs' text: GL_PROGRAM_LENGTH bytes (no NUL).
int64_t compsize_glGetProgramStringARB_string(GLenum target, GLenum, void*) {
  GLint length = 0;
  NEXT(glGetProgramivARB)(target, desktop::kProgramLength, &length);
  return program_string_bytes(length);
}
int64_t compsize_glGetNamedProgramStringEXT_string(GLuint program, GLenum target, GLenum, void*) {
  GLint length = 0;
  NEXT(glGetNamedProgramivEXT)(program, target, desktop::kProgramLength, &length);
  return program_string_bytes(length);
}
int64_t compsize_glGetProgramStringNV_program(GLuint id, GLenum, GLubyte*) {
  GLint length = 0;
  NEXT(glGetProgramivNV)(id, desktop::kProgramLength, &length);
  return program_string_bytes(length);
}

// NV_path_rendering's color generation: coefficients per color component.
int64_t compsize_glPathColorGenNV_coeffs(GLenum, GLenum genMode, GLenum colorFormat,
                                         const GLfloat*) {
  // GL_ALPHA, GL_LUMINANCE and GL_INTENSITY have one.
  int64_t components = colorFormat == GL_RGBA              ? 4
                       : colorFormat == GL_RGB             ? 3
                       : colorFormat == GL_LUMINANCE_ALPHA ? 2
                                                           : 1;
  return path_gen_coeffs(genMode, components);
}

}  // namespace gltrace::trace
