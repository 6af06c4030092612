// gltrace-gles1-arrays: an OpenGL ES 1.1 app (EGL_CONTEXT_CLIENT_VERSION 1,
// libGLESv1_CM) that draws from client-memory arrays, as GLES 1 apps do: a
// trace must hold what each draw read for a replay to render the same. On a
// 32x32 pbuffer, each frame:
//   - glDrawArrays: a quad of GL_FLOAT vertices and GL_UNSIGNED_BYTE colours
//     (left half);
//   - glDrawElements with client GL_UNSIGNED_SHORT indices: a lit quad of
//     interleaved GL_SHORT vertices and GL_FLOAT normals, with texture
//     coordinates on texture unit 1 (a 2x2 checker) while the client-active
//     unit is back at 0 when it draws (right half);
// and the arrays' contents change between frames at the same addresses.
//   gltrace-gles1-arrays [FRAMES]
// Exit 0 when every frame's pixels are as expected.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES/gl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr const char* kApp = "gltrace-gles1-arrays";
constexpr int kSize = 32;

bool check(bool ok, const char* what) {
  if (!ok)
    fprintf(stderr, "%s: %s failed (EGL 0x%x, GL 0x%x)\n", kApp, what, eglGetError(), glGetError());
  return ok;
}

struct LitVertex {
  GLshort position[3];
  GLfloat normal[3];
};

// The pixel at (x, y), RGBA.
void pixel(int x, int y, GLubyte out[4]) {
  glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, out);
}

bool near(int a, int b) { return abs(a - b) <= 8; }

}  // namespace

int main(int argc, char** argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 2;
  EGLDisplay display =
      eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (!check(display != EGL_NO_DISPLAY && eglInitialize(display, nullptr, nullptr),
             "eglInitialize"))
    return 1;
  eglBindAPI(EGL_OPENGL_ES_API);
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                   EGL_PBUFFER_BIT,
                                   EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_ES_BIT,
                                   EGL_RED_SIZE,
                                   8,
                                   EGL_GREEN_SIZE,
                                   8,
                                   EGL_BLUE_SIZE,
                                   8,
                                   EGL_ALPHA_SIZE,
                                   8,
                                   EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!check(eglChooseConfig(display, config_attribs, &config, 1, &count) && count == 1,
             "eglChooseConfig"))
    return 1;
  const EGLint pbuffer_attribs[] = {EGL_WIDTH, kSize, EGL_HEIGHT, kSize, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 1, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (!check(surface != EGL_NO_SURFACE && context != EGL_NO_CONTEXT &&
                 eglMakeCurrent(display, surface, surface, context),
             "an ES 1 context"))
    return 1;
  glViewport(0, 0, kSize, kSize);

  // A 2x2 checker on texture unit 1: white and black.
  const GLubyte checker[] = {255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255};
  GLuint texture = 0;
  glActiveTexture(GL_TEXTURE1);
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, checker);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE);
  glActiveTexture(GL_TEXTURE0);

  // The left quad: x from -1 to 0.
  GLfloat positions[] = {-1, -1, 0, -1, -1, 1, 0, 1};
  GLubyte colors[16] = {};
  // The right quad: x from 0 to 1 (GL_SHORT, scaled by the matrix below),
  // normals towards the light or away from it.
  LitVertex lit[4] = {{{0, -1, 0}, {0, 0, 1}},
                      {{1, -1, 0}, {0, 0, 1}},
                      {{0, 1, 0}, {0, 0, 1}},
                      {{1, 1, 0}, {0, 0, 1}}};
  const GLfloat texcoords[] = {0, 0, 1, 0, 0, 1, 1, 1};
  const GLushort indices[] = {0, 1, 2, 2, 1, 3};

  const GLfloat light_position[] = {0, 0, 1, 0};
  const GLfloat white[] = {1, 1, 1, 1};
  const GLfloat black[] = {0, 0, 0, 1};
  glLightfv(GL_LIGHT0, GL_POSITION, light_position);
  glLightfv(GL_LIGHT0, GL_DIFFUSE, white);
  glLightModelfv(GL_LIGHT_MODEL_AMBIENT, black);
  glMaterialfv(GL_FRONT_AND_BACK, GL_AMBIENT, black);
  glMaterialfv(GL_FRONT_AND_BACK, GL_DIFFUSE, white);

  glEnableClientState(GL_VERTEX_ARRAY);
  glEnableClientState(GL_COLOR_ARRAY);
  glClientActiveTexture(GL_TEXTURE1);
  glEnableClientState(GL_TEXTURE_COORD_ARRAY);
  glTexCoordPointer(2, GL_FLOAT, 0, texcoords);
  glClientActiveTexture(GL_TEXTURE0);

  bool ok = true;
  for (int frame = 0; frame < frames; ++frame) {
    // New contents at the same addresses: red, then green...
    const GLubyte tint[3][4] = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}};
    const GLubyte* c = tint[frame % 3];
    for (int v = 0; v < 4; ++v) memcpy(colors + v * 4, c, 4);
    // ...and the lit quad faces the light on even frames, away (dark) on odd ones.
    GLfloat nz = frame % 2 == 0 ? 1.0f : -1.0f;
    for (LitVertex& v : lit) v.normal[2] = nz;

    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);

    glVertexPointer(2, GL_FLOAT, 0, positions);
    glColorPointer(4, GL_UNSIGNED_BYTE, 0, colors);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

    glDisableClientState(GL_COLOR_ARRAY);
    glEnableClientState(GL_NORMAL_ARRAY);
    glEnable(GL_LIGHTING);
    glEnable(GL_LIGHT0);
    glActiveTexture(GL_TEXTURE1);
    glEnable(GL_TEXTURE_2D);
    glVertexPointer(3, GL_SHORT, sizeof(LitVertex), lit[0].position);
    glNormalPointer(GL_FLOAT, sizeof(LitVertex), lit[0].normal);
    glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, indices);
    glDisable(GL_TEXTURE_2D);
    glActiveTexture(GL_TEXTURE0);
    glDisable(GL_LIGHTING);
    glDisableClientState(GL_NORMAL_ARRAY);
    glEnableClientState(GL_COLOR_ARRAY);

    // Left: the frame's tint. Right: the checker, lit (white squares) or dark.
    GLubyte left[4], white_square[4], black_square[4];
    pixel(kSize / 4, kSize / 2, left);
    pixel(kSize / 2 + kSize / 8, kSize / 8, white_square);  // texel (0, 0): white
    pixel(kSize - kSize / 8, kSize / 8, black_square);      // texel (1, 0): black
    bool lit_frame = frame % 2 == 0;
    ok &= check(near(left[0], c[0]) && near(left[1], c[1]) && near(left[2], c[2]),
                "the colour array");
    ok &= check(near(white_square[0], lit_frame ? 255 : 0) && near(black_square[0], 0),
                "the normal and texture coordinate arrays");
    if (!ok) {
      fprintf(stderr, "%s: frame %d: left %d %d %d, right %d and %d\n", kApp, frame, left[0],
              left[1], left[2], white_square[0], black_square[0]);
      break;
    }
    eglSwapBuffers(display, surface);
  }
  glDeleteTextures(1, &texture);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, context);
  eglDestroySurface(display, surface);
  eglTerminate(display);
  if (ok) printf("%s: %d frames as expected\n", kApp, frames);
  return ok ? 0 : 1;
}
