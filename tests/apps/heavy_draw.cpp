// gltrace-heavy-draw: draws DRAWS full-surface triangles a frame, each with
// a fragment shader that loops ITERATIONS times, except draw HEAVY, which
// loops ten times as often: `replay --profile` must find it on top of the
// most expensive draws (tests/profile).
//
//   gltrace-heavy-draw [--frames N] [--draws D] [--heavy K] [--iterations I]
//   (defaults 5, 6, 3 (the 4th draw), 40; surfaceless, 128x128)
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/gles_app.h"

using namespace gltrace::test_app;

namespace {

constexpr char kApp[] = "heavy-draw";
// The loop's length comes from a uniform: the driver cannot shorten it.
constexpr char kFragment[] =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform int iterations;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "  float a = gl_FragCoord.x * 0.01;\n"
    "  for (int i = 0; i < iterations; ++i) a = sin(a) * 1.0001 + 0.1;\n"
    "  color = vec4(fract(a), 0.5, 0.25, 1.0);\n"
    "}\n";

bool number_option(const char* name, const char* value, int* out) {
  char* end = nullptr;
  long n = value != nullptr ? strtol(value, &end, 10) : -1;
  if (value == nullptr || *end != '\0' || n < 0 || n > 100000) {
    fprintf(stderr, "%s: %s wants a number\n", kApp, name);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 5, draws = 6, heavy = 3, iterations = 40;
  for (int i = 1; i < argc; i += 2) {
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    int* out = strcmp(argv[i], "--frames") == 0       ? &frames
               : strcmp(argv[i], "--draws") == 0      ? &draws
               : strcmp(argv[i], "--heavy") == 0      ? &heavy
               : strcmp(argv[i], "--iterations") == 0 ? &iterations
                                                      : nullptr;
    if (out == nullptr) {
      fprintf(stderr, "usage: gltrace-%s [--frames N] [--draws D] [--heavy K] [--iterations I]\n",
              kApp);
      return 2;
    }
    if (!number_option(argv[i], value, out)) return 2;
  }
  EGLDisplay display;
  EGLConfig config;
  EGLSurface surface;
  EGLContext context;
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, 128, 128, es3, "an ES 3 context", &surface,
                            &context))
    return 2;
  GLuint program = link(kApp, kFullSurfaceVertex, kFragment);
  if (program == 0) return 1;
  glUseProgram(program);
  GLint location = glGetUniformLocation(program, "iterations");
  for (int frame = 0; frame < frames; ++frame) {
    glClearColor(0.1f, 0.1f, 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    for (int d = 0; d < draws; ++d) {
      glUniform1i(location, d == heavy ? iterations * 10 : iterations);
      glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    if (!check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers")) return 1;
  }
  printf("%s: %d frames of %d draws, draw %d ten times heavier\n", kApp, frames, draws, heavy);
  return 0;
}
