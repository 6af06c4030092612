// gltrace-egl-edges: EGL uses that a GLES tracer must pass through unchanged.
//   --malformed-attribs  eglCreateContext with {unknown name, EGL_NONE}: an
//                        attribute without a value, the list's last element
//                        just before an unreadable page (piglit's
//                        egl-create-context-invalid-attribute-gl does this on
//                        its stack). The driver must reject it: EGL_BAD_ATTRIBUTE.
//   --desktop-gl         a desktop OpenGL context (EGL_OPENGL_API) cleared
//                        green and swapped, then a GLES one cleared red and
//                        swapped: each must render and report its own API.
//   --fence-sync         a GLES fence (eglCreateSync) waited for with a 1 ms
//                        timeout, then with EGL_FOREVER: both must end, the
//                        second satisfied.
// Exit 0 when everything behaved as natively.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "apps/gles_app.h"

namespace {

using gltrace::test_app::check;
constexpr char kApp[] = "gltrace-egl-edges";

int malformed_attribs() {
  EGLDisplay display;
  EGLConfig config;
  if (!gltrace::test_app::open_surfaceless(kApp, &display, &config)) return 1;
  long page = sysconf(_SC_PAGESIZE);
  void* pages = mmap(nullptr, static_cast<size_t>(page) * 2, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!check(pages != MAP_FAILED, kApp, "mmap")) return 1;
  if (!check(mprotect(static_cast<char*>(pages) + page, static_cast<size_t>(page), PROT_NONE) == 0,
             kApp, "mprotect"))
    return 1;
  auto* attribs = reinterpret_cast<EGLint*>(static_cast<char*>(pages) + page) - 2;
  attribs[0] = static_cast<EGLint>(0xffff0000);
  attribs[1] = EGL_NONE;
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, attribs);
  EGLint error = eglGetError();
  if (context != EGL_NO_CONTEXT || error != EGL_BAD_ATTRIBUTE) {
    fprintf(stderr, "%s: eglCreateContext with an unknown attribute gave %p, error 0x%04x\n", kApp,
            context, error);
    return 1;
  }
  eglTerminate(display);
  printf("malformed attribute list rejected\n");
  return 0;
}

// Clears a 16x16 pbuffer of `api` to `rgb`, swaps, and checks a pixel and the
// API glGetString names.
bool clear_and_check(EGLDisplay display, EGLenum api, const GLfloat rgb[3]) {
  const bool desktop = api == EGL_OPENGL_API;
  const char* name = desktop ? "desktop GL" : "GLES";
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                   EGL_PBUFFER_BIT,
                                   EGL_RENDERABLE_TYPE,
                                   desktop ? EGL_OPENGL_BIT : EGL_OPENGL_ES2_BIT,
                                   EGL_RED_SIZE,
                                   8,
                                   EGL_GREEN_SIZE,
                                   8,
                                   EGL_BLUE_SIZE,
                                   8,
                                   EGL_NONE};
  EGLConfig config;
  EGLint count = 0;
  if (!check(eglBindAPI(api), kApp, "eglBindAPI") ||
      !check(eglChooseConfig(display, config_attribs, &config, 1, &count) && count == 1, kApp,
             "eglChooseConfig"))
    return false;
  const EGLint surface_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attribs);
  const EGLint es_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
  EGLContext context =
      eglCreateContext(display, config, EGL_NO_CONTEXT, desktop ? nullptr : es_attribs);
  if (!check(surface != EGL_NO_SURFACE && context != EGL_NO_CONTEXT, kApp, "context creation") ||
      !check(eglMakeCurrent(display, surface, surface, context), kApp, "eglMakeCurrent"))
    return false;
  const auto* version_string = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  std::string version = version_string != nullptr ? version_string : "(null)";
  if (version_string == nullptr || (version.rfind("OpenGL ES", 0) == 0) == desktop) {
    fprintf(stderr, "%s: the %s context reports GL_VERSION \"%s\"\n", kApp, name, version.c_str());
    return false;
  }
  glClearColor(rgb[0], rgb[1], rgb[2], 1);
  glClear(GL_COLOR_BUFFER_BIT);
  GLubyte pixel[4] = {};
  glReadPixels(8, 8, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
  if (!check(eglSwapBuffers(display, surface), kApp, "eglSwapBuffers")) return false;
  bool ok = glGetError() == GL_NO_ERROR && pixel[0] == rgb[0] * 255 && pixel[1] == rgb[1] * 255 &&
            pixel[2] == rgb[2] * 255;
  if (!ok)
    fprintf(stderr, "%s: the %s context read %u,%u,%u\n", kApp, name, pixel[0], pixel[1], pixel[2]);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, context);
  eglDestroySurface(display, surface);
  printf("%s: %s\n", name, version.c_str());
  return ok;
}

int desktop_gl() {
  EGLDisplay display;
  EGLConfig config;
  if (!gltrace::test_app::open_surfaceless(kApp, &display, &config)) return 1;
  const GLfloat green[3] = {0, 1, 0}, red[3] = {1, 0, 0};
  bool ok = clear_and_check(display, EGL_OPENGL_API, green) &&
            clear_and_check(display, EGL_OPENGL_ES_API, red);
  eglTerminate(display);
  return ok ? 0 : 1;
}

int fence_sync() {
  EGLDisplay display;
  EGLConfig config;
  if (!gltrace::test_app::open_surfaceless(kApp, &display, &config)) return 1;
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  if (!gltrace::test_app::make_pbuffer_current(kApp, display, config, 16, 16, context_attribs,
                                               "an ES 2 context", &surface, &context))
    return 1;
  glClear(GL_COLOR_BUFFER_BIT);
  EGLSync sync = eglCreateSync(display, EGL_SYNC_FENCE, nullptr);
  if (!check(sync != EGL_NO_SYNC, kApp, "eglCreateSync")) return 1;
  EGLint first = eglClientWaitSync(display, sync, EGL_SYNC_FLUSH_COMMANDS_BIT, 1000000);
  EGLint forever = eglClientWaitSync(display, sync, 0, EGL_FOREVER);
  bool ok = (first == EGL_CONDITION_SATISFIED || first == EGL_TIMEOUT_EXPIRED) &&
            forever == EGL_CONDITION_SATISFIED && eglDestroySync(display, sync);
  if (!ok) fprintf(stderr, "%s: the waits gave 0x%04x, then 0x%04x\n", kApp, first, forever);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, context);
  eglDestroySurface(display, surface);
  eglTerminate(display);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--malformed-attribs") == 0) return malformed_attribs();
  if (argc == 2 && strcmp(argv[1], "--desktop-gl") == 0) return desktop_gl();
  if (argc == 2 && strcmp(argv[1], "--fence-sync") == 0) return fence_sync();
  fprintf(stderr, "usage: %s --malformed-attribs | --desktop-gl\n", kApp);
  return 2;
}
