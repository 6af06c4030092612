// The GL data types of vertex attributes, indices and pixel components: the
// bytes each takes and how its bits read. The one table the capture (client
// arrays), the replay's checks, the viewer's decoders and the parameter
// sizes read; the viewer's page (web/buffer.js) mirrors it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

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

// Bytes of one index of a draw's index `type`; 0 for a type no draw takes.
constexpr int64_t index_bytes(uint32_t type) {
  return type == GL_UNSIGNED_BYTE || type == GL_UNSIGNED_SHORT || type == GL_UNSIGNED_INT
             ? component_bytes(type)
             : 0;
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

// One component as a vertex attribute reads it: an integer as it is, or, for
// a normalised integer, floats, halves and 16.16 fixed, a real number.
struct Component {
  bool is_integer = false;
  int64_t integer = 0;
  double real = 0;
};

// The components of one element at p of `size` components of type t (a
// packed type: its four, whatever the size), into out[0..3]; their number.
// p holds element_bytes(size, t.type) bytes.
inline int read_element(const uint8_t* p, const DataType& t, int size, bool normalized,
                        Component out[4]) {
  // An integer of `bits` bits: as it is, or normalised to [0,1] or [-1,1].
  auto integer = [&](int64_t v, int bits) {
    if (!normalized) return Component{true, v, 0};
    double max = static_cast<double>((int64_t{1} << (bits - (t.is_signed ? 1 : 0))) - 1);
    return Component{
        false, 0,
        t.is_signed ? std::max(-1.0, static_cast<double>(v) / max) : static_cast<double>(v) / max};
  };
  if (t.kind == Kind::kPacked) {
    uint32_t word = 0;
    memcpy(&word, p, 4);
    for (int i = 0; i < 4; ++i) {
      int bits = i == 3 ? 2 : 10;
      uint32_t field = (word >> (10 * i)) & ((1u << bits) - 1);
      int64_t v = field;
      if (t.is_signed && (field >> (bits - 1)) != 0) v -= int64_t{1} << bits;
      out[i] = integer(v, bits);
    }
    return 4;
  }
  for (int i = 0; i < size; ++i, p += t.bytes) {
    switch (t.kind) {
      case Kind::kFloat:
        if (t.bytes == 2) {
          uint16_t h = 0;
          memcpy(&h, p, 2);
          out[i] = {false, 0, half_to_double(h)};
        } else {
          float f = 0;
          memcpy(&f, p, 4);
          out[i] = {false, 0, f};
        }
        break;
      case Kind::kFixed: {
        int32_t v = 0;
        memcpy(&v, p, 4);
        out[i] = {false, 0, v / 65536.0};
        break;
      }
      default: {  // kInteger, 1, 2 or 4 bytes
        uint32_t raw = 0;
        memcpy(&raw, p, t.bytes);
        int bits = 8 * t.bytes;
        int64_t v = raw;
        if (t.is_signed && (raw >> (bits - 1)) != 0) v -= int64_t{1} << bits;
        out[i] = integer(v, bits);
      }
    }
  }
  return size;
}

}  // namespace gltrace::vertex_format
