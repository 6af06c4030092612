// gltrace-desktop-gl-app: a desktop OpenGL program (compatibility profile)
// on EGL (eglBindAPI(EGL_OPENGL_API), libOpenGL.so.0), off-screen on a
// pbuffer of the surfaceless platform. Each frame draws with what only
// desktop GL has, animated by the frame number:
//   immediate mode (glBegin/glEnd) under the fixed-function matrix stack,
//   a display list (glNewList/glCallList, two of a glGenLists range, and
//   glCallLists of names relative to glListBase),
//   a corner cleared through glClearNamedFramebufferfv,
//   fixed-function client arrays in client memory (glVertexPointer,
//   glColorPointer, glTexCoordPointer) with a 1D texture (glTexImage1D),
//   a GLSL 1.20 program reading a buffer written through glMapBuffer
//   (GL_READ_WRITE) and one written through a named mapping
//   (glMapNamedBufferRange, GL 4.5's direct state access),
//   glDrawPixels and glBitmap.
//   --frames N   frames to draw (default 5)
// Prints a checksum of the last frame; exit 0 when every call succeeded.
// GL 1.5 and 2.0 functions (glMapBuffer, glCreateShader...) by symbol:
// libOpenGL.so.0 exports them.
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr char kApp[] = "gltrace-desktop-gl-app";
constexpr int kWidth = 128, kHeight = 96;

bool check(bool ok, const char* what) {
  if (!ok) fprintf(stderr, "%s: %s failed (EGL error 0x%04x)\n", kApp, what, eglGetError());
  return ok;
}

bool gl_ok(const char* what) {
  GLenum error = glGetError();
  if (error != GL_NO_ERROR) fprintf(stderr, "%s: %s: GL error 0x%04x\n", kApp, what, error);
  return error == GL_NO_ERROR;
}

GLuint compile(GLenum type, const char* source) {
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[512] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    fprintf(stderr, "%s: shader: %s\n", kApp, log);
  }
  return shader;
}

struct Scene {
  GLuint lists = 0;
  GLuint ramp = 0;
  GLuint program = 0;
  GLuint buffer = 0;
  GLuint named = 0;  // written through glMapNamedBufferRange
  GLint offset_location = -1;
};

bool set_up(Scene* s) {
  // Two display lists of one range: a quad, and a list that calls it twice.
  s->lists = glGenLists(2);
  glNewList(s->lists, GL_COMPILE);
  glBegin(GL_QUADS);
  glVertex2f(-0.1f, -0.1f);
  glVertex2f(0.1f, -0.1f);
  glVertex2f(0.1f, 0.1f);
  glVertex2f(-0.1f, 0.1f);
  glEnd();
  glEndList();
  glNewList(s->lists + 1, GL_COMPILE);
  glColor3f(1, 1, 0);
  glCallList(s->lists);
  glTranslatef(0.25f, 0, 0);
  glColor3f(0, 1, 1);
  glCallList(s->lists);
  glEndList();

  // A 1D texture: a red-to-blue ramp.
  GLubyte texels[16 * 3];
  for (int i = 0; i < 16; ++i) {
    texels[i * 3] = static_cast<GLubyte>(255 - i * 16);
    texels[i * 3 + 1] = 32;
    texels[i * 3 + 2] = static_cast<GLubyte>(i * 16);
  }
  glGenTextures(1, &s->ramp);
  glBindTexture(GL_TEXTURE_1D, s->ramp);
  glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage1D(GL_TEXTURE_1D, 0, GL_RGB, 16, 0, GL_RGB, GL_UNSIGNED_BYTE, texels);

  // GLSL 1.20, its position from a buffer written through glMapBuffer.
  const char* vs =
      "#version 120\n"
      "attribute vec2 position;\n"
      "uniform vec2 offset;\n"
      "void main() { gl_Position = vec4(position + offset, 0.0, 1.0); }\n";
  const char* fs =
      "#version 120\n"
      "void main() { gl_FragColor = vec4(0.9, 0.5, 0.1, 1.0); }\n";
  s->program = glCreateProgram();
  glAttachShader(s->program, compile(GL_VERTEX_SHADER, vs));
  glAttachShader(s->program, compile(GL_FRAGMENT_SHADER, fs));
  glBindAttribLocation(s->program, 3, "position");
  glLinkProgram(s->program);
  s->offset_location = glGetUniformLocation(s->program, "offset");
  glGenBuffers(1, &s->buffer);
  glBindBuffer(GL_ARRAY_BUFFER, s->buffer);
  glBufferData(GL_ARRAY_BUFFER, 6 * sizeof(GLfloat), nullptr, GL_DYNAMIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glCreateBuffers(1, &s->named);
  glNamedBufferData(s->named, 6 * sizeof(GLfloat), nullptr, GL_DYNAMIC_DRAW);
  return gl_ok("set-up");
}

void draw_frame(const Scene& s, int frame) {
  float t = static_cast<float>(frame) * 0.1f;
  glViewport(0, 0, kWidth, kHeight);
  glClearColor(0.1f, 0.1f, 0.2f + 0.05f * static_cast<float>(frame % 4), 1);
  glClear(GL_COLOR_BUFFER_BIT);
  const GLfloat corner[] = {0.8f, 0.1f, 0.1f, 1};
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, kHeight - 10, 10 + frame * 4, 10);
  glClearNamedFramebufferfv(0, GL_COLOR, 0, corner);
  glDisable(GL_SCISSOR_TEST);

  // Immediate mode under the matrix stack.
  glMatrixMode(GL_PROJECTION);
  glLoadIdentity();
  glOrtho(-1, 1, -1, 1, -1, 1);
  glMatrixMode(GL_MODELVIEW);
  glLoadIdentity();
  glPushMatrix();
  glRotatef(static_cast<float>(frame) * 15.0f, 0, 0, 1);
  glBegin(GL_TRIANGLES);
  glColor3f(1, 0, 0);
  glVertex2f(-0.6f, -0.5f);
  glColor3f(0, 1, 0);
  glVertex2f(-0.2f, -0.5f);
  glColor3f(0, 0, 1);
  glVertex2f(-0.4f, -0.1f);
  glEnd();
  glPopMatrix();

  // The display lists.
  glPushMatrix();
  glTranslatef(0.1f, 0.5f - t, 0);
  glCallList(s.lists + 1);
  glPopMatrix();
  // The quad's list again, by its offset from the list base.
  glPushMatrix();
  glTranslatef(-0.5f, 0.6f, 0);
  glListBase(s.lists);
  const GLubyte offsets[] = {0};
  glCallLists(1, GL_UNSIGNED_BYTE, offsets);
  glListBase(0);
  glPopMatrix();

  // Fixed-function client arrays with the 1D texture.
  const GLfloat positions[] = {0.2f, -0.9f, 0.9f, -0.9f, 0.9f, -0.4f + t, 0.2f, -0.4f};
  const GLubyte colors[] = {255, 255, 255, 255, 200, 200, 200, 255,
                            255, 255, 255, 255, 128, 128, 128, 255};
  const GLfloat coords[] = {0, 1, 1, 0};
  glEnable(GL_TEXTURE_1D);
  glBindTexture(GL_TEXTURE_1D, s.ramp);
  glEnableClientState(GL_VERTEX_ARRAY);
  glEnableClientState(GL_COLOR_ARRAY);
  glEnableClientState(GL_TEXTURE_COORD_ARRAY);
  glVertexPointer(2, GL_FLOAT, 0, positions);
  glColorPointer(4, GL_UNSIGNED_BYTE, 0, colors);
  glTexCoordPointer(1, GL_FLOAT, 0, coords);
  glDrawArrays(GL_QUADS, 0, 4);
  glDisableClientState(GL_TEXTURE_COORD_ARRAY);
  glDisableClientState(GL_COLOR_ARRAY);
  glDisableClientState(GL_VERTEX_ARRAY);
  glDisable(GL_TEXTURE_1D);

  // The program, its vertices written through glMapBuffer each frame.
  glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
  auto* mapped = static_cast<GLfloat*>(glMapBuffer(GL_ARRAY_BUFFER, GL_READ_WRITE));
  if (mapped != nullptr) {
    const GLfloat triangle[] = {-0.9f, 0.4f,  -0.5f,
                                0.4f,  -0.7f, 0.4f + 0.05f * static_cast<float>(frame)};
    memcpy(mapped, triangle, sizeof triangle);
    glUnmapBuffer(GL_ARRAY_BUFFER);
  }
  glUseProgram(s.program);
  glUniform2f(s.offset_location, 0, -0.02f * static_cast<float>(frame));
  glEnableVertexAttribArray(3);
  glVertexAttribPointer(3, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  // The same program over a buffer written by name.
  auto* named = static_cast<GLfloat*>(glMapNamedBufferRange(
      s.named, 0, 6 * sizeof(GLfloat), GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT));
  if (named != nullptr) {
    const GLfloat triangle[] = {0.5f, 0.9f, 0.9f, 0.9f, 0.7f - 0.05f * static_cast<float>(frame),
                                0.6f};
    memcpy(named, triangle, sizeof triangle);
    glUnmapNamedBuffer(s.named);
  }
  glBindBuffer(GL_ARRAY_BUFFER, s.named);
  glVertexAttribPointer(3, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDisableVertexAttribArray(3);
  glUseProgram(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);

  // Pixels straight to the framebuffer.
  GLubyte block[8 * 8 * 4];
  for (int i = 0; i < 64; ++i) {
    block[i * 4] = static_cast<GLubyte>(frame * 40);
    block[i * 4 + 1] = static_cast<GLubyte>(i * 4);
    block[i * 4 + 2] = 200;
    block[i * 4 + 3] = 255;
  }
  glWindowPos2i(4 + frame * 2, 4);
  glDrawPixels(8, 8, GL_RGBA, GL_UNSIGNED_BYTE, block);
  const GLubyte checker[8] = {0xAA, 0x55, 0xAA, 0x55, 0xAA, 0x55, 0xAA, 0x55};
  glColor3f(1, 1, 1);
  glWindowPos2i(kWidth - 12, kHeight - 12);
  glBitmap(8, 8, 0, 0, 0, 0, checker);
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 5;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--frames N]\n", kApp);
      return 2;
    }
  }
  EGLDisplay display =
      eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (!check(display != EGL_NO_DISPLAY && eglInitialize(display, nullptr, nullptr),
             "eglInitialize") ||
      !check(eglBindAPI(EGL_OPENGL_API), "eglBindAPI(EGL_OPENGL_API)"))
    return 1;
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                   EGL_PBUFFER_BIT,
                                   EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_BIT,
                                   EGL_RED_SIZE,
                                   8,
                                   EGL_GREEN_SIZE,
                                   8,
                                   EGL_BLUE_SIZE,
                                   8,
                                   EGL_ALPHA_SIZE,
                                   8,
                                   EGL_NONE};
  EGLConfig config;
  EGLint count = 0;
  if (!check(eglChooseConfig(display, config_attribs, &config, 1, &count) && count == 1,
             "eglChooseConfig"))
    return 1;
  const EGLint surface_attribs[] = {EGL_WIDTH, kWidth, EGL_HEIGHT, kHeight, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (!check(surface != EGL_NO_SURFACE && context != EGL_NO_CONTEXT, "context creation") ||
      !check(eglMakeCurrent(display, surface, surface, context), "eglMakeCurrent"))
    return 1;
  printf("%s: %s\n", kApp, reinterpret_cast<const char*>(glGetString(GL_VERSION)));
  Scene scene;
  if (!set_up(&scene)) return 1;
  for (int frame = 0; frame < frames; ++frame) {
    draw_frame(scene, frame);
    if (!gl_ok("a frame") || !check(eglSwapBuffers(display, surface), "eglSwapBuffers")) return 1;
  }
  std::vector<GLubyte> pixels(kWidth * kHeight * 4);
  glReadPixels(0, 0, kWidth, kHeight, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  uint32_t sum = 0;
  for (GLubyte p : pixels) sum = sum * 31 + p;
  printf("%s: %d frames, checksum %08x\n", kApp, frames, sum);
  glDeleteLists(scene.lists, 2);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, context);
  eglDestroySurface(display, surface);
  eglTerminate(display);
  return gl_ok("the end") ? 0 : 1;
}
