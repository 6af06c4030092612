#include "common/vertex_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/image_size.h"
#include "common/param_sizes.h"

namespace gltrace::vertex_format {
namespace {

TEST(VertexFormat, ElementBytes) {
  EXPECT_EQ(element_bytes(3, GL_FLOAT), 12);
  EXPECT_EQ(element_bytes(4, GL_UNSIGNED_BYTE), 4);
  EXPECT_EQ(element_bytes(3, GL_SHORT), 6);
  EXPECT_EQ(element_bytes(2, GL_HALF_FLOAT), 4);
  EXPECT_EQ(element_bytes(2, GL_HALF_FLOAT_OES), 4);
  EXPECT_EQ(element_bytes(3, GL_FIXED), 12);
  // Packed: one word, whatever the size says.
  EXPECT_EQ(element_bytes(4, GL_INT_2_10_10_10_REV), 4);
  EXPECT_EQ(element_bytes(3, GL_UNSIGNED_INT_2_10_10_10_REV), 4);
  // A type the table lacks: 4 bytes a component, as the capture always read.
  EXPECT_EQ(element_bytes(3, 0x1234), 12);
  EXPECT_EQ(unit_bytes(GL_UNSIGNED_SHORT), 2);
  EXPECT_EQ(unit_bytes(0x1234), 4);
  EXPECT_EQ(component_bytes(0x1234), 0);
  // Indices: the three unsigned types only.
  EXPECT_EQ(index_bytes(GL_UNSIGNED_BYTE), 1);
  EXPECT_EQ(index_bytes(GL_UNSIGNED_SHORT), 2);
  EXPECT_EQ(index_bytes(GL_UNSIGNED_INT), 4);
  EXPECT_EQ(index_bytes(GL_SHORT), 0);
  EXPECT_EQ(index_bytes(GL_FLOAT), 0);
}

TEST(VertexFormat, KindsAndSigns) {
  EXPECT_EQ(data_type(GL_FIXED)->kind, Kind::kFixed);
  EXPECT_EQ(data_type(GL_HALF_FLOAT_OES)->kind, Kind::kFloat);
  EXPECT_EQ(data_type(GL_INT_2_10_10_10_REV)->kind, Kind::kPacked);
  EXPECT_TRUE(data_type(GL_BYTE)->is_signed);
  EXPECT_FALSE(data_type(GL_UNSIGNED_INT)->is_signed);
  EXPECT_EQ(data_type(GL_RGBA), nullptr);
}

TEST(VertexFormat, HalfFloats) {
  EXPECT_EQ(half_to_double(0x3c00), 1.0);
  EXPECT_EQ(half_to_double(0xc000), -2.0);
  EXPECT_EQ(half_to_double(0x0001), std::ldexp(1.0, -24));  // the smallest subnormal
  EXPECT_EQ(half_to_double(0x7bff), 65504.0);
  EXPECT_TRUE(std::isinf(half_to_double(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_double(0x7e00)));
}

// Reads the components of one element at p (size components of type).
std::vector<Component> read(const void* p, uint32_t type, int size, bool normalized) {
  Component c[4];
  int n = read_element(static_cast<const uint8_t*>(p), *data_type(type), size, normalized, c);
  return {c, c + n};
}

TEST(VertexFormat, ReadsIntegersAsTheyAreOrNormalised) {
  const int8_t bytes[] = {-128, -1, 127};
  auto plain = read(bytes, GL_BYTE, 3, false);
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_TRUE(plain[0].is_integer);
  EXPECT_EQ(plain[0].integer, -128);
  EXPECT_EQ(plain[2].integer, 127);
  // Signed normalised: -128 clamps to -1 (ES 3.0 2.3.5.1), 127 is 1.
  auto normalised = read(bytes, GL_BYTE, 3, true);
  EXPECT_FALSE(normalised[0].is_integer);
  EXPECT_EQ(normalised[0].real, -1.0);
  EXPECT_DOUBLE_EQ(normalised[1].real, -1.0 / 127);
  EXPECT_EQ(normalised[2].real, 1.0);
  const uint16_t shorts[] = {65535, 0};
  EXPECT_EQ(read(shorts, GL_UNSIGNED_SHORT, 2, true)[0].real, 1.0);
  EXPECT_EQ(read(shorts, GL_UNSIGNED_SHORT, 2, false)[0].integer, 65535);
  const uint32_t words[] = {0xffffffffu};
  EXPECT_EQ(read(words, GL_INT, 1, false)[0].integer, -1);
  EXPECT_EQ(read(words, GL_UNSIGNED_INT, 1, false)[0].integer, 0xffffffffll);
}

TEST(VertexFormat, ReadsRealTypes) {
  const float floats[] = {0.5f, -2.0f};
  auto f = read(floats, GL_FLOAT, 2, false);
  EXPECT_EQ(f[0].real, 0.5);
  EXPECT_EQ(f[1].real, -2.0);
  const uint16_t halves[] = {0x3c00, 0xc000};
  EXPECT_EQ(read(halves, GL_HALF_FLOAT_OES, 2, false)[1].real, -2.0);
  const int32_t fixed[] = {0x18000, -0x8000};  // 1.5, -0.5 in 16.16
  auto x = read(fixed, GL_FIXED, 2, false);
  EXPECT_EQ(x[0].real, 1.5);
  EXPECT_EQ(x[1].real, -0.5);
}

TEST(VertexFormat, ReadsPackedWordsAsFourComponents) {
  // x = 511, y = -512 (0x200), z = 1, w = -1 (0b11), low bits first.
  uint32_t word = 511u | 0x200u << 10 | 1u << 20 | 3u << 30;
  auto s = read(&word, GL_INT_2_10_10_10_REV, 4, false);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].integer, 511);
  EXPECT_EQ(s[1].integer, -512);
  EXPECT_EQ(s[2].integer, 1);
  EXPECT_EQ(s[3].integer, -1);
  auto n = read(&word, GL_INT_2_10_10_10_REV, 4, true);
  EXPECT_EQ(n[0].real, 1.0);
  EXPECT_EQ(n[1].real, -1.0);
  EXPECT_EQ(n[3].real, -1.0);
  auto u = read(&word, GL_UNSIGNED_INT_2_10_10_10_REV, 4, true);
  EXPECT_EQ(u[0].real, 511.0 / 1023);
  EXPECT_EQ(u[3].real, 1.0);  // w: 3 of 3
}

// The parameter sizes read the same table for their GL types.
TEST(VertexFormat, PathRenderingTypes) {
  EXPECT_EQ(path_coord_bytes(GL_BYTE), 1);
  EXPECT_EQ(path_coord_bytes(GL_UNSIGNED_SHORT), 2);
  EXPECT_EQ(path_coord_bytes(GL_FLOAT), 4);
  EXPECT_EQ(path_coord_bytes(GL_INT), 0);
  EXPECT_EQ(path_coord_bytes(GL_HALF_FLOAT), 0);
  EXPECT_EQ(path_name_bytes(GL_UNSIGNED_INT), 4);
  EXPECT_EQ(path_name_bytes(GL_FLOAT), 4);
  EXPECT_EQ(path_name_bytes(path_enums::k3Bytes), 3);
  EXPECT_EQ(path_name_bytes(GL_FIXED), 0);
  EXPECT_EQ(path_name_bytes(GL_HALF_FLOAT), 0);
}

// The pixel-store layout, as capture and replay read it.
TEST(ImageLayout, UnpackAndPackLayouts) {
  auto integer = [](uint32_t pname) -> int64_t {
    switch (pname) {
      case GL_UNPACK_ALIGNMENT:
      case GL_PACK_ALIGNMENT:
        return 8;
      case GL_UNPACK_ROW_LENGTH:
      case GL_PACK_ROW_LENGTH:
        return 10;
      case GL_UNPACK_IMAGE_HEIGHT:
        return 6;
      case GL_UNPACK_SKIP_IMAGES:
        return 1;
      case GL_UNPACK_SKIP_ROWS:
      case GL_PACK_SKIP_ROWS:
        return 2;
      default:
        return 0;
    }
  };
  // 3 bytes a pixel, rows of 10 pixels padded to 32 bytes.
  EXPECT_EQ(image_bytes(pack_layout(integer), GL_RGB, GL_UNSIGNED_BYTE, 4, 3, 1),
            (2 + 3 - 1) * 32 + 4 * 3);
  // 2D: no image height or image skips.
  EXPECT_EQ(image_bytes(unpack_layout(integer, 1), GL_RGB, GL_UNSIGNED_BYTE, 4, 3, 1),
            (2 + 3 - 1) * 32 + 4 * 3);
  // 3D: both.
  EXPECT_EQ(image_bytes(unpack_layout(integer, 2), GL_RGB, GL_UNSIGNED_BYTE, 4, 3, 2),
            (1 + 2 - 1) * 6 * 32 + (2 + 3 - 1) * 32 + 4 * 3);
}

}  // namespace
}  // namespace gltrace::vertex_format
