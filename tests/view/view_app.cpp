// gltrace-view-app: a small GLES 3.2 program whose trace holds what the
// viewer shows apart from plain calls: texture uploads in every format the
// viewer decodes (with padded rows), debug groups (KHR and EXT markers,
// nested), a draw from client-side vertex arrays, and optionally one frame
// of many calls (--calls N, for the viewer's scale benchmark).
//
//   gltrace-view-app [--frames N] [--calls N]
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
// After gl32.h, which it builds on.
#include <GLES2/gl2ext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr char kApp[] = "gltrace-view-app";

const char kVertex[] =
    "#version 300 es\n"
    "layout(location = 0) in vec2 pos;\n"
    "layout(location = 1) in vec4 color;\n"
    "out vec4 v_color;\n"
    "void main() { v_color = color; gl_Position = vec4(pos, 0.0, 1.0); }\n";
const char kFragment[] =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_color; }\n";

// Each upload's pixels are small and known: the test checks the viewer's
// decoding of them (tests/view/view_api_test.py, UPLOADS).
void upload(GLenum internal, GLsizei w, GLsizei h, GLenum format, GLenum type, const void* data) {
  GLuint texture;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(internal), w, h, 0, format, type, data);
}

void upload_all() {
  const uint8_t rgba[4 * 2 * 4] = {255, 0,   0,   255, 0,   255, 0,   255, 0,   0,  255,
                                   255, 255, 255, 255, 128, 10,  20,  30,  40,  50, 60,
                                   70,  80,  90,  100, 110, 120, 130, 140, 150, 160};
  upload(GL_RGBA8, 4, 2, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  // 3 RGB pixels a row: 9 bytes, padded to 12 by the default alignment of 4.
  const uint8_t rgb[12 + 9] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  upload(GL_RGB8, 3, 2, GL_RGB, GL_UNSIGNED_BYTE, rgb);
  const uint16_t rgb565[4] = {0xf800, 0x07e0, 0x001f, 0xffff};
  upload(GL_RGB565, 2, 2, GL_RGB, GL_UNSIGNED_SHORT_5_6_5, rgb565);
  const uint16_t rgba4444[2] = {0xf00f, 0x0ff0};
  upload(GL_RGBA4, 2, 1, GL_RGBA, GL_UNSIGNED_SHORT_4_4_4_4, rgba4444);
  const uint16_t rgba5551[2] = {0xf801, 0x07c0};
  upload(GL_RGB5_A1, 2, 1, GL_RGBA, GL_UNSIGNED_SHORT_5_5_5_1, rgba5551);
  const uint8_t luminance[4] = {0, 100, 200, 255};
  upload(GL_LUMINANCE, 4, 1, GL_LUMINANCE, GL_UNSIGNED_BYTE, luminance);
  const uint8_t alpha[4] = {10, 20, 30, 40};
  upload(GL_ALPHA, 4, 1, GL_ALPHA, GL_UNSIGNED_BYTE, alpha);
  const uint8_t luminance_alpha[4] = {50, 60, 70, 80};
  upload(GL_LUMINANCE_ALPHA, 2, 1, GL_LUMINANCE_ALPHA, GL_UNSIGNED_BYTE, luminance_alpha);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  const uint8_t red[3] = {1, 2, 3};
  upload(GL_R8, 3, 1, GL_RED, GL_UNSIGNED_BYTE, red);
  const uint8_t rg[6] = {10, 20, 30, 40, 50, 60};
  upload(GL_RG8, 3, 1, GL_RG, GL_UNSIGNED_BYTE, rg);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  const float floats[8] = {1.0f, 0.5f, 0.0f, 1.0f, 0.25f, 2.0f, -1.0f, 0.0f};
  upload(GL_RGBA32F, 2, 1, GL_RGBA, GL_FLOAT, floats);
  const uint16_t halves[4] = {0x3c00, 0x3800, 0x0000, 0x3c00};  // 1, 0.5, 0, 1
  upload(GL_RGBA16F, 1, 1, GL_RGBA, GL_HALF_FLOAT, halves);
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 3;
  long calls = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
      calls = atol(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--frames N] [--calls N]\n", kApp);
      return 2;
    }
  }
  EGLDisplay display;
  EGLConfig config;
  if (!test_app::open_surfaceless(kApp, &display, &config)) return 2;
  const EGLint surface_attribs[] = {EGL_WIDTH, 64, EGL_HEIGHT, 48, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2,
                                    EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (!test_app::check(surface != EGL_NO_SURFACE && context != EGL_NO_CONTEXT &&
                           eglMakeCurrent(display, surface, surface, context),
                       kApp, "a GLES 3.2 context"))
    return 2;
  auto push_marker =
      reinterpret_cast<PFNGLPUSHGROUPMARKEREXTPROC>(eglGetProcAddress("glPushGroupMarkerEXT"));
  auto pop_marker =
      reinterpret_cast<PFNGLPOPGROUPMARKEREXTPROC>(eglGetProcAddress("glPopGroupMarkerEXT"));
  GLuint program = test_app::link(kApp, kVertex, kFragment);
  if (program == 0) return 2;
  upload_all();
  // A triangle from client memory: positions as floats, colors as bytes.
  const float positions[6] = {-1.0f, -1.0f, 1.0f, -1.0f, 0.0f, 1.0f};
  const uint8_t colors[12] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255};
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, positions);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, colors);
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glUseProgram(program);
  for (int frame = 0; frame < frames; ++frame) {
    glViewport(0, 0, 64, 48);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 1, -1, "outer");
    glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 2, -1, "inner");
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glPopDebugGroup();
    if (push_marker != nullptr && pop_marker != nullptr) {
      push_marker(0, "marker");
      glFlush();
      pop_marker();
    }
    glPopDebugGroup();
    if (frame == 1 && calls > 0) {
      // In a group: its depth must hold across the chunks the calls fill.
      glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 3, -1, "many");
      for (long i = 0; i < calls; ++i) glVertexAttrib1f(5, static_cast<float>(i % 7));
      glPopDebugGroup();
    }
    if (!test_app::check(eglSwapBuffers(display, surface), kApp, "eglSwapBuffers")) return 1;
  }
  GLenum error = glGetError();
  if (error != GL_NO_ERROR) {
    fprintf(stderr, "%s: GL error 0x%x\n", kApp, error);
    return 1;
  }
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(display);
  return 0;
}
