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
  EXPECT_EQ(compsize_glTexImage2D_pixels(GL_TEXTURE_2D, 0, GL_RGBA, 2, 2, 0, GL_RGBA,
                                         GL_UNSIGNED_BYTE, nullptr),
            16);
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
  EXPECT_EQ(compsize_glClearBufferfv_value(GL_COLOR, 0, nullptr), 4);
  EXPECT_EQ(compsize_glClearBufferfv_value(GL_DEPTH, 0, nullptr), 1);
  EXPECT_EQ(compsize_glClearBufferiv_value(GL_STENCIL, 0, nullptr), 1);
}

}  // namespace
}  // namespace gltrace::trace
