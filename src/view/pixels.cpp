#include "view/pixels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/vertex_format.h"

namespace gltrace::view {
namespace {

// GLES enums (GLES2/gl2.h, GLES3/gl3.h, OES_texture_half_float).
constexpr uint32_t kAlpha = 0x1906, kRgb = 0x1907, kRgba = 0x1908, kLuminance = 0x1909,
                   kLuminanceAlpha = 0x190A, kRed = 0x1903, kRg = 0x8227;
constexpr uint32_t kUnsignedByte = 0x1401, kFloat = 0x1406, kHalfFloat = 0x140B,
                   kHalfFloatOes = 0x8D61, k565 = 0x8363, k4444 = 0x8033, k5551 = 0x8034;

uint32_t components(uint32_t format) {
  switch (format) {
    case kAlpha:
    case kLuminance:
    case kRed:
      return 1;
    case kLuminanceAlpha:
    case kRg:
      return 2;
    case kRgb:
      return 3;
    case kRgba:
      return 4;
    default:
      return 0;
  }
}

// Exact: every half float is a float.
float half_to_float(uint16_t h) { return static_cast<float>(vertex_format::half_to_double(h)); }

uint8_t unorm(float v) {
  if (!(v > 0)) return 0;  // NaN too
  if (v >= 1) return 255;
  return static_cast<uint8_t>(std::lround(v * 255.0f));
}

uint8_t expand(uint32_t bits, uint32_t width) {
  return static_cast<uint8_t>((bits * 255 + ((1u << width) - 1) / 2) / ((1u << width) - 1));
}

// Components (0..255) of one pixel into RGBA as GLES samples them.
void place(uint32_t format, const uint8_t* c, uint8_t* out) {
  switch (format) {
    case kAlpha:
      out[0] = out[1] = out[2] = 0, out[3] = c[0];
      break;
    case kLuminance:
      out[0] = out[1] = out[2] = c[0], out[3] = 255;
      break;
    case kLuminanceAlpha:
      out[0] = out[1] = out[2] = c[0], out[3] = c[1];
      break;
    case kRed:
      out[0] = c[0], out[1] = out[2] = 0, out[3] = 255;
      break;
    case kRg:
      out[0] = c[0], out[1] = c[1], out[2] = 0, out[3] = 255;
      break;
    case kRgb:
      out[0] = c[0], out[1] = c[1], out[2] = c[2], out[3] = 255;
      break;
    default:
      memcpy(out, c, 4);
  }
}

}  // namespace

uint32_t decodable_pixel_size(uint32_t format, uint32_t type) {
  uint32_t n = components(format);
  if (n == 0) return 0;
  switch (type) {
    case kUnsignedByte:
    case kFloat:
    case kHalfFloat:
    case kHalfFloatOes:
      return n * static_cast<uint32_t>(vertex_format::component_bytes(type));
    case k565:
      return format == kRgb ? 2 : 0;
    case k4444:
    case k5551:
      return format == kRgba ? 2 : 0;
    default:
      return 0;
  }
}

size_t infer_row_stride(uint32_t width, uint32_t rows, uint32_t pixel_size, size_t size) {
  if (width == 0 || rows == 0 || pixel_size == 0) return 0;
  size_t row = size_t{width} * pixel_size;
  for (size_t alignment : {4, 1, 2, 8}) {
    size_t stride = (row + alignment - 1) / alignment * alignment;
    // What GL reads (the last row unpadded), or every row padded.
    if (size == stride * (rows - 1) + row || size == stride * rows) return stride;
  }
  return 0;
}

bool decode_pixels(uint32_t format, uint32_t type, uint32_t width, uint32_t rows, size_t stride,
                   std::string_view data, std::vector<uint8_t>* rgba, std::string* why) {
  uint32_t pixel = decodable_pixel_size(format, type);
  if (pixel == 0) {
    *why = "the viewer does not decode this format and type";
    return false;
  }
  size_t row = size_t{width} * pixel;
  if (rows != 0 && (stride < row || data.size() < stride * (rows - 1) + row)) {
    *why = "the recorded data is shorter than the image";
    return false;
  }
  uint32_t n = components(format);
  rgba->assign(size_t{width} * rows * 4, 0);
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  for (uint32_t y = 0; y < rows; ++y) {
    const uint8_t* src = bytes + stride * y;
    uint8_t* dst = rgba->data() + size_t{width} * 4 * y;
    for (uint32_t x = 0; x < width; ++x, src += pixel, dst += 4) {
      uint8_t c[4] = {0, 0, 0, 255};
      if (type == kUnsignedByte) {
        memcpy(c, src, n);
      } else if (type == kFloat) {
        for (uint32_t i = 0; i < n; ++i) {
          float v;
          memcpy(&v, src + 4 * i, 4);
          c[i] = unorm(v);
        }
      } else if (type == kHalfFloat || type == kHalfFloatOes) {
        for (uint32_t i = 0; i < n; ++i) {
          uint16_t h;
          memcpy(&h, src + 2 * i, 2);
          c[i] = unorm(half_to_float(h));
        }
      } else {
        uint16_t v;
        memcpy(&v, src, 2);
        if (type == k565) {
          c[0] = expand(v >> 11, 5), c[1] = expand((v >> 5) & 0x3f, 6), c[2] = expand(v & 0x1f, 5);
        } else if (type == k4444) {
          c[0] = expand(v >> 12, 4), c[1] = expand((v >> 8) & 0xf, 4);
          c[2] = expand((v >> 4) & 0xf, 4), c[3] = expand(v & 0xf, 4);
        } else {
          c[0] = expand(v >> 11, 5), c[1] = expand((v >> 6) & 0x1f, 5);
          c[2] = expand((v >> 1) & 0x1f, 5), c[3] = (v & 1) != 0 ? 255 : 0;
        }
        place(kRgba, c, dst);
        continue;
      }
      place(format, c, dst);
    }
  }
  return true;
}

}  // namespace gltrace::view
