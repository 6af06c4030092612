// gltrace-msaa: draws each frame into a 4-sample renderbuffer and resolves it
// into the pbuffer with glBlitFramebuffer. What its trace needs of a driver
// includes GL_MAX_SAMPLES >= 4: llvmpipe has 4, softpipe 1, so a replay on
// softpipe must name the need its driver lacks (tests/glreplay,
// requirements_test.cpp).
//
//   gltrace-msaa [--frames N]   (default 3; surfaceless, 32x32)
#include <cstdio>

#include "apps/gles_app.h"

using namespace gltrace::test_app;

namespace {

constexpr char kApp[] = "msaa";
constexpr int kSize = 32;
constexpr int kSamples = 4;

}  // namespace

int main(int argc, char** argv) {
  int frames = 3;
  if (!frames_option(kApp, argc, argv, &frames)) return 2;
  EGLDisplay display;
  EGLConfig config;
  EGLSurface surface;
  EGLContext context;
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, kSize, kSize, es3, "an ES 3 context", &surface,
                            &context))
    return 2;
  GLuint renderbuffer = 0, framebuffer = 0;
  glGenRenderbuffers(1, &renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, kSamples, GL_RGBA8, kSize, kSize);
  glGenFramebuffers(1, &framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
  if (!check(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, kApp,
             "a 4-sample framebuffer"))
    return 1;
  for (int frame = 0; frame < frames; ++frame) {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glClearColor(0.2f * static_cast<float>(frame % 5), 0.5f, 0.3f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, kSize, kSize, 0, 0, kSize, kSize, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    if (!check(glGetError() == GL_NO_ERROR, kApp, "the resolve") ||
        !check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers"))
      return 1;
  }
  printf("%s: %d frames\n", kApp, frames);
  return 0;
}
