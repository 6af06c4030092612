// The GL data types of vertex attributes, indices and pixel components: the
// bytes each takes and how its bits read. The one table the capture (client
// arrays), the replay's checks, the viewer's decoders and the parameter
// sizes read; the viewer's page (web/buffer.js) mirrors it.
#pragma once

#include <cmath>
#include <cstdint>

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

namespace gltrace::vertex_format {

enum class Kind : uint8_t {
  kInteger,  // signed or unsigned; normalised or not as the pointer says
  kFloat,    // IEEE single or half
  kFixed,    // GL_FIXED: signed 16.16
  kPacked,   // 2_10_10_10: four components in one 32-bit word
};

struct DataType {
  uint32_t type;
  uint8_t bytes;  // of one component; of the whole word for kPacked
  Kind kind;
  bool is_signed;
};

inline constexpr DataType kDataTypes[] = {
    {GL_BYTE, 1, Kind::kInteger, true},
    {GL_UNSIGNED_BYTE, 1, Kind::kInteger, false},
    {GL_SHORT, 2, Kind::kInteger, true},
    {GL_UNSIGNED_SHORT, 2, Kind::kInteger, false},
    {GL_INT, 4, Kind::kInteger, true},
    {GL_UNSIGNED_INT, 4, Kind::kInteger, false},
    {GL_FLOAT, 4, Kind::kFloat, true},
    {GL_HALF_FLOAT, 2, Kind::kFloat, true},
    {GL_HALF_FLOAT_OES, 2, Kind::kFloat, true},
    {GL_FIXED, 4, Kind::kFixed, true},
    {GL_INT_2_10_10_10_REV, 4, Kind::kPacked, true},
    {GL_UNSIGNED_INT_2_10_10_10_REV, 4, Kind::kPacked, false},
};

// The type's entry, null for one the table lacks.
constexpr const DataType* data_type(uint32_t type) {
  for (const DataType& t : kDataTypes)
    if (t.type == type) return &t;
  return nullptr;
}

// Bytes of one component; 0 for a type the table lacks.
constexpr int64_t component_bytes(uint32_t type) {
  const DataType* t = data_type(type);
  return t != nullptr ? t->bytes : 0;
}

// Bytes of one index or component as the capture and the replay's checks
// count them: a type the table lacks counts 4 (the driver refuses it; the
// capture records what such a call names, as it always has).
constexpr int64_t unit_bytes(uint32_t type) {
  const DataType* t = data_type(type);
  return t != nullptr ? t->bytes : 4;
}

// Bytes of one element of an attribute of `size` components; a packed type
// is one word whatever the size.
constexpr int64_t element_bytes(int64_t size, uint32_t type) {
  const DataType* t = data_type(type);
  return t != nullptr && t->kind == Kind::kPacked ? t->bytes : size * unit_bytes(type);
}

// An IEEE half float's value.
inline double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa == 0 ? INFINITY : NAN)
                              : std::ldexp(mantissa | 0x400, exponent - 25);
  return (h & 0x8000) != 0 ? -v : v;
}

}  // namespace gltrace::vertex_format
