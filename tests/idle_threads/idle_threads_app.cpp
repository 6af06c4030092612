// gltrace-idle-threads: GL set up on the main thread, which then goes idle
// while a worker thread renders; for traces of threads that stop calling GL.
//
// The main thread opens EGL (surfaceless platform), creates a pbuffer, a
// context, a program, a texture and a vertex buffer (a few hundred calls:
// the texture is uploaded row by row), releases the context with
// eglMakeCurrent(..., EGL_NO_CONTEXT) and then only waits for the worker.
// The worker makes the context current and draws frames, each one different
// (frame-indexed colour and texture row), until --frames is reached or it is
// killed. To --progress it writes "pid PID", "idle" once the main thread
// released the context, and "frame N" after each swap, one a line, so a test
// that kills it knows how far it got.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "idle-threads";
constexpr int kSize = 64;
constexpr int kTexSize = 32;

const char* kVertex = R"(#version 300 es
layout(location = 0) in vec2 position;
out vec2 uv;
void main() {
  uv = position * 0.5 + 0.5;
  gl_Position = vec4(position * 0.8, 0.0, 1.0);
})";

const char* kFragment = R"(#version 300 es
precision mediump float;
uniform sampler2D tex;
uniform vec4 tint;
in vec2 uv;
out vec4 color;
void main() { color = texture(tex, uv) * tint; })";

struct Gl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  GLuint program = 0;
  GLuint texture = 0;
  GLint tint = -1;
};

bool set_up(Gl* gl) {
  EGLConfig config;
  if (!test_app::open_surfaceless(kApp, &gl->display, &config)) return false;
  const EGLint surface_attribs[] = {EGL_WIDTH, kSize, EGL_HEIGHT, kSize, EGL_NONE};
  gl->surface = eglCreatePbufferSurface(gl->display, config, surface_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
  gl->context = eglCreateContext(gl->display, config, EGL_NO_CONTEXT, context_attribs);
  if (!test_app::check(gl->surface != EGL_NO_SURFACE && gl->context != EGL_NO_CONTEXT &&
                           eglMakeCurrent(gl->display, gl->surface, gl->surface, gl->context),
                       kApp, "context set-up"))
    return false;
  gl->program = test_app::link(kApp, kVertex, kFragment);
  if (gl->program == 0) return false;
  glUseProgram(gl->program);
  glUniform1i(glGetUniformLocation(gl->program, "tex"), 0);
  gl->tint = glGetUniformLocation(gl->program, "tint");
  glGenTextures(1, &gl->texture);
  glBindTexture(GL_TEXTURE_2D, gl->texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kTexSize, kTexSize, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  // Row by row, with a state query each: the set-up's few hundred calls.
  std::vector<uint8_t> row(kTexSize * 4);
  for (int y = 0; y < kTexSize; ++y) {
    for (int x = 0; x < kTexSize; ++x) {
      row[x * 4 + 0] = static_cast<uint8_t>(x * 8);
      row[x * 4 + 1] = static_cast<uint8_t>(y * 8);
      row[x * 4 + 2] = static_cast<uint8_t>((x ^ y) * 8);
      row[x * 4 + 3] = 255;
    }
    for (int k = 0; k < 4; ++k) {
      glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
      GLint bound = 0;
      glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    }
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, kTexSize, 1, GL_RGBA, GL_UNSIGNED_BYTE, row.data());
  }
  const float triangle[] = {-1, -1, 1, -1, 0, 1};
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(0);
  glFinish();
  if (!test_app::check(glGetError() == GL_NO_ERROR, kApp, "GL set-up")) return false;
  // The worker takes the context over: this thread makes no GL call again.
  return test_app::check(
      eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), kApp,
      "releasing the context");
}

int render(const Gl& gl, int frames, int frame_ms, int progress_fd) {
  if (!test_app::check(eglMakeCurrent(gl.display, gl.surface, gl.surface, gl.context), kApp,
                       "eglMakeCurrent on the worker"))
    return 2;
  std::vector<uint8_t> row(kTexSize * 4);
  for (int frame = 1; frames == 0 || frame <= frames; ++frame) {
    auto start = std::chrono::steady_clock::now();
    glClearColor(static_cast<float>(frame % 7) / 7, static_cast<float>(frame % 5) / 5, 0.25f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    for (int x = 0; x < kTexSize; ++x) {
      row[x * 4 + 0] = static_cast<uint8_t>(frame * 13 + x);
      row[x * 4 + 1] = static_cast<uint8_t>(frame * 7);
      row[x * 4 + 2] = static_cast<uint8_t>(x * 8);
      row[x * 4 + 3] = 255;
    }
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, frame % kTexSize, kTexSize, 1, GL_RGBA, GL_UNSIGNED_BYTE,
                    row.data());
    glUniform4f(gl.tint, 1.0f, static_cast<float>(frame % 11) / 10, 1.0f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    if (!test_app::check(glGetError() == GL_NO_ERROR && eglSwapBuffers(gl.display, gl.surface),
                         kApp, "frame"))
      return 1;
    if (progress_fd >= 0) {
      std::string line = "frame " + std::to_string(frame) + "\n";
      if (write(progress_fd, line.data(), line.size()) < 0) return 1;
    }
    if (frame_ms > 0) std::this_thread::sleep_until(start + std::chrono::milliseconds(frame_ms));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 10;  // 0: until killed
  int frame_ms = 0;
  const char* progress = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--frame-ms") == 0 && i + 1 < argc) {
      frame_ms = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--progress") == 0 && i + 1 < argc) {
      progress = argv[++i];
    } else {
      fprintf(stderr,
              "usage: gltrace-idle-threads [--frames N (0: until killed)] [--frame-ms MS] "
              "[--progress FILE]\n");
      return 2;
    }
  }
  int progress_fd = -1;
  if (progress != nullptr) {
    progress_fd = open(progress, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (progress_fd < 0) {
      perror(progress);
      return 2;
    }
  }
  auto note = [progress_fd](const std::string& line) {
    return progress_fd < 0 || write(progress_fd, line.data(), line.size()) >= 0;
  };
  note("pid " + std::to_string(getpid()) + "\n");
  Gl gl;
  if (!set_up(&gl) || !note("idle\n")) return 2;
  int status = 0;
  std::thread worker([&] { status = render(gl, frames, frame_ms, progress_fd); });
  worker.join();  // the main thread is idle from here on
  if (status == 0) printf("%s: %d frames\n", kApp, frames);
  return status;
}
