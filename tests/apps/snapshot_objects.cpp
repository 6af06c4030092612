// gltrace-snapshot-objects: objects a state snapshot must recreate exactly,
// made once in frame 0 and drawn with in every frame after: luminance,
// alpha and luminance-alpha textures (not color-renderable), a cube map
// with every level, a 2D array texture with immutable storage, a half-float
// texture, 16- and 24-bit depth textures (their low bits shown), a vertex
// buffer written only by the GPU (transform feedback) and copied by it
// (glCopyBufferSubData), uniform values set once, a program whose shaders
// were detached once it linked, a color renderbuffer drawn into once and
// blitted from in every frame, compressed textures (ETC2 with two levels and
// a block replaced, ASTC with immutable storage where the context has it, an
// ETC2/EAC 2D array), and a depth-stencil renderbuffer written once (a depth
// ramp, stencil values in rectangles) that every later frame's depth and
// stencil tests read, and a 4x multisampled renderbuffer drawn into once
// (edges that cover parts of pixels) that every later frame resolves, and
// integer textures (RGBA16UI, R32I) whose every bit shows, and an sRGB
// texture, and a vertex buffer of immutable storage written through
// persistent mappings (EXT_buffer_storage, never mappable for reading). A
// trace cut after frame 0 (gltrace trim) has none of their uploads: each
// frame it replays shows whether the snapshot made them as they were.
//
//   gltrace-snapshot-objects [--frames N]   (default 6; surfaceless, 96x48)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/gles_app.h"
// Program pipelines and separable programs are ES 3.1.
#include <GLES3/gl31.h>

// After gl3.h (which gles_app.h includes): the ASTC format's name.
#include <GLES2/gl2ext.h>

namespace {

using namespace gltrace::test_app;

constexpr char kApp[] = "snapshot-objects";
constexpr int kWidth = 96, kHeight = 64;

// Four points, one corner of the quad each, captured by transform feedback.
constexpr char kFeedbackVertex[] = R"(#version 300 es
out vec2 corner;
void main() {
  corner = vec2(gl_VertexID % 2 == 0 ? -1.0 : 1.0, gl_VertexID < 2 ? -1.0 : 1.0);
  gl_Position = vec4(0.0);
}
)";
constexpr char kFeedbackFragment[] = R"(#version 300 es
precision mediump float;
out vec4 color;
void main() { color = vec4(0.0); }
)";

// The corners of a quad that shrinks with `scale`, captured every frame
// through a transform feedback object of the app's own.
constexpr char kStreamVertex[] = R"(#version 300 es
uniform float scale;
out vec2 corner;
void main() {
  corner = scale * vec2(gl_VertexID % 2 == 0 ? -1.0 : 1.0, gl_VertexID < 2 ? -1.0 : 1.0);
  gl_Position = vec4(0.0);
}
)";

// A program pipeline's stages: separable programs, the tint set per frame
// on the fragment one.
constexpr char kSeparableVertex[] = R"(#version 310 es
layout(location = 0) in vec2 corner;
void main() { gl_Position = vec4(corner.x, -corner.y * 0.5, 0.0, 1.0); }
)";
constexpr char kSeparableFragment[] = R"(#version 310 es
precision mediump float;
uniform vec4 tint;
out vec4 color;
void main() { color = tint; }
)";

constexpr char kVertex[] = R"(#version 300 es
layout(location = 0) in vec2 corner;
out vec2 uv;
void main() {
  uv = corner * 0.5 + 0.5;
  gl_Position = vec4(corner, 0.0, 1.0);
}
)";
// mode 0: the 2D texture of unit 0; 1: the cube map of unit 1 at level
// `lod`; 2: the array of unit 2, layer `layer`, level `lod`; 3: the depth
// texture of unit 0, its value's low bits in red and green; 4: the 2D
// texture of unit 0 at level `lod`; 5: the array of unit 3 (`blocks`),
// layer `layer`. 4 and 5 (the compressed ones) darken by alpha, so that it
// shows too. 6: the RGBA16UI texture of unit 4, its low and high bytes; 7:
// the R32I texture of unit 5, its low and high bytes and its sign.
constexpr char kFragment[] = R"(#version 300 es
precision highp float;
uniform int mode;
uniform float lod;
uniform float layer;
uniform vec4 tint;
uniform sampler2D plain;
uniform samplerCube cube;
uniform highp sampler2DArray layers;
uniform highp sampler2DArray blocks;
uniform highp usampler2D uints;
uniform highp isampler2D ints;
in vec2 uv;
out vec4 color;
void main() {
  vec4 c;
  if (mode == 0) c = texture(plain, uv);
  else if (mode == 1) c = textureLod(cube, normalize(vec3(uv * 2.0 - 1.0, 0.7)), lod);
  else if (mode == 2) c = textureLod(layers, vec3(uv, layer), lod);
  else if (mode == 3) {
    float d = texture(plain, uv).r;
    c = vec4(fract(d * 255.0), fract(d * 65535.0), d, 1.0);
  } else if (mode == 6) {
    uvec4 u = texelFetch(uints, ivec2(uv * 8.0), 0);
    c = vec4(float(u.r & 255u), float(u.g >> 8u), float((u.b ^ u.a) & 255u), 255.0) / 255.0;
  } else if (mode == 7) {
    int i = texelFetch(ints, ivec2(uv * 8.0), 0).r;
    c = vec4(float(i & 255) / 255.0, float((i >> 24) & 255) / 255.0, i < 0 ? 1.0 : 0.0, 1.0);
  } else {
    c = mode == 4 ? textureLod(plain, uv, lod) : textureLod(blocks, vec3(uv, layer), 0.0);
    c = vec4(c.rgb * (0.5 + 0.5 * c.a), 1.0);
  }
  color = vec4(c.rgb, 1.0) * tint + vec4(0.0, 0.0, 0.0, c.a * 0.0);
}
)";

// Depth (z = x * slope) or a flat color: frame 0 writes a depth ramp with
// it, later frames a flat quad (slope 0) that the depth test compares with it.
constexpr char kRampVertex[] = R"(#version 300 es
layout(location = 0) in vec2 corner;
uniform float slope;
void main() { gl_Position = vec4(corner, corner.x * slope, 1.0); }
)";
constexpr char kRampFragment[] = R"(#version 300 es
precision mediump float;
uniform vec4 paint;
out vec4 color;
void main() { color = paint; }
)";

// A depth texture of 16 or 24 bits (size x size), a value per texel that
// uses every bit.
GLuint depth_texture(int bits, int size) {
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  size_t texels = static_cast<size_t>(size) * static_cast<size_t>(size);
  if (bits == 16) {
    std::vector<uint16_t> values(texels);
    for (size_t i = 0; i < texels; ++i) values[i] = static_cast<uint16_t>(i * 40503u + 977u);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT16, size, size, 0, GL_DEPTH_COMPONENT,
                 GL_UNSIGNED_SHORT, values.data());
  } else {
    std::vector<uint32_t> values(texels);
    for (size_t i = 0; i < texels; ++i) values[i] = static_cast<uint32_t>(i * 2654435761u);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT,
                 GL_UNSIGNED_INT, values.data());
  }
  return t;
}

// A 2D texture of `format` (unsized, 8 bits a component), size x size.
GLuint plain_texture(GLenum format, int components, int size, int seed) {
  std::vector<unsigned char> texels(static_cast<size_t>(size * size * components));
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<unsigned char>(i * 7 + seed);
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, format, size, size, 0, format, GL_UNSIGNED_BYTE, texels.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

GLuint half_float_texture() {
  std::vector<float> texels(8 * 8 * 4);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<float>(i % 37) / 37.0f;
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, 8, 8, 0, GL_RGBA, GL_FLOAT, texels.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

// Every level of every face its own color.
GLuint cube_texture() {
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_CUBE_MAP, t);
  for (int level = 0, size = 16; size >= 1; ++level, size /= 2) {
    for (int face = 0; face < 6; ++face) {
      std::vector<unsigned char> texels(static_cast<size_t>(size * size * 4));
      for (size_t i = 0; i < texels.size(); ++i)
        texels[i] = static_cast<unsigned char>(40 * face + 30 * level + (i % 4) * 50 + i / 16);
      glTexImage2D(static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face), level, GL_RGBA8,
                   size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
    }
  }
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

GLuint array_texture() {
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D_ARRAY, t);
  glTexStorage3D(GL_TEXTURE_2D_ARRAY, 2, GL_RGBA8, 8, 8, 4);
  for (int level = 0, size = 8; level < 2; ++level, size /= 2) {
    std::vector<unsigned char> texels(static_cast<size_t>(size * size * 4 * 4));
    for (size_t i = 0; i < texels.size(); ++i)
      texels[i] = static_cast<unsigned char>(i * 13 + level * 91);
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, level, 0, 0, 0, size, size, 4, GL_RGBA, GL_UNSIGNED_BYTE,
                    texels.data());
  }
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

// ETC2 RGB, 8x8, its four blocks uploaded and then one (x 4, y 0) replaced,
// and level 1's one block: any 8 bytes are a valid ETC2 RGB block. Its
// maximum level 1 makes the two levels complete.
GLuint etc2_texture() {
  unsigned char level0[4 * 8], replacement[8], level1[8];
  for (size_t i = 0; i < sizeof level0; ++i) level0[i] = static_cast<unsigned char>(i * 29 + 17);
  for (size_t i = 0; i < 8; ++i) {
    replacement[i] = static_cast<unsigned char>(i * 71 + 90);
    level1[i] = static_cast<unsigned char>(i * 53 + 200);
  }
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glCompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGB8_ETC2, 8, 8, 0, sizeof level0, level0);
  glCompressedTexSubImage2D(GL_TEXTURE_2D, 0, 4, 0, 4, 4, GL_COMPRESSED_RGB8_ETC2,
                            sizeof replacement, replacement);
  glCompressedTexImage2D(GL_TEXTURE_2D, 1, GL_COMPRESSED_RGB8_ETC2, 4, 4, 0, sizeof level1, level1);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 1);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

// An ASTC 4x4 "void-extent" block: all 16 texels the one color (UNORM16
// components), so that what it decodes to is known.
void astc_solid(unsigned char* block, uint16_t r, uint16_t g, uint16_t b, uint16_t a) {
  const unsigned char head[] = {0xfc, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  memcpy(block, head, sizeof head);
  const uint16_t rgba[] = {r, g, b, a};
  for (int i = 0; i < 4; ++i) {
    block[8 + 2 * i] = static_cast<unsigned char>(rgba[i] & 0xff);
    block[9 + 2 * i] = static_cast<unsigned char>(rgba[i] >> 8);
  }
}

// ASTC 4x4, 8x8, immutable: a block a color, then the last one (x 4, y 4)
// replaced by another.
GLuint astc_texture() {
  unsigned char blocks[4 * 16], replacement[16];
  astc_solid(blocks, 0xf000, 0x2000, 0x1000, 0xffff);
  astc_solid(blocks + 16, 0x1800, 0xe000, 0x3000, 0xffff);
  astc_solid(blocks + 32, 0x2000, 0x5000, 0xf000, 0x6000);
  astc_solid(blocks + 48, 0xf000, 0xe000, 0x2000, 0xffff);
  astc_solid(replacement, 0xd000, 0x3000, 0xe000, 0xffff);
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_COMPRESSED_RGBA_ASTC_4x4_KHR, 8, 8);
  glCompressedTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 8, 8, GL_COMPRESSED_RGBA_ASTC_4x4_KHR,
                            sizeof blocks, blocks);
  glCompressedTexSubImage2D(GL_TEXTURE_2D, 0, 4, 4, 4, 4, GL_COMPRESSED_RGBA_ASTC_4x4_KHR,
                            sizeof replacement, replacement);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

// ETC2 RGB with EAC alpha, a 4x4 2D array of two layers, a block each: any
// 16 bytes are a valid block.
GLuint etc2_eac_array() {
  unsigned char blocks[2 * 16];
  for (size_t i = 0; i < sizeof blocks; ++i) blocks[i] = static_cast<unsigned char>(i * 41 + 7);
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D_ARRAY, t);
  glCompressedTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_COMPRESSED_RGBA8_ETC2_EAC, 4, 4, 2, 0,
                         sizeof blocks, blocks);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

// Compressed levels given storage without bytes and filled in parts, as an
// atlas is: ETC2 RGB 64x64 immutable storage with three 16x16 tiles (the
// first uploaded twice), and an ETC2/EAC 64x64 level made of a null pointer
// with a 32x32 part. A traceable app keeps only the parts (not the 2 and
// 4 KiB levels): what it holds stays within what was uploaded.
GLuint atlas_texture(GLenum format, int seed) {
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  std::vector<unsigned char> tile(64 * 16);  // the larger part's bytes
  auto fill = [&](int salt) {
    for (size_t i = 0; i < tile.size(); ++i)
      tile[i] = static_cast<unsigned char>(i * 37 + static_cast<size_t>(salt) * 101 + 5);
  };
  if (format == GL_COMPRESSED_RGB8_ETC2) {
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_COMPRESSED_RGB8_ETC2, 64, 64);
    const GLint tiles[][2] = {{0, 0}, {32, 16}, {0, 0}, {48, 48}};
    for (const auto& at : tiles) {
      fill(seed++);
      glCompressedTexSubImage2D(GL_TEXTURE_2D, 0, at[0], at[1], 16, 16, GL_COMPRESSED_RGB8_ETC2,
                                16 * 8, tile.data());
    }
  } else {
    glCompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGBA8_ETC2_EAC, 64, 64, 0, 64 * 64,
                           nullptr);
    fill(seed);
    glCompressedTexSubImage2D(GL_TEXTURE_2D, 0, 16, 16, 32, 32, GL_COMPRESSED_RGBA8_ETC2_EAC,
                              64 * 16, tile.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
  }
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

// Whether the context lists `name` among its extensions (a whole word).
bool has_extension(const char* name) {
  const char* list = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
  size_t length = strlen(name);
  for (const char* at = list; at != nullptr && (at = strstr(at, name)) != nullptr; at += length) {
    if ((at == list || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0')) return true;
  }
  return false;
}

// A quad's corners in a buffer of immutable storage (EXT_buffer_storage)
// that can be mapped persistently for writing and never for reading, written
// through such a mapping, flushed by hand: a snapshot must make it with its
// storage flags (a persistent map of a buffer glBufferData made fails) and
// read it through a copy. 0 where the context lacks the extension.
GLuint persistent_corners() {
  auto storage =
      reinterpret_cast<PFNGLBUFFERSTORAGEEXTPROC>(eglGetProcAddress("glBufferStorageEXT"));
  if (!has_extension("GL_EXT_buffer_storage") || storage == nullptr) return 0;
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  storage(GL_ARRAY_BUFFER, 4 * 2 * sizeof(float), nullptr,
          GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT_EXT);
  const float corners[] = {-1, -1, 1, -1, -1, 1, 1, 1};
  void* p =
      glMapBufferRange(GL_ARRAY_BUFFER, 0, sizeof corners,
                       GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_FLUSH_EXPLICIT_BIT);
  if (p != nullptr) {
    memcpy(p, corners, sizeof corners);
    glFlushMappedBufferRange(GL_ARRAY_BUFFER, 0, sizeof corners);
    glUnmapBuffer(GL_ARRAY_BUFFER);
  }
  return buffer;
}

// Frame `frame`'s first corner, through a persistent mapping of that corner
// alone (the other three stay as frame 0 wrote them).
void move_persistent_corner(GLuint buffer, int frame) {
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  const float corner[] = {-1.0f + 0.25f * static_cast<float>(frame % 4), -1.0f};
  void* p =
      glMapBufferRange(GL_ARRAY_BUFFER, 0, sizeof corner,
                       GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_FLUSH_EXPLICIT_BIT);
  if (p == nullptr) return;
  memcpy(p, corner, sizeof corner);
  glFlushMappedBufferRange(GL_ARRAY_BUFFER, 0, sizeof corner);
  glUnmapBuffer(GL_ARRAY_BUFFER);
}

// The quad's corners, written by transform feedback into one buffer and
// copied by the GPU into the one returned: the app never uploads them.
GLuint gpu_written_corners() {
  GLuint feedback = glCreateProgram();
  GLuint vs = compile(kApp, GL_VERTEX_SHADER, kFeedbackVertex);
  GLuint fs = compile(kApp, GL_FRAGMENT_SHADER, kFeedbackFragment);
  glAttachShader(feedback, vs);
  glAttachShader(feedback, fs);
  const char* varyings[] = {"corner"};
  glTransformFeedbackVaryings(feedback, 1, varyings, GL_INTERLEAVED_ATTRIBS);
  glLinkProgram(feedback);
  GLuint buffers[2];
  glGenBuffers(2, buffers);
  glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, buffers[0]);
  glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, 4 * 2 * sizeof(float), nullptr, GL_STATIC_COPY);
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffers[0]);
  glUseProgram(feedback);
  glEnable(GL_RASTERIZER_DISCARD);
  glBeginTransformFeedback(GL_POINTS);
  glDrawArrays(GL_POINTS, 0, 4);
  glEndTransformFeedback();
  glDisable(GL_RASTERIZER_DISCARD);
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  glBindBuffer(GL_COPY_READ_BUFFER, buffers[0]);
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffers[1]);
  glBufferData(GL_COPY_WRITE_BUFFER, 4 * 2 * sizeof(float), nullptr, GL_STATIC_DRAW);
  glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, 4 * 2 * sizeof(float));
  glDeleteProgram(feedback);
  glDeleteShader(vs);
  glDeleteShader(fs);
  return buffers[1];
}

// A transform feedback object with `buffer` bound to its index 0, and the
// program that writes into it.
GLuint stream_feedback(GLuint buffer, GLuint* program) {
  *program = glCreateProgram();
  GLuint vs = compile(kApp, GL_VERTEX_SHADER, kStreamVertex);
  GLuint fs = compile(kApp, GL_FRAGMENT_SHADER, kFeedbackFragment);
  glAttachShader(*program, vs);
  glAttachShader(*program, fs);
  const char* varyings[] = {"corner"};
  glTransformFeedbackVaryings(*program, 1, varyings, GL_INTERLEAVED_ATTRIBS);
  glLinkProgram(*program);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, 4 * 2 * sizeof(float), nullptr, GL_DYNAMIC_COPY);
  GLuint feedback = 0;
  glGenTransformFeedbacks(1, &feedback);
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, feedback);
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffer);
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
  return feedback;
}

// A separable program of one stage (its shader stays attached).
GLuint separable(GLenum type, const char* source) {
  GLuint program = glCreateProgram();
  glAttachShader(program, compile(kApp, type, source));
  glProgramParameteri(program, GL_PROGRAM_SEPARABLE, GL_TRUE);
  glLinkProgram(program);
  return program;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 6;
  if (!frames_option(kApp, argc, argv, &frames)) return 2;
  EGLDisplay display;
  EGLConfig config;
  EGLSurface surface;
  EGLContext context;
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, kWidth, kHeight, es3, "the context", &surface,
                            &context))
    return 2;

  // Frame 0: every object, once.
  GLuint textures[] = {plain_texture(GL_ALPHA, 1, 8, 3), plain_texture(GL_LUMINANCE, 1, 8, 5),
                       plain_texture(GL_LUMINANCE_ALPHA, 2, 8, 11), half_float_texture()};
  GLuint cube = cube_texture();
  GLuint layers = array_texture();
  GLuint depths[] = {depth_texture(16, 8), depth_texture(24, 8)};
  GLuint etc2 = etc2_texture();
  // ASTC only where the context has it (llvmpipe does): a cell fewer if not.
  GLuint astc = has_extension("GL_KHR_texture_compression_astc_ldr") ? astc_texture() : 0;
  GLuint compressed_layers = etc2_eac_array();
  GLuint atlases[] = {atlas_texture(GL_COMPRESSED_RGB8_ETC2, 3),
                      atlas_texture(GL_COMPRESSED_RGBA8_ETC2_EAC, 9)};
  GLuint corners = gpu_written_corners();
  GLuint persistent = persistent_corners();
  GLuint streamed = 0, stream_program = 0;
  glGenBuffers(1, &streamed);
  GLuint feedback = stream_feedback(streamed, &stream_program);
  GLint scale = glGetUniformLocation(stream_program, "scale");
  GLuint stages[] = {separable(GL_VERTEX_SHADER, kSeparableVertex),
                     separable(GL_FRAGMENT_SHADER, kSeparableFragment)};
  GLuint pipeline = 0;
  glGenProgramPipelines(1, &pipeline);
  glUseProgramStages(pipeline, GL_VERTEX_SHADER_BIT, stages[0]);
  glUseProgramStages(pipeline, GL_FRAGMENT_SHADER_BIT, stages[1]);
  glActiveShaderProgram(pipeline, stages[1]);
  GLint pipeline_tint = glGetUniformLocation(stages[1], "tint");
  GLuint program = link(kApp, kVertex, kFragment);
  if (program == 0) return 1;
  // Its shaders detached and deleted once linked, as GTK 4 does: a snapshot
  // links it again from the shaders it linked with.
  GLuint shaders[2];
  GLsizei attached = 0;
  glGetAttachedShaders(program, 2, &attached, shaders);
  for (GLsizei i = 0; i < attached; ++i) {
    glDetachShader(program, shaders[i]);
    glDeleteShader(shaders[i]);
  }
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, corners);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(0);
  glUseProgram(program);
  glUniform1i(glGetUniformLocation(program, "plain"), 0);
  glUniform1i(glGetUniformLocation(program, "cube"), 1);
  glUniform1i(glGetUniformLocation(program, "layers"), 2);
  glUniform1i(glGetUniformLocation(program, "blocks"), 3);
  glUniform1i(glGetUniformLocation(program, "uints"), 4);
  glUniform1i(glGetUniformLocation(program, "ints"), 5);
  glUniform4f(glGetUniformLocation(program, "tint"), 1.0f, 0.9f, 0.8f, 1.0f);
  GLint mode = glGetUniformLocation(program, "mode");
  GLint lod = glGetUniformLocation(program, "lod");
  GLint layer = glGetUniformLocation(program, "layer");
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_CUBE_MAP, cube);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D_ARRAY, layers);
  glActiveTexture(GL_TEXTURE3);
  glBindTexture(GL_TEXTURE_2D_ARRAY, compressed_layers);
  // Integer textures (8x8): every bit of their values shows.
  GLuint integer_textures[2];
  glGenTextures(2, integer_textures);
  glActiveTexture(GL_TEXTURE4);
  glBindTexture(GL_TEXTURE_2D, integer_textures[0]);
  std::vector<uint16_t> shorts(8 * 8 * 4);
  for (size_t i = 0; i < shorts.size(); ++i) shorts[i] = static_cast<uint16_t>(i * 40503u + 17u);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16UI, 8, 8, 0, GL_RGBA_INTEGER, GL_UNSIGNED_SHORT,
               shorts.data());
  glActiveTexture(GL_TEXTURE5);
  glBindTexture(GL_TEXTURE_2D, integer_textures[1]);
  std::vector<int32_t> ints(8 * 8);
  for (size_t i = 0; i < ints.size(); ++i)
    ints[i] = static_cast<int32_t>(static_cast<uint32_t>(i) * 2654435761u);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32I, 8, 8, 0, GL_RED_INTEGER, GL_INT, ints.data());
  for (GLuint unit : {GL_TEXTURE4, GL_TEXTURE5}) {
    glActiveTexture(unit);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  }
  glActiveTexture(GL_TEXTURE0);
  // An sRGB texture: sampling decodes it, so its stored bytes show.
  GLuint srgb = 0;
  glGenTextures(1, &srgb);
  glBindTexture(GL_TEXTURE_2D, srgb);
  std::vector<unsigned char> encoded(8 * 8 * 4);
  for (size_t i = 0; i < encoded.size(); ++i) encoded[i] = static_cast<unsigned char>(i * 29 + 3);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               encoded.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  // A renderbuffer drawn into once: cleared, then the luminance texture.
  GLuint renderbuffer = 0, offscreen = 0;
  glGenRenderbuffers(1, &renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
  glGenFramebuffers(1, &offscreen);
  glBindFramebuffer(GL_FRAMEBUFFER, offscreen);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
  glViewport(0, 0, 16, 16);
  glClearColor(0.7f, 0.1f, 0.4f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glViewport(4, 4, 8, 8);
  glUniform1i(mode, 0);
  glBindTexture(GL_TEXTURE_2D, textures[1]);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  // A framebuffer of its own whose depth and stencil are written only here:
  // stencil values in three rectangles (the last overlapping the second;
  // the second starts right of the ramp's middle), depth a ramp across x
  // with colors not written. Later frames draw where both tests pass, so
  // what shows is what was made here.
  GLuint ramp = link(kApp, kRampVertex, kRampFragment);
  if (ramp == 0) return 1;
  GLint slope = glGetUniformLocation(ramp, "slope");
  GLint paint = glGetUniformLocation(ramp, "paint");
  GLuint tested_buffers[2], tested = 0;
  glGenRenderbuffers(2, tested_buffers);
  glBindRenderbuffer(GL_RENDERBUFFER, tested_buffers[0]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
  glBindRenderbuffer(GL_RENDERBUFFER, tested_buffers[1]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, 16, 16);
  glGenFramebuffers(1, &tested);
  glBindFramebuffer(GL_FRAMEBUFFER, tested);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            tested_buffers[0]);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                            tested_buffers[1]);
  glViewport(0, 0, 16, 16);
  glClearColor(0.15f, 0.15f, 0.15f, 1.0f);
  glClearDepthf(1.0f);
  glClearStencil(0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
  struct {
    GLint x, y, width, height, value;
  } const regions[] = {{1, 1, 14, 4, 1}, {10, 5, 5, 6, 2}, {4, 9, 10, 6, 0x81}};
  glEnable(GL_SCISSOR_TEST);
  for (const auto& r : regions) {
    glScissor(r.x, r.y, r.width, r.height);
    glClearStencil(r.value);
    glClear(GL_STENCIL_BUFFER_BIT);
  }
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(ramp);
  glUniform1f(slope, 0.9f);
  glUniform4f(paint, 1.0f, 1.0f, 1.0f, 1.0f);
  glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
  glEnable(GL_DEPTH_TEST);  // depth is written only while its test is on
  glDepthFunc(GL_ALWAYS);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glDisable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  // A 4x multisampled renderbuffer drawn into once: two triangles whose
  // diagonal edges cover parts of pixels, so its samples differ. Later
  // frames resolve it (a blit into a single-sampled one) and show that.
  GLuint multisampled_buffers[2], multisampled = 0, resolved = 0;
  glGenRenderbuffers(2, multisampled_buffers);
  glBindRenderbuffer(GL_RENDERBUFFER, multisampled_buffers[0]);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, 16, 16);
  glBindRenderbuffer(GL_RENDERBUFFER, multisampled_buffers[1]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
  glGenFramebuffers(1, &multisampled);
  glBindFramebuffer(GL_FRAMEBUFFER, multisampled);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            multisampled_buffers[0]);
  glGenFramebuffers(1, &resolved);
  glBindFramebuffer(GL_FRAMEBUFFER, resolved);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            multisampled_buffers[1]);
  glBindFramebuffer(GL_FRAMEBUFFER, multisampled);
  glViewport(0, 0, 16, 16);
  glClearColor(0.05f, 0.3f, 0.1f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glUniform1f(slope, 0.0f);
  glUniform4f(paint, 0.95f, 0.6f, 0.1f, 1.0f);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glViewport(3, 2, 11, 13);
  glUniform4f(paint, 0.3f, 0.4f, 0.95f, 1.0f);
  glDrawArrays(GL_TRIANGLES, 1, 3);

  glUseProgram(program);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  eglSwapBuffers(display, surface);

  // Later frames draw with them: a 12x16 cell per object in the two lower
  // rows, moving with the frame, and the two renderbuffers' blits above.
  for (int frame = 1; frame < frames; ++frame) {
    // The flat quad (depth 0.5) paints, in a color of this frame's, where
    // frame 0's ramp is deeper (the right half) and the stencil holds this
    // frame's value: colors of earlier frames stay where this one's fails.
    const GLint stencil_values[] = {1, 2, 0x81};
    glBindFramebuffer(GL_FRAMEBUFFER, tested);
    glViewport(0, 0, 16, 16);
    glUseProgram(ramp);
    glUniform1f(slope, 0.0f);
    glUniform4f(paint, 0.2f + 0.13f * static_cast<float>(frame % 6),
                0.9f - 0.1f * static_cast<float>(frame % 5),
                0.25f + 0.2f * static_cast<float>(frame % 3), 1.0f);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_FALSE);  // depth stays as frame 0 wrote it
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, stencil_values[(frame - 1) % 3], 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    glUseProgram(program);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);

    glClear(GL_COLOR_BUFFER_BIT);
    int cell = 0;
    auto next_cell = [&] {
      int x = (cell + frame) % 8;
      glViewport(x * 12, (cell / 8) * 16, 12, 16);
      ++cell;
    };
    for (GLuint t : textures) {
      glUniform1i(mode, 0);
      glBindTexture(GL_TEXTURE_2D, t);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    for (float level : {0.0f, 2.0f, 4.0f}) {
      glUniform1i(mode, 1);
      glUniform1f(lod, level);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    for (float l : {1.0f, 3.0f}) {
      glUniform1i(mode, 2);
      glUniform1f(layer, l);
      glUniform1f(lod, l > 2.0f ? 1.0f : 0.0f);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    for (GLuint t : depths) {
      glUniform1i(mode, 3);
      glBindTexture(GL_TEXTURE_2D, t);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    // ETC2 at both its levels, ASTC, then the ETC2/EAC array layer by layer.
    glBindTexture(GL_TEXTURE_2D, etc2);
    for (float level : {0.0f, 1.0f}) {
      glUniform1i(mode, 4);
      glUniform1f(lod, level);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    if (astc != 0) {
      glBindTexture(GL_TEXTURE_2D, astc);
      glUniform1f(lod, 0.0f);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    for (float l : {0.0f, 1.0f}) {
      glUniform1i(mode, 5);
      glUniform1f(layer, l);
      next_cell();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    // The integer and sRGB textures in the row above the renderbuffers'.
    for (int m : {6, 7, 0}) {
      glUniform1i(mode, m);
      glBindTexture(GL_TEXTURE_2D, srgb);
      glViewport(((m == 0 ? 2 : m - 6) * 3 + frame) % 8 * 12, 48, 12, 16);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    // The two atlases in the same row's free cells.
    glUniform1i(mode, 4);
    glUniform1f(lod, 0.0f);
    for (int i = 0; i < 2; ++i) {
      glBindTexture(GL_TEXTURE_2D, atlases[i]);
      glViewport((2 + 3 * i + frame) % 8 * 12, 48, 12, 16);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    // Transform feedback into the app's own object: the quad of this
    // frame's size, drawn from what was captured (a cell of the row above).
    glUseProgram(stream_program);
    glUniform1f(scale, 0.4f + 0.12f * static_cast<float>(frame % 5));
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, feedback);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, 4);
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glUseProgram(program);
    glUniform1i(mode, 0);
    glBindTexture(GL_TEXTURE_2D, textures[1]);
    glBindBuffer(GL_ARRAY_BUFFER, streamed);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glViewport((1 + frame) % 8 * 12, 48, 12, 16);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindBuffer(GL_ARRAY_BUFFER, corners);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    // The program pipeline, a tint of this frame's (another cell).
    glUseProgram(0);
    glProgramUniform4f(stages[1], pipeline_tint, 0.3f + 0.1f * static_cast<float>(frame % 7), 0.8f,
                       0.2f + 0.15f * static_cast<float>(frame % 4), 1.0f);
    glBindProgramPipeline(pipeline);
    glViewport((4 + frame) % 8 * 12, 48, 12, 16);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindProgramPipeline(0);
    glUseProgram(program);
    // The persistently mapped buffer's quad, its first corner this frame's
    // (the row's last free cell).
    if (persistent != 0) {
      move_persistent_corner(persistent, frame);
      glUniform1i(mode, 0);
      glBindTexture(GL_TEXTURE_2D, textures[1]);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
      glViewport((7 + frame) % 8 * 12, 48, 12, 16);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      glBindBuffer(GL_ARRAY_BUFFER, corners);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    }
    // The top row, a third each: the color renderbuffer, the depth and
    // stencil tested one, the multisampled one resolved.
    glBindFramebuffer(GL_READ_FRAMEBUFFER, offscreen);
    int x = (frame * 5) % 16;
    glBlitFramebuffer(0, 0, 16, 16, x, 32, x + 16, 48, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, tested);
    x = 32 + (frame * 3) % 16;
    glBlitFramebuffer(0, 0, 16, 16, x, 32, x + 16, 48, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, multisampled);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolved);
    glBlitFramebuffer(0, 0, 16, 16, 0, 0, 16, 16, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, resolved);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    x = 64 + (frame * 7) % 16;
    glBlitFramebuffer(0, 0, 16, 16, x, 32, x + 16, 48, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    if (!check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers")) return 1;
  }
  if (!check(glGetError() == GL_NO_ERROR, kApp, "drawing")) return 1;
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(display);
  return 0;
}
