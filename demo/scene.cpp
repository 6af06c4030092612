#include "scene.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace demo {
namespace {

constexpr int kFboSize = 128;
constexpr int kCols = 6, kRows = 4, kQuads = kCols * kRows;
// Colours are k/255 so the expected unorm8 values are exact.
constexpr float kClear[4] = {32 / 255.f, 40 / 255.f, 56 / 255.f, 1.f};
constexpr float kFboClear[4] = {40 / 255.f, 64 / 255.f, 96 / 255.f, 1.f};
// Layout in normalized device coordinates: the grid on the left, the panel
// showing the FBO on the right, a margin of clear colour around both.
constexpr float kGridX0 = -0.9f, kGridX1 = 0.35f, kGridY0 = -0.85f, kGridY1 = 0.85f;
constexpr float kCellW = (kGridX1 - kGridX0) / kCols, kCellH = (kGridY1 - kGridY0) / kRows;
constexpr float kPanelX = 0.7f, kPanelY = 0.f, kPanelHalfW = 0.25f, kPanelHalfH = 0.45f;

// Column-major 4x4 matrix, as glUniformMatrix4fv expects with transpose=false.
using Mat4 = std::array<float, 16>;

Mat4 identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

Mat4 operator*(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row)
      for (int k = 0; k < 4; ++k) r[c * 4 + row] += a[k * 4 + row] * b[c * 4 + k];
  return r;
}

Mat4 translate(float x, float y, float z) {
  Mat4 m = identity();
  m[12] = x, m[13] = y, m[14] = z;
  return m;
}

Mat4 scale(float x, float y, float z) {
  Mat4 m = identity();
  m[0] = x, m[5] = y, m[10] = z;
  return m;
}

// Rotation by angle a about axis 0 (x), 1 (y) or 2 (z).
Mat4 rotate(int axis, float a) {
  Mat4 m = identity();
  int i = (axis + 1) % 3, j = (axis + 2) % 3;
  float c = std::cos(a), s = std::sin(a);
  m[i * 4 + i] = c, m[j * 4 + i] = -s, m[i * 4 + j] = s, m[j * 4 + j] = c;
  return m;
}

Mat4 perspective(float fovy, float aspect, float near, float far) {
  float f = 1.f / std::tan(fovy / 2);
  Mat4 m{};
  m[0] = f / aspect, m[5] = f, m[10] = (far + near) / (near - far), m[11] = -1;
  m[14] = 2 * far * near / (near - far);
  return m;
}

// How each grid quad is drawn: a deterministic mix of state so every frame
// exercises texture switches, blending, scissor, culling and both draw calls.
struct QuadStyle {
  bool textured, fbo_texture, blended, scissored, culled, spin_y, indexed;
};

QuadStyle quad_style(int i) {
  return {i % 3 != 0, i % 3 == 2, i % 4 == 3, i % 5 == 4, i % 4 == 1, i % 2 == 1, (i / 2) % 2 == 0};
}

std::array<float, 4> quad_color(int i, float t) {
  return {0.5f + 0.5f * std::sin(t * 1.3f + i * 0.7f),
          0.5f + 0.5f * std::sin(t * 0.9f + i * 1.1f + 2.f),
          0.5f + 0.5f * std::sin(t * 1.7f + i * 0.4f + 4.f), quad_style(i).blended ? 0.6f : 1.f};
}

float cell_x(int i) { return kGridX0 + (i % kCols + 0.5f) * kCellW; }
float cell_y(int i) { return kGridY0 + (i / kCols + 0.5f) * kCellH; }
float panel_brightness(float t) { return 0.8f + 0.2f * std::sin(t * 2.f); }

// Each quad spins about its own centre (z, or y for the ones culling can hide)
// at 80% of its cell, so it never reaches a neighbour's centre.
Mat4 quad_matrix(int i, float t) {
  float angle = t * (0.6f + 0.1f * i) + i;
  return translate(cell_x(i), cell_y(i), 0) * scale(0.4f * kCellW, 0.4f * kCellH, 1) *
         rotate(quad_style(i).spin_y ? 1 : 2, angle);
}

const char* kCubeVs = R"(#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_color;
uniform mat4 u_mvp;
uniform float u_spread;  // instanced draws fan their copies out on a ring
out vec3 v_color;
void main() {
  float a = float(gl_InstanceID) * 0.7853982;
  v_color = a_color;
  gl_Position = u_mvp * vec4(a_pos + u_spread * vec3(cos(a), sin(a), 0.0), 1.0);
})";
const char* kCubeFs = R"(#version 300 es
precision mediump float;
in vec3 v_color;
uniform vec4 u_tint;
out vec4 o_color;
void main() { o_color = vec4(v_color, 1.0) * u_tint; })";
const char* kQuadVs = R"(#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_uv;
uniform mat4 u_mvp;
out vec2 v_uv;
void main() {
  v_uv = a_uv;
  gl_Position = u_mvp * vec4(a_pos, 0.0, 1.0);
})";
// u_texmix == 0.0 gives exactly u_color, which --verify relies on.
const char* kQuadFs = R"(#version 300 es
precision mediump float;
in vec2 v_uv;
uniform sampler2D u_tex;
uniform vec4 u_color;
uniform float u_texmix;
out vec4 o_color;
void main() { o_color = mix(u_color, texture(u_tex, v_uv) * u_color, u_texmix); })";
const char* kPanelFs = R"(#version 300 es
precision mediump float;
in vec2 v_uv;
uniform sampler2D u_tex;
uniform float u_brightness;
out vec4 o_color;
void main() { o_color = vec4(texture(u_tex, v_uv).rgb * u_brightness, 1.0); })";

GLuint compile(GLenum type, const char* source, const char* name) {
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    std::fprintf(stderr, "demo: compiling %s shader failed: %s\n", name, log);
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

GLuint link(const char* vs_source, const char* fs_source, const char* name) {
  GLuint vs = compile(GL_VERTEX_SHADER, vs_source, name);
  GLuint fs = compile(GL_FRAGMENT_SHADER, fs_source, name);
  GLuint program = 0;
  if (vs != 0 && fs != 0) {
    program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
      char log[1024] = "";
      glGetProgramInfoLog(program, sizeof log, nullptr, log);
      std::fprintf(stderr, "demo: linking %s program failed: %s\n", name, log);
      glDeleteProgram(program);
      program = 0;
    }
  }
  glDeleteShader(vs);  // the program keeps them alive while attached
  glDeleteShader(fs);
  return program;
}

// A VAO over interleaved float vertices: attribute 0 has `a` components,
// attribute 1 has `b`.
GLuint make_vao(GLuint vbo, GLuint ibo, int a, int b) {
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  GLsizei stride = (a + b) * sizeof(float);
  glVertexAttribPointer(0, a, GL_FLOAT, GL_FALSE, stride, nullptr);
  glVertexAttribPointer(1, b, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(a * sizeof(float)));
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  if (ibo != 0) glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
  glBindVertexArray(0);
  return vao;
}

}  // namespace

bool Scene::init(int width, int height) {
  width_ = width;
  height_ = height;
  cube_program_ = link(kCubeVs, kCubeFs, "cube");
  quad_program_ = link(kQuadVs, kQuadFs, "quad");
  panel_program_ = link(kQuadVs, kPanelFs, "panel");
  if (!cube_program_ || !quad_program_ || !panel_program_) return false;
  cube_mvp_ = glGetUniformLocation(cube_program_, "u_mvp");
  cube_tint_ = glGetUniformLocation(cube_program_, "u_tint");
  cube_spread_ = glGetUniformLocation(cube_program_, "u_spread");
  quad_mvp_ = glGetUniformLocation(quad_program_, "u_mvp");
  quad_color_ = glGetUniformLocation(quad_program_, "u_color");
  quad_texmix_ = glGetUniformLocation(quad_program_, "u_texmix");
  quad_tex_ = glGetUniformLocation(quad_program_, "u_tex");
  panel_mvp_ = glGetUniformLocation(panel_program_, "u_mvp");
  panel_brightness_ = glGetUniformLocation(panel_program_, "u_brightness");
  panel_tex_ = glGetUniformLocation(panel_program_, "u_tex");
  glUseProgram(quad_program_);
  glUniform1i(quad_tex_, 0);
  glUseProgram(panel_program_);
  glUniform1i(panel_tex_, 0);
  glUseProgram(0);

  // Cube: 6 faces of 4 vertices (position, face colour). Each face spans
  // n +- u +- v with u x v = n, so both triangles wind counter-clockwise
  // seen from outside and back-face culling is correct.
  static const float kFaces[6][3][3] = {
      {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
      {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
      {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, -1}, {0, 1, 0}, {1, 0, 0}}};
  static const float kFaceColors[6][3] = {{0.9f, 0.2f, 0.2f}, {0.2f, 0.9f, 0.2f},
                                          {0.2f, 0.3f, 0.9f}, {0.9f, 0.9f, 0.2f},
                                          {0.9f, 0.3f, 0.9f}, {0.2f, 0.9f, 0.9f}};
  std::vector<float> cube;
  std::vector<GLushort> cube_idx;
  for (int f = 0; f < 6; ++f) {
    const auto& [n, u, v] = kFaces[f];
    for (int corner = 0; corner < 4; ++corner) {
      float su = corner & 1 ? 1.f : -1.f, sv = corner & 2 ? 1.f : -1.f;
      for (int k = 0; k < 3; ++k) cube.push_back(n[k] + su * u[k] + sv * v[k]);
      cube.insert(cube.end(), kFaceColors[f], kFaceColors[f] + 3);
    }
    for (int k : {0, 1, 2, 2, 1, 3}) cube_idx.push_back(static_cast<GLushort>(f * 4 + k));
  }
  static const float kRing[] = {0, 0.12f, 0, 1,    1,      1, -0.1f, -0.06f, 0,
                                1, 0.5f,  0, 0.1f, -0.06f, 0, 0,     0.5f,   1};
  // Quad: corners BL, BR, TL, TR; as a strip or as indexed triangles.
  static const float kQuad[] = {-1, -1, 0, 0, 1, -1, 1, 0, -1, 1, 0, 1, 1, 1, 1, 1};
  static const GLushort kQuadIdx[] = {0, 1, 2, 2, 1, 3};

  glGenBuffers(5, buffers_);
  glBindBuffer(GL_ARRAY_BUFFER, buffers_[0]);
  glBufferData(GL_ARRAY_BUFFER, cube.size() * sizeof(float), cube.data(), GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, buffers_[2]);
  glBufferData(GL_ARRAY_BUFFER, sizeof kRing, kRing, GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, buffers_[3]);
  glBufferData(GL_ARRAY_BUFFER, sizeof kQuad, kQuad, GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  cube_vao_ = make_vao(buffers_[0], buffers_[1], 3, 3);
  ring_vao_ = make_vao(buffers_[2], 0, 3, 3);
  quad_vao_ = make_vao(buffers_[3], buffers_[4], 2, 2);
  // Element data goes in after the VAOs captured the IBO bindings.
  glBindVertexArray(cube_vao_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, cube_idx.size() * sizeof(GLushort), cube_idx.data(),
               GL_STATIC_DRAW);
  glBindVertexArray(quad_vao_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof kQuadIdx, kQuadIdx, GL_STATIC_DRAW);
  glBindVertexArray(0);

  // 64x64 checkerboard of 8x8 texel squares, mipmapped: grid quads are
  // smaller than the texture, so minification really uses the mip chain.
  std::vector<uint8_t> texels(64 * 64 * 4);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      bool on = ((x / 8) + (y / 8)) % 2 == 0;
      uint8_t* p = &texels[(y * 64 + x) * 4];
      p[0] = on ? 255 : 40, p[1] = on ? 230 : 40, p[2] = on ? 200 : 60, p[3] = 255;
    }
  }
  glGenTextures(1, &checker_tex_);
  glBindTexture(GL_TEXTURE_2D, checker_tex_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
  glGenerateMipmap(GL_TEXTURE_2D);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);

  // Offscreen target: colour texture (sampled later, so no mipmaps and a
  // non-mipmap filter to stay complete) and a depth renderbuffer.
  glGenTextures(1, &fbo_tex_);
  glBindTexture(GL_TEXTURE_2D, fbo_tex_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kFboSize, kFboSize, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenRenderbuffers(1, &depth_rb_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_rb_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, kFboSize, kFboSize);
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, fbo_tex_, 0);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_rb_);
  GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    std::fprintf(stderr, "demo: offscreen framebuffer incomplete: 0x%04x\n", status);
    return false;
  }
  if (GLenum error = glGetError(); error != GL_NO_ERROR) {
    std::fprintf(stderr, "demo: GL error 0x%04x while creating the scene\n", error);
    return false;
  }
  return true;
}

void Scene::draw(float t) {
  // Pass 1: depth-tested, culled cubes and an instanced ring into the FBO.
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, kFboSize, kFboSize);
  glClearColor(kFboClear[0], kFboClear[1], kFboClear[2], kFboClear[3]);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glEnable(GL_CULL_FACE);
  glUseProgram(cube_program_);
  glUniform1f(cube_spread_, 0.f);
  glBindVertexArray(cube_vao_);
  Mat4 view_proj = perspective(1.0472f, 1.f, 0.5f, 20.f) * translate(0, 0, -4);
  for (int k = 0; k < 3; ++k) {
    Mat4 mvp = view_proj * translate((k - 1) * 0.7f, 0, k == 1 ? -0.4f : 0) *
               rotate(1, t * (1 + 0.3f * k)) * rotate(0, t * 0.7f + k) * scale(0.4f, 0.4f, 0.4f);
    const float tint[4] = {1.f - 0.2f * (k == 2), 1.f - 0.2f * (k == 1), 1.f, 1.f};
    glUniformMatrix4fv(cube_mvp_, 1, GL_FALSE, mvp.data());
    glUniform4fv(cube_tint_, 1, tint);
    glDrawElements(GL_TRIANGLES, 36, GL_UNSIGNED_SHORT, nullptr);
  }
  glBindVertexArray(ring_vao_);
  Mat4 ring = rotate(2, -t);
  const float ring_tint[4] = {1.f, 1.f, 0.6f, 1.f};
  glUniformMatrix4fv(cube_mvp_, 1, GL_FALSE, ring.data());
  glUniform4fv(cube_tint_, 1, ring_tint);
  glUniform1f(cube_spread_, 0.62f);
  glDrawArraysInstanced(GL_TRIANGLES, 0, 3, 8);
  glDisable(GL_DEPTH_TEST);

  // Pass 2: the grid on the default framebuffer, state set per quad.
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, width_, height_);
  glClearColor(kClear[0], kClear[1], kClear[2], kClear[3]);
  glClear(GL_COLOR_BUFFER_BIT);
  glUseProgram(quad_program_);
  glBindVertexArray(quad_vao_);
  glActiveTexture(GL_TEXTURE0);
  // Destination alpha stays 1, so pixels are the same with or without an
  // alpha channel (pbuffer RGBA8 vs. an RGB X11 visual).
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
  for (int i = 0; i < kQuads; ++i) {
    QuadStyle s = quad_style(i);
    if (s.textured) glBindTexture(GL_TEXTURE_2D, s.fbo_texture ? fbo_tex_ : checker_tex_);
    Mat4 mvp = quad_matrix(i, t);
    glUniformMatrix4fv(quad_mvp_, 1, GL_FALSE, mvp.data());
    glUniform4fv(quad_color_, 1, quad_color(i, t).data());
    glUniform1f(quad_texmix_, s.textured ? 1.f : 0.f);
    s.blended ? glEnable(GL_BLEND) : glDisable(GL_BLEND);
    if (s.scissored) {
      // Left 60% of the cell.
      int x0 = static_cast<int>((cell_x(i) - kCellW / 2 + 1) * 0.5f * width_);
      int x1 = static_cast<int>((cell_x(i) + kCellW / 10 + 1) * 0.5f * width_);
      int y0 = static_cast<int>((cell_y(i) - kCellH / 2 + 1) * 0.5f * height_);
      int y1 = static_cast<int>((cell_y(i) + kCellH / 2 + 1) * 0.5f * height_);
      glEnable(GL_SCISSOR_TEST);
      glScissor(x0, y0, x1 - x0, y1 - y0);
    } else {
      glDisable(GL_SCISSOR_TEST);
    }
    s.culled ? glEnable(GL_CULL_FACE) : glDisable(GL_CULL_FACE);
    if (s.indexed) {
      glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, nullptr);
    } else {
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
  }
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);

  // The panel: a second program sampling what pass 1 rendered.
  glUseProgram(panel_program_);
  glBindTexture(GL_TEXTURE_2D, fbo_tex_);
  Mat4 panel = translate(kPanelX, kPanelY, 0) * scale(kPanelHalfW, kPanelHalfH, 1);
  glUniformMatrix4fv(panel_mvp_, 1, GL_FALSE, panel.data());
  glUniform1f(panel_brightness_, panel_brightness(t));
  glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, nullptr);
  glBindVertexArray(0);
}

std::vector<PixelCheck> Scene::expected_pixels(float t) const {
  auto px = [](float ndc, int size) { return static_cast<int>((ndc + 1) * 0.5f * size); };
  auto unorm = [](float v) { return static_cast<uint8_t>(std::lround(v * 255.f)); };
  std::vector<PixelCheck> checks;
  for (auto [what, x, y] :
       {std::tuple{"bottom-left corner (clear colour)", 0, 0},
        std::tuple{"top-right corner (clear colour)", width_ - 1, height_ - 1}}) {
    PixelCheck c{what, x, y};
    for (int k = 0; k < 4; ++k) c.rgba[k] = unorm(kClear[k]);
    checks.push_back(c);
  }
  // Quad 0 is untextured, opaque, unscissored, spins about z: its centre
  // always shows exactly its uniform colour.
  PixelCheck quad{"centre of quad 0 (solid colour)", px(cell_x(0), width_), px(cell_y(0), height_)};
  auto color = quad_color(0, t);
  for (int k = 0; k < 4; ++k) quad.rgba[k] = unorm(color[k]);
  quad.tolerance = 1;
  checks.push_back(quad);
  // Near the panel's bottom-left corner the FBO only ever holds its clear
  // colour; the panel scales it by the brightness (two roundings: +-2).
  float u = 0.08f;
  PixelCheck panel{"panel near its bottom-left (FBO clear colour x brightness)",
                   px(kPanelX - kPanelHalfW + u * 2 * kPanelHalfW, width_),
                   px(kPanelY - kPanelHalfH + u * 2 * kPanelHalfH, height_)};
  for (int k = 0; k < 3; ++k) panel.rgba[k] = unorm(kFboClear[k] * panel_brightness(t));
  panel.rgba[3] = 255;
  panel.tolerance = 2;
  checks.push_back(panel);
  return checks;
}

void Scene::destroy() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &fbo_);
  glDeleteRenderbuffers(1, &depth_rb_);
  GLuint textures[] = {checker_tex_, fbo_tex_};
  glDeleteTextures(2, textures);
  GLuint vaos[] = {cube_vao_, ring_vao_, quad_vao_};
  glDeleteVertexArrays(3, vaos);
  glDeleteBuffers(5, buffers_);
  glUseProgram(0);
  glDeleteProgram(cube_program_);
  glDeleteProgram(quad_program_);
  glDeleteProgram(panel_program_);
  *this = Scene{};
}

}  // namespace demo
