// gltrace-pointer-params: GLES calls whose pointer arguments the registry
// sizes only as COMPSIZE(...) (issue 23): a trace must hold their data for a
// replay to render the same. On a 32x32 pbuffer, each frame:
//   - glClearTexImageEXT / glClearTexSubImageEXT (one texel of format and
//     type; NULL clears to zero) fill a 2D texture;
//   - glTexImage3DOES / glTexSubImage3DOES upload a 3D texture under
//     GL_UNPACK_ROW_LENGTH, _IMAGE_HEIGHT and the three skips;
//   - the border colours come from glTexParameteriv, glSamplerParameterfv and
//     the integer forms (glTexParameterIiv, glSamplerParameterIuiv and their
//     OES/EXT names where the driver has them), read back with
//     glGetTexParameter*v / glGetSamplerParameter*v (4 values each);
//   - both textures are drawn with their borders showing, each quad by
//     glMultiDrawElementsEXT (two triangles: index arrays in client memory for
//     the first, offsets into an element array buffer for the second), and
//     the app checks pixels of each part itself.
//   gltrace-pointer-params [FRAMES]
// Exit 0 when every part rendered and read back as expected.
#include <GLES3/gl32.h>
// After gl32.h, which defines what it needs.
#include <GLES2/gl2ext.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "gltrace-pointer-params";
constexpr int kSize = 32;

bool check(bool ok, const char* what) { return test_app::check(ok, kApp, what); }

const char* kVertex =
    "#version 300 es\n"
    "in vec2 a_pos;\n"
    "uniform vec2 u_offset;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    // Texture coordinates from -0.5 to 1.5: the border shows around the image.
    "  v_uv = a_pos * 2.0 - 0.5;\n"
    "  gl_Position = vec4(u_offset + a_pos, 0.0, 1.0);\n"
    "}\n";
const char* kFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "precision mediump sampler3D;\n"
    "in vec2 v_uv;\n"
    "uniform int u_3d;\n"
    "uniform sampler2D u_2d_texture;\n"
    "uniform sampler3D u_3d_texture;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  o_color = u_3d == 1 ? texture(u_3d_texture, vec3(v_uv, 0.75))\n"
    "                      : texture(u_2d_texture, v_uv);\n"
    "}\n";

bool has_extension(const char* name) {
  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint i = 0; i < count; ++i)
    if (strcmp(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i))),
               name) == 0)
      return true;
  return false;
}

template <typename Pfn>
Pfn proc(const char* name) {
  return reinterpret_cast<Pfn>(eglGetProcAddress(name));
}

struct Procs {
  PFNGLCLEARTEXIMAGEEXTPROC clear_tex_image;
  PFNGLCLEARTEXSUBIMAGEEXTPROC clear_tex_sub_image;
  PFNGLTEXIMAGE3DOESPROC tex_image_3d;
  PFNGLTEXSUBIMAGE3DOESPROC tex_sub_image_3d;
  PFNGLTEXPARAMETERIIVOESPROC tex_parameter_iiv;  // OES or EXT, else core
  PFNGLSAMPLERPARAMETERIUIVOESPROC sampler_parameter_iuiv;
  PFNGLGETTEXPARAMETERIIVOESPROC get_tex_parameter_iiv;
  PFNGLMULTIDRAWELEMENTSEXTPROC multi_draw_elements;
};

bool load(Procs* p) {
  if (!check(has_extension("GL_EXT_clear_texture"), "GL_EXT_clear_texture") ||
      !check(has_extension("GL_OES_texture_3D"), "GL_OES_texture_3D") ||
      !check(has_extension("GL_EXT_multi_draw_arrays"), "GL_EXT_multi_draw_arrays"))
    return false;
  p->clear_tex_image = proc<PFNGLCLEARTEXIMAGEEXTPROC>("glClearTexImageEXT");
  p->clear_tex_sub_image = proc<PFNGLCLEARTEXSUBIMAGEEXTPROC>("glClearTexSubImageEXT");
  p->tex_image_3d = proc<PFNGLTEXIMAGE3DOESPROC>("glTexImage3DOES");
  p->tex_sub_image_3d = proc<PFNGLTEXSUBIMAGE3DOESPROC>("glTexSubImage3DOES");
  const char* suffix = has_extension("GL_OES_texture_border_clamp")   ? "OES"
                       : has_extension("GL_EXT_texture_border_clamp") ? "EXT"
                                                                      : "";
  std::string s(suffix);
  p->tex_parameter_iiv = proc<PFNGLTEXPARAMETERIIVOESPROC>(("glTexParameterIiv" + s).c_str());
  p->sampler_parameter_iuiv =
      proc<PFNGLSAMPLERPARAMETERIUIVOESPROC>(("glSamplerParameterIuiv" + s).c_str());
  p->get_tex_parameter_iiv =
      proc<PFNGLGETTEXPARAMETERIIVOESPROC>(("glGetTexParameterIiv" + s).c_str());
  p->multi_draw_elements = proc<PFNGLMULTIDRAWELEMENTSEXTPROC>("glMultiDrawElementsEXT");
  return check(p->clear_tex_image && p->clear_tex_sub_image && p->tex_image_3d &&
                   p->tex_sub_image_3d && p->tex_parameter_iiv && p->sampler_parameter_iuiv &&
                   p->get_tex_parameter_iiv && p->multi_draw_elements,
               "eglGetProcAddress");
}

// The 3D texture's texel (x, y, z): distinct per texel.
void texel_3d(int x, int y, int z, unsigned char* out) {
  out[0] = static_cast<unsigned char>(40 + 50 * x);
  out[1] = static_cast<unsigned char>(40 + 50 * y);
  out[2] = static_cast<unsigned char>(100 + 100 * z);
  out[3] = 255;
}

// Reads pixel (x, y) and compares it with `rgba` (within 2 per channel).
bool pixel_is(int x, int y, const unsigned char* rgba, const char* what) {
  unsigned char got[4] = {};
  glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
  for (int c = 0; c < 4; ++c)
    if (abs(got[c] - rgba[c]) > 2) {
      fprintf(stderr, "%s: %s at (%d, %d) is %d %d %d %d, not %d %d %d %d\n", kApp, what, x, y,
              got[0], got[1], got[2], got[3], rgba[0], rgba[1], rgba[2], rgba[3]);
      return false;
    }
  return true;
}

bool frame(const Procs& p, GLuint program, GLuint element_buffer, int n) {
  // A 2D texture cleared red, its middle green (both one texel of
  // RGBA/UNSIGNED_BYTE), one texel of it cleared to zero by NULL data.
  GLuint textures[3];
  glGenTextures(3, textures);
  glBindTexture(GL_TEXTURE_2D, textures[0]);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 4, 4);
  const unsigned char red[4] = {255, 0, 0, 255};
  const unsigned char green[4] = {0, static_cast<unsigned char>(255 - n), 0, 255};
  p.clear_tex_image(textures[0], 0, GL_RGBA, GL_UNSIGNED_BYTE, red);
  p.clear_tex_sub_image(textures[0], 0, 1, 1, 0, 2, 2, 1, GL_RGBA, GL_UNSIGNED_BYTE, green);
  p.clear_tex_sub_image(textures[0], 0, 3, 3, 0, 1, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);

  // A sampler for it whose border is blue (4 floats).
  GLuint sampler;
  glGenSamplers(1, &sampler);
  glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glSamplerParameteri(sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glSamplerParameteri(sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
  glSamplerParameteri(sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
  const GLfloat blue[4] = {0.0f, 0.0f, 1.0f, 1.0f};
  glSamplerParameterfv(sampler, GL_TEXTURE_BORDER_COLOR, blue);

  // A 4x4x2 3D texture (NULL contents first), filled from a 6-pixel-wide,
  // 5-row, 3-image block from (1, 1, 1) on; its border from integers.
  glBindTexture(GL_TEXTURE_3D, textures[1]);
  p.tex_image_3d(GL_TEXTURE_3D, 0, GL_RGBA, 4, 4, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  std::vector<unsigned char> block(6 * 5 * 3 * 4, 7);
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x)
        texel_3d(x, y, z, &block.at(((((z + 1) * 5 + y + 1) * 6 + x + 1) * size_t{4})));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 6);
  glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 5);
  glPixelStorei(GL_UNPACK_SKIP_PIXELS, 1);
  glPixelStorei(GL_UNPACK_SKIP_ROWS, 1);
  glPixelStorei(GL_UNPACK_SKIP_IMAGES, 1);
  p.tex_sub_image_3d(GL_TEXTURE_3D, 0, 0, 0, 0, 4, 4, 2, GL_RGBA, GL_UNSIGNED_BYTE, block.data());
  for (GLenum pname : {GL_UNPACK_ROW_LENGTH, GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_PIXELS,
                       GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_IMAGES})
    glPixelStorei(pname, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
  // Normalized: INT_MAX is 1.0 (cyan).
  const GLint cyan[4] = {0, INT_MAX, INT_MAX, INT_MAX};
  glTexParameteriv(GL_TEXTURE_3D, GL_TEXTURE_BORDER_COLOR, cyan);

  // The integer forms on an integer texture, read back.
  glBindTexture(GL_TEXTURE_2D, textures[2]);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8I, 1, 1);
  const GLint border_i[4] = {-5, 6, -7, 8};
  p.tex_parameter_iiv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, border_i);
  GLuint int_sampler;
  glGenSamplers(1, &int_sampler);
  const GLuint border_ui[4] = {9, 10, 11, 12};
  p.sampler_parameter_iuiv(int_sampler, GL_TEXTURE_BORDER_COLOR, border_ui);

  // Read back: every query writes 4 values.
  GLint got_i[4] = {};
  p.get_tex_parameter_iiv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, got_i);
  GLuint got_ui[4] = {};
  glGetSamplerParameterIuiv(int_sampler, GL_TEXTURE_BORDER_COLOR, got_ui);
  GLfloat got_f[4] = {};
  glGetSamplerParameterfv(sampler, GL_TEXTURE_BORDER_COLOR, got_f);
  glBindTexture(GL_TEXTURE_3D, textures[1]);
  GLint got_cyan[4] = {};
  glGetTexParameteriv(GL_TEXTURE_3D, GL_TEXTURE_BORDER_COLOR, got_cyan);
  if (!check(memcmp(got_i, border_i, sizeof got_i) == 0 &&
                 memcmp(got_ui, border_ui, sizeof got_ui) == 0 &&
                 std::equal(got_f, got_f + 4, blue) && got_cyan[1] == INT_MAX,
             "reading the border colours back"))
    return false;

  // Draw: the 2D texture on the left, the 3D one on the right.
  glClearColor(0.2f, 0.2f, 0.2f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glUseProgram(program);
  glUniform1i(glGetUniformLocation(program, "u_2d_texture"), 0);
  glUniform1i(glGetUniformLocation(program, "u_3d_texture"), 1);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, textures[0]);
  glBindSampler(0, sampler);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_3D, textures[1]);
  GLint offset = glGetUniformLocation(program, "u_offset");
  GLint is_3d = glGetUniformLocation(program, "u_3d");
  const GLsizei counts[2] = {3, 3};
  glUniform2f(offset, -1.0f, -0.5f);
  glUniform1i(is_3d, 0);
  const GLubyte first_half[3] = {0, 1, 2}, second_half[3] = {2, 1, 3};
  const void* const lists[2] = {first_half, second_half};
  p.multi_draw_elements(GL_TRIANGLES, counts, GL_UNSIGNED_BYTE, lists, 2);
  glUniform2f(offset, 0.0f, -0.5f);
  glUniform1i(is_3d, 1);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, element_buffer);
  const void* const offsets[2] = {nullptr, reinterpret_cast<const void*>(3 * sizeof(GLushort))};
  p.multi_draw_elements(GL_TRIANGLES, counts, GL_UNSIGNED_SHORT, offsets, 2);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
  glBindSampler(0, 0);
  glActiveTexture(GL_TEXTURE0);

  // Each quad covers 16x16 pixels from y = 8; its texture the middle 8x8.
  const unsigned char zero[4] = {0, 0, 0, 0}, blue8[4] = {0, 0, 255, 255};
  const unsigned char cyan8[4] = {0, 255, 255, 255};
  unsigned char deep[4];
  texel_3d(1, 2, 1, deep);
  bool ok = pixel_is(4 + 1, 12 + 1, red, "the cleared texture") &&
            pixel_is(4 + 3, 12 + 3, green, "the sub-image clear") &&
            pixel_is(4 + 7, 12 + 7, zero, "the NULL clear") &&
            pixel_is(1, 9, blue8, "the sampler's border") &&
            pixel_is(16 + 4 + 2 + 1, 12 + 4 + 1, deep, "the 3D texture") &&
            pixel_is(16 + 1, 9, cyan8, "the 3D texture's border");
  glDeleteSamplers(1, &sampler);
  glDeleteSamplers(1, &int_sampler);
  glDeleteTextures(3, textures);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 2;
  EGLDisplay display;
  EGLConfig config;
  if (!test_app::open_surfaceless(kApp, &display, &config)) return 1;
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2,
                                    EGL_NONE};
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  if (!test_app::make_pbuffer_current(kApp, display, config, kSize, kSize, context_attribs,
                                      "making an ES 3.2 context current", &surface, &context))
    return 1;
  Procs procs{};
  if (!load(&procs)) return 1;
  GLuint program = test_app::link(kApp, kVertex, kFragment);
  GLuint buffer;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  const GLfloat quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  GLint pos = glGetAttribLocation(program, "a_pos");
  glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(static_cast<GLuint>(pos));
  GLuint element_buffer;
  glGenBuffers(1, &element_buffer);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, element_buffer);
  const GLushort triangles[6] = {0, 1, 2, 2, 1, 3};
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof triangles, triangles, GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
  glViewport(0, 0, kSize, kSize);
  for (int n = 0; n < frames; ++n) {
    if (!frame(procs, program, element_buffer, n)) return 1;
    eglSwapBuffers(display, surface);
  }
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(display);
  printf("%d frames: every pointer argument rendered as expected\n", frames);
  return 0;
}
