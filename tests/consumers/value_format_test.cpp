// The text of calls and values, as `gltrace dump` prints them: enums and
// bitfields by name, EGL attribute lists, strings escaped, floats as
// std::to_chars writes them, and text longer than the formatter's buffer.
#include "consumers/value_format.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gltrace/api/functions.h"
#include "support/values.h"
#include "textformat/float_chars.h"

namespace gltrace {
namespace {

using format::Value;
using format::ValueKind;

using test::chars;
using test::pointer;
using test::sint;
using test::uint;

// A value points at its elements: these keep them for the test's life.
template <typename T>
const T* kept(std::vector<T> items) {
  static std::deque<std::vector<T>> all;
  return all.emplace_back(std::move(items)).data();
}
Value floats(std::vector<float> v) {
  Value x;
  x.kind = ValueKind::kArray;
  x.elements = Value::Elements::kFloat;
  x.size = v.size();
  x.data = kept(std::move(v));
  return x;
}
Value sints(std::vector<int64_t> v) {
  Value x;
  x.kind = ValueKind::kArray;
  x.elements = Value::Elements::kSint;
  x.size = v.size();
  x.data = kept(std::move(v));
  return x;
}
Value strings(std::vector<std::string_view> v) {
  Value x;
  x.kind = ValueKind::kStrings;
  x.size = v.size();
  x.data = kept(std::move(v));
  return x;
}

std::string text_of(uint32_t function, const std::vector<Value>& args, const Value* ret = nullptr,
                    const consumers::BlobSizes& blobs = {}) {
  format::Call call;
  call.function = function;
  call.args = args;
  call.ret = ret;
  std::string out = "before: ";  // format_call appends
  consumers::format_call(out, call, blobs);
  EXPECT_EQ(out.rfind("before: ", 0), 0u);
  return out.substr(8);
}

std::string std_text(float f) {
  char buffer[64];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, f).ptr);
}

std::string our_text(float f) {
  char buffer[textformat::kFloatCharsMax];
  return std::string(buffer, textformat::float_chars(buffer, f));
}

// Every one of the 2^32 floats was compared once (a few minutes); here a
// sample, and the edges.
TEST(FloatChars, SameTextAsToChars) {
  std::vector<float> edges = {0.0f,
                              -0.0f,
                              1.0f,
                              -1.0f,
                              0.1f,
                              1e-5f,
                              1e-4f,
                              1e-3f,
                              1e4f,
                              1e5f,
                              1.5e5f,
                              1.25e6f,
                              16777216.0f,
                              67108872.0f,
                              0.6928184f,
                              -0.42051283f,
                              3.6000001f,
                              std::numeric_limits<float>::min(),
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::lowest(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
  for (int e = -45; e <= 38; ++e) {
    edges.push_back(std::pow(10.0f, static_cast<float>(e)));
    edges.push_back(std::nextafter(std::pow(10.0f, static_cast<float>(e)), 0.0f));
  }
  for (int e = -149; e <= 127; ++e) edges.push_back(std::ldexp(1.0f, e));
  for (float f : edges) EXPECT_EQ(our_text(f), std_text(f)) << f;
  std::mt19937 random(1);
  size_t mismatches = 0;
  for (int i = 0; i < 1 << 21; ++i) {
    uint32_t bits = random();
    float f = 0;
    memcpy(&f, &bits, sizeof f);
    if (our_text(f) != std_text(f) && ++mismatches < 10)
      ADD_FAILURE() << "bits " << std::hex << bits << ": " << our_text(f) << " vs " << std_text(f);
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(ValueFormat, FloatsAsTheShortestRoundTrip) {
  EXPECT_EQ(text_of(api::kFn_glUniformMatrix4fv,
                    {sint(0), sint(1), uint(0),
                     floats({0.6928184f, 0.0f, -0.42051283f, 1e-05f, 3.6000001f, 1e6f, 1234567.0f,
                             67108872.0f, 1e10f, -0.0f, 0.5f, 100000.0f, 1.5e-7f, 3.4028235e38f,
                             1.0f, -2.0f})}),
            "glUniformMatrix4fv(location = 0, count = 1, transpose = GL_FALSE, value = "
            "{0.6928184, 0, -0.42051283, 1e-05, 3.6000001, 1000000, 1234567, 67108872, 1e+10, "
            "-0, 0.5, 100000, 1.5e-07, 3.4028235e+38, 1, -2})");
}

TEST(ValueFormat, EnumsBitfieldsAndBooleans) {
  EXPECT_EQ(text_of(api::kFn_glEnable, {uint(0x0BE2)}), "glEnable(cap = GL_BLEND)");
  EXPECT_EQ(text_of(api::kFn_glEnable, {uint(0xffff)}), "glEnable(cap = 0xffff)");
  // 0x2: a name (GL_TRIANGLES), but not a bit's.
  EXPECT_EQ(text_of(api::kFn_glClear, {uint(0x4102)}),
            "glClear(mask = 0x2 | GL_DEPTH_BUFFER_BIT | GL_COLOR_BUFFER_BIT)");
  EXPECT_EQ(text_of(api::kFn_glClear, {uint(0)}), "glClear(mask = 0)");
  Value no_error = uint(0);
  EXPECT_EQ(text_of(api::kFn_glGetError, {}, &no_error), "glGetError() = GL_NO_ERROR");
  Value yes = uint(1);
  EXPECT_EQ(text_of(api::kFn_glIsEnabled, {uint(0x0B71)}, &yes),
            "glIsEnabled(cap = GL_DEPTH_TEST) = GL_TRUE");
  Value sync = uint(0x1234);
  EXPECT_EQ(text_of(api::kFn_glFenceSync, {uint(0x9117), uint(0)}, &sync),
            "glFenceSync(condition = GL_SYNC_GPU_COMMANDS_COMPLETE, flags = 0) = 0x1234");
  // The same enums again, from the name cache.
  EXPECT_EQ(text_of(api::kFn_glEnable, {uint(0x0BE2)}), "glEnable(cap = GL_BLEND)");
  EXPECT_EQ(text_of(api::kFn_glIsEnabled, {uint(0x0BE2)}, &yes),
            "glIsEnabled(cap = GL_BLEND) = GL_TRUE");
}

TEST(ValueFormat, EglEnumsAndAttributeLists) {
  Value egl_true = uint(1);
  EXPECT_EQ(text_of(api::kFn_eglBindAPI, {uint(0x30A0)}, &egl_true),
            "eglBindAPI(api = EGL_OPENGL_ES_API) = EGL_TRUE");
  Value blob;
  blob.kind = ValueKind::kBlob;
  blob.blob = 0xd130cab810e4b772;
  EXPECT_EQ(
      text_of(api::kFn_eglChooseConfig,
              {uint(0x55aa), sints({0x3033, 4, 0x3040, 64, 0x3038}), blob, sint(128), sints({40})},
              &egl_true, {{0xd130cab810e4b772, 320}}),
      "eglChooseConfig(dpy = 0x55aa, attrib_list = {EGL_SURFACE_TYPE, 4, "
      "EGL_RENDERABLE_TYPE, 64, EGL_NONE}, configs = <blob d130cab810e4b772, 320 bytes>, "
      "config_size = 128, num_config = {40}) = EGL_TRUE");
  EXPECT_EQ(text_of(api::kFn_eglChooseConfig, {uint(0x55aa), pointer(0), blob}, &egl_true),
            "eglChooseConfig(dpy = 0x55aa, attrib_list = NULL, configs = <blob d130cab810e4b772>) "
            "= EGL_TRUE");
}

TEST(ValueFormat, EglEnumsInIntegerParametersAndResults) {
  Value version = chars(ValueKind::kText, "1.5");
  // EGL_VERSION and the *_VERSION attributes were left out of the EGL table.
  EXPECT_EQ(text_of(api::kFn_eglQueryString, {uint(0x55aa), sint(0x3054)}, &version),
            "eglQueryString(dpy = 0x55aa, name = EGL_VERSION) = \"1.5\"");
  Value egl_true = uint(1);
  Value context = uint(0x5);
  EXPECT_EQ(
      text_of(api::kFn_eglCreateContext,
              {uint(0x55aa), uint(0x1), uint(0), sints({0x3098, 3, 0x30FB, 1, 0x3038})}, &context),
      "eglCreateContext(dpy = 0x55aa, config = 0x1, share_context = 0x0, attrib_list = "
      "{EGL_CONTEXT_CLIENT_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE}) = 0x5");
  Value surface = uint(0x77);
  EXPECT_EQ(text_of(api::kFn_eglGetCurrentSurface, {sint(0x3059)}, &surface),
            "eglGetCurrentSurface(readdraw = EGL_DRAW) = 0x77");
  EXPECT_EQ(text_of(api::kFn_eglGetConfigAttrib,
                    {uint(0x55aa), uint(0x1), sint(0x3028), sints({21})}, &egl_true),
            "eglGetConfigAttrib(dpy = 0x55aa, config = 0x1, attribute = EGL_CONFIG_ID, "
            "value = {21}) = EGL_TRUE");
  // Results: eglGetError's EGLint and eglQueryAPI's EGLenum are EGL enums, not GL ones.
  Value bad_alloc = sint(0x3003);
  EXPECT_EQ(text_of(api::kFn_eglGetError, {}, &bad_alloc), "eglGetError() = EGL_BAD_ALLOC");
  Value es_api = uint(0x30A0);
  EXPECT_EQ(text_of(api::kFn_eglQueryAPI, {}, &es_api), "eglQueryAPI() = EGL_OPENGL_ES_API");
}

// EGLTime and EGLnsecsANDROID are nanoseconds (they printed as handles, in
// hex), EGL_FOREVER by name; handles stay hex.
TEST(ValueFormat, EglTimesInNanoseconds) {
  Value satisfied = sint(0x30F6);
  EXPECT_EQ(text_of(api::kFn_eglClientWaitSync, {uint(0x55aa), uint(0x9), sint(1), uint(1000000)},
                    &satisfied),
            "eglClientWaitSync(dpy = 0x55aa, sync = 0x9, flags = 1, timeout = 1000000 ns) = "
            "EGL_CONDITION_SATISFIED");
  EXPECT_EQ(text_of(api::kFn_eglClientWaitSyncKHR,
                    {uint(0x55aa), uint(0x9), sint(0), uint(0xffffffffffffffff)}),
            "eglClientWaitSyncKHR(dpy = 0x55aa, sync = 0x9, flags = 0, timeout = EGL_FOREVER)");
  EXPECT_EQ(
      text_of(api::kFn_eglPresentationTimeANDROID, {uint(0x55aa), uint(0x77), sint(16666667)}),
      "eglPresentationTimeANDROID(dpy = 0x55aa, surface = 0x77, time = 16666667 ns)");
  EXPECT_EQ(
      text_of(api::kFn_eglGetCompositorTimingANDROID,
              {uint(0x55aa), uint(0x77), sint(2), sints({0x3431, 0x3432}), sints({16666667, -1})}),
      "eglGetCompositorTimingANDROID(dpy = 0x55aa, surface = 0x77, numTimestamps = 2, "
      "names = {EGL_COMPOSITE_DEADLINE_ANDROID, EGL_COMPOSITE_INTERVAL_ANDROID}, "
      "values = {16666667 ns, -1 ns})");
}

TEST(ValueFormat, TextDataAndOddValues) {
  Value source = strings({"a\n\t\"\\\x01z", ""});
  Value data = chars(ValueKind::kData, std::string_view("\x00\x01\xff\x10\x11\x12\x13\x14\x15\x16"
                                                        "\x17\x18\x19\x1a\x1b\x1c\x1d",
                                                        17));
  Value unknown = chars(ValueKind::kUnknown, "computed size");
  unknown.pointer = 0x1000;
  Value f64;
  f64.kind = ValueKind::kF64;
  f64.f64 = -2.25;
  EXPECT_EQ(text_of(api::kFn_glShaderSource, {uint(1), sint(2), source, pointer(0)}),
            "glShaderSource(shader = 1, count = 2, string = {\"a\\n\\t\\\"\\\\\\x01z\", \"\"}, "
            "length = NULL)");
  EXPECT_EQ(text_of(api::kFn_glTexImage2D, {uint(0x0DE1), sint(0), sint(32856), sint(-1), sint(64),
                                            sint(0), uint(0x1908), uint(0x1401), data}),
            "glTexImage2D(target = GL_TEXTURE_2D, level = 0, internalformat = 32856, width = -1, "
            "height = 64, border = 0, format = GL_RGBA, type = GL_UNSIGNED_BYTE, pixels = <17 "
            "bytes: 00 01 ff 10 11 12 13 14 15 16 17 18 19 1a 1b 1c ...>)");
  // More args than parameters, an unknown function, values of no kind.
  EXPECT_EQ(text_of(api::kFn_glEnable, {uint(0x0BE2), unknown, f64, Value{}}),
            "glEnable(cap = GL_BLEND, <0x1000, size unknown: computed size>, -2.25, ?)");
  Value ret = sint(-7);
  EXPECT_EQ(text_of(5000, {sint(-1), uint(2)}, &ret), "<unknown function 5000>(-1, 2) = -7");
}

// Blobs, data bytes, unknown sizes and control characters are written by
// hand: the same text as the printf formats they had.
TEST(ValueFormat, HandWrittenAsPrintfWroteThem) {
  auto printed = [](const char* fmt, auto... args) {
    char buffer[128];
    snprintf(buffer, sizeof buffer, fmt, args...);
    return std::string(buffer);
  };
  consumers::BlobSizes blobs;
  for (uint64_t hash : {uint64_t{1}, uint64_t{0x24}, uint64_t{0xfedcba9876543210},
                        uint64_t{0x0abc000000000def}, UINT64_MAX}) {
    for (uint64_t size : {uint64_t{0}, uint64_t{1}, uint64_t{4096}, UINT64_MAX}) {
      blobs[hash] = size;
      Value blob;
      blob.kind = ValueKind::kBlob;
      blob.blob = hash;
      std::string expected = size != 0
                                 ? printed("<blob %016" PRIx64 ", %" PRIu64 " bytes>", hash, size)
                                 : printed("<blob %016" PRIx64 ">", hash);
      EXPECT_EQ(
          text_of(api::kFn_glBufferSubData, {uint(0x8892), sint(0), sint(1), blob}, nullptr, blobs),
          "glBufferSubData(target = GL_ARRAY_BUFFER, offset = 0, size = 1, data = " + expected +
              ")");
    }
  }
  // Data of 0 to 20 bytes, every byte value in turn.
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= 20; ++n) {
    for (size_t first = 0; first + n <= all.size(); first += 37) {
      std::string_view bytes = std::string_view(all).substr(first, n);
      std::string expected = printed("<%zu bytes:", bytes.size());
      for (size_t i = 0; i < bytes.size() && i < 16; ++i)
        expected += printed(" %02x", static_cast<unsigned char>(bytes[i]));
      expected += bytes.size() > 16 ? " ...>" : ">";
      EXPECT_EQ(text_of(api::kFn_glEnable, {chars(ValueKind::kData, bytes)}),
                "glEnable(cap = " + expected + ")");
    }
  }
  for (uint64_t address : {uint64_t{0}, uint64_t{0x10}, uint64_t{0x7fc8a9c4efc0}, UINT64_MAX}) {
    Value unknown = chars(ValueKind::kUnknown, "why");
    unknown.pointer = address;
    EXPECT_EQ(text_of(api::kFn_glEnable, {unknown}),
              "glEnable(cap = " + printed("<0x%" PRIx64 ", size unknown: ", address) + "why>)");
  }
  // Every control character, DEL, and the bytes around them.
  std::string text, expected = "\"";
  for (int c :
       {0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x0d, 0x0e, 0x1b, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff}) {
    text += static_cast<char>(c);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      expected += printed("\\x%02x", c);
    else
      expected += static_cast<char>(c);
  }
  expected += "\"";
  EXPECT_EQ(
      text_of(api::kFn_glBindAttribLocation, {uint(1), uint(0), chars(ValueKind::kText, text)}),
      "glBindAttribLocation(program = 1, index = 0, name = " + expected + ")");
}

// Text much longer than the formatter's buffer, around other values.
TEST(ValueFormat, LongText) {
  std::string text(3000, 'x');
  for (size_t i = 0; i < text.size(); i += 7) text[i] = '\n';
  std::string part = text.substr(0, 400);
  Value source = strings({text, part, text});
  std::vector<float> many(300, 0.25f);
  auto escaped = [](const std::string& s) {
    std::string out;
    for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
    return "\"" + out + "\"";
  };
  std::string quarters;
  for (size_t i = 0; i < many.size(); ++i) quarters += i == 0 ? "0.25" : ", 0.25";
  EXPECT_EQ(text_of(api::kFn_glShaderSource, {uint(1), sint(3), source, floats(many)}),
            "glShaderSource(shader = 1, count = 3, string = {" + escaped(text) + ", " +
                escaped(part) + ", " + escaped(text) + "}, length = {" + quarters + "})");
}

}  // namespace
}  // namespace gltrace
