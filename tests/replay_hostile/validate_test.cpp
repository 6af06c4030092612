// The validation's pure logic on hand-made calls, against a state that
// answers what the test says.
#include <gtest/gtest.h>

#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>

#include <map>
#include <string>
#include <vector>

#include "glreplay/validate.h"
#include "gltrace/api/functions.h"
#include "support/values.h"

namespace gltrace::glreplay {
namespace {

using format::ValueKind;
using test::pointer;
using test::sint;
using test::uint;

class FakeState : public StateView {
 public:
  std::map<uint32_t, int64_t> integers;
  std::map<uint32_t, Attrib> attribs;
  std::vector<uint32_t> client;
  int64_t integer(uint32_t pname) override {
    auto it = integers.find(pname);
    if (it != integers.end()) return it->second;
    return pname == GL_UNPACK_ALIGNMENT || pname == GL_PACK_ALIGNMENT ? 4 : 0;
  }
  Attrib attrib(uint32_t index) override { return attribs[index]; }
  std::optional<std::pair<int64_t, int64_t>> buffer_index_range(uint64_t, int64_t,
                                                                uint32_t) override {
    return std::nullopt;
  }
  std::vector<uint32_t> client_attribs() override { return client; }
};

Value captured(const std::string& bytes) { return test::chars(ValueKind::kData, bytes); }

// Validates `function` with these arguments; the error ("" when it passes).
std::string check(uint32_t function, const std::vector<Value>& args, StateView& state,
                  Validation* out = nullptr, std::vector<ClientArray> arrays = {}) {
  ReplayCall call;
  call.function = function;
  call.args = args;
  call.client_arrays = std::move(arrays);
  Validation v;
  validate_call(call, state, out != nullptr ? out : &v);
  return (out != nullptr ? out : &v)->error;
}

TEST(ReplayValidate, BufferDataNeedsSizeBytesOrNull) {
  FakeState state;
  std::string bytes(72, 'x');
  auto buffer_data = [&](int64_t size, Value v) {
    return check(api::kFn_glBufferData,
                 {uint(GL_ARRAY_BUFFER), sint(size), v, uint(GL_STATIC_DRAW)}, state);
  };
  EXPECT_EQ(buffer_data(72, captured(bytes)), "");
  EXPECT_EQ(buffer_data(1 << 20, pointer(0)), "");  // storage without contents
  EXPECT_EQ(buffer_data(1 << 30, captured(bytes)),
            "argument data: the trace holds 72 bytes, the driver reads 1073741824");
  EXPECT_EQ(buffer_data(72, pointer(0x1000)),
            "argument data is a pointer value (0x1000) without its data");
}

TEST(ReplayValidate, TexImageSizeFollowsTheUnpackStateAndBuffer) {
  FakeState state;
  std::string pixels(4 * 4 * 4, 'p');
  auto tex_image = [&](int64_t w, int64_t h, Value v) {
    return check(api::kFn_glTexImage2D,
                 {uint(GL_TEXTURE_2D), sint(0), sint(GL_RGBA8), sint(w), sint(h), sint(0),
                  uint(GL_RGBA), uint(GL_UNSIGNED_BYTE), v},
                 state);
  };
  EXPECT_EQ(tex_image(4, 4, captured(pixels)), "");
  EXPECT_EQ(tex_image(4096, 4096, pointer(0)), "");  // GL allows NULL here
  EXPECT_NE(tex_image(4096, 4096, captured(pixels)), "");
  // The driver sees GLsizei: -2^32 + 4096 reaches it as 4096.
  EXPECT_EQ(tex_image(-(int64_t{1} << 32) + 4096, 4, captured(pixels)),
            "argument pixels: the trace holds 64 bytes, the driver reads 65536");
  // Rows of 8 pixels: 3 * 32 + 16 bytes are read for a 4x4 image.
  state.integers[GL_UNPACK_ROW_LENGTH] = 8;
  EXPECT_EQ(tex_image(4, 4, captured(pixels)),
            "argument pixels: the trace holds 64 bytes, the driver reads 112");
  state.integers[GL_UNPACK_ROW_LENGTH] = 0;
  // A pointer value is an offset only with a pixel-unpack buffer bound.
  EXPECT_NE(tex_image(4, 4, pointer(64)), "");
  state.integers[GL_PIXEL_UNPACK_BUFFER_BINDING] = 3;
  EXPECT_EQ(tex_image(4, 4, pointer(64)), "");
  EXPECT_NE(tex_image(4, 4, captured(pixels)), "");  // data would be taken for an offset
}

TEST(ReplayValidate, HugeImagesDoNotWrapAround) {
  FakeState state;
  std::string pixels(64, 'p');
  EXPECT_NE(check(api::kFn_glTexImage3D,
                  {uint(GL_TEXTURE_3D), sint(0), sint(GL_RGBA32F), sint(INT32_MAX), sint(INT32_MAX),
                   sint(INT32_MAX), sint(0), uint(GL_RGBA), uint(GL_FLOAT), captured(pixels)},
                  state),
            "");
}

TEST(ReplayValidate, OutputsGetWhatTheDriverWritesOrAnOffset) {
  FakeState state;
  Validation v;
  std::string four(16, '\0');
  EXPECT_EQ(check(api::kFn_glGetIntegerv, {uint(GL_VIEWPORT), captured(four)}, state, &v), "");
  EXPECT_EQ(v.output(1), 16);
  EXPECT_EQ(check(api::kFn_glReadPixels,
                  {sint(0), sint(0), sint(10), sint(10), uint(GL_RGBA), uint(GL_UNSIGNED_BYTE),
                   pointer(0x40)},
                  state, &v),
            "");
  EXPECT_EQ(v.output(6), 400);  // no pack buffer: scratch, not the recorded address
  state.integers[GL_PIXEL_PACK_BUFFER_BINDING] = 1;
  EXPECT_EQ(check(api::kFn_glReadPixels,
                  {sint(0), sint(0), sint(10), sint(10), uint(GL_RGBA), uint(GL_UNSIGNED_BYTE),
                   pointer(0x40)},
                  state, &v),
            "");
  EXPECT_EQ(v.output(6), Validation::kOffset);
  EXPECT_NE(check(api::kFn_glReadPixels,
                  {sint(0), sint(0), sint(1 << 16), sint(1 << 16), uint(GL_RGBA), uint(GL_FLOAT),
                   pointer(0)},
                  state = FakeState{}, &v),
            "");  // 64 GiB of scratch is refused
}

TEST(ReplayValidate, ClientIndicesAndArraysCoverTheDraw) {
  FakeState state;
  state.attribs[0] = {12, 0};  // vec3 float
  uint16_t indices[] = {0, 1, 2, 2, 1, 3};
  std::string index_bytes(reinterpret_cast<const char*>(indices), sizeof indices);
  auto vertices = std::make_shared<const std::string>(4 * 12, 'v');
  auto draw = [&](int64_t count, Value v, uint64_t first = 0) {
    ClientArray a;
    a.index = 0;
    a.first = first;
    a.stride = 12;
    a.data = vertices;
    return check(api::kFn_glDrawElements,
                 {uint(GL_TRIANGLES), sint(count), uint(GL_UNSIGNED_SHORT), v}, state, nullptr,
                 {a});
  };
  EXPECT_EQ(draw(6, captured(index_bytes)), "");
  EXPECT_EQ(draw(7, captured(index_bytes)),
            "argument indices: the trace holds 12 bytes, the driver reads 14");
  EXPECT_EQ(draw(6, pointer(0)), "argument indices is NULL, but the driver reads 12 bytes");
  // The array starts at vertex 1: vertex 0 would be read from before it.
  EXPECT_NE(draw(6, captured(index_bytes), 1), "");
  indices[5] = 4;  // one vertex past the captured four
  index_bytes.assign(reinterpret_cast<const char*>(indices), sizeof indices);
  EXPECT_EQ(draw(6, captured(index_bytes)),
            "the client array of attribute 0 holds 48 bytes, the draw reads 60 (vertices 0 to 4)");
  // An attribute the driver reads from client memory needs its array.
  indices[5] = 3;
  index_bytes.assign(reinterpret_cast<const char*>(indices), sizeof indices);
  state.client = {0, 1};
  EXPECT_EQ(draw(6, captured(index_bytes)),
            "attribute 1 reads client memory, but the trace holds no client array of it for "
            "this draw");
  state.client = {0};
  EXPECT_EQ(draw(6, captured(index_bytes)), "");
  // From an element array buffer whose indices cannot be read: refused when
  // client arrays depend on them.
  state.integers[GL_ELEMENT_ARRAY_BUFFER_BINDING] = 2;
  EXPECT_NE(draw(6, pointer(0)), "");
}

TEST(ReplayValidate, StringsHoldWhatTheirLengthsSay) {
  FakeState state;
  std::string label = "name";
  auto object_label = [&](int64_t length, Value v) {
    return check(api::kFn_glObjectLabel, {uint(GL_BUFFER), uint(1), sint(length), v}, state);
  };
  EXPECT_EQ(object_label(-1, captured(label)), "");
  EXPECT_EQ(object_label(4, captured(label)), "");
  EXPECT_EQ(object_label(400, captured(label)),
            "argument label: the trace holds 4 chars, the driver reads 400");
  EXPECT_EQ(object_label(0, pointer(0)), "");  // removes the label
  EXPECT_NE(check(api::kFn_glPushDebugGroup,
                  {uint(GL_DEBUG_SOURCE_APPLICATION), uint(1), sint(-1), pointer(0)}, state),
            "");
}

// glMultiDrawElementsEXT: each index array covers its count, offsets need a
// bound element array buffer, index arrays need none, and no client vertex
// array may be read (the trace holds none for these draws).
TEST(ReplayValidate, MultiDrawIndexListsCoverTheirCounts) {
  FakeState state;
  std::vector<int64_t> counts = {3, 2};
  Value count;
  count.kind = ValueKind::kArray;
  count.elements = Value::Elements::kSint;
  count.data = counts.data();
  count.size = counts.size();
  std::vector<std::string_view> lists = {std::string_view("\0\1\2", 3), "\3"};
  Value indices;
  indices.kind = ValueKind::kStrings;
  indices.data = lists.data();
  indices.size = lists.size();
  auto multi_draw = [&](const Value& v) {
    return check(api::kFn_glMultiDrawElementsEXT,
                 {uint(GL_TRIANGLES), count, uint(GL_UNSIGNED_BYTE), v, sint(2)}, state);
  };
  EXPECT_EQ(multi_draw(indices),
            "argument indices: index array 1 holds 1 bytes, the driver reads 2");
  lists[1] = "\3\4";
  EXPECT_EQ(multi_draw(indices), "");
  state.integers[GL_ELEMENT_ARRAY_BUFFER_BINDING] = 5;
  EXPECT_NE(multi_draw(indices).find("a buffer is bound to GL_ELEMENT_ARRAY_BUFFER"),
            std::string::npos);
  std::vector<int64_t> offsets = {0, 3};
  Value at;
  at.kind = ValueKind::kArray;
  at.elements = Value::Elements::kSint;
  at.data = offsets.data();
  at.size = offsets.size();
  EXPECT_EQ(multi_draw(at), "");
  state.integers[GL_ELEMENT_ARRAY_BUFFER_BINDING] = 0;
  EXPECT_EQ(multi_draw(at),
            "argument indices holds offsets, but no buffer is bound to GL_ELEMENT_ARRAY_BUFFER");
  state.client = {0};
  EXPECT_EQ(multi_draw(indices),
            "argument indices: the draws read client memory, which the trace holds no arrays of");
}

TEST(ReplayValidate, EglAttributeListsEndInEglNone) {
  FakeState state;
  auto sint_array = [](const std::vector<int64_t>& v) {
    Value x;
    x.kind = ValueKind::kArray;
    x.elements = Value::Elements::kSint;
    x.data = v.data();
    x.size = v.size();
    return x;
  };
  std::vector<int64_t> terminated = {0x3098, 3, 0x3038};  // EGL_CONTEXT_MAJOR_VERSION 3
  std::vector<int64_t> open = {0x3098, 3, 0x3038 + 1, 0x3038};
  EXPECT_EQ(
      check(api::kFn_eglCreateContext, {uint(1), uint(2), uint(0), sint_array(terminated)}, state),
      "");
  EXPECT_EQ(check(api::kFn_eglCreateContext, {uint(1), uint(2), uint(0), sint_array(open)}, state),
            "argument attrib_list: the attribute list has no EGL_NONE key");
  EXPECT_EQ(check(api::kFn_eglCreateContext, {uint(1), uint(2), uint(0), pointer(0)}, state), "");
}

TEST(ReplayValidate, TrackedStateFollowsBindingsPerContextAndVertexArray) {
  TrackedState state;
  auto run = [&](uint32_t context, uint32_t function, std::vector<Value> args) {
    ReplayCall call;
    call.function = function;
    call.context = context;
    call.args = args;
    state.update(call);
  };
  run(1, api::kFn_glBindBuffer, {uint(GL_ELEMENT_ARRAY_BUFFER), uint(5)});
  run(1, api::kFn_glBindBuffer, {uint(GL_PIXEL_UNPACK_BUFFER), uint(6)});
  run(1, api::kFn_glPixelStorei, {uint(GL_UNPACK_ALIGNMENT), sint(1)});
  state.set_context(1);
  EXPECT_EQ(state.integer(GL_ELEMENT_ARRAY_BUFFER_BINDING), 5);
  EXPECT_EQ(state.integer(GL_PIXEL_UNPACK_BUFFER_BINDING), 6);
  EXPECT_EQ(state.integer(GL_UNPACK_ALIGNMENT), 1);
  run(1, api::kFn_glBindVertexArray, {uint(9)});
  EXPECT_EQ(state.integer(GL_ELEMENT_ARRAY_BUFFER_BINDING), 0);  // VAO state
  run(1, api::kFn_glBindVertexArray, {uint(0)});
  EXPECT_EQ(state.integer(GL_ELEMENT_ARRAY_BUFFER_BINDING), 5);
  // Client arrays: pointed at with no array buffer, then enabled.
  run(1, api::kFn_glVertexAttribPointer,
      {uint(2), sint(3), uint(GL_FLOAT), uint(0), sint(0), pointer(0x1000)});
  EXPECT_TRUE(state.client_attribs().empty());
  run(1, api::kFn_glEnableVertexAttribArray, {uint(2)});
  EXPECT_EQ(state.client_attribs(), std::vector<uint32_t>{2});
  EXPECT_EQ(state.attrib(2).element_bytes, 12);
  state.set_context(2);
  EXPECT_EQ(state.integer(GL_PIXEL_UNPACK_BUFFER_BINDING), 0);
  EXPECT_EQ(state.integer(GL_UNPACK_ALIGNMENT), 4);
}

// GLES 1 arrays (--check's state, from the trace's calls): texture
// coordinates per client-active unit; each enabled client array needs the
// draw's ClientArray, covering the vertices read.
TEST(ReplayValidate, Gles1ClientArraysCoverTheDraw) {
  TrackedState state;
  auto run = [&](uint32_t function, std::vector<Value> args) {
    ReplayCall call;
    call.function = function;
    call.context = 1;
    call.args = args;
    state.update(call);
  };
  run(api::kFn_glVertexPointer, {sint(2), uint(GL_FLOAT), sint(0), pointer(0x1000)});
  run(api::kFn_glEnableClientState, {uint(fixed_arrays::kVertex)});
  run(api::kFn_glClientActiveTexture, {uint(fixed_arrays::kTexture0 + 1)});
  run(api::kFn_glTexCoordPointer, {sint(2), uint(GL_SHORT), sint(0), pointer(0x2000)});
  run(api::kFn_glEnableClientState, {uint(fixed_arrays::kTexCoord)});
  run(api::kFn_glClientActiveTexture, {uint(fixed_arrays::kTexture0)});
  state.set_context(1);
  auto array = [](uint32_t kind, uint32_t unit, size_t bytes) {
    ClientArray a;
    a.array = kind;
    a.index = unit;
    a.data = std::make_shared<const std::string>(bytes, 'v');
    a.stride = kind == fixed_arrays::kVertex ? 8 : 4;
    return a;
  };
  auto draw = [&](std::vector<ClientArray> arrays) {
    return check(api::kFn_glDrawArrays, {uint(GL_TRIANGLES), sint(0), sint(3)}, state, nullptr,
                 std::move(arrays));
  };
  EXPECT_EQ(draw({array(fixed_arrays::kVertex, 0, 24), array(fixed_arrays::kTexCoord, 1, 12)}), "");
  EXPECT_EQ(draw({array(fixed_arrays::kVertex, 0, 24)}),
            "GL_TEXTURE_COORD_ARRAY of texture unit 1 reads client memory, but the trace holds "
            "no client array of it for this draw");
  EXPECT_EQ(draw({array(fixed_arrays::kVertex, 0, 24), array(fixed_arrays::kTexCoord, 1, 8)}),
            "the client array of GL_TEXTURE_COORD_ARRAY of texture unit 1 holds 8 bytes, the "
            "draw reads 12 (vertices 0 to 2)");
  EXPECT_NE(draw({array(fixed_arrays::kVertex, 0, 24), array(fixed_arrays::kTexCoord, 1, 12),
                  array(fixed_arrays::kTexCoord, 99, 12)}),
            "");
  run(api::kFn_glClientActiveTexture, {uint(fixed_arrays::kTexture0 + 1)});
  run(api::kFn_glDisableClientState, {uint(fixed_arrays::kTexCoord)});
  EXPECT_EQ(draw({array(fixed_arrays::kVertex, 0, 24)}), "");
}

}  // namespace
}  // namespace gltrace::glreplay
