// Bytes an image takes in client memory under the pixel-store parameters
// (GL ES rules: row length, alignment, skips, image height): what the capture
// records of an upload or read-back, and what the replay checks a trace's
// image data against. One copy for both.
#pragma once

#include <cstdint>

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

namespace gltrace {

// Desktop OpenGL's pixel formats and types the GLES headers lack.
namespace desktop_pixels {
inline constexpr uint32_t kBgr = 0x80E0, kBgrInteger = 0x8D9A, kBgraInteger = 0x8D9B;
inline constexpr uint32_t kDouble = 0x140A;
inline constexpr uint32_t kByte332 = 0x8032, kByte233Rev = 0x8362;
inline constexpr uint32_t kShort565Rev = 0x8364, kShort4444Rev = 0x8365, kShort1555Rev = 0x8366;
inline constexpr uint32_t kInt8888 = 0x8035, kInt8888Rev = 0x8367, kInt1010102 = 0x8036;
// A bit per pixel (glBitmap, glPolygonStipple): of GL_COLOR_INDEX.
inline constexpr uint32_t kBitmap = 0x1A00, kColorIndex = 0x1900;
}  // namespace desktop_pixels

inline int64_t format_components(uint32_t format) {
  switch (format) {
    case GL_RGBA:
    case GL_RGBA_INTEGER:
    case GL_BGRA_EXT:
    case desktop_pixels::kBgraInteger:
      return 4;
    case GL_RGB:
    case GL_RGB_INTEGER:
    case desktop_pixels::kBgr:
    case desktop_pixels::kBgrInteger:
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
inline int64_t pixel_bytes(uint32_t format, uint32_t type) {
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
    case desktop_pixels::kDouble:
      return 8 * format_components(format);
    case desktop_pixels::kByte332:
    case desktop_pixels::kByte233Rev:
      return 1;
    case GL_UNSIGNED_SHORT_5_6_5:
    case GL_UNSIGNED_SHORT_4_4_4_4:
    case GL_UNSIGNED_SHORT_5_5_5_1:
    case desktop_pixels::kShort565Rev:
    case desktop_pixels::kShort4444Rev:
    case desktop_pixels::kShort1555Rev:
      return 2;
    case desktop_pixels::kInt8888:
    case desktop_pixels::kInt8888Rev:
    case desktop_pixels::kInt1010102:
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

struct ImageLayout {
  int64_t alignment, row_length, image_height, skip_pixels, skip_rows, skip_images;
};

// The layout the GL's unpack state gives an upload of `depth` images, each
// parameter read with integer(pname) (the driver's, in the capture; the
// tracked state, in the replay's checks). A 2D upload has no image height
// or image skips.
template <typename Integer>
ImageLayout unpack_layout(Integer integer, int64_t depth) {
  ImageLayout store{integer(GL_UNPACK_ALIGNMENT),    integer(GL_UNPACK_ROW_LENGTH),
                    integer(GL_UNPACK_IMAGE_HEIGHT), integer(GL_UNPACK_SKIP_PIXELS),
                    integer(GL_UNPACK_SKIP_ROWS),    integer(GL_UNPACK_SKIP_IMAGES)};
  if (depth == 1) store.skip_images = 0, store.image_height = 0;
  return store;
}

// The layout the GL's pack state gives a read-back (one image).
template <typename Integer>
ImageLayout pack_layout(Integer integer) {
  return {integer(GL_PACK_ALIGNMENT),   integer(GL_PACK_ROW_LENGTH), 0,
          integer(GL_PACK_SKIP_PIXELS), integer(GL_PACK_SKIP_ROWS),  0};
}

// Saturates at INT64_MAX: a hostile trace's sizes must not wrap around.
inline int64_t image_bytes(const ImageLayout& store, uint32_t format, uint32_t type, int64_t width,
                           int64_t height, int64_t depth) {
  if (width <= 0 || height <= 0 || depth <= 0) return 0;
  using Wide = __int128;
  Wide alignment = store.alignment > 0 ? store.alignment : 4;
  Wide row_pixels = store.row_length > 0 ? store.row_length : width;
  if (type == desktop_pixels::kBitmap) {
    // Rows of bits, each padded to the alignment; one image.
    Wide row_bytes = ((row_pixels + 7) / 8 + alignment - 1) / alignment * alignment;
    Wide skip_rows = store.skip_rows > 0 ? store.skip_rows : 0;
    Wide skip_pixels = store.skip_pixels > 0 ? store.skip_pixels : 0;
    Wide bytes = (skip_rows + height - 1) * row_bytes + (skip_pixels + width + 7) / 8;
    return bytes > INT64_MAX ? INT64_MAX : static_cast<int64_t>(bytes);
  }
  int64_t bpp = pixel_bytes(format, type);
  if (bpp == 0) return -1;
  Wide row_bytes = (row_pixels * bpp + alignment - 1) / alignment * alignment;
  Wide rows = store.image_height > 0 ? store.image_height : height;
  Wide skip_images = store.skip_images > 0 ? store.skip_images : 0;
  Wide skip_rows = store.skip_rows > 0 ? store.skip_rows : 0;
  Wide skip_pixels = store.skip_pixels > 0 ? store.skip_pixels : 0;
  Wide bytes = (skip_images + depth - 1) * rows * row_bytes + (skip_rows + height - 1) * row_bytes +
               (skip_pixels + width) * bpp;
  return bytes > INT64_MAX ? INT64_MAX : static_cast<int64_t>(bytes);
}

}  // namespace gltrace
