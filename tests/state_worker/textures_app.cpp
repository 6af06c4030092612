// state_worker_textures_app: textures the bundled demo does not have, for
// the state worker's read-back tests (surfaceless EGL, a pbuffer, one frame):
// a cube map whose faces, a 2D array whose layers and a 2D texture whose
// level 1 each hold one colour of their own (colour_of() below), bound on
// units 1 to 3; and textures that cannot be read back as RGBA8 (RGBA32F,
// depth). Made with one glGenTextures, in the order of kTextures.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <cstdio>
#include <vector>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "textures_app";

// Texture i of the one glGenTextures: cube, array, mipmapped 2D, float, depth.
constexpr int kTextures = 5;
constexpr int kCubeSize = 8, kArraySize = 4, kArrayLayers = 3, kMipSize = 8;

// The colour of face/layer/level `i` (the test computes the same).
std::vector<uint8_t> filled(int texels, int i) {
  std::vector<uint8_t> data(static_cast<size_t>(texels) * 4);
  for (int t = 0; t < texels; ++t) {
    data[t * 4 + 0] = static_cast<uint8_t>(30 * i + 10);
    data[t * 4 + 1] = static_cast<uint8_t>(250 - 30 * i);
    data[t * 4 + 2] = static_cast<uint8_t>(7 * i);
    data[t * 4 + 3] = 255;
  }
  return data;
}

}  // namespace

int main() {
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  if (!test_app::open_surfaceless(kApp, &dpy, &config)) return 2;
  const EGLint surface_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(dpy, config, surface_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  EGLContext context = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  if (!test_app::check(surface != EGL_NO_SURFACE && context != EGL_NO_CONTEXT &&
                           eglMakeCurrent(dpy, surface, surface, context),
                       kApp, "context setup"))
    return 2;

  GLuint textures[kTextures] = {};
  glGenTextures(kTextures, textures);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_CUBE_MAP, textures[0]);
  for (int face = 0; face < 6; ++face)
    glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, 0, GL_RGBA8, kCubeSize, kCubeSize, 0,
                 GL_RGBA, GL_UNSIGNED_BYTE, filled(kCubeSize * kCubeSize, face).data());
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D_ARRAY, textures[1]);
  glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, kArraySize, kArraySize, kArrayLayers, 0, GL_RGBA,
               GL_UNSIGNED_BYTE, nullptr);
  for (int layer = 0; layer < kArrayLayers; ++layer)
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, kArraySize, kArraySize, 1, GL_RGBA,
                    GL_UNSIGNED_BYTE, filled(kArraySize * kArraySize, layer).data());
  glActiveTexture(GL_TEXTURE3);
  glBindTexture(GL_TEXTURE_2D, textures[2]);
  for (int level = 0; level < 2; ++level) {
    int size = kMipSize >> level;
    glTexImage2D(GL_TEXTURE_2D, level, GL_RGBA8, size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 filled(size * size, level).data());
  }
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, textures[3]);
  std::vector<float> zero(4 * 4 * 4, 0.5f);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 4, 4, 0, GL_RGBA, GL_FLOAT, zero.data());
  glBindTexture(GL_TEXTURE_2D, textures[4]);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, 4, 4, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT,
               nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  glClearColor(0.f, 0.f, 1.f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (!test_app::check(glGetError() == GL_NO_ERROR, kApp, "texture setup")) return 1;
  glFinish();
  eglSwapBuffers(dpy, surface);
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, context);
  eglDestroySurface(dpy, surface);
  eglTerminate(dpy);
  printf("%s: done\n", kApp);
  return 0;
}
