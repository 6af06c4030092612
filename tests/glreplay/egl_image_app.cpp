// glreplay_egl_image_app: EGL images shared between two contexts that do
// NOT share objects, for glreplay's tests (surfaceless EGL, pbuffer).
// Context A makes two 2D textures, a cube map and a renderbuffer and an image
// of each (core eglCreateImage with an EGLAttrib list for the first texture,
// eglCreateImageKHR with EGLint lists for the others). Context B targets a
// texture of its own at each 2D image (glEGLImageTargetTexture2DOES) and a
// renderbuffer at the renderbuffer image
// (glEGLImageTargetRenderbufferStorageOES), draws the textures side by side,
// blits the renderbuffer into a corner and swaps. The cube-face image is
// made, replayed and destroyed but not drawn: Mesa binds no 2D texture to it.
// Every frame A rewrites part of the 2D texture: B sees it only through the
// image. B checks a few pixels itself and fails when they are wrong.
//   glreplay_egl_image_app [FRAMES]
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
// After gl3.h, which defines what it needs.
#include <GLES2/gl2ext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "egl_image_app";

bool check(bool ok, const char* what) { return test_app::check(ok, kApp, what); }

constexpr int kSize = 64;    // the pbuffer
constexpr int kTexture = 8;  // the 2D texture and each cube face
constexpr int kRenderbuffer = 16;

const char* kVertex =
    "#version 300 es\n"
    "in vec2 a_pos;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "  v_uv = a_pos * 0.5 + 0.5;\n"
    "  gl_Position = vec4(a_pos, 0.0, 1.0);\n"
    "}\n";
const char* kFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec2 v_uv;\n"
    "uniform sampler2D u_texture;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = texture(u_texture, v_uv); }\n";

// Texel (x, y) of the 2D texture in frame `frame` (the part A rewrites every
// frame is the bottom-left quarter), and of the other 2D texture (and the
// cube's faces).
void texel_2d(int x, int y, int frame, unsigned char* out) {
  bool rewritten = x < kTexture / 2 && y < kTexture / 2;
  out[0] = static_cast<unsigned char>(x * 32);
  out[1] = static_cast<unsigned char>(y * 32);
  out[2] = static_cast<unsigned char>(rewritten ? 60 * frame : 200);
  out[3] = 255;
}
void texel_other(int x, int y, unsigned char* out) {
  out[0] = static_cast<unsigned char>(255 - x * 24);
  out[1] = static_cast<unsigned char>(100 + y * 16);
  out[2] = static_cast<unsigned char>((x + y) % 2 != 0 ? 255 : 0);
  out[3] = 255;
}

std::vector<unsigned char> pixels_2d(int frame, int width, int height, int x0, int y0) {
  std::vector<unsigned char> p(static_cast<size_t>(width * height * 4));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) texel_2d(x0 + x, y0 + y, frame, &p[(y * width + x) * 4]);
  return p;
}

bool same(const unsigned char* a, const unsigned char* b) { return memcmp(a, b, 4) == 0; }

}  // namespace

int main(int argc, char** argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 3;
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  if (!test_app::open_surfaceless(kApp, &dpy, &config)) return 2;
  auto create_image_khr =
      reinterpret_cast<PFNEGLCREATEIMAGEKHRPROC>(eglGetProcAddress("eglCreateImageKHR"));
  auto destroy_image_khr =
      reinterpret_cast<PFNEGLDESTROYIMAGEKHRPROC>(eglGetProcAddress("eglDestroyImageKHR"));
  auto target_texture = reinterpret_cast<PFNGLEGLIMAGETARGETTEXTURE2DOESPROC>(
      eglGetProcAddress("glEGLImageTargetTexture2DOES"));
  auto target_renderbuffer = reinterpret_cast<PFNGLEGLIMAGETARGETRENDERBUFFERSTORAGEOESPROC>(
      eglGetProcAddress("glEGLImageTargetRenderbufferStorageOES"));
  if (!check(create_image_khr != nullptr && destroy_image_khr != nullptr &&
                 target_texture != nullptr && target_renderbuffer != nullptr,
             "eglGetProcAddress"))
    return 2;
  const EGLint surface_attribs[] = {EGL_WIDTH, kSize, EGL_HEIGHT, kSize, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(dpy, config, surface_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  // Two contexts in two share groups: only the images connect them.
  EGLContext a = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  EGLContext b = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  if (!check(surface != EGL_NO_SURFACE && a != EGL_NO_CONTEXT && b != EGL_NO_CONTEXT &&
                 eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a),
             "context setup"))
    return 2;

  // --- context A: the sources ---
  GLuint texture = 0, other = 0, cube = 0, renderbuffer = 0, framebuffer = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  std::vector<unsigned char> initial = pixels_2d(0, kTexture, kTexture, 0, 0);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kTexture, kTexture, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               initial.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  std::vector<unsigned char> face(kTexture * kTexture * 4);
  for (int y = 0; y < kTexture; ++y)
    for (int x = 0; x < kTexture; ++x) texel_other(x, y, &face[(y * kTexture + x) * 4]);
  glGenTextures(1, &other);
  glBindTexture(GL_TEXTURE_2D, other);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kTexture, kTexture, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               face.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glGenTextures(1, &cube);
  glBindTexture(GL_TEXTURE_CUBE_MAP, cube);
  for (int f = 0; f < 6; ++f)
    glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, GL_RGBA8, kTexture, kTexture, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, face.data());
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  // The renderbuffer: two colors, drawn by clears.
  glGenRenderbuffers(1, &renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, kRenderbuffer, kRenderbuffer);
  glGenFramebuffers(1, &framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
  glClearColor(1.0f, 0.6f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, 0, kRenderbuffer / 2, kRenderbuffer);
  glClearColor(0.2f, 0.8f, 0.4f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glFinish();

  const EGLAttrib texture_attribs[] = {EGL_GL_TEXTURE_LEVEL, 0, EGL_IMAGE_PRESERVED, EGL_TRUE,
                                       EGL_NONE};
  EGLImage image_2d = eglCreateImage(
      dpy, a, EGL_GL_TEXTURE_2D, reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(texture)),
      texture_attribs);
  const EGLint khr_attribs[] = {EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_IMAGE_PRESERVED_KHR, EGL_TRUE,
                                EGL_NONE};
  EGLImageKHR image_other = create_image_khr(
      dpy, a, EGL_GL_TEXTURE_2D_KHR,
      reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(other)), khr_attribs);
  EGLImageKHR image_cube = create_image_khr(
      dpy, a, EGL_GL_TEXTURE_CUBE_MAP_POSITIVE_X_KHR,
      reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(cube)), khr_attribs);
  EGLImageKHR image_rb = create_image_khr(
      dpy, a, EGL_GL_RENDERBUFFER_KHR,
      reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(renderbuffer)), nullptr);
  if (!check(image_2d != EGL_NO_IMAGE && image_other != EGL_NO_IMAGE_KHR &&
                 image_cube != EGL_NO_IMAGE_KHR && image_rb != EGL_NO_IMAGE_KHR,
             "eglCreateImage"))
    return 1;

  // --- context B: the users ---
  if (!check(eglMakeCurrent(dpy, surface, surface, b), "eglMakeCurrent B")) return 2;
  GLuint program = test_app::link(kApp, kVertex, kFragment);
  glUseProgram(program);
  glUniform1i(glGetUniformLocation(program, "u_texture"), 0);
  const float quad[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
  GLuint vbo = 0;
  glGenBuffers(1, &vbo);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  GLint pos = glGetAttribLocation(program, "a_pos");
  glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(static_cast<GLuint>(pos));
  GLuint b_textures[2] = {0, 0};
  glGenTextures(2, b_textures);
  EGLImage sources[2] = {image_2d, image_other};
  for (int k = 0; k < 2; ++k) {
    glBindTexture(GL_TEXTURE_2D, b_textures[k]);
    target_texture(GL_TEXTURE_2D, static_cast<GLeglImageOES>(sources[k]));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  }
  GLuint b_renderbuffer = 0, b_framebuffer = 0;
  glGenRenderbuffers(1, &b_renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, b_renderbuffer);
  target_renderbuffer(GL_RENDERBUFFER, static_cast<GLeglImageOES>(image_rb));
  glGenFramebuffers(1, &b_framebuffer);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, b_framebuffer);
  glFramebufferRenderbuffer(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            b_renderbuffer);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  if (!check(glGetError() == GL_NO_ERROR, "targeting the images")) return 1;

  for (int frame = 0; frame < frames; ++frame) {
    // A rewrites a quarter of the texture: B sees it through the image.
    if (!check(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a), "eglMakeCurrent A"))
      return 2;
    std::vector<unsigned char> part = pixels_2d(frame, kTexture / 2, kTexture / 2, 0, 0);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kTexture / 2, kTexture / 2, GL_RGBA, GL_UNSIGNED_BYTE,
                    part.data());
    glFinish();
    if (!check(eglMakeCurrent(dpy, surface, surface, b), "eglMakeCurrent B")) return 2;

    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    for (int k = 0; k < 2; ++k) {
      glViewport(k * kSize / 2, 0, kSize / 2, kSize);
      glBindTexture(GL_TEXTURE_2D, b_textures[k]);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    // The renderbuffer's two colors into the top-left corner.
    glBindFramebuffer(GL_READ_FRAMEBUFFER, b_framebuffer);
    glBlitFramebuffer(0, 0, kRenderbuffer, kRenderbuffer, 0, kSize - kRenderbuffer, kRenderbuffer,
                      kSize, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);

    // What B drew: texel (0,0) of each texture, both renderbuffer colors,
    // and many colors in all.
    std::vector<unsigned char> fb(kSize * kSize * 4);
    glReadPixels(0, 0, kSize, kSize, GL_RGBA, GL_UNSIGNED_BYTE, fb.data());
    unsigned char want[4];
    texel_2d(0, 0, frame, want);
    bool ok = same(&fb[0], want);
    texel_other(0, 0, want);
    ok = ok && same(&fb[(kSize / 2) * 4], want);
    const unsigned char green[4] = {51, 204, 102, 255}, orange[4] = {255, 153, 0, 255};
    ok = ok && same(&fb[((kSize - 1) * kSize) * 4], green) &&
         same(&fb[((kSize - 1) * kSize + kRenderbuffer - 1) * 4], orange);
    std::set<uint32_t> colors;
    for (size_t p = 0; p < fb.size(); p += 4) {
      uint32_t c = 0;
      memcpy(&c, &fb[p], 4);
      colors.insert(c);
    }
    if (!check(ok && colors.size() >= 16 && glGetError() == GL_NO_ERROR, "drawing the images"))
      return 1;
    eglSwapBuffers(dpy, surface);
  }

  eglDestroyImage(dpy, image_2d);
  destroy_image_khr(dpy, image_other);
  destroy_image_khr(dpy, image_cube);
  destroy_image_khr(dpy, image_rb);
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, b);
  eglDestroyContext(dpy, a);
  eglDestroySurface(dpy, surface);
  eglTerminate(dpy);
  printf("egl_image_app: %d frames\n", frames);
  return 0;
}
