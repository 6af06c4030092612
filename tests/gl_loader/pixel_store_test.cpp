// The pixel-store scope on fake GL calls that keep the state it touches:
// what it saves, sets and puts back (pure logic: the real driver's part is
// covered by the capture's and the replay's read-back tests).
#include "common/pixel_store.h"

#include <gtest/gtest.h>

#include <map>

namespace gltrace {
namespace {

std::map<GLenum, GLint> g_state;
std::map<GLenum, GLint> g_binding_of = {{GL_PIXEL_PACK_BUFFER, GL_PIXEL_PACK_BUFFER_BINDING},
                                        {GL_PIXEL_UNPACK_BUFFER, GL_PIXEL_UNPACK_BUFFER_BINDING}};
int g_binds = 0;

void GL_APIENTRY get_integer(GLenum pname, GLint* value) { *value = g_state[pname]; }
void GL_APIENTRY pixel_store(GLenum pname, GLint value) { g_state[pname] = value; }
void GL_APIENTRY bind_buffer(GLenum target, GLuint buffer) {
  g_state[g_binding_of.at(target)] = static_cast<GLint>(buffer);
  ++g_binds;
}

constexpr PixelStoreCalls kCalls{&get_integer, &pixel_store, &bind_buffer};

class PixelStore : public ::testing::Test {
 protected:
  void SetUp() override {
    g_binds = 0;
    g_state = {{GL_PACK_ALIGNMENT, 8},
               {GL_PACK_ROW_LENGTH, 100},
               {GL_PACK_SKIP_PIXELS, 3},
               {GL_PACK_SKIP_ROWS, 5},
               {GL_UNPACK_ALIGNMENT, 2},
               {GL_UNPACK_ROW_LENGTH, 7},
               {GL_PIXEL_PACK_BUFFER_BINDING, 9},
               {GL_PIXEL_UNPACK_BUFFER_BINDING, 0}};
  }
};

TEST_F(PixelStore, Es3PackIsTightlyPackedInsideAndPutBackAfter) {
  auto before = g_state;
  {
    PixelStoreScope scope(kCalls, true, PixelStoreScope::Direction::kPack);
    EXPECT_EQ(g_state, before) << "saving changes nothing";
    scope.set_tightly_packed();
    EXPECT_EQ(g_state[GL_PACK_ALIGNMENT], 1);
    EXPECT_EQ(g_state[GL_PACK_ROW_LENGTH], 0);
    EXPECT_EQ(g_state[GL_PACK_SKIP_PIXELS], 0);
    EXPECT_EQ(g_state[GL_PACK_SKIP_ROWS], 0);
    EXPECT_EQ(g_state[GL_PIXEL_PACK_BUFFER_BINDING], 0) << "client memory";
    EXPECT_EQ(g_state[GL_UNPACK_ALIGNMENT], 2) << "the other direction is not touched";
    // Whoever binds another pack buffer meanwhile, the app's comes back.
    bind_buffer(GL_PIXEL_PACK_BUFFER, 42);
  }
  EXPECT_EQ(g_state, before);
}

TEST_F(PixelStore, IntoABufferBindsItOnlyWhenItIsAnother) {
  auto before = g_state;
  {
    PixelStoreScope scope(kCalls, true, PixelStoreScope::Direction::kPack);
    scope.set_tightly_packed(9);
    EXPECT_EQ(g_binds, 0) << "buffer 9 is already bound";
    EXPECT_EQ(g_state[GL_PIXEL_PACK_BUFFER_BINDING], 9);
  }
  EXPECT_EQ(g_state, before);
  {
    PixelStoreScope scope(kCalls, true, PixelStoreScope::Direction::kPack);
    scope.set_tightly_packed(4);
    EXPECT_EQ(g_state[GL_PIXEL_PACK_BUFFER_BINDING], 4);
  }
  EXPECT_EQ(g_state, before);
}

TEST_F(PixelStore, Es2HasTheAlignmentOnly) {
  auto before = g_state;
  {
    PixelStoreScope scope(kCalls, false, PixelStoreScope::Direction::kUnpack);
    scope.set_tightly_packed();
    EXPECT_EQ(g_state[GL_UNPACK_ALIGNMENT], 1);
    EXPECT_EQ(g_state[GL_UNPACK_ROW_LENGTH], 7) << "ES 2 has no row length to set";
    EXPECT_EQ(g_binds, 0) << "nor buffers";
  }
  EXPECT_EQ(g_binds, 0);
  EXPECT_EQ(g_state, before);
}

}  // namespace
}  // namespace gltrace
