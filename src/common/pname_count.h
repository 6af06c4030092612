// How many values glGet*, gl*Parameter*v and friends read or write for a
// pname: the capture sizes what it records by it, the replay what the driver
// may read or write. One table for both.
#pragma once

#include <cstdint>

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES/gl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

namespace gltrace {

// 1 for a pname not in the table. `integer(pname)` answers glGetIntegerv for
// the lists whose length the driver decides (compressed texture formats).
template <typename Integer>
int64_t pname_value_count(uint32_t pname, Integer integer) {
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
    case 0x8B9D:  // GL_TEXTURE_CROP_RECT_OES (GLES 1's glTexParameteriv)
      return 4;
    case GL_DEVICE_UUID_EXT:
    case GL_DRIVER_UUID_EXT:
      return GL_UUID_SIZE_EXT;
    case GL_DEVICE_LUID_EXT:
      return GL_LUID_SIZE_EXT;
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
    case GL_MODELVIEW_MATRIX:
    case GL_PROJECTION_MATRIX:
    case GL_TEXTURE_MATRIX:
      return 16;
    case GL_COMPRESSED_TEXTURE_FORMATS:
      return integer(GL_NUM_COMPRESSED_TEXTURE_FORMATS);
    case GL_SHADER_BINARY_FORMATS:
      return integer(GL_NUM_SHADER_BINARY_FORMATS);
    case GL_PROGRAM_BINARY_FORMATS:
      return integer(GL_NUM_PROGRAM_BINARY_FORMATS);
    default:
      return 1;
  }
}

}  // namespace gltrace
