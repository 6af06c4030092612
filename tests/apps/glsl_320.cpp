// gltrace-glsl-320: draws with shaders written in GLSL ES 3.20, as mpv's
// are, after asking whether they compiled and linked. Traced on llvmpipe
// (ES 3.2) and replayed on softpipe (GLSL ES 3.10), nothing fails as a call,
// yet the frames are empty: the replay must say where its driver answered
// otherwise than the trace recorded (tests/glreplay, GlreplayDrivers).
//
//   gltrace-glsl-320 [--frames N]   (default 3; surfaceless, 32x32)
#include <cstdio>

#include "apps/gles_app.h"

using namespace gltrace::test_app;

namespace {

constexpr char kApp[] = "glsl-320";
constexpr char kVertex[] =
    "#version 320 es\n"
    "const vec2 corners[3] = vec2[](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));\n"
    "void main() { gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0); }\n";
constexpr char kFragment[] =
    "#version 320 es\n"
    "precision mediump float;\n"
    "uniform vec4 paint;\n"
    "out vec4 color;\n"
    "void main() { color = paint; }\n";

}  // namespace

int main(int argc, char** argv) {
  int frames = 3;
  if (!frames_option(kApp, argc, argv, &frames)) return 2;
  EGLDisplay display;
  EGLConfig config;
  EGLSurface surface;
  EGLContext context;
  // ES 3 as mpv asks for it: Mesa gives the newest it has (llvmpipe's 3.2).
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, 32, 32, es3, "an ES 3 context", &surface,
                            &context))
    return 2;
  GLuint program = link(kApp, kVertex, kFragment);  // asks each shader's COMPILE_STATUS
  GLint linked = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (!linked) return 1;
  glUseProgram(program);
  GLint paint = glGetUniformLocation(program, "paint");
  for (int frame = 0; frame < frames; ++frame) {
    glClearColor(0.1f, 0.1f, 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUniform4f(paint, 0.2f * static_cast<float>(frame % 5), 0.8f, 0.4f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    if (!check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers")) return 1;
  }
  printf("%s: %d frames\n", kApp, frames);
  return 0;
}
