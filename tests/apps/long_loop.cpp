// gltrace-long-loop: draws with a fragment shader that loops as many times
// as a uniform says (--iterations N, default 2^30). Mesa's llvmpipe ends any
// loop after 65535 iterations, so it draws at once; softpipe runs every
// iteration and does not finish in hours: a trace captured on llvmpipe
// hangs when replayed on softpipe, as a trace of a real app hangs on a
// driver that miscompiles its loop (tests/check: gltrace check reports it
// as a hang within its timeout).
//
//   gltrace-long-loop [--frames N] [--iterations N]   (default 2 frames;
//   surfaceless, 16x16)
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/gles_app.h"

using namespace gltrace::test_app;

namespace {

constexpr char kApp[] = "long-loop";
constexpr char kFragment[] =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform int iterations;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "  float v = gl_FragCoord.x / 16.0;\n"
    "  for (int i = 0; i < iterations; ++i) v = fract(v * 1.5 + 0.37);\n"
    "  color = vec4(v, 0.5, 0.25, 1.0);\n"
    "}\n";

}  // namespace

int main(int argc, char** argv) {
  int frames = 2;
  int iterations = 1 << 30;
  // --iterations N is this app's own; the rest is the shared --frames.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = atoi(argv[++i]);
    } else {
      argv[kept++] = argv[i];
    }
  }
  if (!frames_option(kApp, kept, argv, &frames)) return 2;
  EGLDisplay display;
  EGLConfig config;
  EGLSurface surface;
  EGLContext context;
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, 16, 16, es3, "an ES 3 context", &surface,
                            &context))
    return 2;
  GLuint program = link(kApp, kFullSurfaceVertex, kFragment);
  if (program == 0) return 1;
  glUseProgram(program);
  glUniform1i(glGetUniformLocation(program, "iterations"), iterations);
  for (int frame = 0; frame < frames; ++frame) {
    glClearColor(0.1f, 0.1f * static_cast<float>(frame), 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    if (!check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers")) return 1;
  }
  printf("%s: %d frames\n", kApp, frames);
  return 0;
}
