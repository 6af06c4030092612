// probe_direct / probe_dlopen / probe_gpa: one tiny GLES 3 app built three
// ways, one per way an app can reach GL, so tests can prove the interposer
// sees every kind of app:
//   PROBE_MODE_DIRECT  links libEGL/libGLESv2 and calls functions by symbol;
//   PROBE_MODE_DLOPEN  links neither, dlopen()s both and dlsym()s every function;
//   PROBE_MODE_GPA     dlsym()s only eglGetProcAddress and gets every other EGL
//                      and GL function through it.
// Each renders a red triangle on blue into a 64x64 pbuffer and checks two pixels.
#if defined(PROBE_MODE_DIRECT)
#define PROBE_MODE "direct"
#elif defined(PROBE_MODE_DLOPEN) || defined(PROBE_MODE_GPA)
#if defined(PROBE_MODE_DLOPEN)
#define PROBE_MODE "dlopen"
#else
#define PROBE_MODE "gpa"
#endif
// No prototypes: a function used by symbol by mistake fails to compile
// instead of silently linking.
#define EGL_EGL_PROTOTYPES 0
#define GL_GLES_PROTOTYPES 0
#include <dlfcn.h>
#else
#error "define PROBE_MODE_DIRECT, PROBE_MODE_DLOPEN or PROBE_MODE_GPA"
#endif

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define PROBE_EGL_FUNCTIONS(X)                               \
  X(PFNEGLGETERRORPROC, eglGetError)                         \
  X(PFNEGLGETPLATFORMDISPLAYPROC, eglGetPlatformDisplay)     \
  X(PFNEGLINITIALIZEPROC, eglInitialize)                     \
  X(PFNEGLBINDAPIPROC, eglBindAPI)                           \
  X(PFNEGLCHOOSECONFIGPROC, eglChooseConfig)                 \
  X(PFNEGLCREATEPBUFFERSURFACEPROC, eglCreatePbufferSurface) \
  X(PFNEGLCREATECONTEXTPROC, eglCreateContext)               \
  X(PFNEGLMAKECURRENTPROC, eglMakeCurrent)                   \
  X(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext)             \
  X(PFNEGLDESTROYSURFACEPROC, eglDestroySurface)             \
  X(PFNEGLTERMINATEPROC, eglTerminate)                       \
  X(PFNEGLRELEASETHREADPROC, eglReleaseThread)

#define PROBE_GL_FUNCTIONS(X)                                    \
  X(PFNGLGETERRORPROC, glGetError)                               \
  X(PFNGLVIEWPORTPROC, glViewport)                               \
  X(PFNGLCLEARCOLORPROC, glClearColor)                           \
  X(PFNGLCLEARPROC, glClear)                                     \
  X(PFNGLCREATESHADERPROC, glCreateShader)                       \
  X(PFNGLSHADERSOURCEPROC, glShaderSource)                       \
  X(PFNGLCOMPILESHADERPROC, glCompileShader)                     \
  X(PFNGLGETSHADERIVPROC, glGetShaderiv)                         \
  X(PFNGLCREATEPROGRAMPROC, glCreateProgram)                     \
  X(PFNGLATTACHSHADERPROC, glAttachShader)                       \
  X(PFNGLLINKPROGRAMPROC, glLinkProgram)                         \
  X(PFNGLGETPROGRAMIVPROC, glGetProgramiv)                       \
  X(PFNGLDELETESHADERPROC, glDeleteShader)                       \
  X(PFNGLUSEPROGRAMPROC, glUseProgram)                           \
  X(PFNGLGENBUFFERSPROC, glGenBuffers)                           \
  X(PFNGLBINDBUFFERPROC, glBindBuffer)                           \
  X(PFNGLBUFFERDATAPROC, glBufferData)                           \
  X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer)         \
  X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray) \
  X(PFNGLDRAWARRAYSPROC, glDrawArrays)                           \
  X(PFNGLREADPIXELSPROC, glReadPixels)                           \
  X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers)                     \
  X(PFNGLDELETEPROGRAMPROC, glDeleteProgram)

namespace {

// Every function the probe calls, however it was obtained.
struct Api {
#define PROBE_DECLARE(type, name) type name = nullptr;
  PROBE_EGL_FUNCTIONS(PROBE_DECLARE)
  PROBE_GL_FUNCTIONS(PROBE_DECLARE)
#undef PROBE_DECLARE
  PFNEGLGETPROCADDRESSPROC eglGetProcAddress = nullptr;
};

[[noreturn]] void fail(const char* what) {
  std::printf("probe %s: FAIL %s\n", PROBE_MODE, what);
  std::exit(1);
}

[[noreturn]] void fail_egl(const Api& api, const char* call) {
  std::printf("probe %s: FAIL %s failed, EGL error 0x%04x\n", PROBE_MODE, call,
              static_cast<unsigned>(api.eglGetError()));
  std::exit(1);
}

void load(Api* api) {
#if defined(PROBE_MODE_DIRECT)
#define PROBE_TAKE(type, name) api->name = &::name;
  PROBE_EGL_FUNCTIONS(PROBE_TAKE)
  PROBE_GL_FUNCTIONS(PROBE_TAKE)
#undef PROBE_TAKE
  api->eglGetProcAddress = &::eglGetProcAddress;
#else
  // The sonames an app would use; the handles stay open for the process's
  // lifetime, as they would in a real app.
  void* egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (egl == nullptr) fail("dlopen(libEGL.so.1)");
  api->eglGetProcAddress =
      reinterpret_cast<PFNEGLGETPROCADDRESSPROC>(dlsym(egl, "eglGetProcAddress"));
  if (api->eglGetProcAddress == nullptr) fail("dlsym(libEGL.so.1, eglGetProcAddress)");
#if defined(PROBE_MODE_DLOPEN)
  void* gles = dlopen("libGLESv2.so.2", RTLD_NOW | RTLD_LOCAL);
  if (gles == nullptr) fail("dlopen(libGLESv2.so.2)");
#define PROBE_EGL_SYM(type, name)                        \
  api->name = reinterpret_cast<type>(dlsym(egl, #name)); \
  if (api->name == nullptr) fail("dlsym(libEGL.so.1, " #name ")");
#define PROBE_GL_SYM(type, name)                          \
  api->name = reinterpret_cast<type>(dlsym(gles, #name)); \
  if (api->name == nullptr) fail("dlsym(libGLESv2.so.2, " #name ")");
  PROBE_EGL_FUNCTIONS(PROBE_EGL_SYM)
  PROBE_GL_FUNCTIONS(PROBE_GL_SYM)
#undef PROBE_EGL_SYM
#undef PROBE_GL_SYM
#else
    // EGL 1.5 lets eglGetProcAddress return core EGL and GL functions too, and
    // before any display or context exists.
#define PROBE_GPA(type, name)                                        \
  api->name = reinterpret_cast<type>(api->eglGetProcAddress(#name)); \
  if (api->name == nullptr) fail("eglGetProcAddress(" #name ")");
  PROBE_EGL_FUNCTIONS(PROBE_GPA)
  PROBE_GL_FUNCTIONS(PROBE_GPA)
#undef PROBE_GPA
#endif
#endif
}

GLuint compile(const Api& gl, GLenum type, const char* source) {
  GLuint shader = gl.glCreateShader(type);
  gl.glShaderSource(shader, 1, &source, nullptr);
  gl.glCompileShader(shader);
  GLint ok = GL_FALSE;
  gl.glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) fail("shader compilation");
  return shader;
}

uint32_t pixel_at(const uint8_t* rgba, int x, int y, int width) {
  const uint8_t* p = rgba + (y * width + x) * 4;
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

}  // namespace

int main() {
  Api api;
  load(&api);

  EGLDisplay dpy =
      api.eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (dpy == EGL_NO_DISPLAY) fail_egl(api, "eglGetPlatformDisplay");
  if (!api.eglInitialize(dpy, nullptr, nullptr)) fail_egl(api, "eglInitialize");
  if (!api.eglBindAPI(EGL_OPENGL_ES_API)) fail_egl(api, "eglBindAPI");
  // clang-format off
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                   EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                                   EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                                   EGL_ALPHA_SIZE, 8, EGL_NONE};
  // clang-format on
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!api.eglChooseConfig(dpy, config_attribs, &config, 1, &count) || count < 1) {
    fail_egl(api, "eglChooseConfig");
  }
  constexpr int kSize = 64;
  const EGLint surface_attribs[] = {EGL_WIDTH, kSize, EGL_HEIGHT, kSize, EGL_NONE};
  EGLSurface surface = api.eglCreatePbufferSurface(dpy, config, surface_attribs);
  if (surface == EGL_NO_SURFACE) fail_egl(api, "eglCreatePbufferSurface");
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  EGLContext context = api.eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) fail_egl(api, "eglCreateContext");
  if (!api.eglMakeCurrent(dpy, surface, surface, context)) fail_egl(api, "eglMakeCurrent");

  const Api& gl = api;
  gl.glViewport(0, 0, kSize, kSize);
  gl.glClearColor(0, 0, 1, 1);
  gl.glClear(GL_COLOR_BUFFER_BIT);
  GLuint vs = compile(gl, GL_VERTEX_SHADER,
                      "#version 300 es\n"
                      "layout(location = 0) in vec2 a_pos;\n"
                      "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n");
  GLuint fs = compile(gl, GL_FRAGMENT_SHADER,
                      "#version 300 es\n"
                      "precision mediump float;\n"
                      "out vec4 o_color;\n"
                      "void main() { o_color = vec4(1.0, 0.0, 0.0, 1.0); }\n");
  GLuint program = gl.glCreateProgram();
  gl.glAttachShader(program, vs);
  gl.glAttachShader(program, fs);
  gl.glLinkProgram(program);
  GLint linked = GL_FALSE;
  gl.glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (!linked) fail("program link");
  gl.glDeleteShader(vs);
  gl.glDeleteShader(fs);
  gl.glUseProgram(program);
  // A triangle over the centre, well away from the corners.
  const float triangle[] = {-0.5f, -0.5f, 0.5f, -0.5f, 0.0f, 0.5f};
  GLuint vbo = 0;
  gl.glGenBuffers(1, &vbo);
  gl.glBindBuffer(GL_ARRAY_BUFFER, vbo);
  gl.glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
  gl.glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  gl.glEnableVertexAttribArray(0);
  gl.glDrawArrays(GL_TRIANGLES, 0, 3);
  uint8_t pixels[kSize * kSize * 4] = {};
  gl.glReadPixels(0, 0, kSize, kSize, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  if (GLenum error = gl.glGetError(); error != GL_NO_ERROR) {
    std::printf("probe %s: FAIL GL error 0x%04x\n", PROBE_MODE, error);
    return 1;
  }

  // Mesa behind glvnd hands out a no-op stub for any unknown "gl" name; an
  // interposer must not turn that into a crash or a NULL.
  auto unknown =
      reinterpret_cast<void (*)(void)>(api.eglGetProcAddress("glGltraceProbeUnknownFunction"));
  if (unknown != nullptr) unknown();
  std::printf("probe %s: unknown function pointer=%s\n", PROBE_MODE, unknown ? "yes" : "no");

  gl.glBindBuffer(GL_ARRAY_BUFFER, 0);
  gl.glDeleteBuffers(1, &vbo);
  gl.glUseProgram(0);
  gl.glDeleteProgram(program);
  api.eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  api.eglDestroyContext(dpy, context);
  api.eglDestroySurface(dpy, surface);
  api.eglTerminate(dpy);
  api.eglReleaseThread();

  uint32_t corner = pixel_at(pixels, 0, 0, kSize);
  uint32_t centre = pixel_at(pixels, kSize / 2, kSize / 2, kSize);
  bool ok = corner == 0x0000ffffu && centre == 0xff0000ffu;
  std::printf("probe %s: %s corner=%08x centre=%08x%s\n", PROBE_MODE, ok ? "OK" : "FAIL", corner,
              centre, ok ? "" : " (expected corner=0000ffff centre=ff0000ff)");
  return ok ? 0 : 1;
}
