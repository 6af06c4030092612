// The trace layer's size rules (src/trace/compsize.*), linked from its core
// library: how many bytes of client memory a call reads or writes, from the
// pixel-store state the driver below reports. The driver is a table here
// (pure logic: the rules ask glGetIntegerv and nothing else).
#include "trace/compsize.h"

#include <gtest/gtest.h>

#include <map>

#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>

#include "gltrace/api/functions.h"
#include "gltrace/api/trace_decls.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

std::map<GLenum, GLint> g_state;

void GL_APIENTRY fake_get_integerv(GLenum pname, GLint* value) {
  auto it = g_state.find(pname);
  *value = it != g_state.end() ? it->second : 0;
}

class CompSize : public testing::Test {
 protected:
  void SetUp() override {
    g_state = {{GL_UNPACK_ALIGNMENT, 4}, {GL_PACK_ALIGNMENT, 4}};
    g_next_functions[api::kFn_glGetIntegerv] = reinterpret_cast<void*>(&fake_get_integerv);
  }
  void TearDown() override { g_next_functions[api::kFn_glGetIntegerv] = nullptr; }
};

TEST_F(CompSize, UnpackRowsArePaddedToTheAlignmentButNotTheLastOne) {
  // 3 RGB bytes-per-pixel x 5 = 15 bytes a row, padded to 16; the last row unpadded.
  EXPECT_EQ(unpack_image_size(GL_RGB, GL_UNSIGNED_BYTE, 5, 3, 1), 16 * 2 + 15);
  g_state[GL_UNPACK_ALIGNMENT] = 1;
  EXPECT_EQ(unpack_image_size(GL_RGB, GL_UNSIGNED_BYTE, 5, 3, 1), 45);
}

TEST_F(CompSize, RowLengthAndSkipsReachFurtherIntoMemory) {
  g_state[GL_UNPACK_ROW_LENGTH] = 8;
  g_state[GL_UNPACK_SKIP_ROWS] = 2;
  g_state[GL_UNPACK_SKIP_PIXELS] = 1;
  // Rows of 8 RGBA pixels (32 bytes); 2 skipped rows, then 3 rows, the last
  // read up to its 1 + 4 pixels.
  EXPECT_EQ(unpack_image_size(GL_RGBA, GL_UNSIGNED_BYTE, 4, 3, 1), 32 * 4 + (1 + 4) * 4);
}

TEST_F(CompSize, ImageHeightAndSkipImagesCountOnlyFor3dImages) {
  g_state[GL_UNPACK_IMAGE_HEIGHT] = 4;
  g_state[GL_UNPACK_SKIP_IMAGES] = 1;
  // 2x2 RGBA8 slices 4 rows apart (8 bytes a row); one skipped slice, two read.
  EXPECT_EQ(unpack_image_size(GL_RGBA, GL_UNSIGNED_BYTE, 2, 2, 2), 8 * 4 * 2 + 8 * 2);
  // A 2D image's (glTexImage2D's rule: depth 1).
  EXPECT_EQ(unpack_image_size(GL_RGBA, GL_UNSIGNED_BYTE, 2, 2, 1), 16);
}

TEST_F(CompSize, ABoundPixelBufferMakesThePointerAnOffset) {
  g_state[GL_PIXEL_UNPACK_BUFFER_BINDING] = 7;
  EXPECT_EQ(unpack_image_size(GL_RGBA, GL_UNSIGNED_BYTE, 4, 4, 1), -1);
  EXPECT_EQ(texture_data_size(64), -1);
  EXPECT_EQ(compsize_glReadPixels_pixels(0, 0, 4, 4, GL_RGBA, GL_UNSIGNED_BYTE, nullptr), 64);
  g_state[GL_PIXEL_PACK_BUFFER_BINDING] = 3;
  EXPECT_EQ(compsize_glReadPixels_pixels(0, 0, 4, 4, GL_RGBA, GL_UNSIGNED_BYTE, nullptr), -1);
}

TEST_F(CompSize, PnameCountsComeFromTheTableOrTheDriver) {
  EXPECT_EQ(pname_count(GL_VIEWPORT), 4);
  EXPECT_EQ(pname_count(GL_COLOR_WRITEMASK), 4);
  EXPECT_EQ(pname_count(GL_DEPTH_RANGE), 2);
  EXPECT_EQ(pname_count(GL_BLEND), 1);
  g_state[GL_NUM_COMPRESSED_TEXTURE_FORMATS] = 9;
  EXPECT_EQ(pname_count(GL_COMPRESSED_TEXTURE_FORMATS), 9);
  EXPECT_EQ(pname_count(0xFFFF), 1) << "an unknown pname: one value, never more";
}

TEST_F(CompSize, ClearBufferValuesAreFourForColourOneOtherwise) {
  // glClearBuffer*v's and glClearNamedFramebuffer*v's rule.
  EXPECT_EQ(clear_buffer_values(GL_COLOR), 4);
  EXPECT_EQ(clear_buffer_values(GL_DEPTH), 1);
  EXPECT_EQ(clear_buffer_values(GL_STENCIL), 1);
}

TEST_F(CompSize, BorderColoursAreFourValues) {
  // glTexParameter*v / glSamplerParameter*v and their glGet forms.
  EXPECT_EQ(pname_count(GL_TEXTURE_BORDER_COLOR), 4);
  EXPECT_EQ(pname_count(GL_TEXTURE_WRAP_S), 1);
}

TEST_F(CompSize, ATexelOfFormatAndType) {
  // glClearTex[Sub]ImageEXT's data: one texel.
  EXPECT_EQ(pixel_bytes(GL_RGBA, GL_UNSIGNED_BYTE), 4);
  EXPECT_EQ(pixel_bytes(GL_RGBA_INTEGER, GL_INT), 16);
  EXPECT_EQ(pixel_bytes(GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8), 4);
  EXPECT_EQ(pixel_bytes(GL_DEPTH_STENCIL, GL_FLOAT_32_UNSIGNED_INT_24_8_REV), 8);
  EXPECT_EQ(pixel_bytes(GL_RGB, 0x1234), 0) << "an unknown type: nothing read";
}

TEST_F(CompSize, Texture3DOesUploadsFollowThePixelStore) {
  g_state[GL_UNPACK_ALIGNMENT] = 1;
  g_state[GL_UNPACK_ROW_LENGTH] = 6;
  g_state[GL_UNPACK_IMAGE_HEIGHT] = 5;
  g_state[GL_UNPACK_SKIP_PIXELS] = g_state[GL_UNPACK_SKIP_ROWS] = g_state[GL_UNPACK_SKIP_IMAGES] =
      1;
  // (1 + 2 - 1) images of 5 rows of 24 bytes, (1 + 4 - 1) rows, (1 + 4) pixels.
  // (glTexSubImage3DOES's rule, codegen/tests: the registry's 3D image.)
  EXPECT_EQ(unpack_image_size(GL_RGBA, GL_UNSIGNED_BYTE, 4, 4, 2), 2 * 5 * 24 + 4 * 24 + 5 * 4);
}

TEST_F(CompSize, CountsOfTheCallsEnums) {
  EXPECT_EQ(at_most(3, 8), 3);
  EXPECT_EQ(at_most(12, 8), 8) << "never more than the app's room";
  EXPECT_EQ(at_most(-1, 8), -1) << "no count: the pointer alone";
  EXPECT_EQ(transform_values(GL_AFFINE_3D_NV), 12);
  EXPECT_EQ(path_metric_count(0x7, 3, 0), 9);
  EXPECT_EQ(path_metric_count(0x7, 3, 5), 2 * 5 + 3);
  EXPECT_EQ(path_spacing_count(4, GL_TRANSLATE_2D_NV), 6);
  EXPECT_EQ(shading_rate_locations(GL_SHADING_RATE_1_INVOCATION_PER_2X2_PIXELS_NV, 4), 48);
}

}  // namespace
}  // namespace gltrace::trace
