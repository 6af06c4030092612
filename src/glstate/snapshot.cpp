#include "glstate/snapshot.h"

// After the GLES 3 headers (glstate/snapshot.h): the extensions' enums.
#include <GLES2/gl2ext.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "common/extension_list.h"
#include "common/pixel_store.h"

namespace gltrace::glstate {
namespace {

using format::Value;
using format::ValueKind;

// The generic attributes written (the replay keeps as many, glreplay/egl_state.h).
constexpr GLint kMaxAttribs = 32;

// Bytes up to this size go inline in the call; larger ones as a Blob.
constexpr size_t kInlineBytes = 4096;

#define FN(name) ::gltrace::api::kFn_##name

// One call's values, built in order; what they point at lives until the
// builder is cleared.
class CallBuilder {
 public:
  explicit CallBuilder(SnapshotOut& out) : out_(out) {}

  CallBuilder& u(uint64_t v) { return scalar(ValueKind::kUint, v); }
  CallBuilder& s(int64_t v) {
    Value& x = add(ValueKind::kSint);
    x.sint = v;
    return *this;
  }
  CallBuilder& f(float v) {
    Value& x = add(ValueKind::kF32);
    x.f32 = v;
    return *this;
  }
  CallBuilder& pointer(uint64_t v) { return scalar(ValueKind::kPointer, v); }
  CallBuilder& text(std::string t) {
    const std::string& kept = strings_.emplace_back(std::move(t));
    Value& x = add(ValueKind::kText);
    x.data = kept.data();
    x.size = kept.size();
    return *this;
  }
  // Bytes the call reads: inline, or a Blob when large.
  CallBuilder& bytes(std::string b) {
    if (b.size() > kInlineBytes) return scalar(ValueKind::kBlob, out_.blob(b));
    const std::string& kept = strings_.emplace_back(std::move(b));
    Value& x = add(ValueKind::kData);
    x.data = kept.data();
    x.size = kept.size();
    return *this;
  }
  CallBuilder& uints(std::vector<uint64_t> v) {
    const auto& kept = uints_.emplace_back(std::move(v));
    Value& x = add(ValueKind::kArray);
    x.elements = Value::Elements::kUint;
    x.data = kept.data();
    x.size = kept.size();
    return *this;
  }
  CallBuilder& sints(std::vector<int64_t> v) {
    const auto& kept = sints_.emplace_back(std::move(v));
    Value& x = add(ValueKind::kArray);
    x.elements = Value::Elements::kSint;
    x.data = kept.data();
    x.size = kept.size();
    return *this;
  }
  CallBuilder& floats(std::vector<float> v) {
    const auto& kept = floats_.emplace_back(std::move(v));
    Value& x = add(ValueKind::kArray);
    x.elements = Value::Elements::kFloat;
    x.data = kept.data();
    x.size = kept.size();
    return *this;
  }
  CallBuilder& strings(std::vector<std::string> list) {
    auto& views = views_.emplace_back();
    for (std::string& s : list) views.emplace_back(strings_.emplace_back(std::move(s)));
    Value& x = add(ValueKind::kStrings);
    x.data = views.data();
    x.size = views.size();
    return *this;
  }

  // Writes the call and starts the next.
  void emit(uint32_t function) { finish(function, nullptr); }
  void emit_returning_uint(uint32_t function, uint64_t ret) {
    Value r;
    r.kind = ValueKind::kUint;
    r.uint = ret;
    finish(function, &r);
  }
  void emit_returning_sint(uint32_t function, int64_t ret) {
    Value r;
    r.kind = ValueKind::kSint;
    r.sint = ret;
    finish(function, &r);
  }

 private:
  Value& add(ValueKind kind) {
    Value& x = args_.emplace_back();
    x.kind = kind;
    return x;
  }
  CallBuilder& scalar(ValueKind kind, uint64_t v) {
    add(kind).uint = v;
    return *this;
  }
  void finish(uint32_t function, const Value* ret) {
    out_.call(function, args_, ret);
    args_.clear();
    strings_.clear();
    uints_.clear();
    sints_.clear();
    floats_.clear();
    views_.clear();
  }

  SnapshotOut& out_;
  std::vector<Value> args_;
  // Deques: what the values point at must not move as more is added.
  std::deque<std::string> strings_;
  std::deque<std::vector<uint64_t>> uints_;
  std::deque<std::vector<int64_t>> sints_;
  std::deque<std::vector<float>> floats_;
  std::deque<std::vector<std::string_view>> views_;
};

// How a level of a color texture of an internal format is read back (as
// glReadPixels may: RGBA with UNSIGNED_BYTE or FLOAT) and uploaded again
// (format, type and bytes per pixel of the upload).
struct PixelTransfer {
  GLenum read_type;
  GLenum format;
  GLenum type;
  int components;  // of the upload, taken from the read's four
  // Not color-renderable (ES 2's luminance and alpha): read by drawing it
  // into an RGBA8 texture (ShaderCopy); `pick` the RGBA components kept.
  bool through_shader = false;
  uint8_t pick[4] = {0, 1, 2, 3};
  // Depth and stencil: read through this attachment with NV_read_depth,
  // NV_read_depth_stencil or NV_read_stencil's glReadPixels(format, type),
  // which gives the stored values (an integer one widened to the type's
  // bits exactly), and uploaded with the same format and type: the driver
  // narrows them back. 0 for color.
  GLenum attachment = 0;
  size_t element = 0;  // bytes per texel read, for depth and stencil
  // Integer formats: read as RGBA_INTEGER (32-bit components), uploaded
  // with components of upload_element bytes (their low bytes: the value).
  GLenum read_format = GL_RGBA;
  size_t upload_element = 0;  // 0: as read
  // sRGB: read as stored where the driver's glReadPixels does not convert
  // (SnapshotWriter::srgb_reads_stored asks it once).
  bool srgb = false;
};

// EXT_texture_format_BGRA8888 (GLES2/gl2ext.h's names, which need its
// prototypes off).
constexpr GLenum kBgra = 0x80E1, kBgra8 = 0x93A1;
// OES_EGL_image_external's target.
constexpr GLenum kTextureExternal = 0x8D65;

PixelTransfer depth_stencil(GLenum attachment, GLenum format, GLenum type, size_t element) {
  PixelTransfer t{type, format, type, 1};
  t.attachment = attachment;
  t.element = element;
  return t;
}

// The NV extension whose glReadPixels reads an attachment.
const char* read_extension(GLenum attachment) {
  return attachment == GL_DEPTH_ATTACHMENT     ? "GL_NV_read_depth"
         : attachment == GL_STENCIL_ATTACHMENT ? "GL_NV_read_stencil"
                                               : "GL_NV_read_depth_stencil";
}

// The buffers a blit copies for an attachment.
GLbitfield blit_mask(GLenum attachment) {
  return attachment == GL_DEPTH_ATTACHMENT           ? GL_DEPTH_BUFFER_BIT
         : attachment == GL_STENCIL_ATTACHMENT       ? GL_STENCIL_BUFFER_BIT
         : attachment == GL_DEPTH_STENCIL_ATTACHMENT ? GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT
                                                     : GL_COLOR_BUFFER_BIT;
}

// The color-renderable integer formats: read as RGBA_INTEGER (32-bit
// components), uploaded with components of `bytes` bytes (the read's low
// bytes: the value).
struct IntegerFormat {
  GLenum internal_format;
  bool is_signed;
  GLenum format;
  int components;
  size_t bytes;
};
constexpr IntegerFormat kIntegerFormats[] = {
    {GL_RGBA8UI, false, GL_RGBA_INTEGER, 4, 1},  {GL_RGBA8I, true, GL_RGBA_INTEGER, 4, 1},
    {GL_RGBA16UI, false, GL_RGBA_INTEGER, 4, 2}, {GL_RGBA16I, true, GL_RGBA_INTEGER, 4, 2},
    {GL_RGBA32UI, false, GL_RGBA_INTEGER, 4, 4}, {GL_RGBA32I, true, GL_RGBA_INTEGER, 4, 4},
    {GL_RG8UI, false, GL_RG_INTEGER, 2, 1},      {GL_RG8I, true, GL_RG_INTEGER, 2, 1},
    {GL_RG16UI, false, GL_RG_INTEGER, 2, 2},     {GL_RG16I, true, GL_RG_INTEGER, 2, 2},
    {GL_RG32UI, false, GL_RG_INTEGER, 2, 4},     {GL_RG32I, true, GL_RG_INTEGER, 2, 4},
    {GL_R8UI, false, GL_RED_INTEGER, 1, 1},      {GL_R8I, true, GL_RED_INTEGER, 1, 1},
    {GL_R16UI, false, GL_RED_INTEGER, 1, 2},     {GL_R16I, true, GL_RED_INTEGER, 1, 2},
    {GL_R32UI, false, GL_RED_INTEGER, 1, 4},     {GL_R32I, true, GL_RED_INTEGER, 1, 4},
};

std::optional<PixelTransfer> transfer_of(GLint internal_format) {
  for (const IntegerFormat& f : kIntegerFormats) {
    if (f.internal_format != static_cast<GLenum>(internal_format)) continue;
    static constexpr GLenum kUnsigned[] = {0, GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT, 0,
                                           GL_UNSIGNED_INT};
    static constexpr GLenum kSigned[] = {0, GL_BYTE, GL_SHORT, 0, GL_INT};
    PixelTransfer t{f.is_signed ? GLenum{GL_INT} : GLenum{GL_UNSIGNED_INT}, f.format,
                    f.is_signed ? kSigned[f.bytes] : kUnsigned[f.bytes], f.components};
    t.read_format = GL_RGBA_INTEGER;
    t.upload_element = f.bytes;
    return t;
  }
  if (internal_format == GL_SRGB8_ALPHA8) {
    PixelTransfer t{GL_UNSIGNED_BYTE, GL_RGBA, GL_UNSIGNED_BYTE, 4};
    t.srgb = true;
    return t;
  }
  switch (internal_format) {
    case GL_RGBA:
    case GL_RGBA8:
    case GL_RGBA4:
    case GL_RGB5_A1:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_RGBA, GL_UNSIGNED_BYTE, 4};
    case GL_RGB:
    case GL_RGB8:
    case GL_RGB565:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_RGB, GL_UNSIGNED_BYTE, 3};
    case GL_R8:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_RED, GL_UNSIGNED_BYTE, 1};
    case GL_RG8:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_RG, GL_UNSIGNED_BYTE, 2};
    case GL_RGBA16F:
    case GL_RGBA32F:
      return PixelTransfer{GL_FLOAT, GL_RGBA, GL_FLOAT, 4};
    case GL_RGB16F:
    case GL_RGB32F:
    case GL_R11F_G11F_B10F:
      return PixelTransfer{GL_FLOAT, GL_RGB, GL_FLOAT, 3};
    case GL_RG16F:
    case GL_RG32F:
      return PixelTransfer{GL_FLOAT, GL_RG, GL_FLOAT, 2};
    case GL_R16F:
    case GL_R32F:
      return PixelTransfer{GL_FLOAT, GL_RED, GL_FLOAT, 1};
    // EXT_texture_format_BGRA8888: read as RGBA, uploaded as BGRA.
    case kBgra:
    case kBgra8:
      return PixelTransfer{GL_UNSIGNED_BYTE, kBgra, GL_UNSIGNED_BYTE, 4, false, {2, 1, 0, 3}};
    // Sampled, an 8-bit texel reads k/255 and an RGBA8 target stores it
    // back as k: exact.
    case GL_ALPHA:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_ALPHA, GL_UNSIGNED_BYTE, 1, true, {3}};
    case GL_LUMINANCE:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_LUMINANCE, GL_UNSIGNED_BYTE, 1, true, {0}};
    case GL_LUMINANCE_ALPHA:
      return PixelTransfer{GL_UNSIGNED_BYTE, GL_LUMINANCE_ALPHA, GL_UNSIGNED_BYTE, 2, true, {0, 3}};
    case GL_DEPTH_COMPONENT16:
      return depth_stencil(GL_DEPTH_ATTACHMENT, GL_DEPTH_COMPONENT, GL_UNSIGNED_SHORT, 2);
    case GL_DEPTH_COMPONENT:  // ES 2's (OES_depth_texture): see level_image
    case GL_DEPTH_COMPONENT24:
      return depth_stencil(GL_DEPTH_ATTACHMENT, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, 4);
    case GL_DEPTH_COMPONENT32F:
      return depth_stencil(GL_DEPTH_ATTACHMENT, GL_DEPTH_COMPONENT, GL_FLOAT, 4);
    case GL_DEPTH_STENCIL:  // ES 2's (OES_packed_depth_stencil)
    case GL_DEPTH24_STENCIL8:
      return depth_stencil(GL_DEPTH_STENCIL_ATTACHMENT, GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8, 4);
    case GL_DEPTH32F_STENCIL8:
      return depth_stencil(GL_DEPTH_STENCIL_ATTACHMENT, GL_DEPTH_STENCIL,
                           GL_FLOAT_32_UNSIGNED_INT_24_8_REV, 8);
    case GL_STENCIL_INDEX8:
      return depth_stencil(GL_STENCIL_ATTACHMENT, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, 1);
    default:
      return std::nullopt;  // sRGB, integer, stencil, compressed...
  }
}

// Draws textures GLES cannot attach to a framebuffer into an RGBA8 one, to
// read them. In a context of its own that shares the app's objects, made
// current on the thread meanwhile: none of the app's context state is
// touched, and nothing of it leaks into the snapshot.
class ShaderCopy {
 public:
  ShaderCopy(GlFunctions gl, EGLDisplay display) : gl_(gl), display_(display) {}
  ShaderCopy(const ShaderCopy&) = delete;
  ShaderCopy& operator=(const ShaderCopy&) = delete;
  ~ShaderCopy() {
    if (context_ == EGL_NO_CONTEXT) return;
    GL(eglDestroyContext)(display_, context_);
  }

  // Level `level` of 2D texture t (w x h) as RGBA8, bottom row first; false
  // when it cannot be drawn. The app's context is current again after.
  bool read(GLuint t, GLint level, GLint w, GLint h, std::vector<uint8_t>* rgba) {
    return in_own_context([&] { return draw_level(t, level, w, h, rgba); });
  }

  // The samples of a multisampled color renderbuffer or 2D multisample
  // texture of an RGBA8-exact format, each as RGBA8 (w x h, bottom row
  // first): a renderbuffer is copied into a multisample texture of its own
  // (glCopyImageSubData), each sample drawn out with texelFetch. False when
  // it cannot be read. The app's context is current again after.
  bool read_samples(GLuint object, bool renderbuffer, GLenum format, GLint samples, GLint w,
                    GLint h, std::vector<std::vector<uint8_t>>* images) {
    return in_own_context(
        [&] { return draw_samples(object, renderbuffer, format, samples, w, h, images); });
  }

 private:
  // Runs `draw` with the copy's context current (made on first use), then
  // makes the app's context and surfaces current again.
  template <typename Draw>
  bool in_own_context(Draw draw) {
    const GlFunctions& gl = gl_;
    EGLContext app = GL_CALL(gl, eglGetCurrentContext)();
    EGLSurface draw_surface = GL_CALL(gl, eglGetCurrentSurface)(EGL_DRAW);
    EGLSurface read_surface = GL_CALL(gl, eglGetCurrentSurface)(EGL_READ);
    if (!make(app)) return false;
    if (GL_CALL(gl, eglMakeCurrent)(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) != EGL_TRUE)
      return false;
    bool ok = draw();
    GL_CALL(gl, eglMakeCurrent)(display_, draw_surface, read_surface, app);
    return ok;
  }

  bool make(EGLContext app) {
    if (context_ != EGL_NO_CONTEXT) return true;
    if (failed_) return false;
    failed_ = true;
    const GlFunctions& gl = gl_;
    EGLDisplay display = display_;
    EGLint config_id = 0, count = 0;
    GL_CALL(gl, eglQueryContext)(display, app, EGL_CONFIG_ID, &config_id);
    const EGLint by_id[] = {EGL_CONFIG_ID, config_id, EGL_NONE};
    EGLConfig config = nullptr;
    if (GL_CALL(gl, eglChooseConfig)(display, by_id, &config, 1, &count) != EGL_TRUE || count != 1)
      return false;
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    context_ = GL_CALL(gl, eglCreateContext)(display, config, app, attribs);
    failed_ = context_ == EGL_NO_CONTEXT;
    return !failed_;
  }

  GLuint shader(GLenum type, const char* source) {
    const GlFunctions& gl = gl_;
    GLuint s = GL_CALL(gl, glCreateShader)(type);
    GL_CALL(gl, glShaderSource)(s, 1, &source, nullptr);
    GL_CALL(gl, glCompileShader)(s);
    return s;
  }

  // A program of one triangle over the target whose fragments fetch their
  // texel from unit 0 with `fetch` (0 when it does not link).
  GLuint program(const char* version, const char* sampler, const char* fetch) {
    const GlFunctions& gl = gl_;
    std::string vertex = std::string(version) +
                         "void main() {\n"
                         "  gl_Position = vec4(gl_VertexID == 1 ? 3.0 : -1.0,\n"
                         "                     gl_VertexID == 2 ? 3.0 : -1.0, 0.0, 1.0);\n"
                         "}\n";
    std::string fragment = std::string(version) + "precision highp float;\nuniform highp " +
                           sampler + " image;\nuniform int sample_index;\nout vec4 color;\n" +
                           "void main() { color = " + fetch + "; }\n";
    GLuint vs = shader(GL_VERTEX_SHADER, vertex.c_str());
    GLuint fs = shader(GL_FRAGMENT_SHADER, fragment.c_str());
    GLuint p = GL_CALL(gl, glCreateProgram)();
    GL_CALL(gl, glAttachShader)(p, vs);
    GL_CALL(gl, glAttachShader)(p, fs);
    GL_CALL(gl, glLinkProgram)(p);
    GL_CALL(gl, glDeleteShader)(vs);
    GL_CALL(gl, glDeleteShader)(fs);
    GLint linked = GL_FALSE;
    GL_CALL(gl, glGetProgramiv)(p, GL_LINK_STATUS, &linked);
    if (linked == GL_TRUE) return p;
    GL_CALL(gl, glDeleteProgram)(p);
    return 0;
  }

  // The target (an RGBA8 texture of w x h) bound as the framebuffer to draw
  // into; false when it is not complete.
  bool bind_target(GLint w, GLint h) {
    const GlFunctions& gl = gl_;
    if (framebuffer_ == 0) {
      GL_CALL(gl, glGenFramebuffers)(1, &framebuffer_);
      GL_CALL(gl, glGenTextures)(1, &target_);
      GL_CALL(gl, glGenSamplers)(1, &sampler_);
      GL_CALL(gl, glSamplerParameteri)(sampler_, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      GL_CALL(gl, glSamplerParameteri)(sampler_, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, target_);
    GL_CALL(gl, glTexImage2D)
    (GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, 0);
    GL_CALL(gl, glBindFramebuffer)(GL_FRAMEBUFFER, framebuffer_);
    GL_CALL(gl, glFramebufferTexture2D)
    (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target_, 0);
    GL_CALL(gl, glBindSampler)(0, sampler_);
    GL_CALL(gl, glViewport)(0, 0, w, h);
    GL_CALL(gl, glPixelStorei)(GL_PACK_ALIGNMENT, 1);
    return GL_CALL(gl, glCheckFramebufferStatus)(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  }

  // Draws the triangle with `p` and reads the target back.
  bool draw_and_read(GLuint p, GLint w, GLint h, std::vector<uint8_t>* rgba) {
    const GlFunctions& gl = gl_;
    GL_CALL(gl, glUseProgram)(p);
    while (GL_CALL(gl, glGetError)() != GL_NO_ERROR) {
    }
    GL_CALL(gl, glDrawArrays)(GL_TRIANGLES, 0, 3);
    rgba->assign(static_cast<size_t>(w) * static_cast<size_t>(h) * 4, 0);
    GL_CALL(gl, glReadPixels)(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba->data());
    return GL_CALL(gl, glGetError)() == GL_NO_ERROR;
  }

  bool draw_level(GLuint t, GLint level, GLint w, GLint h, std::vector<uint8_t>* rgba) {
    const GlFunctions& gl = gl_;
    if (level_program_ == 0)
      level_program_ =
          program("#version 300 es\n", "sampler2D", "texelFetch(image, ivec2(gl_FragCoord.xy), 0)");
    if (level_program_ == 0 || !bind_target(w, h)) return false;
    // texelFetch's level counts from the base level, which is the app's
    // (shared): it is moved to the level read meanwhile.
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, t);
    GLint base_level = 0;
    GL_CALL(gl, glGetTexParameteriv)(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, &base_level);
    GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, level);
    bool ok = draw_and_read(level_program_, w, h, rgba);
    GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, base_level);
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, 0);
    return ok;
  }

  bool draw_samples(GLuint object, bool renderbuffer, GLenum format, GLint samples, GLint w,
                    GLint h, std::vector<std::vector<uint8_t>>* images) {
    const GlFunctions& gl = gl_;
    if (sample_program_ == 0)
      sample_program_ = program("#version 310 es\n", "sampler2DMS",
                                "texelFetch(image, ivec2(gl_FragCoord.xy), sample_index)");
    if (sample_program_ == 0 || !bind_target(w, h)) return false;
    GLuint source = object, copy = 0;
    if (renderbuffer) {
      auto copy_image = GL_CALL(gl, glCopyImageSubData);
      if (copy_image == nullptr) return false;
      GL_CALL(gl, glGenTextures)(1, &copy);
      GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D_MULTISAMPLE, copy);
      GL_CALL(gl, glTexStorage2DMultisample)
      (GL_TEXTURE_2D_MULTISAMPLE, samples, format, w, h, GL_TRUE);
      GLint made = 0;
      GL_CALL(gl, glGetTexLevelParameteriv)
      (GL_TEXTURE_2D_MULTISAMPLE, 0, GL_TEXTURE_SAMPLES, &made);
      if (made == samples)
        copy_image(object, GL_RENDERBUFFER, 0, 0, 0, 0, copy, GL_TEXTURE_2D_MULTISAMPLE, 0, 0, 0, 0,
                   w, h, 1);
      source = made == samples ? copy : 0;
    }
    bool ok = source != 0;
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D_MULTISAMPLE, source);
    GLint index = GL_CALL(gl, glGetUniformLocation)(sample_program_, "sample_index");
    images->assign(static_cast<size_t>(samples), {});
    for (GLint i = 0; i < samples && ok; ++i) {
      GL_CALL(gl, glProgramUniform1i)(sample_program_, index, i);
      ok = draw_and_read(sample_program_, w, h, &(*images)[static_cast<size_t>(i)]);
    }
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D_MULTISAMPLE, 0);
    if (copy != 0) GL_CALL(gl, glDeleteTextures)(1, &copy);
    return ok;
  }

  GlFunctions gl_;
  EGLDisplay display_;
  EGLContext context_ = EGL_NO_CONTEXT;
  bool failed_ = false;
  GLuint level_program_ = 0, sample_program_ = 0, framebuffer_ = 0, target_ = 0, sampler_ = 0;
};

// A color format of at most 8 bits a component: RGBA8 holds its values
// exactly (read back as RGBA8, written back from an RGBA8 texture).
bool held_by_rgba8(GLint format) {
  return format == GL_RGBA8 || format == GL_RGB8 || format == GL_RGB565 || format == GL_RGBA4 ||
         format == GL_RGB5_A1 || format == GL_R8 || format == GL_RG8;
}

bool is_layered(GLenum target) {
  return target == GL_TEXTURE_3D || target == GL_TEXTURE_2D_ARRAY ||
         target == GL_TEXTURE_CUBE_MAP_ARRAY;
}

// Desktop GL's compatibility-profile enums, which the GLES headers lack.
namespace compatibility_enums {
constexpr GLenum kMatrixMode = 0x0BA0, kModelview = 0x1700, kProjection = 0x1701;
constexpr GLenum kTexture = 0x1702, kModelviewMatrix = 0x0BA6, kProjectionMatrix = 0x0BA7;
constexpr GLenum kTextureMatrix = 0x0BA8, kMaxTextureCoords = 0x8871, kCurrentColor = 0x0B00;
constexpr GLenum kShadeModel = 0x0B54, kFlat = 0x1D00;
// Lighting, its eight lights, color material, normalize, alpha test, fog,
// and texturing of each dimension (of the active unit: unit 0 here).
constexpr GLenum kEnables[] = {0x0B50, 0x4000, 0x4001, 0x4002, 0x4003, 0x4004,
                               0x4005, 0x4006, 0x4007, 0x0B57, 0x0BA1, 0x0BC0,
                               0x0B60, 0x0DE0, 0x0DE1, 0x806F, 0x8513};
}  // namespace compatibility_enums

class SnapshotWriter : public GlReader {
 public:
  SnapshotWriter(GlFunctions gl, SnapshotNames& names, SnapshotOut& out)
      : GlReader(gl), names_(names), out_(out), call_(out) {}

  void write(SharedObjects shared) {
    refresh_ = shared == SharedObjects::kContents;
    read_version(names_.client_version());
    clear_errors();
    if (compatibility())
      out_.inexact(
          "desktop GL's compatibility state: of its fixed-function state only the current "
          "matrices, color and enables are in the snapshot (not lights' and materials' "
          "parameters, display lists, client arrays or the attribute stacks)");
    // Everything drawn so far is done before anything is read: llvmpipe
    // was seen to return a render target's texels half drawn when read
    // through another framebuffer than the one that drew them.
    GL(glFinish)();
    saved_read_fb_ = integer(es3() ? GL_READ_FRAMEBUFFER_BINDING : GL_FRAMEBUFFER_BINDING);
    saved_draw_fb_ = integer(GL_FRAMEBUFFER_BINDING);
    saved_vao_ = es3() ? integer(GL_VERTEX_ARRAY_BINDING) : 0;
    saved_array_buffer_ = integer(GL_ARRAY_BUFFER_BINDING);
    saved_active_texture_ = integer(GL_ACTIVE_TEXTURE);
    saved_program_ = integer(GL_CURRENT_PROGRAM);
    saved_renderbuffer_ = integer(GL_RENDERBUFFER_BINDING);
    if (es3()) saved_copy_read_ = integer(GL_COPY_READ_BUFFER_BINDING);
    if (es3()) saved_transform_feedback_ = integer(GL_TRANSFORM_FEEDBACK_BINDING);
    if (es31()) saved_pipeline_ = integer(GL_PROGRAM_PIPELINE_BINDING);
    GL(glActiveTexture)(GL_TEXTURE0);

    // What the snapshot reads images through (GLES has no glGetTexImage).
    GL(glGenFramebuffers)(1, &read_fb_);
    unpack_defaults();
    if (refresh_) {
      buffers();
      textures();
    } else if (shared == SharedObjects::kAll) {
      buffers();
      textures();
      renderbuffers();
      samplers();
      programs();
    }
    framebuffers();
    vertex_arrays();
    transform_feedbacks();
    program_pipelines();
    queries();
    window_contents();
    if (compatibility()) fixed_function_state();
    context_state();

    GL(glDeleteFramebuffers)(1, &read_fb_);
    // The driver's bindings as they were.
    GL(glActiveTexture)(static_cast<GLenum>(saved_active_texture_));
    GL(glUseProgram)(static_cast<GLuint>(saved_program_));
    GL(glBindRenderbuffer)(GL_RENDERBUFFER, static_cast<GLuint>(saved_renderbuffer_));
    if (es3()) {
      GL(glBindVertexArray)(static_cast<GLuint>(saved_vao_));
      GL(glBindBuffer)(GL_COPY_READ_BUFFER, static_cast<GLuint>(saved_copy_read_));
      GL(glBindFramebuffer)(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(saved_draw_fb_));
      GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, static_cast<GLuint>(saved_read_fb_));
      if (!transform_feedback_active_) GL(glBindTransformFeedback)
      (GL_TRANSFORM_FEEDBACK, static_cast<GLuint>(saved_transform_feedback_));
      if (es31()) GL(glBindProgramPipeline)(static_cast<GLuint>(saved_pipeline_));
    } else {
      GL(glBindFramebuffer)(GL_FRAMEBUFFER, static_cast<GLuint>(saved_draw_fb_));
    }
    GL(glBindBuffer)(GL_ARRAY_BUFFER, static_cast<GLuint>(saved_array_buffer_));
  }

 private:
  // --- names -------------------------------------------------------------------
  // The trace's name of a replay name of the current context (0 for 0).
  uint64_t trace_name(ObjectClass cls, uint64_t replayed) {
    return names_.recorded_name(cls, replayed);
  }
  // Every object of a class: (trace name, replay name), by trace name;
  // those the app deleted only while the driver still has them (see
  // NameMap::mark_deleted). `exists` is the class's glIs*.
  template <typename IsObject>
  std::vector<std::pair<uint64_t, uint64_t>> objects(ObjectClass cls, IsObject exists) {
    std::vector<std::pair<uint64_t, uint64_t>> list;
    for (const SnapshotNames::Object& o : names_.objects(cls))
      if (!o.deleted || exists(static_cast<GLuint>(o.driver)) == GL_TRUE)
        list.emplace_back(o.recorded, o.driver);
    return list;
  }
  // Each container object of `cls` the app has: a section, the name made
  // (`gen_function`, a glGen*), then `write` when the driver still has it.
  template <typename IsObject, typename Write>
  void each_object(ObjectClass cls, const char* what, uint32_t gen_function, IsObject exists,
                   Write write) {
    for (auto [name, object] : objects(cls, exists)) {
      out_.section(std::string(what) + " " + std::to_string(name));
      gen(gen_function, name);
      auto o = static_cast<GLuint>(object);
      if (exists(o) == GL_TRUE) write(name, o);
    }
  }
  // A name no app uses, for objects the snapshot needs that the app has no
  // name for (a deleted shader still attached, what it draws the window's
  // contents with): from high up (drivers count names from 1), the same in
  // every snapshot of the same state.
  uint64_t unused_name() { return kFirstUnusedName + unused_names_++; }
  static constexpr uint64_t kFirstUnusedName = 0x7fff0000;

  // The object is made, unless a refresh writes into one made before.
  void gen(uint32_t function, uint64_t name) {
    if (!refresh_) call_.s(1).uints({name}).emit(function);
  }

  void inexact(const std::string& what, const std::string& why) { out_.inexact(what + ": " + why); }

  // The uploads below read client memory, tightly packed; the context
  // state pass sets the app's values again at the end.
  void unpack_defaults() {
    call_.u(GL_UNPACK_ALIGNMENT).s(1).emit(FN(glPixelStorei));
    if (!es3()) return;
    for (GLenum pname : {GL_UNPACK_ROW_LENGTH, GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_ROWS,
                         GL_UNPACK_SKIP_PIXELS, GL_UNPACK_SKIP_IMAGES})
      call_.u(pname).s(0).emit(FN(glPixelStorei));
    call_.u(GL_PIXEL_UNPACK_BUFFER).u(0).emit(FN(glBindBuffer));
  }

  // --- buffers -----------------------------------------------------------------
  void buffers() {
    const bool storage = es3() && has_extension("GL_EXT_buffer_storage");
    for (auto [name, buffer] : objects(ObjectClass::kBuffer, GL(glIsBuffer))) {
      std::string what = "buffer " + std::to_string(name);
      out_.section(what);
      gen(FN(glGenBuffers), name);
      if (GL(glIsBuffer)(static_cast<GLuint>(buffer)) != GL_TRUE) continue;
      GLenum target = es3() ? GL_COPY_WRITE_BUFFER : GL_ARRAY_BUFFER;
      call_.u(target).u(name).emit(FN(glBindBuffer));
      if (!es3()) {
        inexact(what, "ES 2 cannot read a buffer back");
        continue;
      }
      GL(glBindBuffer)(GL_COPY_READ_BUFFER, static_cast<GLuint>(buffer));
      GLint64 size = 0;
      GLint usage = GL_STATIC_DRAW, mapped = GL_FALSE, immutable = GL_FALSE, flags = 0;
      GL(glGetBufferParameteri64v)(GL_COPY_READ_BUFFER, GL_BUFFER_SIZE, &size);
      GL(glGetBufferParameteriv)(GL_COPY_READ_BUFFER, GL_BUFFER_USAGE, &usage);
      GL(glGetBufferParameteriv)(GL_COPY_READ_BUFFER, GL_BUFFER_MAPPED, &mapped);
      if (storage) {
        GL(glGetBufferParameteriv)
        (GL_COPY_READ_BUFFER, GL_BUFFER_IMMUTABLE_STORAGE_EXT, &immutable);
        if (immutable == GL_TRUE)
          GL(glGetBufferParameteriv)(GL_COPY_READ_BUFFER, GL_BUFFER_STORAGE_FLAGS_EXT, &flags);
      }
      std::string data;
      if (size > 0 && mapped == GL_TRUE)
        inexact(what, "mapped when the snapshot was taken");
      else if (size > 0 && !read_buffer(size, &data))
        inexact(what, "its contents could not be read (glMapBufferRange failed)");
      if (immutable == GL_TRUE && refresh_) {
        // Its storage is there, and only a buffer of dynamic storage takes
        // new contents from a call.
        if (data.empty()) continue;
        if ((flags & GL_DYNAMIC_STORAGE_BIT_EXT) == 0) {
          inexact(what, "immutable storage without GL_DYNAMIC_STORAGE_BIT: contents not written");
          continue;
        }
        call_.u(target).s(0).s(size).bytes(std::move(data)).emit(FN(glBufferSubData));
        continue;
      }
      call_.u(target).s(size);
      if (data.empty())
        call_.pointer(0);
      else
        call_.bytes(std::move(data));
      // Immutable storage (EXT_buffer_storage) with its flags: a persistent
      // mapping of it needs them.
      if (immutable == GL_TRUE)
        call_.u(static_cast<uint64_t>(flags)).emit(FN(glBufferStorageEXT));
      else
        call_.u(static_cast<uint64_t>(usage)).emit(FN(glBufferData));
    }
  }

  // The contents of the buffer bound to GL_COPY_READ_BUFFER. A buffer of
  // immutable storage made without GL_MAP_READ_BIT cannot be mapped for
  // reading: it is copied into a buffer of ours that can.
  bool read_buffer(GLint64 size, std::string* data) {
    auto length = static_cast<GLsizeiptr>(size);
    if (const void* p = GL(glMapBufferRange)(GL_COPY_READ_BUFFER, 0, length, GL_MAP_READ_BIT)) {
      data->assign(static_cast<const char*>(p), static_cast<size_t>(size));
      GL(glUnmapBuffer)(GL_COPY_READ_BUFFER);
      return true;
    }
    clear_errors();  // the failed map's
    GLint saved_copy_write = integer(GL_COPY_WRITE_BUFFER_BINDING);
    GLuint copy = 0;
    GL(glGenBuffers)(1, &copy);
    GL(glBindBuffer)(GL_COPY_WRITE_BUFFER, copy);
    GL(glBufferData)(GL_COPY_WRITE_BUFFER, length, nullptr, GL_STREAM_READ);
    GL(glCopyBufferSubData)(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, length);
    const void* p = GL(glMapBufferRange)(GL_COPY_WRITE_BUFFER, 0, length, GL_MAP_READ_BIT);
    if (p != nullptr) {
      data->assign(static_cast<const char*>(p), static_cast<size_t>(size));
      GL(glUnmapBuffer)(GL_COPY_WRITE_BUFFER);
    }
    GL(glBindBuffer)(GL_COPY_WRITE_BUFFER, static_cast<GLuint>(saved_copy_write));
    GL(glDeleteBuffers)(1, &copy);
    return p != nullptr;
  }

  // --- textures ----------------------------------------------------------------
  void textures() {
    for (auto [name, texture] : objects(ObjectClass::kTexture, GL(glIsTexture))) {
      out_.section("texture " + std::to_string(name));
      gen(FN(glGenTextures), name);
      auto t = static_cast<GLuint>(texture);
      if (GL(glIsTexture)(t) != GL_TRUE) continue;
      GLenum target = 0;
      try {
        target = texture_target(t);
      } catch (const RequestError& e) {
        inexact("texture " + std::to_string(name), e.message);
        continue;
      }
      call_.u(target).u(name).emit(FN(glBindTexture));
      uint64_t texture_name = name;  // a lambda cannot capture a structured binding (clang 14)
      with_texture(target, t, [&] { texture_image(texture_name, target, t); });
    }
  }

  void texture_image(uint64_t name, GLenum target, GLuint t) {
    std::string what = "texture " + std::to_string(name);
    auto get_level = GL(glGetTexLevelParameteriv);
    if (get_level == nullptr || major_ < 3 || (major_ == 3 && minor_ < 1)) {
      inexact(what, "reading a texture's size needs ES 3.1 (glGetTexLevelParameteriv)");
      return;
    }
    if (target == GL_TEXTURE_2D || target == kTextureExternal) {
      SnapshotNames::Image image = names_.image_of(ObjectClass::kTexture, t);
      if (image.image != 0) {
        GLint width = 0, height = 0, format = 0, next_level = 0;
        get_level(target, 0, GL_TEXTURE_WIDTH, &width);
        get_level(target, 0, GL_TEXTURE_HEIGHT, &height);
        get_level(target, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
        get_level(target, 1, GL_TEXTURE_WIDTH, &next_level);
        if (next_level > 0)
          inexact(what, "its levels above 0 are not part of the EGL image it shares: left out");
        image_sibling(what, name, false, target, t, width, height, format, image);
        texture_parameters(target);
        return;
      }
    }
    GLint immutable = GL_FALSE, immutable_levels = 0;
    GL(glGetTexParameteriv)(target, GL_TEXTURE_IMMUTABLE_FORMAT, &immutable);
    GL(glGetTexParameteriv)(target, GL_TEXTURE_IMMUTABLE_LEVELS, &immutable_levels);
    bool cube = target == GL_TEXTURE_CUBE_MAP;
    bool three_d = is_layered(target);
    GLenum first_face = cube ? GL_TEXTURE_CUBE_MAP_POSITIVE_X : target;
    GLint width = 0, height = 0, depth = 0, format = 0, samples = 0;
    get_level(first_face, 0, GL_TEXTURE_WIDTH, &width);
    get_level(first_face, 0, GL_TEXTURE_HEIGHT, &height);
    get_level(first_face, 0, GL_TEXTURE_DEPTH, &depth);
    get_level(first_face, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
    if (target == GL_TEXTURE_2D_MULTISAMPLE && refresh_) return;  // no contents read yet
    if (target == GL_TEXTURE_2D_MULTISAMPLE) {
      get_level(target, 0, GL_TEXTURE_SAMPLES, &samples);
      GLint fixed = GL_TRUE;
      get_level(target, 0, GL_TEXTURE_FIXED_SAMPLE_LOCATIONS, &fixed);
      call_.u(target).s(samples).u(static_cast<uint64_t>(format)).s(width).s(height).u(fixed);
      call_.emit(FN(glTexStorage2DMultisample));
      std::string why = multisample_contents(name, t, false, format, samples, width, height);
      if (!why.empty()) inexact(what, why);
      texture_parameters(target);
      return;
    }
    if (immutable == GL_TRUE && !refresh_) {
      call_.u(target).s(immutable_levels).u(static_cast<uint64_t>(format)).s(width).s(height);
      if (three_d) call_.s(depth);
      call_.emit(three_d ? FN(glTexStorage3D) : FN(glTexStorage2D));
    }
    int faces = cube ? 6 : 1;
    for (GLint level = 0; level < 16; ++level) {
      for (int face = 0; face < faces; ++face) {
        GLenum face_target =
            cube ? static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face) : target;
        GLint w = 0, h = 0, d = 0, f = 0;
        get_level(face_target, level, GL_TEXTURE_WIDTH, &w);
        get_level(face_target, level, GL_TEXTURE_HEIGHT, &h);
        get_level(face_target, level, GL_TEXTURE_DEPTH, &d);
        get_level(face_target, level, GL_TEXTURE_INTERNAL_FORMAT, &f);
        if (w <= 0 || h <= 0) continue;
        level_image(what, target, face_target, t, level, w, h, three_d ? d : 1, f,
                    immutable == GL_TRUE);
      }
    }
    texture_parameters(target);
  }

  // One level (one face of a cube) uploaded with what it holds.
  void level_image(const std::string& what, GLenum target, GLenum face_target, GLuint t,
                   GLint level, GLint w, GLint h, GLint d, GLint format, bool immutable) {
    if (block_format(static_cast<GLenum>(format))) {
      compressed_level_image(what, target, face_target, t, level, w, h, d, format, immutable);
      return;
    }
    std::optional<PixelTransfer> transfer = transfer_of(format);
    if (format == GL_DEPTH_COMPONENT) {
      // ES 2's unsized depth: uploaded again as 16 bits when it holds 16
      // (the replay's driver then stores as many).
      GLint bits = 0;
      GL(glGetTexLevelParameteriv)(face_target, level, GL_TEXTURE_DEPTH_SIZE, &bits);
      if (bits == 16) transfer = transfer_of(GL_DEPTH_COMPONENT16);
    }
    std::string data;
    std::string level_what = what + " level " + std::to_string(level);
    if (!transfer) {
      inexact(level_what, "its format " +
                              enum_text(static_cast<uint32_t>(format), "InternalFormat") +
                              " is not read back yet: left undefined");
    } else if (!read_level(target, face_target, t, level, w, h, d, *transfer, &data)) {
      inexact(level_what, "it could not be read back through a framebuffer: left undefined");
      data.clear();
    }
    bool three_d = is_layered(target);
    GLenum upload_format = transfer ? transfer->format : GL_RGBA;
    GLenum upload_type = transfer ? transfer->type : GL_UNSIGNED_BYTE;
    if (immutable) {
      if (data.empty()) return;  // the storage is there, undefined
      call_.u(face_target).s(level).s(0).s(0);
      if (three_d) call_.s(0);
      call_.s(w).s(h);
      if (three_d) call_.s(d);
      call_.u(upload_format).u(upload_type).bytes(std::move(data));
      call_.emit(three_d ? FN(glTexSubImage3D) : FN(glTexSubImage2D));
      return;
    }
    if (!transfer) return;  // no format and type to allocate it with
    call_.u(face_target).s(level).s(format).s(w).s(h);
    if (three_d) call_.s(d);
    call_.s(0).u(upload_format).u(upload_type);
    if (data.empty())
      call_.pointer(0);
    else
      call_.bytes(std::move(data));
    call_.emit(three_d ? FN(glTexImage3D) : FN(glTexImage2D));
  }

  // A compressed level: GLES cannot read it back; the bytes the app's
  // uploads gave it are the copy SnapshotNames keeps. Without them a level
  // that needs storage gets it undefined, said so.
  void compressed_level_image(const std::string& what, GLenum target, GLenum face_target, GLuint t,
                              GLint level, GLint w, GLint h, GLint d, GLint format,
                              bool immutable) {
    CompressedLevel kept;
    std::string lost;
    if (!names_.compressed_level(t, face_target, level, &kept))
      lost =
          "its compressed bytes were not kept (a traceable app keeps them within "
          "debug.gltrace.shadow_mb from when the trace layer loaded)";
    else if (!kept.lost.empty())
      lost = kept.lost;
    else if (kept.format != static_cast<GLenum>(format) || kept.width != w || kept.height != h ||
             kept.depth != d)
      lost = "changed since its compressed upload";
    size_t size = compressed_image_bytes(static_cast<GLenum>(format), w, h, d);
    if (!lost.empty()) {
      inexact(what + " level " + std::to_string(level), lost + ": left undefined");
      if (immutable) return;  // the storage is there
    }
    bool three_d = is_layered(target);
    if (!immutable) {
      call_.u(face_target).s(level).u(static_cast<uint64_t>(format)).s(w).s(h);
      if (three_d) call_.s(d);
      call_.s(0).s(static_cast<int64_t>(size));
      if (lost.empty() && kept.whole)
        call_.bytes(std::move(kept.bytes));
      else
        call_.pointer(0);  // storage, undefined (where no part was uploaded)
      call_.emit(three_d ? FN(glCompressedTexImage3D) : FN(glCompressedTexImage2D));
      if (!lost.empty() || kept.whole) return;
    }
    auto sub_image = [&](const CompressedRegion& r, std::string bytes) {
      call_.u(face_target).s(level).s(r.x).s(r.y);
      if (three_d) call_.s(r.z);
      call_.s(r.width).s(r.height);
      if (three_d) call_.s(r.depth);
      call_.u(static_cast<uint64_t>(format)).s(static_cast<int64_t>(bytes.size()));
      call_.bytes(std::move(bytes));
      call_.emit(three_d ? FN(glCompressedTexSubImage3D) : FN(glCompressedTexSubImage2D));
    };
    if (kept.whole) {
      sub_image(CompressedRegion{0, 0, 0, w, h, d}, std::move(kept.bytes));
      return;
    }
    // Only the parts the app uploaded, in its order: the rest is undefined
    // in the app as in the replay.
    for (CompressedPart& part : kept.parts) sub_image(part.region, std::move(part.bytes));
  }

  // The texels of a level through the snapshot's framebuffer, layer by
  // layer, as the upload wants them; false when the framebuffer is not
  // complete or the read fails.
  bool read_level(GLenum target, GLenum face_target, GLuint t, GLint level, GLint w, GLint h,
                  GLint d, const PixelTransfer& transfer, std::string* data) {
    if (static_cast<int64_t>(w) * h * d > (int64_t{1} << 28)) return false;
    if (transfer.attachment != 0)
      return read_depth_stencil(target, face_target, t, level, w, h, d, transfer, data);
    if (transfer.srgb && !srgb_reads_stored()) return false;
    if (transfer.through_shader) {
      std::vector<uint8_t> rgba;
      if (target != GL_TEXTURE_2D || !shader_copy_.read(t, level, w, h, &rgba)) return false;
      size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(h);
      data->resize(pixels * static_cast<size_t>(transfer.components));
      for (size_t i = 0; i < pixels; ++i)
        for (int c = 0; c < transfer.components; ++c)
          (*data)[i * transfer.components + c] = static_cast<char>(rgba[i * 4 + transfer.pick[c]]);
      return true;
    }
    // A level other than the base one attaches only to a mipmap complete
    // texture: its base level is moved there meanwhile (ES 3.0 9.4.1).
    GLint base_level = 0;
    GL(glGetTexParameteriv)(target, GL_TEXTURE_BASE_LEVEL, &base_level);
    if (base_level != level) GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, level);
    GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, read_fb_);
    size_t element = transfer.read_type == GL_UNSIGNED_BYTE ? 1 : 4;
    size_t stored = transfer.upload_element != 0 ? transfer.upload_element : element;
    size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(h);
    std::vector<uint8_t> rgba(pixels * 4 * element);
    bool ok = true;
    clear_errors();
    {
      PixelStoreScope packing({GL(glGetIntegerv), GL(glPixelStorei), GL(glBindBuffer)}, true,
                              PixelStoreScope::Direction::kPack);
      packing.set_tightly_packed();
      for (GLint layer = 0; layer < d && ok; ++layer) {
        if (is_layered(target))
          GL(glFramebufferTextureLayer)(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, t, level, layer);
        else
          GL(glFramebufferTexture2D)
        (GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, face_target, t, level);
        GL(glReadBuffer)(GL_COLOR_ATTACHMENT0);
        if (GL(glCheckFramebufferStatus)(GL_READ_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
          ok = false;
          break;
        }
        GL(glReadPixels)(0, 0, w, h, transfer.read_format, transfer.read_type, rgba.data());
        if (GL(glGetError)() != GL_NO_ERROR) {
          ok = false;
          break;
        }
        // The upload's components of each RGBA texel, in its order.
        size_t components = static_cast<size_t>(transfer.components);
        size_t start = data->size();
        data->resize(start + pixels * components * stored);
        for (size_t i = 0; i < pixels; ++i)
          for (size_t c = 0; c < components; ++c)
            memcpy(data->data() + start + (i * components + c) * stored,
                   rgba.data() + (i * 4 + transfer.pick[c]) * element, stored);
      }
    }
    GL(glFramebufferTexture2D)(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    if (base_level != level) GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, base_level);
    return ok;
  }

  // A depth or stencil texture's level (2D, a cube face, or every layer),
  // as its stored values.
  bool read_depth_stencil(GLenum target, GLenum face_target, GLuint t, GLint level, GLint w,
                          GLint h, GLint d, const PixelTransfer& transfer, std::string* data) {
    GLint base_level = 0;
    GL(glGetTexParameteriv)(target, GL_TEXTURE_BASE_LEVEL, &base_level);
    if (base_level != level) GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, level);
    GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, read_fb_);
    bool ok = true;
    data->clear();
    for (GLint layer = 0; layer < d && ok; ++layer) {
      if (is_layered(target))
        GL(glFramebufferTextureLayer)(GL_READ_FRAMEBUFFER, transfer.attachment, t, level, layer);
      else
        GL(glFramebufferTexture2D)(GL_READ_FRAMEBUFFER, transfer.attachment, face_target, t, level);
      ok = read_attachment(w, h, transfer, data);
    }
    GL(glFramebufferTexture2D)(GL_READ_FRAMEBUFFER, transfer.attachment, GL_TEXTURE_2D, 0, 0);
    if (base_level != level) GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, base_level);
    return ok;
  }

  // The bound read framebuffer's depth or stencil values (w x h), appended
  // to *data as the upload wants them; false when they cannot be read.
  bool read_attachment(GLint w, GLint h, const PixelTransfer& transfer, std::string* data) {
    if (!can_read(transfer.attachment)) return false;
    if (w <= 0 || h <= 0 || static_cast<int64_t>(w) * h > (int64_t{1} << 26)) return false;
    size_t start = data->size();
    data->resize(start + static_cast<size_t>(w) * static_cast<size_t>(h) * transfer.element);
    clear_errors();
    if (GL(glCheckFramebufferStatus)(GL_READ_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) return false;
    PixelStoreScope packing({GL(glGetIntegerv), GL(glPixelStorei), GL(glBindBuffer)}, true,
                            PixelStoreScope::Direction::kPack);
    packing.set_tightly_packed();
    GL(glReadPixels)(0, 0, w, h, transfer.format, transfer.read_type, data->data() + start);
    return GL(glGetError)() == GL_NO_ERROR;
  }

  // Whether glReadPixels of an sRGB attachment gives the stored values, not
  // converted ones (Mesa's does; asked once, of a 1x1 texture of our own).
  bool srgb_reads_stored() {
    if (srgb_reads_stored_) return *srgb_reads_stored_;
    GLint bound = integer(GL_TEXTURE_BINDING_2D);
    GLuint probe = 0;
    GL(glGenTextures)(1, &probe);
    GL(glBindTexture)(GL_TEXTURE_2D, probe);
    const char stored[4] = {100, 110, 120, 127};
    std::string read;
    PixelStoreScope unpacking({GL(glGetIntegerv), GL(glPixelStorei), GL(glBindBuffer)}, true,
                              PixelStoreScope::Direction::kUnpack);
    unpacking.set_tightly_packed();
    GL(glTexImage2D)(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, 1, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, stored);
    GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, read_fb_);
    GL(glFramebufferTexture2D)(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, probe, 0);
    GL(glReadBuffer)(GL_COLOR_ATTACHMENT0);
    bool ok = read_rgba8(1, 1, &read);
    GL(glFramebufferTexture2D)(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    GL(glDeleteTextures)(1, &probe);
    GL(glBindTexture)(GL_TEXTURE_2D, static_cast<GLuint>(bound));
    srgb_reads_stored_ = ok && read == std::string(stored, sizeof stored);
    return *srgb_reads_stored_;
  }

  // Whether glReadPixels reads an attachment of this kind (asked once).
  bool can_read(GLenum attachment) {
    auto known = readable_.find(attachment);
    if (known != readable_.end()) return known->second;
    bool yes = has_extension(read_extension(attachment)) ||
               (attachment == GL_DEPTH_ATTACHMENT && has_extension("GL_NV_read_depth_stencil"));
    readable_.emplace(attachment, yes);
    return yes;
  }

  // ES 2's way (a context of any version answers it): the list as one string.
  bool has_extension(std::string_view name) {
    return extension_listed(GL(glGetString)(GL_EXTENSIONS), name);
  }

  // The texture bound to `target` in the driver: its parameters, from the
  // state table's texture entries.
  void texture_parameters(GLenum target) {
    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kTexture || e.query != StateQuery::kTexParameter || !has(e))
        continue;
      if (e.pname == GL_TEXTURE_IMMUTABLE_FORMAT) continue;  // read only
      GLint value = 0;
      GL(glGetTexParameteriv)(target, e.pname, &value);
      call_.u(target).u(e.pname).s(value).emit(FN(glTexParameteri));
    }
  }

  // --- EGL images ----------------------------------------------------------------
  // A texture (level 0) or renderbuffer that shares an EGL image's storage:
  // targeted at the image again, so writes through one show through the
  // others, as in the app. The image is made once, by the first of its
  // siblings written, of that one's pixels (read as RGBA8). A refresh
  // writes a texture's pixels into the storage that is there.
  void image_sibling(const std::string& what, uint64_t name, bool renderbuffer, GLenum target,
                     GLuint object, GLint width, GLint height, GLint format,
                     const SnapshotNames::Image& image) {
    std::string pixels;
    bool wanted = image.first || refresh_;
    bool read = wanted && read_color(renderbuffer, object, width, height, &pixels);
    if (wanted) {
      if (!read)
        inexact(what, "the pixels of the EGL image it shares could not be read: left undefined");
      else if (!held_by_rgba8(format) && format != GL_RGBA && format != GL_RGB)
        inexact(what, "the EGL image it shares is made again as RGBA8, from " +
                          enum_text(static_cast<uint32_t>(format), "InternalFormat"));
    }
    if (refresh_) {  // of a texture: a refresh writes no renderbuffers
      if (!read) return;
      call_.u(target).s(0).s(0).s(0).s(width).s(height).u(GL_RGBA).u(GL_UNSIGNED_BYTE);
      call_.bytes(std::move(pixels)).emit(FN(glTexSubImage2D));
      return;
    }
    if (image.first) {
      if (read)
        out_.image_pixels(static_cast<uint32_t>(width), static_cast<uint32_t>(height),
                          out_.blob(pixels));
      // Made of this object's pixels, not of the object (the replay has none
      // to make it of yet): ctx none, buffer the object's name, for readers.
      call_.u(image.display).u(0).u(renderbuffer ? EGL_GL_RENDERBUFFER : EGL_GL_TEXTURE_2D);
      call_.u(name).sints({EGL_IMAGE_PRESERVED, EGL_TRUE, EGL_NONE});
      call_.emit_returning_uint(FN(eglCreateImageKHR), image.image);
    }
    call_.u(target).u(image.image);
    call_.emit(renderbuffer ? FN(glEGLImageTargetRenderbufferStorageOES)
                            : FN(glEGLImageTargetTexture2DOES));
  }

  // Level 0 of a texture, or a renderbuffer, as RGBA8 through the
  // snapshot's framebuffer.
  bool read_color(bool renderbuffer, GLuint object, GLint width, GLint height,
                  std::string* pixels) {
    auto attach = [&](GLuint o) {
      if (renderbuffer) {
        GL(glFramebufferRenderbuffer)
        (GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o);
      } else {
        GL(glFramebufferTexture2D)(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, o, 0);
      }
    };
    GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, read_fb_);
    attach(object);
    GL(glReadBuffer)(GL_COLOR_ATTACHMENT0);
    bool ok = GL(glCheckFramebufferStatus)(GL_READ_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE &&
              read_rgba8(width, height, pixels);
    attach(0);
    return ok;
  }

  // --- renderbuffers, samplers -------------------------------------------------
  void renderbuffers() {
    for (auto [name, renderbuffer] : objects(ObjectClass::kRenderbuffer, GL(glIsRenderbuffer))) {
      out_.section("renderbuffer " + std::to_string(name));
      gen(FN(glGenRenderbuffers), name);
      auto r = static_cast<GLuint>(renderbuffer);
      if (GL(glIsRenderbuffer)(r) != GL_TRUE) continue;
      GL(glBindRenderbuffer)(GL_RENDERBUFFER, r);
      GLint width = 0, height = 0, format = 0, samples = 0;
      auto get = GL(glGetRenderbufferParameteriv);
      get(GL_RENDERBUFFER, GL_RENDERBUFFER_WIDTH, &width);
      get(GL_RENDERBUFFER, GL_RENDERBUFFER_HEIGHT, &height);
      get(GL_RENDERBUFFER, GL_RENDERBUFFER_INTERNAL_FORMAT, &format);
      if (es3()) get(GL_RENDERBUFFER, GL_RENDERBUFFER_SAMPLES, &samples);
      call_.u(GL_RENDERBUFFER).u(name).emit(FN(glBindRenderbuffer));
      if (width == 0 || height == 0) continue;  // no storage yet
      if (SnapshotNames::Image image = names_.image_of(ObjectClass::kRenderbuffer, r);
          image.image != 0) {
        image_sibling("renderbuffer " + std::to_string(name), name, true, GL_RENDERBUFFER, r, width,
                      height, format, image);
        continue;
      }
      if (samples > 0) {
        call_.u(GL_RENDERBUFFER).s(samples).u(static_cast<uint64_t>(format)).s(width).s(height);
        call_.emit(FN(glRenderbufferStorageMultisample));
      } else {
        call_.u(GL_RENDERBUFFER).u(static_cast<uint64_t>(format)).s(width).s(height);
        call_.emit(FN(glRenderbufferStorage));
      }
      renderbuffer_contents(name, r, width, height, format, samples);
    }
  }

  // A renderbuffer's pixels, drawn back with a blit from a texture of the
  // snapshot's own: color of fixed-point formats as RGBA8 (which holds them
  // exactly), depth and stencil in the renderbuffer's own format.
  void renderbuffer_contents(uint64_t name, GLuint r, GLint width, GLint height, GLint format,
                             GLint samples) {
    std::string what = "renderbuffer " + std::to_string(name);
    bool fixed_point = held_by_rgba8(format);
    if (samples > 0 && fixed_point) {
      std::string why = multisample_contents(name, r, true, format, samples, width, height);
      if (!why.empty()) inexact(what, why);
      return;
    }
    std::optional<PixelTransfer> transfer = transfer_of(fixed_point ? GL_RGBA8 : format);
    if (!es3() || samples > 0 || !transfer || (!fixed_point && transfer->attachment == 0)) {
      inexact(what, std::string(samples > 0 ? "multisampled" : "its format") +
                        ": its contents are not restored yet (left undefined)");
      return;
    }
    GLenum attachment = transfer->attachment != 0 ? transfer->attachment : GL_COLOR_ATTACHMENT0;
    std::string pixels;
    bool read = false;
    if (transfer->attachment != 0) {
      GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, read_fb_);
      GL(glFramebufferRenderbuffer)(GL_READ_FRAMEBUFFER, attachment, GL_RENDERBUFFER, r);
      read = read_attachment(width, height, *transfer, &pixels);
      GL(glFramebufferRenderbuffer)(GL_READ_FRAMEBUFFER, attachment, GL_RENDERBUFFER, 0);
    } else {
      read = read_color(true, r, width, height, &pixels);
    }
    if (!read) {
      inexact(what, "its contents could not be read: left undefined");
      return;
    }
    uint64_t target = unused_name();
    call_.s(1).uints({target}).emit(FN(glGenFramebuffers));
    call_.u(GL_DRAW_FRAMEBUFFER).u(target).emit(FN(glBindFramebuffer));
    call_.u(GL_DRAW_FRAMEBUFFER).u(attachment).u(GL_RENDERBUFFER).u(name);
    call_.emit(FN(glFramebufferRenderbuffer));
    blit_into_draw_framebuffer(width, height, std::move(pixels),
                               transfer->attachment != 0 ? format : GL_RGBA8, *transfer);
    call_.u(GL_DRAW_FRAMEBUFFER).u(0).emit(FN(glBindFramebuffer));
    call_.s(1).uints({target}).emit(FN(glDeleteFramebuffers));
  }

  // A multisampled color renderbuffer's or texture's samples (RGBA8-exact
  // formats), read one by one (ShaderCopy::read_samples) and written back
  // with a draw per sample that only its bit of the sample mask lets
  // through. Empty when done, else why not.
  std::string multisample_contents(uint64_t name, GLuint object, bool renderbuffer, GLint format,
                                   GLint samples, GLint width, GLint height) {
    bool fixed_point = held_by_rgba8(format);
    if (!fixed_point || major_ < 3 || (major_ == 3 && minor_ < 1) || samples > 32 ||
        static_cast<int64_t>(width) * height * samples > (int64_t{1} << 26))
      return "its samples are not read back for its format, size or ES version: left undefined";
    std::vector<std::vector<uint8_t>> images;
    if (!shader_copy_.read_samples(object, renderbuffer, static_cast<GLenum>(format), samples,
                                   width, height, &images))
      return "its samples could not be read (ES 3.2's glCopyImageSubData and a sampler2DMS "
             "draw): left undefined";
    uint64_t target = unused_name();
    call_.s(1).uints({target}).emit(FN(glGenFramebuffers));
    call_.u(GL_DRAW_FRAMEBUFFER).u(target).emit(FN(glBindFramebuffer));
    call_.u(GL_DRAW_FRAMEBUFFER).u(GL_COLOR_ATTACHMENT0);
    if (renderbuffer)
      call_.u(GL_RENDERBUFFER).u(name).emit(FN(glFramebufferRenderbuffer));
    else
      call_.u(GL_TEXTURE_2D_MULTISAMPLE).u(name).s(0).emit(FN(glFramebufferTexture2D));
    write_samples(width, height, std::move(images));
    call_.u(GL_DRAW_FRAMEBUFFER).u(0).emit(FN(glBindFramebuffer));
    call_.s(1).uints({target}).emit(FN(glDeleteFramebuffers));
    return "";
  }

  // A program of the snapshot's own that draws one triangle over the
  // viewport, each fragment fetching its texel of unit 0's 2D texture (a
  // texture of the snapshot's own, bound there, NEAREST): `output` is the
  // fragment shader's statement that writes it from `texel`.
  struct FetchDraw {
    uint64_t program, vertex, fragment, texture;
  };
  FetchDraw begin_fetch_draw(const char* output) {
    FetchDraw d{unused_name(), unused_name(), unused_name(), unused_name()};
    auto shader = [&](uint64_t shader_name, GLenum type, std::string source) {
      call_.u(type).emit_returning_uint(FN(glCreateShader), shader_name);
      call_.u(shader_name).s(1).strings({std::move(source)}).pointer(0).emit(FN(glShaderSource));
      call_.u(shader_name).emit(FN(glCompileShader));
      call_.u(d.program).u(shader_name).emit(FN(glAttachShader));
    };
    call_.emit_returning_uint(FN(glCreateProgram), d.program);
    shader(d.vertex, GL_VERTEX_SHADER,
           "#version 300 es\n"
           "void main() {\n"
           "  gl_Position = vec4(gl_VertexID == 1 ? 3.0 : -1.0,\n"
           "                     gl_VertexID == 2 ? 3.0 : -1.0, 0.0, 1.0);\n"
           "}\n");
    shader(d.fragment, GL_FRAGMENT_SHADER,
           std::string("#version 300 es\n"
                       "precision highp float;\n"
                       "uniform highp sampler2D image;\n"
                       "out vec4 color;\n"
                       "void main() {\n"
                       "  vec4 texel = texelFetch(image, ivec2(gl_FragCoord.xy), 0);\n  ") +
               output + "\n}\n");
    call_.u(d.program).emit(FN(glLinkProgram));
    call_.u(d.program).emit(FN(glUseProgram));
    call_.u(GL_TEXTURE0).emit(FN(glActiveTexture));
    call_.s(1).uints({d.texture}).emit(FN(glGenTextures));
    call_.u(GL_TEXTURE_2D).u(d.texture).emit(FN(glBindTexture));
    for (GLenum filter : {GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER})
      call_.u(GL_TEXTURE_2D).u(filter).s(GL_NEAREST).emit(FN(glTexParameteri));
    call_.u(GL_DITHER).emit(FN(glDisable));
    return d;
  }
  // Desktop GL's compatibility profile: the matrix on top of each stack (the
  // texture matrices of each unit with coordinates), the current color and
  // the fixed-function enables that are on (all are off by default).
  void fixed_function_state() {
    namespace ff = compatibility_enums;
    GLint mode = integer(ff::kMatrixMode);
    auto load = [&](GLenum matrix_mode, GLenum query) {
      std::vector<float> m(16);
      GL(glGetFloatv)(query, m.data());
      call_.u(matrix_mode).emit(FN(glMatrixMode));
      call_.floats(std::move(m)).emit(FN(glLoadMatrixf));
    };
    load(ff::kModelview, ff::kModelviewMatrix);
    load(ff::kProjection, ff::kProjectionMatrix);
    GLint units = integer(ff::kMaxTextureCoords);
    for (GLint unit = 0; unit < units; ++unit) {
      GL(glActiveTexture)(GL_TEXTURE0 + static_cast<GLenum>(unit));
      call_.u(GL_TEXTURE0 + static_cast<uint64_t>(unit)).emit(FN(glActiveTexture));
      load(ff::kTexture, ff::kTextureMatrix);
    }
    GL(glActiveTexture)(GL_TEXTURE0);
    call_.u(GL_TEXTURE0).emit(FN(glActiveTexture));
    call_.u(static_cast<uint64_t>(mode)).emit(FN(glMatrixMode));
    float color[4] = {1, 1, 1, 1};
    GL(glGetFloatv)(ff::kCurrentColor, color);
    call_.f(color[0]).f(color[1]).f(color[2]).f(color[3]).emit(FN(glColor4f));
    for (GLenum cap : ff::kEnables)
      if (GL(glIsEnabled)(cap) == GL_TRUE) call_.u(cap).emit(FN(glEnable));
    if (integer(ff::kShadeModel) == static_cast<GLint>(ff::kFlat))
      call_.u(ff::kFlat).emit(FN(glShadeModel));
  }

  // Draws the triangle with the texture holding `texels` (w x h).
  void fetch_draw(GLint width, GLint height, GLint internal_format, GLenum format, GLenum type,
                  std::string texels) {
    call_.u(GL_TEXTURE_2D).s(0).s(internal_format).s(width).s(height).s(0).u(format);
    call_.u(type).bytes(std::move(texels)).emit(FN(glTexImage2D));
    call_.s(0).s(0).s(width).s(height).emit(FN(glViewport));
    call_.u(GL_TRIANGLES).s(0).s(3).emit(FN(glDrawArrays));
  }
  void end_fetch_draw(const FetchDraw& d) {
    call_.u(GL_DITHER).emit(FN(glEnable));
    call_.u(0).emit(FN(glUseProgram));
    call_.s(1).uints({d.texture}).emit(FN(glDeleteTextures));
    call_.u(d.program).emit(FN(glDeleteProgram));
    call_.u(d.vertex).emit(FN(glDeleteShader));
    call_.u(d.fragment).emit(FN(glDeleteShader));
  }

  // Calls that write each sample of the bound draw framebuffer's
  // multisampled color buffer from an RGBA8 image of its own, with only
  // that sample in the sample mask. A fresh context has the default state
  // (no blend, depth or scissor test); the context state is written after.
  void write_samples(GLint width, GLint height, std::vector<std::vector<uint8_t>> images) {
    FetchDraw d = begin_fetch_draw("color = texel;");
    call_.u(GL_SAMPLE_MASK).emit(FN(glEnable));
    for (size_t i = 0; i < images.size(); ++i) {
      call_.u(0).u(uint64_t{1} << i).emit(FN(glSampleMaski));
      fetch_draw(width, height, GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE,
                 std::string(images[i].begin(), images[i].end()));
    }
    call_.u(GL_SAMPLE_MASK).emit(FN(glDisable));
    call_.u(0).u(0xffffffffu).emit(FN(glSampleMaski));
    end_fetch_draw(d);
  }

  // Calls that write the bound draw framebuffer's depth buffer from its
  // values as 32-bit integers (of as many bits as it has, widened): a draw
  // whose fragments set gl_FragDepth to the float nearest each value, with
  // the depth test always passing. For depth formats no texture has (32-bit
  // integers): the driver's rounding of that float gives the value back,
  // which was itself made from a float.
  void write_depth_by_draw(GLint width, GLint height, GLint bits, const std::string& values) {
    size_t count = values.size() / 4;
    std::string floats(count * 4, '\0');
    double top = bits >= 32 ? 4294967295.0 : static_cast<double>((uint64_t{1} << bits) - 1);
    for (size_t i = 0; i < count; ++i) {
      uint32_t v = 0;
      memcpy(&v, values.data() + i * 4, 4);
      if (bits < 32) v >>= 32 - bits;  // widened by replication: the top bits are the value
      auto f = static_cast<float>(static_cast<double>(v) / top);
      memcpy(floats.data() + i * 4, &f, 4);
    }
    FetchDraw d = begin_fetch_draw("color = vec4(0.0);\n  gl_FragDepth = texel.r;");
    call_.u(GL_FALSE).u(GL_FALSE).u(GL_FALSE).u(GL_FALSE).emit(FN(glColorMask));
    call_.u(GL_DEPTH_TEST).emit(FN(glEnable));
    call_.u(GL_ALWAYS).emit(FN(glDepthFunc));
    fetch_draw(width, height, GL_R32F, GL_RED, GL_FLOAT, std::move(floats));
    call_.u(GL_LESS).emit(FN(glDepthFunc));
    call_.u(GL_DEPTH_TEST).emit(FN(glDisable));
    call_.u(GL_TRUE).u(GL_TRUE).u(GL_TRUE).u(GL_TRUE).emit(FN(glColorMask));
    end_fetch_draw(d);
  }

  // The bound read framebuffer's read buffer, width x height, as RGBA8.
  bool read_rgba8(GLint width, GLint height, std::string* pixels) {
    if (width <= 0 || height <= 0 || static_cast<int64_t>(width) * height > (int64_t{1} << 26))
      return false;
    pixels->assign(static_cast<size_t>(width) * static_cast<size_t>(height) * 4, '\0');
    clear_errors();
    PixelStoreScope packing({GL(glGetIntegerv), GL(glPixelStorei), GL(glBindBuffer)}, true,
                            PixelStoreScope::Direction::kPack);
    packing.set_tightly_packed();
    GL(glReadPixels)(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels->data());
    return GL(glGetError)() == GL_NO_ERROR;
  }

  // Calls that write pixels into the bound draw framebuffer's color, or
  // depth and stencil buffers: a texture of `internal_format` holding them
  // and a read framebuffer of the snapshot's own, a blit, both deleted (a
  // blit copies depth and stencil only between equal formats, exactly). A
  // fresh context blits unscissored: the context state is written after.
  void blit_into_draw_framebuffer(GLint width, GLint height, std::string pixels,
                                  GLint internal_format, const PixelTransfer& transfer) {
    uint64_t texture = unused_name();
    uint64_t source = unused_name();
    GLenum attachment = transfer.attachment != 0 ? transfer.attachment : GL_COLOR_ATTACHMENT0;
    call_.s(1).uints({texture}).emit(FN(glGenTextures));
    call_.u(GL_TEXTURE_2D).u(texture).emit(FN(glBindTexture));
    call_.u(GL_TEXTURE_2D).s(0).s(internal_format).s(width).s(height).s(0).u(transfer.format);
    call_.u(transfer.type).bytes(std::move(pixels)).emit(FN(glTexImage2D));
    call_.s(1).uints({source}).emit(FN(glGenFramebuffers));
    call_.u(GL_READ_FRAMEBUFFER).u(source).emit(FN(glBindFramebuffer));
    call_.u(GL_READ_FRAMEBUFFER).u(attachment).u(GL_TEXTURE_2D).u(texture).s(0);
    call_.emit(FN(glFramebufferTexture2D));
    call_.s(0).s(0).s(width).s(height).s(0).s(0).s(width).s(height);
    call_.u(blit_mask(transfer.attachment)).u(GL_NEAREST).emit(FN(glBlitFramebuffer));
    call_.u(GL_READ_FRAMEBUFFER).u(0).emit(FN(glBindFramebuffer));
    call_.s(1).uints({source}).emit(FN(glDeleteFramebuffers));
    call_.s(1).uints({texture}).emit(FN(glDeleteTextures));
  }

  void samplers() {
    if (!es3()) return;
    each_object(
        ObjectClass::kSampler, "sampler", FN(glGenSamplers), GL(glIsSampler),
        [&](uint64_t name, GLuint s) {
          for (const StateEntry& e : state_table()) {
            if (e.group != StateGroup::kTexture || e.query != StateQuery::kTexParameter || !has(e))
              continue;
            if (e.pname == GL_TEXTURE_IMMUTABLE_FORMAT || e.pname == GL_TEXTURE_BASE_LEVEL ||
                e.pname == GL_TEXTURE_MAX_LEVEL)
              continue;  // not sampler state
            GLint value = 0;
            GL(glGetSamplerParameteriv)(s, e.pname, &value);
            call_.u(name).u(e.pname).s(value).emit(FN(glSamplerParameteri));
          }
        });
  }

  // --- shaders and programs ----------------------------------------------------
  // A shader with its source, compiled; returns the trace's name.
  uint64_t shader(uint64_t name, GLuint s) {
    GLint type = 0, length = 0, compiled = GL_FALSE;
    GL(glGetShaderiv)(s, GL_SHADER_TYPE, &type);
    GL(glGetShaderiv)(s, GL_SHADER_SOURCE_LENGTH, &length);
    GL(glGetShaderiv)(s, GL_COMPILE_STATUS, &compiled);
    std::string source = shader_source(s);
    out_.section("shader " + std::to_string(name));
    call_.u(static_cast<uint64_t>(type)).emit_returning_uint(FN(glCreateShader), name);
    if (length > 0) {
      call_.u(name).s(1).strings({source}).pointer(0).emit(FN(glShaderSource));
      // Compiled again: only a compiled shader links. One changed after the
      // app compiled it is compiled with its new source (its old one is gone).
      if (compiled == GL_TRUE) call_.u(name).emit(FN(glCompileShader));
    }
    return name;
  }

  void programs() {
    std::vector<std::pair<uint64_t, uint64_t>> list =
        objects(ObjectClass::kProgram, [&](GLuint o) -> GLboolean {
          return GL(glIsProgram)(o) == GL_TRUE || GL(glIsShader)(o) == GL_TRUE ? GL_TRUE : GL_FALSE;
        });
    std::map<uint64_t, uint64_t> shader_names;  // replay -> trace, written
    for (auto [name, object] : list) {
      auto o = static_cast<GLuint>(object);
      if (GL(glIsShader)(o) == GL_TRUE) shader_names[object] = shader(name, o);
    }
    for (auto [name, object] : list) {
      auto o = static_cast<GLuint>(object);
      if (GL(glIsProgram)(o) != GL_TRUE) continue;
      program(name, o, shader_names);
    }
  }

  void program(uint64_t name, GLuint p, std::map<uint64_t, uint64_t>& shader_names) {
    out_.section("program " + std::to_string(name));
    call_.emit_returning_uint(FN(glCreateProgram), name);
    GLint attached = 0, linked = GL_FALSE;
    GL(glGetProgramiv)(p, GL_ATTACHED_SHADERS, &attached);
    GL(glGetProgramiv)(p, GL_LINK_STATUS, &linked);
    std::vector<GLuint> shaders(static_cast<size_t>(std::max(attached, 0)));
    GLsizei count = 0;
    if (!shaders.empty())
      GL(glGetAttachedShaders)(p, static_cast<GLsizei>(shaders.size()), &count, shaders.data());
    std::vector<uint64_t> deleted;   // written here for this program alone
    std::vector<uint64_t> detached;  // linked with, detached since: attached for the link alone
    if (linked == GL_TRUE && count == 0) {
      for (const LinkedShader& s : names_.linked_shaders(name)) {
        uint64_t shader_name = unused_name();
        call_.u(s.type).emit_returning_uint(FN(glCreateShader), shader_name);
        call_.u(shader_name).s(1).strings({s.source}).pointer(0).emit(FN(glShaderSource));
        call_.u(shader_name).emit(FN(glCompileShader));
        call_.u(name).u(shader_name).emit(FN(glAttachShader));
        detached.push_back(shader_name);
      }
    }
    for (GLsizei i = 0; i < count; ++i) {
      auto it = shader_names.find(shaders[i]);
      uint64_t shader_name = 0;
      if (it != shader_names.end()) {
        shader_name = it->second;
      } else {
        // Deleted by the app, alive while attached: made, attached, deleted.
        shader_name = unused_name();
        shader(shader_name, shaders[i]);
        out_.section("program " + std::to_string(name));
        deleted.push_back(shader_name);
      }
      call_.u(name).u(shader_name).emit(FN(glAttachShader));
    }
    if (linked == GL_TRUE && count == 0 && detached.empty()) {
      // No shader to link it from (made from a program binary, as Qt's
      // shader cache does, or detached): the driver's binary of it.
      std::string binary;
      GLenum format = 0;
      if (!program_binary(p, &binary, &format)) {
        inexact("program " + std::to_string(name),
                "its shaders were detached after it linked: it cannot be linked again");
      } else {
        inexact("program " + std::to_string(name),
                "no shader of it is left: written as its driver's program binary, which "
                "replays on the capture's driver only");
        auto length = static_cast<int64_t>(binary.size());
        call_.u(name).u(format).bytes(std::move(binary)).s(length).emit(FN(glProgramBinary));
        uniforms(name, p);
      }
    } else if (linked == GL_TRUE) {
      attribute_bindings(name, p);
      transform_feedback_varyings(name, p);
      GLint separable = GL_FALSE;
      if (es31()) GL(glGetProgramiv)(p, GL_PROGRAM_SEPARABLE, &separable);
      if (separable == GL_TRUE)
        call_.u(name).u(GL_PROGRAM_SEPARABLE).s(GL_TRUE).emit(FN(glProgramParameteri));
      call_.u(name).emit(FN(glLinkProgram));
      uniforms(name, p);
    }
    for (uint64_t shader_name : detached) {
      call_.u(name).u(shader_name).emit(FN(glDetachShader));
      call_.u(shader_name).emit(FN(glDeleteShader));
    }
    for (uint64_t shader_name : deleted) call_.u(shader_name).emit(FN(glDeleteShader));
  }

  // A linked program's binary (ES 3.0, desktop GL 4.1), false when the
  // driver has none.
  bool program_binary(GLuint p, std::string* binary, GLenum* format) {
    constexpr GLenum kProgramBinaryLength = 0x8741;
    GLint length = 0;
    if (!es3()) return false;
    GL(glGetProgramiv)(p, kProgramBinaryLength, &length);
    if (length <= 0) return false;
    binary->resize(static_cast<size_t>(length));
    GLsizei written = 0;
    GL(glGetProgramBinary)(p, length, &written, format, binary->data());
    binary->resize(static_cast<size_t>(std::max(written, 0)));
    return written > 0;
  }

  // Every active attribute bound to the location the trace knows it by, so
  // the new link gives each the location the app uses.
  void attribute_bindings(uint64_t name, GLuint p) {
    for (const ActiveVariable& a : active_variables(p, GL_ACTIVE_ATTRIBUTES)) {
      const std::string& attribute = a.name;
      if (attribute.starts_with("gl_")) continue;  // built-ins have no location
      GLint location = GL(glGetAttribLocation)(p, attribute.c_str());
      if (location < 0) continue;
      int64_t recorded = names_.recorded_attrib_location(name, location);
      call_.u(name).u(static_cast<uint64_t>(recorded)).text(attribute);
      call_.emit(FN(glBindAttribLocation));
    }
  }

  void transform_feedback_varyings(uint64_t name, GLuint p) {
    if (!es3()) return;
    GLint count = 0, max_length = 0, mode = GL_INTERLEAVED_ATTRIBS;
    GL(glGetProgramiv)(p, GL_TRANSFORM_FEEDBACK_VARYINGS, &count);
    if (count <= 0) return;
    GL(glGetProgramiv)(p, GL_TRANSFORM_FEEDBACK_VARYING_MAX_LENGTH, &max_length);
    GL(glGetProgramiv)(p, GL_TRANSFORM_FEEDBACK_BUFFER_MODE, &mode);
    std::vector<std::string> names;
    std::string buffer(static_cast<size_t>(std::max(max_length, 1)) + 1, '\0');
    for (GLint i = 0; i < count; ++i) {
      GLsizei length = 0, size = 0;
      GLenum type = 0;
      GL(glGetTransformFeedbackVarying)
      (p, static_cast<GLuint>(i), static_cast<GLsizei>(buffer.size()), &length, &size, &type,
       buffer.data());
      names.emplace_back(buffer.data(), static_cast<size_t>(std::max(length, 0)));
    }
    call_.u(name).s(count).strings(std::move(names)).u(static_cast<uint64_t>(mode));
    call_.emit(FN(glTransformFeedbackVaryings));
  }

  // Every active uniform's value, at the location the trace knows it by
  // (learnt by a glGetUniformLocation the replay maps), and every uniform
  // block's binding.
  void uniforms(uint64_t name, GLuint p) {
    call_.u(name).emit(FN(glUseProgram));
    for (const auto& [uniform, size, type] : active_variables(p, GL_ACTIVE_UNIFORMS)) {
      bool array = uniform.ends_with("[0]");
      std::string base = array ? uniform.substr(0, uniform.size() - 3) : uniform;
      for (GLint k = 0; k < std::max(size, 1); ++k) {
        std::string element = array ? base + "[" + std::to_string(k) + "]" : base;
        GLint location = GL(glGetUniformLocation)(p, element.c_str());
        if (location < 0) continue;  // in a block: no location
        uniform_value(name, p, element, location, type);
      }
    }
    if (!es3()) return;
    GLint blocks = 0, max_length = 0;
    GL(glGetProgramiv)(p, GL_ACTIVE_UNIFORM_BLOCKS, &blocks);
    GL(glGetProgramiv)(p, GL_ACTIVE_UNIFORM_BLOCK_MAX_NAME_LENGTH, &max_length);
    std::string buffer(static_cast<size_t>(std::max(max_length, 1)) + 1, '\0');
    for (GLint b = 0; b < blocks; ++b) {
      GLsizei length = 0;
      GL(glGetActiveUniformBlockName)
      (p, static_cast<GLuint>(b), static_cast<GLsizei>(buffer.size()), &length, buffer.data());
      std::string block(buffer.data(), static_cast<size_t>(std::max(length, 0)));
      GLint binding = 0;
      GL(glGetActiveUniformBlockiv)(p, static_cast<GLuint>(b), GL_UNIFORM_BLOCK_BINDING, &binding);
      uint64_t index = names_.recorded_resource_index(name, GL_UNIFORM_BLOCK, uint64_t(b));
      call_.u(name).text(block).emit_returning_uint(FN(glGetUniformBlockIndex), index);
      call_.u(name).u(index).u(static_cast<uint64_t>(binding)).emit(FN(glUniformBlockBinding));
    }
  }

  void uniform_value(uint64_t program, GLuint p, const std::string& element, GLint location,
                     GLenum type) {
    int64_t recorded = names_.recorded_uniform_location(program, location);
    call_.u(program).text(element).emit_returning_sint(FN(glGetUniformLocation), recorded);
    UniformType how = uniform_type(type);
    std::vector<float> floats(16);
    std::vector<GLint> ints(16);
    std::vector<GLuint> uints(16);
    int n = how.components;
    auto matrix = [&](uint32_t function) {
      GL(glGetUniformfv)(p, location, floats.data());
      floats.resize(static_cast<size_t>(n));
      call_.s(recorded).s(1).u(GL_FALSE).floats(floats).emit(function);
    };
    switch (type) {
      case GL_FLOAT_MAT2:
        return matrix(FN(glUniformMatrix2fv));
      case GL_FLOAT_MAT3:
        return matrix(FN(glUniformMatrix3fv));
      case GL_FLOAT_MAT4:
        return matrix(FN(glUniformMatrix4fv));
      case GL_FLOAT_MAT2x3:
        return matrix(FN(glUniformMatrix2x3fv));
      case GL_FLOAT_MAT2x4:
        return matrix(FN(glUniformMatrix2x4fv));
      case GL_FLOAT_MAT3x2:
        return matrix(FN(glUniformMatrix3x2fv));
      case GL_FLOAT_MAT3x4:
        return matrix(FN(glUniformMatrix3x4fv));
      case GL_FLOAT_MAT4x2:
        return matrix(FN(glUniformMatrix4x2fv));
      case GL_FLOAT_MAT4x3:
        return matrix(FN(glUniformMatrix4x3fv));
      default:
        break;
    }
    static constexpr uint32_t kFloatV[] = {FN(glUniform1fv), FN(glUniform2fv), FN(glUniform3fv),
                                           FN(glUniform4fv)};
    static constexpr uint32_t kIntV[] = {FN(glUniform1iv), FN(glUniform2iv), FN(glUniform3iv),
                                         FN(glUniform4iv)};
    static constexpr uint32_t kUintV[] = {FN(glUniform1uiv), FN(glUniform2uiv), FN(glUniform3uiv),
                                          FN(glUniform4uiv)};
    if (n < 1 || n > 4) return;
    call_.s(recorded).s(1);
    switch (how.read) {
      case UniformRead::kFloat:
        GL(glGetUniformfv)(p, location, floats.data());
        floats.resize(static_cast<size_t>(n));
        call_.floats(floats).emit(kFloatV[n - 1]);
        break;
      case UniformRead::kInt:
      case UniformRead::kBool: {
        GL(glGetUniformiv)(p, location, ints.data());
        call_.sints({ints.begin(), ints.begin() + n}).emit(kIntV[n - 1]);
        break;
      }
      case UniformRead::kUint: {
        GL(glGetUniformuiv)(p, location, uints.data());
        call_.uints({uints.begin(), uints.begin() + n}).emit(kUintV[n - 1]);
        break;
      }
    }
  }

  // --- the context's containers ------------------------------------------------
  void framebuffers() {
    if (!es3()) return;  // ES 2's one binding: TODO read its attachments
    GLint max_colors = 1;
    GL(glGetIntegerv)(GL_MAX_COLOR_ATTACHMENTS, &max_colors);
    for (auto [name, framebuffer] : objects(ObjectClass::kFramebuffer, GL(glIsFramebuffer))) {
      out_.section("framebuffer " + std::to_string(name));
      gen(FN(glGenFramebuffers), name);
      auto fb = static_cast<GLuint>(framebuffer);
      if (GL(glIsFramebuffer)(fb) != GL_TRUE) continue;
      GL(glBindFramebuffer)(GL_DRAW_FRAMEBUFFER, fb);
      GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, fb);
      call_.u(GL_FRAMEBUFFER).u(name).emit(FN(glBindFramebuffer));
      std::vector<GLenum> points;
      for (GLint i = 0; i < max_colors && i < 32; ++i)
        points.push_back(static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + i));
      points.push_back(GL_DEPTH_ATTACHMENT);
      points.push_back(GL_STENCIL_ATTACHMENT);
      for (GLenum point : points) attachment(point);
      std::vector<uint64_t> draw_buffers;
      for (GLint i = 0; i < max_colors && i < 32; ++i)
        draw_buffers.push_back(static_cast<uint64_t>(integer(GL_DRAW_BUFFER0 + i)));
      while (draw_buffers.size() > 1 && draw_buffers.back() == GL_NONE) draw_buffers.pop_back();
      call_.s(static_cast<int64_t>(draw_buffers.size())).uints(draw_buffers);
      call_.emit(FN(glDrawBuffers));
      call_.u(static_cast<uint64_t>(integer(GL_READ_BUFFER))).emit(FN(glReadBuffer));
    }
  }

  void attachment(GLenum point) {
    auto param = GL(glGetFramebufferAttachmentParameteriv);
    GLint type = GL_NONE, object = 0;
    param(GL_READ_FRAMEBUFFER, point, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
    if (type == GL_NONE) return;
    param(GL_READ_FRAMEBUFFER, point, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &object);
    if (type == GL_RENDERBUFFER) {
      uint64_t name = trace_name(ObjectClass::kRenderbuffer, static_cast<uint64_t>(object));
      call_.u(GL_FRAMEBUFFER).u(point).u(GL_RENDERBUFFER).u(name);
      call_.emit(FN(glFramebufferRenderbuffer));
      return;
    }
    GLint level = 0, face = 0, layer = 0;
    param(GL_READ_FRAMEBUFFER, point, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL, &level);
    param(GL_READ_FRAMEBUFFER, point, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE, &face);
    param(GL_READ_FRAMEBUFFER, point, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LAYER, &layer);
    auto t = static_cast<GLuint>(object);
    uint64_t name = trace_name(ObjectClass::kTexture, t);
    GLenum target = GL_TEXTURE_2D;
    try {
      target = texture_target(t);
    } catch (const RequestError&) {
    }
    if (is_layered(target)) {
      call_.u(GL_FRAMEBUFFER).u(point).u(name).s(level).s(layer);
      call_.emit(FN(glFramebufferTextureLayer));
    } else {
      call_.u(GL_FRAMEBUFFER).u(point).u(face != 0 ? static_cast<GLenum>(face) : target).u(name);
      call_.s(level).emit(FN(glFramebufferTexture2D));
    }
  }

  void vertex_arrays() {
    if (es3()) {
      each_object(ObjectClass::kVertexArray, "vertex array", FN(glGenVertexArrays),
                  GL(glIsVertexArray), [&](uint64_t name, GLuint v) {
                    GL(glBindVertexArray)(v);
                    call_.u(name).emit(FN(glBindVertexArray));
                    vertex_array();
                  });
      out_.section("vertex array 0");
      GL(glBindVertexArray)(0);
      call_.u(0).emit(FN(glBindVertexArray));
    }
    if (!es3()) out_.section("vertex array 0");
    vertex_array();  // the default one
  }

  // Transform feedback objects, the default one included: the buffers bound
  // to each. One that was capturing when the snapshot was taken cannot be
  // rebound without ending its capture: the app's are then left as they are.
  void transform_feedbacks() {
    if (!es3()) return;
    GLint active = GL_FALSE;
    GL(glGetIntegerv)(GL_TRANSFORM_FEEDBACK_ACTIVE, &active);
    if (active == GL_TRUE) {
      transform_feedback_active_ = true;
      inexact("transform feedback " + std::to_string(trace_name(ObjectClass::kTransformFeedback,
                                                                saved_transform_feedback_)),
              "capturing when the snapshot was taken: its objects are not recreated");
      return;
    }
    each_object(ObjectClass::kTransformFeedback, "transform feedback", FN(glGenTransformFeedbacks),
                GL(glIsTransformFeedback), [&](uint64_t name, GLuint t) {
                  GL(glBindTransformFeedback)(GL_TRANSFORM_FEEDBACK, t);
                  call_.u(GL_TRANSFORM_FEEDBACK).u(name).emit(FN(glBindTransformFeedback));
                  indexed_buffers(GL_TRANSFORM_FEEDBACK_BUFFER_BINDING);
                });
    out_.section("transform feedback 0");
    GL(glBindTransformFeedback)(GL_TRANSFORM_FEEDBACK, 0);
    call_.u(GL_TRANSFORM_FEEDBACK).u(0).emit(FN(glBindTransformFeedback));
    indexed_buffers(GL_TRANSFORM_FEEDBACK_BUFFER_BINDING);
  }

  // Program pipelines: the program of each stage and the active one.
  void program_pipelines() {
    if (!es31()) return;
    each_object(
        ObjectClass::kProgramPipeline, "program pipeline", FN(glGenProgramPipelines),
        GL(glIsProgramPipeline), [&](uint64_t name, GLuint pl) {
          const std::pair<GLenum, GLbitfield> stages[] = {
              {GL_VERTEX_SHADER, GL_VERTEX_SHADER_BIT},
              {GL_FRAGMENT_SHADER, GL_FRAGMENT_SHADER_BIT},
              {GL_COMPUTE_SHADER, GL_COMPUTE_SHADER_BIT}};
          for (auto [stage, bit] : stages) {
            GLint program = 0;
            GL(glGetProgramPipelineiv)(pl, stage, &program);
            if (program == 0) continue;
            call_.u(name).u(bit).u(
                trace_name(ObjectClass::kProgram, static_cast<uint64_t>(program)));
            call_.emit(FN(glUseProgramStages));
          }
          GLint active = 0;
          GL(glGetProgramPipelineiv)(pl, GL_ACTIVE_PROGRAM, &active);
          if (active != 0) {
            call_.u(name).u(trace_name(ObjectClass::kProgram, static_cast<uint64_t>(active)));
            call_.emit(FN(glActiveShaderProgram));
          }
        });
  }

  // Query objects: their names (a result read before the snapshot was the
  // app's; a replay answers its own). One active when the snapshot is taken
  // is begun again last (active_queries), counting from there.
  void queries() {
    if (!es3()) return;
    each_object(ObjectClass::kQuery, "query", FN(glGenQueries), GL(glIsQuery),
                [](uint64_t, GLuint) {});
  }

  void active_queries() {
    if (!es3()) return;
    std::vector<GLenum> targets = {GL_ANY_SAMPLES_PASSED, GL_ANY_SAMPLES_PASSED_CONSERVATIVE,
                                   GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN};
    if (major_ > 3 || (major_ == 3 && minor_ >= 2)) targets.push_back(GL_PRIMITIVES_GENERATED);
    for (GLenum target : targets) {
      GLint query = 0;
      GL(glGetQueryiv)(target, GL_CURRENT_QUERY, &query);
      if (query == 0) continue;
      uint64_t name = trace_name(ObjectClass::kQuery, static_cast<uint64_t>(query));
      inexact("query " + std::to_string(name),
              "active when the snapshot was taken: it counts from the snapshot on");
      call_.u(target).u(name).emit(FN(glBeginQuery));
    }
  }

  // The bound vertex array's attributes and element buffer.
  void vertex_array() {
    GLint max_attribs = 16;
    GL(glGetIntegerv)(GL_MAX_VERTEX_ATTRIBS, &max_attribs);
    auto get = GL(glGetVertexAttribiv);
    for (GLint i = 0; i < max_attribs && i < kMaxAttribs; ++i) {
      auto index = static_cast<GLuint>(i);
      GLint enabled = 0, size = 4, type = GL_FLOAT, normalized = 0, integer_attrib = 0, stride = 0,
            divisor = 0, buffer = 0;
      void* pointer = nullptr;
      get(index, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
      get(index, GL_VERTEX_ATTRIB_ARRAY_SIZE, &size);
      get(index, GL_VERTEX_ATTRIB_ARRAY_TYPE, &type);
      get(index, GL_VERTEX_ATTRIB_ARRAY_NORMALIZED, &normalized);
      get(index, GL_VERTEX_ATTRIB_ARRAY_STRIDE, &stride);
      get(index, GL_VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, &buffer);
      if (es3()) {
        get(index, GL_VERTEX_ATTRIB_ARRAY_INTEGER, &integer_attrib);
        get(index, GL_VERTEX_ATTRIB_ARRAY_DIVISOR, &divisor);
      }
      GL(glGetVertexAttribPointerv)(index, GL_VERTEX_ATTRIB_ARRAY_POINTER, &pointer);
      bool untouched = enabled == 0 && size == 4 && type == GL_FLOAT && normalized == 0 &&
                       integer_attrib == 0 && stride == 0 && divisor == 0 && buffer == 0 &&
                       pointer == nullptr;
      if (untouched) continue;
      uint64_t attribute = recorded_attribute(i);
      call_.u(GL_ARRAY_BUFFER).u(trace_name(ObjectClass::kBuffer, static_cast<uint64_t>(buffer)));
      call_.emit(FN(glBindBuffer));
      // Client memory (no buffer): the address is the replay's own and means
      // nothing in a trace; each draw records the data it reads.
      auto offset = buffer == 0 ? 0 : static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
      if (integer_attrib != 0) {
        call_.u(attribute).s(size).u(static_cast<uint64_t>(type)).s(stride).pointer(offset);
        call_.emit(FN(glVertexAttribIPointer));
      } else {
        call_.u(attribute).s(size).u(static_cast<uint64_t>(type)).u(normalized != 0).s(stride);
        call_.pointer(offset).emit(FN(glVertexAttribPointer));
      }
      if (es3())
        call_.u(attribute).u(static_cast<uint64_t>(divisor)).emit(FN(glVertexAttribDivisor));
      call_.u(attribute).emit(enabled != 0 ? FN(glEnableVertexAttribArray)
                                           : FN(glDisableVertexAttribArray));
    }
    uint64_t elements = trace_name(ObjectClass::kBuffer,
                                   static_cast<uint64_t>(integer(GL_ELEMENT_ARRAY_BUFFER_BINDING)));
    call_.u(GL_ELEMENT_ARRAY_BUFFER).u(elements).emit(FN(glBindBuffer));
  }

  // The attribute index the trace uses for a replay one: where the app
  // learnt locations with glGetAttribLocation, the one it learnt.
  uint64_t recorded_attribute(GLint replayed) { return names_.recorded_attribute(replayed); }

  // --- the window ---------------------------------------------------------------
  // What the draw surface's color buffer holds (a thread the cut finds in
  // the middle of its frame has drawn part of it): drawn back with a blit
  // from a texture of the snapshot's own, made and deleted here. Before the
  // context state: a fresh context blits unscissored.
  void window_contents() {
    GLint width = 0, height = 0, samples = 0, depth = 0, stencil = 0;
    if (!es3() || !names_.draw_surface_size(&width, &height)) return;
    char window[32];
    snprintf(window, sizeof window, "window 0x%" PRIx64, names_.recorded_draw_surface());
    out_.section(window);
    GL(glBindFramebuffer)(GL_READ_FRAMEBUFFER, 0);
    GL(glBindFramebuffer)(GL_DRAW_FRAMEBUFFER, 0);
    samples = integer(GL_SAMPLES);
    depth = integer(GL_DEPTH_BITS);
    stencil = integer(GL_STENCIL_BITS);
    std::string what = window;
    if (samples > 0) {
      inexact(what, "its color, depth and stencil buffers are multisampled: not restored");
      return;
    }
    GLint read_buffer = integer(GL_READ_BUFFER);
    GL(glReadBuffer)(GL_BACK);
    std::string pixels;
    bool read = read_rgba8(width, height, &pixels);
    GL(glReadBuffer)(static_cast<GLenum>(read_buffer));
    call_.u(GL_DRAW_FRAMEBUFFER).u(0).emit(FN(glBindFramebuffer));
    if (read)
      blit_into_draw_framebuffer(width, height, std::move(pixels), GL_RGBA8,
                                 *transfer_of(GL_RGBA8));
    else
      inexact(what, "its color buffer could not be read: not restored");
    if (depth == 0 && stencil == 0) return;
    // Depth and stencil, in the texture format of as many bits (a blit
    // copies them between equal formats only).
    GLint depth_type = GL_NONE;
    if (depth == 32) GL(glGetFramebufferAttachmentParameteriv)
    (GL_FRAMEBUFFER, GL_DEPTH, GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE, &depth_type);
    bool float_depth = depth == 32 && depth_type == GL_FLOAT;
    GLint format = depth == 24 && stencil == 8   ? GL_DEPTH24_STENCIL8
                   : depth == 24 && stencil == 0 ? GL_DEPTH_COMPONENT24
                   : depth == 16 && stencil == 0 ? GL_DEPTH_COMPONENT16
                   : depth == 0 && stencil == 8  ? GL_STENCIL_INDEX8
                   : float_depth && stencil == 0 ? GL_DEPTH_COMPONENT32F
                   : float_depth && stencil == 8 ? GL_DEPTH32F_STENCIL8
                                                 : 0;
    std::optional<PixelTransfer> transfer = transfer_of(format);
    std::string values;
    if (transfer && read_attachment(width, height, *transfer, &values)) {
      blit_into_draw_framebuffer(width, height, std::move(values), format, *transfer);
      return;
    }
    // No texture of its format: the depth values drawn back (the stencil,
    // if any, is not).
    values.clear();
    std::optional<PixelTransfer> integers = transfer_of(GL_DEPTH_COMPONENT24);
    if (depth > 0 && !float_depth && read_attachment(width, height, *integers, &values)) {
      write_depth_by_draw(width, height, depth, values);
      if (stencil == 0) return;
      inexact(what, "its " + std::to_string(stencil) + "-bit stencil buffer is not restored");
      return;
    }
    inexact(what, "its " + std::to_string(depth) + "-bit depth and " + std::to_string(stencil) +
                      "-bit stencil buffers could not be read: not restored");
  }

  // --- the context's state -----------------------------------------------------
  void context_state() {
    out_.section("context state");
    // Current vertex attribute values (those a disabled array reads).
    GLint max_attribs = 16;
    GL(glGetIntegerv)(GL_MAX_VERTEX_ATTRIBS, &max_attribs);
    for (GLint i = 0; i < max_attribs && i < kMaxAttribs; ++i) {
      std::vector<float> v(4);
      GL(glGetVertexAttribfv)(static_cast<GLuint>(i), GL_CURRENT_VERTEX_ATTRIB, v.data());
      if (v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 1) continue;
      call_.u(recorded_attribute(i)).floats(v).emit(FN(glVertexAttrib4fv));
    }
    pipeline();
    bindings();
    active_queries();
  }

  // Capabilities and every pipeline value, as the state table says.
  void pipeline() {
    for (const StateEntry& e : state_table()) {
      if (e.set_by != StateSet::kEnable || !has(e)) continue;
      bool on = GL(glIsEnabled)(e.pname) == GL_TRUE;
      call_.u(e.pname).emit(on ? FN(glEnable) : FN(glDisable));
    }
    pipeline_setters();
  }

  void pipeline_setters();

  // The texture units, indexed buffers and every binding.
  void bindings() {
    GLint units = 8;
    GL(glGetIntegerv)(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS, &units);
    for (GLint unit = 0; unit < units && unit < 96; ++unit) {
      GL(glActiveTexture)(static_cast<GLenum>(GL_TEXTURE0 + unit));
      bool selected = false;
      for (const StateEntry& e : state_table()) {
        if (e.group != StateGroup::kTextureUnit || !has(e)) continue;
        GLint bound = integer(e.pname);
        if (bound == 0) continue;
        if (!selected) {
          call_.u(static_cast<uint64_t>(GL_TEXTURE0 + unit)).emit(FN(glActiveTexture));
          selected = true;
        }
        if (e.target != 0) {
          call_.u(e.target).u(trace_name(ObjectClass::kTexture, static_cast<uint64_t>(bound)));
          call_.emit(FN(glBindTexture));
        } else {
          call_.u(static_cast<uint64_t>(unit));
          call_.u(trace_name(ObjectClass::kSampler, static_cast<uint64_t>(bound)));
          call_.emit(FN(glBindSampler));
        }
      }
    }
    GL(glActiveTexture)(GL_TEXTURE0);
    call_.u(static_cast<uint64_t>(saved_active_texture_)).emit(FN(glActiveTexture));

    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kIndexedBuffer || !has(e) || e.cls != ObjectClass::kBuffer)
        continue;
      // Those of a transform feedback object are written with it.
      if (e.pname != GL_TRANSFORM_FEEDBACK_BUFFER_BINDING) indexed_buffers(e.pname);
    }

    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kBindings || e.kind != StateKind::kObject || !has(e)) continue;
      auto bound = static_cast<uint64_t>(e.pname == GL_ARRAY_BUFFER_BINDING ? saved_array_buffer_
                                         : e.pname == GL_COPY_READ_BUFFER_BINDING ? saved_copy_read_
                                         : e.pname == GL_RENDERBUFFER_BINDING ? saved_renderbuffer_
                                         : e.pname == GL_CURRENT_PROGRAM      ? saved_program_
                                         : e.pname == GL_VERTEX_ARRAY_BINDING ? saved_vao_
                                         : e.pname == GL_DRAW_FRAMEBUFFER_BINDING ? saved_draw_fb_
                                         : e.pname == GL_READ_FRAMEBUFFER_BINDING ? saved_read_fb_
                                         : e.pname == GL_TRANSFORM_FEEDBACK_BINDING
                                             ? saved_transform_feedback_
                                             : integer(e.pname));
      binding(e, bound);
    }
  }

  // The buffers bound to the indexed targets of the state table's entry
  // `pname` (its bound transform feedback object's, for those of transform
  // feedback).
  void indexed_buffers(GLenum pname) {
    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kIndexedBuffer || e.pname != pname || !has(e)) continue;
      GLint count = integer(e.limit);
      for (GLint i = 0; i < count && i < 128; ++i) {
        GLint buffer = 0;
        GLint64 start = 0, size = 0;
        auto index = static_cast<GLuint>(i);
        GL(glGetIntegeri_v)(e.pname, index, &buffer);
        if (buffer == 0) continue;
        GLenum start_name = 0, size_name = 0;
        indexed_range_names(e.target, &start_name, &size_name);
        GL(glGetInteger64i_v)(start_name, index, &start);
        GL(glGetInteger64i_v)(size_name, index, &size);
        uint64_t name = trace_name(ObjectClass::kBuffer, static_cast<uint64_t>(buffer));
        if (size == 0)
          call_.u(e.target).u(index).u(name).emit(FN(glBindBufferBase));
        else
          call_.u(e.target).u(index).u(name).s(start).s(size).emit(FN(glBindBufferRange));
      }
    }
  }

  void indexed_range_names(GLenum target, GLenum* start, GLenum* size) {
    switch (target) {
      case GL_UNIFORM_BUFFER:
        *start = GL_UNIFORM_BUFFER_START;
        *size = GL_UNIFORM_BUFFER_SIZE;
        break;
      case GL_TRANSFORM_FEEDBACK_BUFFER:
        *start = GL_TRANSFORM_FEEDBACK_BUFFER_START;
        *size = GL_TRANSFORM_FEEDBACK_BUFFER_SIZE;
        break;
      case GL_SHADER_STORAGE_BUFFER:
        *start = GL_SHADER_STORAGE_BUFFER_START;
        *size = GL_SHADER_STORAGE_BUFFER_SIZE;
        break;
      default:
        *start = GL_ATOMIC_COUNTER_BUFFER_START;
        *size = GL_ATOMIC_COUNTER_BUFFER_SIZE;
        break;
    }
  }

  // One binding of the bindings group, as the app had it.
  void binding(const StateEntry& e, uint64_t bound) {
    uint64_t name = trace_name(e.cls, bound);
    switch (e.pname) {
      case GL_ELEMENT_ARRAY_BUFFER_BINDING:
        return;  // the vertex array's, written with it
      case GL_VERTEX_ARRAY_BINDING:
        return call_.u(name).emit(FN(glBindVertexArray));
      case GL_CURRENT_PROGRAM:
        return call_.u(name).emit(FN(glUseProgram));
      case GL_DRAW_FRAMEBUFFER_BINDING:  // GL_FRAMEBUFFER_BINDING
        return call_.u(es3() ? GL_DRAW_FRAMEBUFFER : GL_FRAMEBUFFER)
            .u(name)
            .emit(FN(glBindFramebuffer));
      case GL_READ_FRAMEBUFFER_BINDING:
        return call_.u(GL_READ_FRAMEBUFFER).u(name).emit(FN(glBindFramebuffer));
      case GL_RENDERBUFFER_BINDING:
        return call_.u(GL_RENDERBUFFER).u(name).emit(FN(glBindRenderbuffer));
      case GL_TRANSFORM_FEEDBACK_BINDING:
        if (transform_feedback_active_) return;  // left as it is (transform_feedbacks)
        return call_.u(GL_TRANSFORM_FEEDBACK).u(name).emit(FN(glBindTransformFeedback));
      case GL_PROGRAM_PIPELINE_BINDING:
        return call_.u(name).emit(FN(glBindProgramPipeline));
      default:
        break;
    }
    if (e.cls != ObjectClass::kBuffer) return;
    GLenum target = buffer_target_of(e.pname);
    if (target != 0) call_.u(target).u(name).emit(FN(glBindBuffer));
  }

  static GLenum buffer_target_of(GLenum binding) {
    switch (binding) {
      case GL_ARRAY_BUFFER_BINDING:
        return GL_ARRAY_BUFFER;
      case GL_UNIFORM_BUFFER_BINDING:
        return GL_UNIFORM_BUFFER;
      case GL_COPY_READ_BUFFER_BINDING:
        return GL_COPY_READ_BUFFER;
      case GL_COPY_WRITE_BUFFER_BINDING:
        return GL_COPY_WRITE_BUFFER;
      case GL_PIXEL_PACK_BUFFER_BINDING:
        return GL_PIXEL_PACK_BUFFER;
      case GL_PIXEL_UNPACK_BUFFER_BINDING:
        return GL_PIXEL_UNPACK_BUFFER;
      case GL_TRANSFORM_FEEDBACK_BUFFER_BINDING:
        return GL_TRANSFORM_FEEDBACK_BUFFER;
      case GL_SHADER_STORAGE_BUFFER_BINDING:
        return GL_SHADER_STORAGE_BUFFER;
      case GL_ATOMIC_COUNTER_BUFFER_BINDING:
        return GL_ATOMIC_COUNTER_BUFFER;
      case GL_DRAW_INDIRECT_BUFFER_BINDING:
        return GL_DRAW_INDIRECT_BUFFER;
      case GL_DISPATCH_INDIRECT_BUFFER_BINDING:
        return GL_DISPATCH_INDIRECT_BUFFER;
      case GL_TEXTURE_BUFFER_BINDING:
        return GL_TEXTURE_BUFFER;
      default:
        return 0;
    }
  }

  SnapshotNames& names_;
  SnapshotOut& out_;
  bool refresh_ = false;  // SharedObjects::kContents
  CallBuilder call_;
  ShaderCopy shader_copy_{gl_, names_.display()};
  GLuint read_fb_ = 0;
  std::map<GLenum, bool> readable_;  // can_read's answers
  std::optional<bool> srgb_reads_stored_;
  uint64_t unused_names_ = 0;
  GLint saved_read_fb_ = 0, saved_draw_fb_ = 0, saved_vao_ = 0, saved_array_buffer_ = 0,
        saved_active_texture_ = GL_TEXTURE0, saved_program_ = 0, saved_renderbuffer_ = 0,
        saved_copy_read_ = 0, saved_transform_feedback_ = 0, saved_pipeline_ = 0;
  bool transform_feedback_active_ = false;  // the app's was capturing: left alone
};

// Each setter of the state table with the values its entries have now.
void SnapshotWriter::pipeline_setters() {
  std::span<const StateEntry> table = state_table();
  for (const StateSetter& setter : state_setters()) {
    bool missing = false;
    for (const SetterArg& arg : setter.args)
      if (arg.kind == SetterArg::kEntry && !has(table[arg.entry])) missing = true;
    if (missing) continue;
    const api::FunctionInfo& info = api::kFunctionInfo[setter.function];
    // Each entry read once, as its query says.
    std::map<uint16_t, std::vector<double>> values;
    for (const SetterArg& arg : setter.args) {
      if (arg.kind != SetterArg::kEntry || values.count(arg.entry) != 0) continue;
      const StateEntry& e = table[arg.entry];
      std::vector<double>& v = values[arg.entry];
      v.resize(std::max<size_t>(e.count, 1));
      switch (e.query) {
        case StateQuery::kFloat: {
          std::vector<GLfloat> f(v.size() + 4);
          GL(glGetFloatv)(e.pname, f.data());
          std::copy_n(f.begin(), v.size(), v.begin());
          break;
        }
        case StateQuery::kBoolean: {
          std::vector<GLboolean> b(v.size() + 4);
          GL(glGetBooleanv)(e.pname, b.data());
          std::copy_n(b.begin(), v.size(), v.begin());
          break;
        }
        case StateQuery::kIntegerIndexed: {
          GLint i = 0;
          GL(glGetIntegeri_v)(e.pname, 0, &i);
          v[0] = static_cast<uint32_t>(i);  // a mask: its bits
          break;
        }
        default: {
          std::vector<GLint> i(v.size() + 4);
          GL(glGetIntegerv)(e.pname, i.data());
          std::copy_n(i.begin(), v.size(), v.begin());
          break;
        }
      }
    }
    for (size_t k = 0; k < setter.args.size(); ++k) {
      const SetterArg& arg = setter.args[k];
      double value =
          arg.kind == SetterArg::kConstant ? arg.constant : values[arg.entry][arg.component];
      if (k < info.param_count && info.params[k].kind == api::Kind::kFloat)
        call_.f(static_cast<float>(value));
      else if (value < 0)
        call_.s(static_cast<int64_t>(value));
      else
        call_.u(static_cast<uint64_t>(value));
    }
    call_.emit(setter.function);
  }
}

}  // namespace

bool write_snapshot(GlFunctions gl, SnapshotNames& names, SnapshotOut& out, SharedObjects shared,
                    std::string* error) {
  try {
    SnapshotWriter(gl, names, out).write(shared);
  } catch (const RequestError& e) {
    *error = e.message;
    return false;
  }
  return true;
}

}  // namespace gltrace::glstate
