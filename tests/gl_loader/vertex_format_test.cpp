#include "common/vertex_format.h"

#include <gtest/gtest.h>

#include <cmath>

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
