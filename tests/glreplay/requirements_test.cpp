// What a trace needs of a driver (consumers/requirements.h): the scan of
// calls as pure logic, `gltrace info --requirements` on a traced ES 3.2 app,
// and the replay naming what its driver lacks (softpipe: ES 3.1, one sample).
#include "consumers/requirements.h"

#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "gltrace/api/functions.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

using consumers::Requirements;

format::Value signed_arg(int64_t v) {
  format::Value x;
  x.kind = format::ValueKind::kSint;
  x.sint = v;
  return x;
}

format::Value unsigned_arg(uint64_t v) {
  format::Value x;
  x.kind = format::ValueKind::kUint;
  x.uint = v;
  return x;
}

format::Value array(const std::vector<int64_t>& v) {
  format::Value x;
  x.kind = format::ValueKind::kArray;
  x.elements = format::Value::Elements::kSint;
  x.data = v.data();
  x.size = v.size();
  return x;
}

format::Value strings(const std::vector<std::string_view>& v) {
  format::Value x;
  x.kind = format::ValueKind::kStrings;
  x.data = v.data();
  x.size = v.size();
  return x;
}

// Feeds calls to a scan as a trace would: seqs count from 1.
class Calls {
 public:
  Calls& add(uint32_t function, std::vector<format::Value> args, uint32_t thread = 0,
             uint32_t gl_error = 0) {
    format::Call call;
    call.function = function;
    call.thread = thread;
    call.seq = ++seq_;
    call.args = args;
    call.gl_error = gl_error;
    scan_.on_call(call);
    return *this;
  }
  Requirements result() const { return scan_.result(); }

 private:
  consumers::RequirementsScan scan_;
  uint64_t seq_ = 0;
};

const consumers::LimitNeed* limit(const Requirements& r, uint32_t pname) {
  for (const consumers::LimitNeed& l : r.limits)
    if (l.pname == pname) return &l;
  return nullptr;
}

TEST(Requirements, VersionsExtensionsAndLimitsComeFromTheCalls) {
  const std::vector<int64_t> es31 = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                                     EGL_NONE};
  const std::vector<int64_t> gl46 = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 6,
                                     EGL_NONE};
  const std::vector<std::string_view> shader = {
      "#version 320 es\n", "#extension GL_OES_EGL_image_external_essl3 : require\n",
      "#extension GL_EXT_shader_io_blocks : disable\nvoid main() {}\n"};
  Calls calls;
  calls
      .add(api::kFn_eglCreateContext,
           {unsigned_arg(1), unsigned_arg(2), unsigned_arg(0), array(es31)})  // 1
      .add(api::kFn_glShaderSource,
           {unsigned_arg(3), signed_arg(3), strings(shader), unsigned_arg(0)})  // 2
      .add(api::kFn_glTexStorage2D,
           {unsigned_arg(GL_TEXTURE_2D), signed_arg(1), unsigned_arg(GL_RGBA8), signed_arg(2048),
            signed_arg(512)})  // 3
      .add(api::kFn_glTexStorage2D,
           {unsigned_arg(GL_TEXTURE_CUBE_MAP), signed_arg(1), unsigned_arg(GL_RGBA8),
            signed_arg(1024), signed_arg(1024)})  // 4
      .add(api::kFn_glEGLImageTargetTexture2DOES,
           {unsigned_arg(GL_TEXTURE_2D), unsigned_arg(9)})  // 5
      .add(api::kFn_glEGLImageTargetTexture2DOES,
           {unsigned_arg(GL_TEXTURE_2D), unsigned_arg(9)})             // 6
      .add(api::kFn_glActiveTexture, {unsigned_arg(GL_TEXTURE0 + 5)})  // 7
      .add(api::kFn_glRenderbufferStorageMultisample,
           {unsigned_arg(GL_RENDERBUFFER), signed_arg(8), unsigned_arg(GL_RGBA8), signed_arg(64),
            signed_arg(64)})  // 8
      .add(api::kFn_glBindBufferBase,
           {unsigned_arg(GL_UNIFORM_BUFFER), unsigned_arg(3), unsigned_arg(4)})  // 9
      // What failed when recorded (error mode) needed nothing the driver gave.
      .add(api::kFn_glTexStorage2D,
           {unsigned_arg(GL_TEXTURE_2D), signed_arg(1), unsigned_arg(GL_RGBA8), signed_arg(99999),
            signed_arg(1)},
           0,
           GL_INVALID_VALUE)  // 10
      // A desktop GL context through EGL asks no GLES version.
      .add(api::kFn_eglBindAPI, {unsigned_arg(EGL_OPENGL_API)}, 1)  // 11
      .add(api::kFn_eglCreateContext,
           {unsigned_arg(1), unsigned_arg(2), unsigned_arg(0), array(gl46)}, 1);  // 12
  Requirements r = calls.result();
  EXPECT_EQ(r.calls, 12u);
  EXPECT_EQ(r.version(), 32);
  EXPECT_EQ(r.context.version, 31);
  EXPECT_EQ(r.context.source.seq, 1u);
  EXPECT_EQ(r.shaders.version, 32);
  EXPECT_EQ(r.shaders.source.seq, 2u);
  EXPECT_EQ(r.functions.version, 30);  // glTexStorage2D, glRenderbufferStorageMultisample...
  EXPECT_EQ(r.functions.source.function, api::kFn_glTexStorage2D);
  EXPECT_EQ(r.newest_functions, 3u);
  ASSERT_EQ(r.extensions.size(), 2u);
  EXPECT_EQ(r.extensions[0].any_of, std::vector<std::string>{"GL_OES_EGL_image"});
  ASSERT_EQ(r.extensions[0].uses.size(), 1u);
  EXPECT_EQ(r.extensions[0].uses[0].calls, 2u);
  EXPECT_EQ(r.extensions[0].uses[0].first_seq, 5u);
  EXPECT_EQ(r.extensions[1].any_of,
            std::vector<std::string>{"GL_OES_EGL_image_external_essl3"});  // not the disabled one
  EXPECT_TRUE(r.extensions[1].uses[0].shader);
  ASSERT_NE(limit(r, GL_MAX_TEXTURE_SIZE), nullptr);
  EXPECT_EQ(limit(r, GL_MAX_TEXTURE_SIZE)->value, 2048);
  EXPECT_EQ(limit(r, GL_MAX_TEXTURE_SIZE)->source.seq, 3u);
  ASSERT_NE(limit(r, GL_MAX_CUBE_MAP_TEXTURE_SIZE), nullptr);
  EXPECT_EQ(limit(r, GL_MAX_CUBE_MAP_TEXTURE_SIZE)->value, 1024);
  ASSERT_NE(limit(r, GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS), nullptr);
  EXPECT_EQ(limit(r, GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS)->value, 6);
  ASSERT_NE(limit(r, GL_MAX_SAMPLES), nullptr);
  EXPECT_EQ(limit(r, GL_MAX_SAMPLES)->value, 8);
  ASSERT_NE(limit(r, GL_MAX_RENDERBUFFER_SIZE), nullptr);
  EXPECT_EQ(limit(r, GL_MAX_RENDERBUFFER_SIZE)->value, 64);
  ASSERT_NE(limit(r, GL_MAX_UNIFORM_BUFFER_BINDINGS), nullptr);
  EXPECT_EQ(limit(r, GL_MAX_UNIFORM_BUFFER_BINDINGS)->value, 4);

  std::string text = consumers::requirements_text(r);
  EXPECT_NE(text.find("requires:     OpenGL ES 3.2 (#version of ES 3.2 shaders (glShaderSource, "
                      "call 2))\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("extensions:   GL_OES_EGL_image (glEGLImageTargetTexture2DOES, 2 calls, "
                      "the first 5)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("limits:       GL_MAX_TEXTURE_SIZE >= 2048 (glTexStorage2D, call 3)\n"),
            std::string::npos)
      << text;
  std::string json = consumers::requirements_json(r);
  EXPECT_NE(json.find("{\"version\": \"OpenGL ES 3.2\", \"context\": {\"version\": \"OpenGL ES "
                      "3.1\", \"function\": \"eglCreateContext\", \"call\": 1}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"GL_MAX_SAMPLES\", \"pname\": 36183, \"at_least\": 8, "
                      "\"function\": \"glRenderbufferStorageMultisample\", \"call\": 8}"),
            std::string::npos)
      << json;

  // A driver of ES 3.1 with EGL images and 4 samples; the limits it did not
  // answer are not judged.
  consumers::DriverCapabilities driver;
  driver.version = 31;
  driver.extensions = {"GL_OES_EGL_image"};
  driver.limits = {{GL_MAX_TEXTURE_SIZE, 16384}, {GL_MAX_SAMPLES, 4}};
  std::vector<std::string> lacks = consumers::missing_requirements(r, driver);
  ASSERT_EQ(lacks.size(), 3u) << testing::PrintToString(lacks);
  EXPECT_EQ(lacks[0],
            "OpenGL ES 3.2 (it has OpenGL ES 3.1; #version of ES 3.2 shaders (glShaderSource, "
            "call 2))");
  EXPECT_EQ(
      lacks[1],
      "GL_OES_EGL_image_external_essl3 (#extension in 1 call of glShaderSource, the first 2)");
  EXPECT_EQ(lacks[2], "GL_MAX_SAMPLES >= 8 (it has 4; glRenderbufferStorageMultisample, call 8)");
  driver.version = 32;
  driver.extensions.insert("GL_OES_EGL_image_external_essl3");
  driver.limits[GL_MAX_SAMPLES] = 8;
  EXPECT_TRUE(consumers::missing_requirements(r, driver).empty());
}

// glBeginQueryEXT is GL_EXT_disjoint_timer_query's or
// GL_EXT_occlusion_query_boolean's; glGetQueryObjectui64vEXT only the
// first's: one need, the first, serves both.
TEST(Requirements, ANeedThatANarrowerOneMeetsIsFoldedIntoIt) {
  Calls calls;
  calls.add(api::kFn_glBeginQueryEXT, {unsigned_arg(GL_ANY_SAMPLES_PASSED), unsigned_arg(1)})
      .add(api::kFn_glGetQueryObjectui64vEXT,
           {unsigned_arg(1), unsigned_arg(GL_QUERY_RESULT), unsigned_arg(0)});
  Requirements r = calls.result();
  ASSERT_EQ(r.extensions.size(), 1u);
  EXPECT_EQ(r.extensions[0].any_of, std::vector<std::string>{"GL_EXT_disjoint_timer_query"});
  ASSERT_EQ(r.extensions[0].uses.size(), 2u);
  EXPECT_EQ(r.extensions[0].uses[1].function, api::kFn_glBeginQueryEXT);
}

TEST(Requirements, ContextsWithoutAVersionAreEs1AndGlVersionsParse) {
  Calls calls;
  calls.add(api::kFn_eglCreateContext,
            {unsigned_arg(1), unsigned_arg(2), unsigned_arg(0), array({EGL_NONE})});
  EXPECT_EQ(calls.result().version(), 10);
  EXPECT_EQ(consumers::parse_gl_version("OpenGL ES 3.2 Mesa 22.3.6"), 32);
  EXPECT_EQ(consumers::parse_gl_version("OpenGL ES-CM 1.1 Mesa 22.3.6"), 11);
  EXPECT_EQ(consumers::parse_gl_version("4.6 (Core Profile) Mesa"), 0);
  EXPECT_EQ(consumers::es_version_text(30), "OpenGL ES 3.0");
  Requirements none;
  EXPECT_EQ(consumers::requirements_text(none),
            "requires:     no GLES version known (no context, shader or GLES call)\n"
            "extensions:   none\n"
            "limits:       none beyond the minimums\n");
}

// gltrace-pointer-params: an ES 3.2 context, extension functions
// (glClearTexImageEXT, glTexImage3DOES, glMultiDrawElementsEXT), 4x4 and
// 1x1 texture storage, a 3D texture.
TEST(Requirements, InfoListsAnEs3AppsVersionExtensionsAndLargestTexture) {
  std::string trace = make_temp_dir() + "/pointer_params.gltrace";
  ProcessResult t = gltrace({"trace", "-o", trace, "--", build_bin("gltrace-pointer-params"), "1"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ProcessResult r = gltrace({"info", "--requirements", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("requires:     OpenGL ES 3\\.2 \\(a context of ES 3\\.2 "
                                          "\\(eglCreateContext, call \\d+\\);")))
      << r.out;
  for (const char* line : {"extensions:   GL_EXT_clear_texture (glClearTexImageEXT, ",
                           "extensions:   GL_OES_texture_3D (glTexImage3DOES, ",
                           "extensions:   GL_EXT_multi_draw_arrays (glMultiDrawElementsEXT, ",
                           "limits:       GL_MAX_TEXTURE_SIZE >= 4 (glTexStorage2D, call ",
                           "limits:       GL_MAX_3D_TEXTURE_SIZE >= "})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  ProcessResult json = gltrace({"info", "--requirements", "--json", trace});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("{\"version\": \"OpenGL ES 3.2\", ", 0), 0u) << json.out;
  EXPECT_NE(json.out.find("{\"any_of\": [\"GL_OES_texture_3D\"], \"uses\": [{\"function\": "
                          "\"glTexImage3DOES\", \"shader\": false, "),
            std::string::npos)
      << json.out;
}

// Traced on llvmpipe (4 samples), replayed on softpipe (1): the replay
// names the need, its driver's value and the call, and goes on.
TEST(Requirements, ReplayNamesWhatItsDriverLacks) {
  std::string trace = make_temp_dir() + "/msaa.gltrace";
  ProcessResult t = gltrace({"trace", "-o", trace, "--", build_bin("gltrace-msaa")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ProcessResult same = gltrace({"replay", "-n", "--driver", "llvmpipe", trace});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(same.err.find("requirements:"), std::string::npos) << same.err;
  ProcessResult other = gltrace({"replay", "-n", "--driver", "softpipe", trace});
  EXPECT_TRUE(std::regex_search(
      other.err, std::regex(": requirements: the driver lacks GL_MAX_SAMPLES >= 4 \\(it has 1; "
                            "glRenderbufferStorageMultisample, call \\d+\\)\n")))
      << other.err;
  EXPECT_NE(other.out.find("replayed "), std::string::npos) << other.out;  // it went on

  // softpipe makes no ES 3.2 context: no context of the trace's is ever
  // current, and the check asks the driver through one of its own.
  std::string es32 = make_temp_dir() + "/pointer_params.gltrace";
  t = gltrace({"trace", "-o", es32, "--", build_bin("gltrace-pointer-params"), "1"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  other = gltrace({"replay", "-n", "--driver", "softpipe", es32});
  EXPECT_TRUE(std::regex_search(
      other.err,
      std::regex(": requirements: the driver lacks OpenGL ES 3\\.2 \\(it has OpenGL ES 3\\.1; a "
                 "context of ES 3\\.2 \\(eglCreateContext, call \\d+\\)")))
      << other.err;

  std::string glsl320 = make_temp_dir() + "/glsl320.gltrace";
  t = gltrace({"trace", "-o", glsl320, "--", build_bin("gltrace-glsl-320")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  other = gltrace({"replay", "-n", "--driver", "softpipe", glsl320});
  EXPECT_TRUE(std::regex_search(
      other.err,
      std::regex(": requirements: the driver lacks OpenGL ES 3\\.2 \\(it has OpenGL ES 3\\.1; "
                 "#version of ES 3\\.2 shaders \\(glShaderSource, call \\d+\\)\\)\n")))
      << other.err;
}

// The trace's own driver (the same GL_RENDERER and GL_VERSION) is not
// checked again: its calls ran on it. Made visible with an extension hidden
// at replay (MESA_EXTENSION_OVERRIDE leaves the strings as they were): not
// warned of on the same strings; warned of once the version string differs
// (MESA_GLES_VERSION_OVERRIDE), when the driver is scanned for.
TEST(Requirements, TheTracesOwnDriverIsNotScannedAgain) {
  std::string trace = make_temp_dir() + "/pointer_params.gltrace";
  ProcessResult t = gltrace({"trace", "-o", trace, "--", build_bin("gltrace-pointer-params"), "1"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EnvChanges hidden = clean_env();
  hidden["MESA_EXTENSION_OVERRIDE"] = "-GL_EXT_clear_texture";
  ProcessResult same = gltrace({"replay", "-n", "--driver", "llvmpipe", trace}, hidden);
  EXPECT_NE(same.out.find("replayed "), std::string::npos) << same.out << same.err;
  EXPECT_EQ(same.err.find("requirements:"), std::string::npos) << same.err;
  EnvChanges other_version = hidden;
  other_version["MESA_GLES_VERSION_OVERRIDE"] = "3.1";
  ProcessResult other = gltrace({"replay", "-n", "--driver", "llvmpipe", trace}, other_version);
  EXPECT_NE(
      other.err.find(": requirements: the driver lacks GL_EXT_clear_texture (glClearTexImageEXT"),
      std::string::npos)
      << other.err;
}

}  // namespace
}  // namespace gltrace::test
