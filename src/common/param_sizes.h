// Element counts of pointer parameters that follow from a call's enums and
// counts alone (no GL state): what the capture records and what the replay
// checks a trace's data against. One copy for both; the pixel ones are in
// image_size.h, the pname ones in pname_count.h.
#pragma once

#include <cstdint>

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include "common/vertex_format.h"

namespace gltrace {

// NV_path_rendering's names of desktop GL enums the GLES headers lack.
namespace path_enums {
inline constexpr uint32_t k2Bytes = 0x1407, k3Bytes = 0x1408, k4Bytes = 0x1409;
inline constexpr uint32_t kEyeLinear = 0x2400, kObjectLinear = 0x2401, kConstant = 0x8576;
}  // namespace path_enums

// Components of each point of an evaluator map target (glMap1f, glMap2f):
// GL_MAP1_* (0x0D90-0x0D98) and GL_MAP2_* (0x0DB0-0x0DB8) in the order
// color, index, normal, texture coordinates 1-4, vertex 3 and 4; NVIDIA's
// vertex attribute maps have 4. 0 for another target (the call fails).
inline int64_t map_components(uint32_t target) {
  static constexpr int64_t kByOffset[] = {4, 1, 3, 1, 2, 3, 4, 3, 4};
  for (uint32_t first : {0x0D90U, 0x0DB0U})
    if (target >= first && target < first + 9) return kByOffset[target - first];
  return target >= 0x8660 && target < 0x8680 ? 4 : 0;
}

// The dimensions of such a map: 1 (GL_MAP1_*, NVIDIA's 0x8660-0x866F) or 2
// (GL_MAP2_*, 0x8670-0x867F); 1 for another target.
inline int64_t map_dimensions(uint32_t target) {
  return (target >= 0x0DB0 && target < 0x0DB9) || (target >= 0x8670 && target < 0x8680) ? 2 : 1;
}

// Values of a framebuffer clear (glClearBuffer*v, glClearNamedFramebuffer*v):
// a color's four, else the depth or stencil value.
inline int64_t clear_buffer_values(uint32_t buffer) {
  constexpr uint32_t kColor = 0x1800;  // GL_COLOR (ES 3.0)
  return buffer == kColor ? 4 : 1;
}

// What a call wrote, but never more than the room the app gave it (a count
// < 0, from a NULL count pointer, stays unknown).
inline int64_t at_most(int64_t count, int64_t room) { return count < room ? count : room; }

// NV_path_rendering: bytes of one coordinate of coordType.
// (The 8- and 16-bit integers and GL_FLOAT.)
inline int64_t path_coord_bytes(uint32_t type) {
  const vertex_format::DataType* t = vertex_format::data_type(type);
  if (t == nullptr) return 0;
  bool allowed = (t->kind == vertex_format::Kind::kInteger && t->bytes <= 2) || type == GL_FLOAT;
  return allowed ? t->bytes : 0;
}

// Bytes of one path name of a fixed-size pathNameType; 0 for the UTF
// encodings (their names have no one size) and unknown types.
inline int64_t path_name_bytes(uint32_t type) {
  switch (type) {
    case path_enums::k2Bytes:
      return 2;
    case path_enums::k3Bytes:
      return 3;
    case path_enums::k4Bytes:
      return 4;
    default: {  // the integers and GL_FLOAT
      const vertex_format::DataType* t = vertex_format::data_type(type);
      bool allowed = t != nullptr && (t->kind == vertex_format::Kind::kInteger || type == GL_FLOAT);
      return allowed ? t->bytes : 0;
    }
  }
}

// Floats of one transform of transformType.
inline int64_t transform_values(uint32_t type) {
  switch (type) {
    case GL_TRANSLATE_X_NV:
    case GL_TRANSLATE_Y_NV:
      return 1;
    case GL_TRANSLATE_2D_NV:
      return 2;
    case GL_TRANSLATE_3D_NV:
      return 3;
    case GL_AFFINE_2D_NV:
    case GL_TRANSPOSE_AFFINE_2D_NV:
      return 6;
    case GL_AFFINE_3D_NV:
    case GL_TRANSPOSE_AFFINE_3D_NV:
      return 12;
    default:
      return 0;  // GL_NONE
  }
}

// glGetPathMetrics*NV: one float per bit of the mask per path; a non-zero
// stride (in floats) spaces the paths' sets apart.
inline int64_t path_metric_count(uint32_t mask, int64_t paths, int64_t stride) {
  int64_t per_path = __builtin_popcount(mask);
  if (paths <= 0) return 0;
  return stride > 0 ? (paths - 1) * stride + per_path : paths * per_path;
}

// glGetPathSpacingNV: one spacing between each two paths, two floats each
// for GL_TRANSLATE_2D_NV.
inline int64_t path_spacing_count(int64_t paths, uint32_t transform_type) {
  if (paths <= 1) return 0;
  return (paths - 1) * (transform_type == GL_TRANSLATE_2D_NV ? 2 : 1);
}

// glProgramPathFragmentInputGenNV: coefficients per component of genMode.
inline int64_t path_gen_coeffs(uint32_t mode, int64_t components) {
  switch (mode) {
    case path_enums::kConstant:
      return components;
    case path_enums::kObjectLinear:
    case GL_PATH_OBJECT_BOUNDING_BOX_NV:
      return 3 * components;
    case path_enums::kEyeLinear:
      return 4 * components;
    default:
      return 0;  // GL_NONE
  }
}

// glShadingRateSampleOrderCustomNV: an (x, y, sample) triple per sample of
// each pixel a fragment of `rate` covers.
inline int64_t shading_rate_locations(uint32_t rate, int64_t samples) {
  int64_t pixels = 0;
  switch (rate) {
    case GL_SHADING_RATE_1_INVOCATION_PER_PIXEL_NV:
      pixels = 1;
      break;
    case GL_SHADING_RATE_1_INVOCATION_PER_1X2_PIXELS_NV:
    case GL_SHADING_RATE_1_INVOCATION_PER_2X1_PIXELS_NV:
      pixels = 2;
      break;
    case GL_SHADING_RATE_1_INVOCATION_PER_2X2_PIXELS_NV:
      pixels = 4;
      break;
    case GL_SHADING_RATE_1_INVOCATION_PER_2X4_PIXELS_NV:
    case GL_SHADING_RATE_1_INVOCATION_PER_4X2_PIXELS_NV:
      pixels = 8;
      break;
    case GL_SHADING_RATE_1_INVOCATION_PER_4X4_PIXELS_NV:
      pixels = 16;
      break;
    default:
      return 0;
  }
  return samples > 0 ? 3 * pixels * samples : 0;
}

}  // namespace gltrace
