// gltrace-bench-mix: GLES 3 workloads with different call mixes, for the
// tracing and replay benchmarks (bench/call_mix.py). The demo is one mix;
// figures met on it did not carry over to others, so each mix here leans on
// one kind of call a tracer handles differently:
//   uniform       glUniform* and glUniformMatrix* (small fixed-size arguments)
//   state         enable/disable, blend/depth functions, viewport, bindings
//   upload        glBufferSubData and glTexSubImage2D (pointer data, blobs)
//   draw          many small draws with a uniform between each
//   small-frames  one clear and draw per frame: per-frame costs (swaps)
//   two-threads   the draw mix on two threads, each with its own context
//   immediate     desktop GL's immediate mode: glBegin, glColor3f,
//                 glVertex2f per vertex, glEnd (--glx only)
// Headless (surfaceless pbuffer, 32x32 so the driver's own work stays small),
// deterministic, the same calls every run. With --glx the same mixes run on
// GLX (a 32x32 window of $DISPLAY, never mapped, a desktop GL compatibility
// context, whose GLSL takes the ES shaders below), as desktop GL programs do.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glxtokens.h>
#include <GLES3/gl3.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kSize = 32;

// GLX, declared here: <GL/glx.h> brings desktop GL's <GL/gl.h>, whose
// types clash with GLES 3's header.
extern "C" {
using GlxFbConfig = struct __GLXFBConfigRec*;
using GlxContext = struct __GLXcontextRec*;
using GlxDrawable = XID;
GlxFbConfig* glXChooseFBConfig(Display* dpy, int screen, const int* attribs, int* count);
XVisualInfo* glXGetVisualFromFBConfig(Display* dpy, GlxFbConfig config);
GlxDrawable glXCreateWindow(Display* dpy, GlxFbConfig config, Window win, const int* attribs);
GlxContext glXCreateNewContext(Display* dpy, GlxFbConfig config, int render_type, GlxContext share,
                               int direct);
int glXMakeContextCurrent(Display* dpy, GlxDrawable draw, GlxDrawable read, GlxContext ctx);
void glXSwapBuffers(Display* dpy, GlxDrawable drawable);
void glXDestroyContext(Display* dpy, GlxContext ctx);
void glXDestroyWindow(Display* dpy, GlxDrawable window);
// Desktop GL's immediate mode (libGL.so.1).
void glBegin(GLenum mode);
void glEnd();
void glColor3f(GLfloat red, GLfloat green, GLfloat blue);
void glVertex2f(GLfloat x, GLfloat y);
}

enum class Mix { kUniform, kState, kUpload, kDraw, kSmallFrames, kTwoThreads, kImmediate };

// The window system the mixes run on: EGL (display, config), or GLX.
struct Egl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  Display* x_display = nullptr;  // --glx
  GlxFbConfig fb_config = nullptr;
};

bool fail(const char* what) {
  std::fprintf(stderr, "bench-mix: %s failed (EGL 0x%x, GL 0x%x)\n", what, eglGetError(),
               glGetError());
  return false;
}

bool open_display(Egl* egl) {
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr) return fail("eglGetProcAddress(eglGetPlatformDisplayEXT)");
  egl->display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (egl->display == EGL_NO_DISPLAY || !eglInitialize(egl->display, nullptr, nullptr))
    return fail("eglInitialize");
  const EGLint attribs[] = {EGL_SURFACE_TYPE,
                            EGL_PBUFFER_BIT,
                            EGL_RENDERABLE_TYPE,
                            EGL_OPENGL_ES3_BIT,
                            EGL_RED_SIZE,
                            8,
                            EGL_GREEN_SIZE,
                            8,
                            EGL_BLUE_SIZE,
                            8,
                            EGL_ALPHA_SIZE,
                            8,
                            EGL_NONE};
  EGLint count = 0;
  if (!eglBindAPI(EGL_OPENGL_ES_API) ||
      !eglChooseConfig(egl->display, attribs, &egl->config, 1, &count) || count == 0)
    return fail("eglChooseConfig");
  return true;
}

bool open_glx_display(Egl* egl) {
  egl->x_display = XOpenDisplay(nullptr);
  if (egl->x_display == nullptr) return fail("XOpenDisplay");
  const int attribs[] = {GLX_DRAWABLE_TYPE,
                         GLX_PBUFFER_BIT,
                         GLX_RENDER_TYPE,
                         GLX_RGBA_BIT,
                         GLX_RED_SIZE,
                         8,
                         GLX_GREEN_SIZE,
                         8,
                         GLX_BLUE_SIZE,
                         8,
                         GLX_ALPHA_SIZE,
                         8,
                         0};
  int count = 0;
  GlxFbConfig* configs =
      glXChooseFBConfig(egl->x_display, XDefaultScreen(egl->x_display), attribs, &count);
  if (configs == nullptr || count == 0) return fail("glXChooseFBConfig");
  egl->fb_config = configs[0];
  XFree(configs);
  return true;
}

// A context and pbuffer (GLX: window) of its own, current on the calling
// thread (GLX's: their handles in *surface and *context).
bool make_current(const Egl& egl, EGLSurface* surface, EGLContext* context) {
  if (egl.x_display != nullptr) {
    XVisualInfo* visual = glXGetVisualFromFBConfig(egl.x_display, egl.fb_config);
    if (visual == nullptr) return fail("glXGetVisualFromFBConfig");
    Window root = RootWindow(egl.x_display, visual->screen);
    XSetWindowAttributes window_attribs{};
    window_attribs.colormap = XCreateColormap(egl.x_display, root, visual->visual, AllocNone);
    Window x_window = XCreateWindow(egl.x_display, root, 0, 0, kSize, kSize, 0, visual->depth,
                                    InputOutput, visual->visual, CWColormap, &window_attribs);
    XFree(visual);
    GlxDrawable window = glXCreateWindow(egl.x_display, egl.fb_config, x_window, nullptr);
    GlxContext glx =
        glXCreateNewContext(egl.x_display, egl.fb_config, GLX_RGBA_TYPE, nullptr, True);
    if (window == 0 || glx == nullptr || !glXMakeContextCurrent(egl.x_display, window, window, glx))
      return fail("making a GLX context current");
    *surface = reinterpret_cast<EGLSurface>(window);
    *context = reinterpret_cast<EGLContext>(glx);
    return true;
  }
  const EGLint surface_attribs[] = {EGL_WIDTH, kSize, EGL_HEIGHT, kSize, EGL_NONE};
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
  *surface = eglCreatePbufferSurface(egl.display, egl.config, surface_attribs);
  *context = eglCreateContext(egl.display, egl.config, EGL_NO_CONTEXT, context_attribs);
  if (*surface == EGL_NO_SURFACE || *context == EGL_NO_CONTEXT ||
      !eglMakeCurrent(egl.display, *surface, *surface, *context))
    return fail("making a context current");
  return true;
}

GLuint compile(GLenum type, const char* source) {
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  return ok ? shader : 0;
}

constexpr const char* kVertex = R"(#version 300 es
in vec2 a_pos;
uniform vec4 u_offset;
uniform mat4 u_matrix;
out vec2 v_uv;
void main() {
  v_uv = a_pos * 0.5 + 0.5;
  gl_Position = u_matrix * vec4(a_pos * 0.1 + u_offset.xy, 0.0, 1.0);
}
)";
constexpr const char* kFragment = R"(#version 300 es
precision mediump float;
uniform sampler2D u_tex;
uniform vec4 u_color;
in vec2 v_uv;
out vec4 o_color;
void main() { o_color = texture(u_tex, v_uv) * u_color; }
)";

struct Scene {
  GLuint program = 0, vao = 0, buffer = 0, texture = 0;
  GLint offset = -1, matrix = -1, color = -1;
};

bool make_scene(Scene* s) {
  GLuint vs = compile(GL_VERTEX_SHADER, kVertex), fs = compile(GL_FRAGMENT_SHADER, kFragment);
  if (vs == 0 || fs == 0) return fail("compiling the shaders");
  s->program = glCreateProgram();
  glAttachShader(s->program, vs);
  glAttachShader(s->program, fs);
  glBindAttribLocation(s->program, 0, "a_pos");
  glLinkProgram(s->program);
  GLint linked = 0;
  glGetProgramiv(s->program, GL_LINK_STATUS, &linked);
  if (!linked) return fail("linking the program");
  glUseProgram(s->program);
  s->offset = glGetUniformLocation(s->program, "u_offset");
  s->matrix = glGetUniformLocation(s->program, "u_matrix");
  s->color = glGetUniformLocation(s->program, "u_color");
  glUniform1i(glGetUniformLocation(s->program, "u_tex"), 0);
  const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  glUniformMatrix4fv(s->matrix, 1, GL_FALSE, identity);
  glUniform4f(s->color, 1, 1, 1, 1);
  const float triangle[] = {-1, -1, 1, -1, 0, 1};
  glGenVertexArrays(1, &s->vao);
  glBindVertexArray(s->vao);
  glGenBuffers(1, &s->buffer);
  glBindBuffer(GL_ARRAY_BUFFER, s->buffer);
  glBufferData(GL_ARRAY_BUFFER, 64 << 10, nullptr, GL_DYNAMIC_DRAW);
  glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof triangle, triangle);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glGenTextures(1, &s->texture);
  glBindTexture(GL_TEXTURE_2D, s->texture);
  std::vector<unsigned char> texels(64 * 64 * 4, 200);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return glGetError() == GL_NO_ERROR || fail("making the scene");
}

// One frame of `mix`, about `calls` GL calls (the swap not counted).
void frame(Mix mix, const Scene& s, int f, int calls) {
  glClearColor(static_cast<float>(f % 7) / 7.0f, 0.2f, 0.3f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  switch (mix) {
    case Mix::kUniform: {
      float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
      for (int i = 0; i < calls / 2; ++i) {
        glUniform4f(s.offset, static_cast<float>(i % 13) * 0.01f, 0.0f, 0.0f, 0.0f);
        m[12] = static_cast<float>(i % 5) * 0.01f;
        glUniformMatrix4fv(s.matrix, 1, GL_FALSE, m);
      }
      glDrawArrays(GL_TRIANGLES, 0, 3);
      break;
    }
    case Mix::kState:
      for (int i = 0; i < calls / 8; ++i) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, i % 2 ? GL_ONE : GL_ONE_MINUS_SRC_ALPHA);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(i % 2 ? GL_LESS : GL_LEQUAL);
        glViewport(0, 0, kSize - i % 3, kSize);
        glBindTexture(GL_TEXTURE_2D, s.texture);
        glDisable(GL_DEPTH_TEST);
        glDisable(GL_BLEND);
      }
      glDrawArrays(GL_TRIANGLES, 0, 3);
      break;
    case Mix::kUpload: {
      // Contents change per frame and per upload, so no tracer can
      // deduplicate them away.
      std::vector<float> data(1024);
      std::vector<unsigned char> texels(16 * 16 * 4);
      for (int i = 0; i < calls / 3; ++i) {
        for (size_t k = 0; k < data.size(); ++k)
          data[k] = static_cast<float>((f * 131 + i * 17 + static_cast<int>(k)) % 1000);
        glBufferSubData(GL_ARRAY_BUFFER, 4096 + (i % 8) * 4096, 4096, data.data());
        std::memset(texels.data(), (f + i) & 0xff, texels.size());
        glTexSubImage2D(GL_TEXTURE_2D, 0, (i % 4) * 16, 0, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE,
                        texels.data());
        glDrawArrays(GL_TRIANGLES, 0, 3);
      }
      break;
    }
    case Mix::kDraw:
    case Mix::kTwoThreads:
      for (int i = 0; i < calls / 2; ++i) {
        glUniform4f(s.offset, static_cast<float>(i % 17) * 0.05f - 0.4f,
                    static_cast<float>(i % 11) * 0.05f - 0.25f, 0.0f, 0.0f);
        glDrawArrays(GL_TRIANGLES, 0, 3);
      }
      break;
    case Mix::kSmallFrames:
      glDrawArrays(GL_TRIANGLES, 0, 3);
      break;
    case Mix::kImmediate:
      // The compatibility profile's fixed function draws these.
      glUseProgram(0);
      glBegin(GL_TRIANGLES);
      for (int i = 0; i < calls / 2 - 2; ++i) {
        if (i % 3 == 0) glColor3f(static_cast<float>(i % 7) / 7.0f, 0.5f, 0.25f);
        glVertex2f(static_cast<float>(i % 5) * 0.1f - 0.2f, static_cast<float>(i % 3) * 0.2f);
      }
      glEnd();
      glUseProgram(s.program);
      break;
  }
}

bool run(const Egl& egl, Mix mix, int frames, int calls) {
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  Scene scene;
  if (!make_current(egl, &surface, &context) || !make_scene(&scene)) return false;
  auto glx_drawable = static_cast<GlxDrawable>(reinterpret_cast<uintptr_t>(surface));
  for (int f = 0; f < frames; ++f) {
    frame(mix, scene, f, calls);
    if (egl.x_display != nullptr)
      glXSwapBuffers(egl.x_display, glx_drawable);
    else if (!eglSwapBuffers(egl.display, surface))
      return fail("eglSwapBuffers");
  }
  bool ok = glGetError() == GL_NO_ERROR || fail("the frames");
  if (egl.x_display != nullptr) {
    glXMakeContextCurrent(egl.x_display, 0, 0, nullptr);
    glXDestroyContext(egl.x_display, reinterpret_cast<GlxContext>(context));
    glXDestroyWindow(egl.x_display, glx_drawable);
    return ok;
  }
  eglMakeCurrent(egl.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(egl.display, context);
  eglDestroySurface(egl.display, surface);
  eglReleaseThread();
  return ok;
}

void usage(FILE* out) {
  std::fputs(
      "usage: gltrace-bench-mix --mix MIX [--frames N] [--calls C] [--glx]\n"
      "  MIX: uniform, state, upload, draw, small-frames, two-threads (EGL), immediate (GLX)\n"
      "  --frames N   frames (default 200; small-frames: 20 times as many)\n"
      "  --calls C    GL calls per frame, about (default 2000)\n"
      "  --glx        on GLX (a window of $DISPLAY), desktop GL\n",
      out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mix_name;
  int frames = 200, calls = 2000;
  bool glx = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--glx") {
      glx = true;
    } else if (a == "--mix" && i + 1 < argc) {
      mix_name = argv[++i];
    } else if (a == "--frames" && i + 1 < argc) {
      frames = std::atoi(argv[++i]);
    } else if (a == "--calls" && i + 1 < argc) {
      calls = std::atoi(argv[++i]);
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  const struct {
    const char* name;
    Mix mix;
  } kMixes[] = {{"uniform", Mix::kUniform},
                {"state", Mix::kState},
                {"upload", Mix::kUpload},
                {"draw", Mix::kDraw},
                {"small-frames", Mix::kSmallFrames},
                {"two-threads", Mix::kTwoThreads},
                {"immediate", Mix::kImmediate}};
  const Mix* mix = nullptr;
  for (const auto& m : kMixes)
    if (mix_name == m.name) mix = &m.mix;
  // Two threads on one X display would need XInitThreads: EGL's mix only.
  if (mix == nullptr || frames <= 0 || calls < 8 || (*mix == Mix::kImmediate && !glx) ||
      (*mix == Mix::kTwoThreads && glx)) {
    usage(stderr);
    return 2;
  }
  if (*mix == Mix::kSmallFrames) frames *= 20;
  Egl egl;
  if (glx ? !open_glx_display(&egl) : !open_display(&egl)) return 2;
  bool ok = true;
  if (*mix == Mix::kTwoThreads) {
    bool ok_second = true;
    std::thread second([&] { ok_second = run(egl, *mix, frames, calls); });
    ok = run(egl, *mix, frames, calls);
    second.join();
    ok = ok && ok_second;
  } else {
    ok = run(egl, *mix, frames, calls);
  }
  if (glx)
    XCloseDisplay(egl.x_display);
  else
    eglTerminate(egl.display);
  return ok ? 0 : 1;
}
