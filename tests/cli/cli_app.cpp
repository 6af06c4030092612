// gltrace-cli-app: a small surfaceless GLES program with the habits of real
// apps that gltrace's trace and attach commands must report on: no frames
// (off-screen only), desktop GL next to EGL, an argv rewritten before any GL
// call, EGL queries whose enums the dumper names.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <dlfcn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr char kApp[] = "gltrace-cli-app";

void usage() {
  fputs(
      "usage: gltrace-cli-app [options]\n"
      "  --frames N        draw and swap N times (0: draw once, glFinish, no swap)\n"
      "  --frame-ms MS     sleep MS milliseconds after each frame\n"
      "  --init-only S     eglInitialize, then sleep S seconds and exit (no context)\n"
      "  --rewrite-argv    overwrite argv and the process name first, as daemons do\n"
      "  --bind-desktop-gl call eglBindAPI(EGL_OPENGL_API) (then ES again)\n"
      "  --dlopen-libgl    dlopen libGL.so.1 (the GLX/desktop GL library)\n"
      "  --dlopen-libgl-late  the same after the EGL set-up (toolkits that probe EGL first)\n",
      stderr);
}

// What setproctitle-style code does: the new title over argv's memory, the
// rest zeroed, so /proc/self/cmdline shows the new title from now on.
void rewrite_argv(int argc, char** argv) {
  char* begin = argv[0];
  char* end = argv[argc - 1] + strlen(argv[argc - 1]);
  memset(begin, 0, static_cast<size_t>(end - begin));
  snprintf(begin, static_cast<size_t>(end - begin), "rewritten");
  prctl(PR_SET_NAME, "rewritten", 0, 0, 0);
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 1;
  int frame_ms = 0;
  int init_only_s = -1;
  bool bind_desktop_gl = false;
  bool rewrite = false;
  bool libgl = false;
  bool libgl_late = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--frames" && has_value) {
      frames = atoi(argv[++i]);
    } else if (arg == "--frame-ms" && has_value) {
      frame_ms = atoi(argv[++i]);
    } else if (arg == "--init-only" && has_value) {
      init_only_s = atoi(argv[++i]);
    } else if (arg == "--rewrite-argv") {
      rewrite = true;
    } else if (arg == "--bind-desktop-gl") {
      bind_desktop_gl = true;
    } else if (arg == "--dlopen-libgl") {
      libgl = true;
    } else if (arg == "--dlopen-libgl-late") {
      libgl_late = true;
    } else {
      usage();
      return 2;
    }
  }
  if (rewrite) rewrite_argv(argc, argv);
  if (libgl && dlopen("libGL.so.1", RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    fprintf(stderr, "%s: dlopen libGL.so.1: %s\n", kApp, dlerror());
    return 2;
  }
  EGLDisplay display;
  EGLConfig config;
  if (!test_app::open_surfaceless(kApp, &display, &config)) return 2;
  if (libgl_late && dlopen("libGL.so.1", RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    fprintf(stderr, "%s: dlopen libGL.so.1: %s\n", kApp, dlerror());
    return 2;
  }
  if (init_only_s >= 0) {
    sleep(static_cast<unsigned>(init_only_s));
    eglTerminate(display);
    return 0;
  }
  // Queries with enum arguments (EGL_VERSION, EGL_CONFIG_ID, EGL_WIDTH).
  const char* version = eglQueryString(display, EGL_VERSION);
  EGLint config_id = 0;
  eglGetConfigAttrib(display, config, EGL_CONFIG_ID, &config_id);
  if (bind_desktop_gl) {
    eglBindAPI(EGL_OPENGL_API);
    eglBindAPI(EGL_OPENGL_ES_API);
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  const EGLint surface_attribs[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attribs);
  if (!test_app::check(version != nullptr && context != EGL_NO_CONTEXT &&
                           surface != EGL_NO_SURFACE &&
                           eglMakeCurrent(display, surface, surface, context),
                       kApp, "EGL setup"))
    return 2;
  EGLint width = 0;
  eglQuerySurface(display, surface, EGL_WIDTH, &width);
  for (int frame = 0; frame < (frames > 0 ? frames : 1); ++frame) {
    glClearColor(static_cast<float>(frame % 8) / 8.0f, 0.5f, 0.25f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (frames == 0) {
      glFinish();
    } else {
      eglSwapBuffers(display, surface);
    }
    if (frame_ms > 0) usleep(static_cast<useconds_t>(frame_ms) * 1000);
  }
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroySurface(display, surface);
  eglDestroyContext(display, context);
  eglTerminate(display);
  printf("%s: %d frames, config %d, width %d\n", kApp, frames, config_id, width);
  return 0;
}
