// gltrace-glx-app: desktop OpenGL on GLX, as GLX programs are written
// (linked to GLVND's libGL.so.1):
//   - an FBConfig from glXChooseFBConfig, a core 3.3 context from
//     glXCreateContextAttribsARB (got from glXGetProcAddressARB, as loaders
//     do), a GLXWindow (glXCreateWindow, glXMakeContextCurrent);
//   - frames of a turning triangle drawn by a GLSL 3.30 program over a
//     vertex array (functions from glXGetProcAddressARB) and cleared by
//     symbol; the window grows in the middle (XResizeWindow);
//   - a last frame from a legacy compatibility context (glXChooseVisual,
//     glXCreateContext sharing the first's objects), made current on the X
//     window itself (glXMakeCurrent), drawing in immediate mode.
// Prints a checksum of every frame's pixels (glReadPixels before the swap),
// so a test sees a traced run draw what a native one does. Needs $DISPLAY.
//   gltrace-glx-app [--frames N]
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

template <typename F>
F proc(const char* name) {
  auto f = reinterpret_cast<F>(glXGetProcAddressARB(reinterpret_cast<const GLubyte*>(name)));
  if (f == nullptr) {
    fprintf(stderr, "gltrace-glx-app: no %s\n", name);
    exit(2);
  }
  return f;
}

uint64_t checksum(int width, int height) {
  std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * 4);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  uint64_t sum = 1469598103934665603ull;
  for (uint8_t b : pixels) sum = (sum ^ b) * 1099511628211ull;
  return sum;
}

const char* const kVertex =
    "#version 330 core\n"
    "layout(location = 0) in vec2 position;\n"
    "uniform float angle;\n"
    "void main() {\n"
    "  float c = cos(angle), s = sin(angle);\n"
    "  gl_Position = vec4(c * position.x - s * position.y, s * position.x + c * position.y,\n"
    "                     0.0, 1.0);\n"
    "}\n";
const char* const kFragment =
    "#version 330 core\n"
    "out vec4 color;\n"
    "void main() { color = vec4(1.0, 0.6, 0.1, 1.0); }\n";

}  // namespace

int main(int argc, char** argv) {
  int frames = 6;
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "--frames") == 0) frames = atoi(argv[i + 1]);
  Display* dpy = XOpenDisplay(nullptr);
  if (dpy == nullptr) {
    fputs("gltrace-glx-app: cannot open the X display\n", stderr);
    return 2;
  }
  const int config_attribs[] = {GLX_DRAWABLE_TYPE,
                                GLX_WINDOW_BIT,
                                GLX_RENDER_TYPE,
                                GLX_RGBA_BIT,
                                GLX_DOUBLEBUFFER,
                                True,
                                GLX_RED_SIZE,
                                8,
                                GLX_GREEN_SIZE,
                                8,
                                GLX_BLUE_SIZE,
                                8,
                                GLX_DEPTH_SIZE,
                                24,
                                None};
  int count = 0;
  GLXFBConfig* configs = glXChooseFBConfig(dpy, DefaultScreen(dpy), config_attribs, &count);
  if (configs == nullptr || count == 0) {
    fputs("gltrace-glx-app: no GLX config\n", stderr);
    return 2;
  }
  GLXFBConfig config = configs[0];
  XFree(configs);
  XVisualInfo* visual = glXGetVisualFromFBConfig(dpy, config);
  Window root = RootWindow(dpy, visual->screen);
  XSetWindowAttributes window_attribs{};
  window_attribs.colormap = XCreateColormap(dpy, root, visual->visual, AllocNone);
  int width = 96, height = 64;
  Window window = XCreateWindow(dpy, root, 0, 0, width, height, 0, visual->depth, InputOutput,
                                visual->visual, CWColormap, &window_attribs);
  XMapWindow(dpy, window);
  XSync(dpy, False);

  auto create_context = proc<PFNGLXCREATECONTEXTATTRIBSARBPROC>("glXCreateContextAttribsARB");
  const int context_attribs[] = {GLX_CONTEXT_MAJOR_VERSION_ARB,
                                 3,
                                 GLX_CONTEXT_MINOR_VERSION_ARB,
                                 3,
                                 GLX_CONTEXT_PROFILE_MASK_ARB,
                                 GLX_CONTEXT_CORE_PROFILE_BIT_ARB,
                                 None};
  GLXContext core = create_context(dpy, config, nullptr, True, context_attribs);
  GLXWindow glx_window = glXCreateWindow(dpy, config, window, nullptr);
  if (core == nullptr || !glXMakeContextCurrent(dpy, glx_window, glx_window, core)) {
    fputs("gltrace-glx-app: no core context\n", stderr);
    return 2;
  }

  auto create_shader = proc<PFNGLCREATESHADERPROC>("glCreateShader");
  auto shader_source = proc<PFNGLSHADERSOURCEPROC>("glShaderSource");
  auto compile_shader = proc<PFNGLCOMPILESHADERPROC>("glCompileShader");
  auto create_program = proc<PFNGLCREATEPROGRAMPROC>("glCreateProgram");
  auto attach_shader = proc<PFNGLATTACHSHADERPROC>("glAttachShader");
  auto link_program = proc<PFNGLLINKPROGRAMPROC>("glLinkProgram");
  auto use_program = proc<PFNGLUSEPROGRAMPROC>("glUseProgram");
  auto uniform_location = proc<PFNGLGETUNIFORMLOCATIONPROC>("glGetUniformLocation");
  auto uniform1f = proc<PFNGLUNIFORM1FPROC>("glUniform1f");
  auto gen_vertex_arrays = proc<PFNGLGENVERTEXARRAYSPROC>("glGenVertexArrays");
  auto bind_vertex_array = proc<PFNGLBINDVERTEXARRAYPROC>("glBindVertexArray");
  auto gen_buffers = proc<PFNGLGENBUFFERSPROC>("glGenBuffers");
  auto bind_buffer = proc<PFNGLBINDBUFFERPROC>("glBindBuffer");
  auto buffer_data = proc<PFNGLBUFFERDATAPROC>("glBufferData");
  auto attrib_pointer = proc<PFNGLVERTEXATTRIBPOINTERPROC>("glVertexAttribPointer");
  auto enable_attrib = proc<PFNGLENABLEVERTEXATTRIBARRAYPROC>("glEnableVertexAttribArray");

  GLuint program = create_program();
  for (auto [type, text] :
       {std::pair{GL_VERTEX_SHADER, kVertex}, {GL_FRAGMENT_SHADER, kFragment}}) {
    GLuint shader = create_shader(type);
    shader_source(shader, 1, &text, nullptr);
    compile_shader(shader);
    attach_shader(program, shader);
  }
  link_program(program);
  GLuint vao = 0, vbo = 0;
  gen_vertex_arrays(1, &vao);
  bind_vertex_array(vao);
  gen_buffers(1, &vbo);
  bind_buffer(GL_ARRAY_BUFFER, vbo);
  const float triangle[] = {0.0f, 0.8f, -0.7f, -0.6f, 0.7f, -0.6f};
  buffer_data(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
  attrib_pointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  enable_attrib(0);
  use_program(program);
  GLint angle = uniform_location(program, "angle");

  uint64_t sum = 0;
  for (int frame = 0; frame < frames; ++frame) {
    if (frame == frames / 2) {  // the window grows; the app follows at its next frame
      width = 128, height = 80;
      XResizeWindow(dpy, window, width, height);
      XSync(dpy, False);
    }
    glViewport(0, 0, width, height);
    glClearColor(0.1f, 0.2f + 0.1f * static_cast<float>(frame % 4), 0.3f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    uniform1f(angle, 0.4f * static_cast<float>(frame));
    glDrawArrays(GL_TRIANGLES, 0, 3);
    sum ^= checksum(width, height) + static_cast<uint64_t>(frame);
    glXSwapBuffers(dpy, glx_window);
  }

  // A legacy context on the window itself, sharing the first's objects.
  int legacy_attribs[] = {GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 8, GLX_DEPTH_SIZE, 24, None};
  XVisualInfo* legacy_visual = glXChooseVisual(dpy, DefaultScreen(dpy), legacy_attribs);
  GLXContext legacy = glXCreateContext(dpy, legacy_visual, core, True);
  glXMakeContextCurrent(dpy, None, None, nullptr);
  glXDestroyWindow(dpy, glx_window);
  if (legacy == nullptr || !glXMakeCurrent(dpy, window, legacy)) {
    fputs("gltrace-glx-app: no legacy context\n", stderr);
    return 2;
  }
  glViewport(0, 0, width, height);
  glClearColor(0.0f, 0.0f, 0.2f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glBegin(GL_TRIANGLES);
  glColor3f(0.2f, 0.9f, 0.4f);
  glVertex2f(-0.5f, -0.5f);
  glVertex2f(0.5f, -0.5f);
  glVertex2f(0.0f, 0.5f);
  glEnd();
  sum ^= checksum(width, height);
  glXSwapBuffers(dpy, window);
  printf("gltrace-glx-app: %d frames, checksum %016llx\n", frames + 1,
         static_cast<unsigned long long>(sum));

  glXMakeCurrent(dpy, None, nullptr);
  glXDestroyContext(dpy, legacy);
  glXDestroyContext(dpy, core);
  XFree(legacy_visual);
  XFree(visual);
  XDestroyWindow(dpy, window);
  XCloseDisplay(dpy);
  return 0;
}
