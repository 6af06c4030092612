// GLES 1's client arrays (glVertexPointer, glColorPointer, glNormalPointer,
// glTexCoordPointer per client-active texture unit), numbered as one list
// of slots: capture and replay keep one pointer per slot, and a trace's
// ClientArray names its array by enum (and texture unit).
#pragma once

#include <cstdint>

namespace gltrace::fixed_arrays {

// GLES 1 enums (GLES/gl.h, which cannot be included with GLES2/gl2.h).
inline constexpr uint32_t kVertex = 0x8074;               // GL_VERTEX_ARRAY
inline constexpr uint32_t kNormal = 0x8075;               // GL_NORMAL_ARRAY
inline constexpr uint32_t kColor = 0x8076;                // GL_COLOR_ARRAY
inline constexpr uint32_t kTexCoord = 0x8078;             // GL_TEXTURE_COORD_ARRAY
inline constexpr uint32_t kClientActiveTexture = 0x84E1;  // GL_CLIENT_ACTIVE_TEXTURE
inline constexpr uint32_t kTexture0 = 0x84C0;             // GL_TEXTURE0

// Texture units with a slot: Mesa's GL_MAX_TEXTURE_UNITS (ES 1.1 requires 2).
inline constexpr uint32_t kUnits = 8;
inline constexpr int kSlots = 3 + static_cast<int>(kUnits);

struct Array {
  uint32_t array;  // kVertex, kColor, kNormal or kTexCoord
  uint32_t unit;   // kTexCoord's texture unit (0 for the first)
};

// The slot of an array, -1 for none (another enum, a unit past kUnits).
inline int slot(uint32_t array, uint32_t unit) {
  switch (array) {
    case kVertex:
      return 0;
    case kColor:
      return 1;
    case kNormal:
      return 2;
    case kTexCoord:
      return unit < kUnits ? 3 + static_cast<int>(unit) : -1;
    default:
      return -1;
  }
}

inline Array array_of(int slot) {
  static constexpr uint32_t kFirst[] = {kVertex, kColor, kNormal};
  if (slot < 3) return {kFirst[slot], 0};
  return {kTexCoord, static_cast<uint32_t>(slot - 3)};
}

}  // namespace gltrace::fixed_arrays
