// glreplay_client_app: a tiny GLES 3 program (surfaceless EGL, pbuffer) that
// uses what the bundled demo and glmark2 do not, for glreplay's tests:
// vertex arrays and indices in client memory (VAO 0, with another buffer
// still bound), a buffer written through glMapBufferRange with explicit
// flushes and one through a plain map, fence syncs, a uniform array
// element's location and attribute locations asked of the driver, a uniform
// block bound by the index the driver gave.
//   glreplay_client_app [FRAMES]
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "client_app";

bool check(bool ok, const char* what) { return test_app::check(ok, kApp, what); }

constexpr int kSize = 96;

const char* kVertex =
    "#version 300 es\n"
    "in vec2 a_pos;\n"
    "in vec4 a_color;\n"
    "uniform vec2 u_offset[3];\n"
    "out vec4 v_color;\n"
    "void main() {\n"
    "  v_color = a_color;\n"
    "  gl_Position = vec4(a_pos + u_offset[2], 0.0, 1.0);\n"
    "}\n";
const char* kFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec4 v_color;\n"
    "uniform Tint { vec4 u_tint; };\n"
    "out vec4 o_color;\n"
    "void main() { o_color = v_color * u_tint; }\n";

}  // namespace

int main(int argc, char** argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 4;
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  if (!test_app::open_surfaceless(kApp, &dpy, &config)) return 2;
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  if (!test_app::make_pbuffer_current(kApp, dpy, config, kSize, kSize, context_attribs,
                                      "context setup", &surface, &context))
    return 2;

  GLuint program = test_app::link(kApp, kVertex, kFragment);
  glUseProgram(program);
  GLint pos = glGetAttribLocation(program, "a_pos");
  GLint color = glGetAttribLocation(program, "a_color");
  GLint offset2 = glGetUniformLocation(program, "u_offset[2]");
  // The block at binding 1 (0 has no buffer): a replay that bound another
  // index would draw black.
  GLuint tint_block = glGetUniformBlockIndex(program, "Tint");
  glUniformBlockBinding(program, tint_block, 1);
  GLuint tint = 0;
  glGenBuffers(1, &tint);
  glBindBufferBase(GL_UNIFORM_BUFFER, 1, tint);
  glBufferData(GL_UNIFORM_BUFFER, 4 * sizeof(float), nullptr, GL_DYNAMIC_DRAW);

  // Positions from a buffer updated through mappings every frame.
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, 64 * sizeof(float), nullptr, GL_DYNAMIC_DRAW);

  for (int frame = 0; frame < frames; ++frame) {
    float t = static_cast<float>(frame) * 0.3f;
    glViewport(0, 0, kSize, kSize);
    glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUniform2f(offset2, 0.1f * std::sin(t), 0.0f);
    const float tint_value[4] = {1.0f, 0.5f + 0.1f * static_cast<float>(frame % 5), 1.0f, 1.0f};
    glBindBuffer(GL_UNIFORM_BUFFER, tint);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof tint_value, tint_value);

    // 1: positions and colors in client memory; the draw reads vertices
    // 3..5 only (first = 3), with the mapped buffer still bound.
    float positions[12] = {9, 9, 9, 9, 9, 9, -0.9f, -0.9f, -0.1f, -0.9f, -0.5f, -0.1f + 0.1f * t};
    unsigned char colors[24] = {};
    for (int v = 3; v < 6; ++v) {
      colors[v * 4 + 0] = static_cast<unsigned char>(200 + v * 10);
      colors[v * 4 + 1] = static_cast<unsigned char>(frame * 40);
      colors[v * 4 + 3] = 255;
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 0, positions);
    glVertexAttribPointer(static_cast<GLuint>(color), 4, GL_UNSIGNED_BYTE, GL_TRUE, 4, colors);
    glEnableVertexAttribArray(static_cast<GLuint>(pos));
    glEnableVertexAttribArray(static_cast<GLuint>(color));
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glDrawArrays(GL_TRIANGLES, 3, 3);

    // 2: client indices and client vertices (a quad).
    float quad[8] = {0.1f, 0.1f, 0.9f, 0.1f, 0.1f, 0.9f - 0.05f * t, 0.9f, 0.9f};
    unsigned char quad_colors[16] = {
        0, 255, 0,  255, 0, 0, 255, 255, 255, 255, 0, 255, static_cast<unsigned char>(frame * 50),
        0, 0,   255};
    const GLushort indices[6] = {0, 1, 2, 2, 1, 3};
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 8, quad);
    glVertexAttribPointer(static_cast<GLuint>(color), 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, quad_colors);
    glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, indices);

    // 3: positions written through two explicitly flushed ranges, colors
    // constant.
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    auto* p = static_cast<float*>(glMapBufferRange(
        GL_ARRAY_BUFFER, 0, 12 * sizeof(float),
        GL_MAP_WRITE_BIT | GL_MAP_FLUSH_EXPLICIT_BIT | GL_MAP_INVALIDATE_RANGE_BIT));
    if (!check(p != nullptr, "glMapBufferRange")) return 1;
    const float tri[6] = {-0.9f, 0.2f, -0.2f + 0.05f * t, 0.2f, -0.55f, 0.9f};
    memcpy(p, tri, sizeof tri);
    memset(p + 6, 0xff, 6 * sizeof(float));  // written, never flushed: not data
    glFlushMappedBufferRange(GL_ARRAY_BUFFER, 0, 4 * sizeof(float));
    glFlushMappedBufferRange(GL_ARRAY_BUFFER, 4 * sizeof(float), 2 * sizeof(float));
    glUnmapBuffer(GL_ARRAY_BUFFER);
    glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glDisableVertexAttribArray(static_cast<GLuint>(color));
    glVertexAttrib4f(static_cast<GLuint>(color), 1.0f, 0.5f, 0.0f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 0, 3);

    // 4: a whole-range map written without explicit flushes.
    p = static_cast<float*>(
        glMapBufferRange(GL_ARRAY_BUFFER, 16 * sizeof(float), 6 * sizeof(float), GL_MAP_WRITE_BIT));
    if (!check(p != nullptr, "glMapBufferRange")) return 1;
    const float tri2[6] = {0.2f, -0.9f, 0.9f, -0.9f, 0.55f, -0.2f - 0.05f * t};
    memcpy(p, tri2, sizeof tri2);
    glUnmapBuffer(GL_ARRAY_BUFFER);
    glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 0,
                          reinterpret_cast<const void*>(16 * sizeof(float)));
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glEnableVertexAttribArray(static_cast<GLuint>(color));

    GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000);
    glDeleteSync(sync);
    if (!check(glGetError() == GL_NO_ERROR, "rendering")) return 1;
    eglSwapBuffers(dpy, surface);
  }
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, context);
  eglDestroySurface(dpy, surface);
  eglTerminate(dpy);
  printf("client_app: %d frames\n", frames);
  return 0;
}
