// gltrace-churn: an app that streams content, making new objects every frame
// and deleting the previous frame's: a texture with new texels, a vertex
// buffer with new vertices, a vertex array, a framebuffer with a new
// renderbuffer rendered into, and every third frame a new program (its
// source new too). One texture lives for the whole run and is updated in
// place every frame (glTexSubImage2D of a block that moves), so what it
// holds is the sum of every frame so far. Every frame's image is drawn with
// all of them. What `gltrace replay --loop N --frames A-B` replays over and
// over: every iteration must draw the same frames in the same memory.
//
// --then says how the app ends after its frames, midway through one more:
// as it would crash (segv, abort, fpe) or hang (hang: it sleeps for good),
// what the flight recorder must outlive; --own-handler installs a handler
// of the app's own for those signals, which prints and exits with 3.
//
//   gltrace-churn [--frames N] [--then segv|abort|fpe|hang] [--own-handler]
//   (default 30 frames, then exit 0; surfaceless, 64x48; deterministic)
#include <fenv.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "apps/gles_app.h"

namespace {

using namespace gltrace::test_app;

constexpr char kApp[] = "churn";
constexpr int kWidth = 64, kHeight = 48;
// Big enough that objects a replay kept past their frame would show in its
// memory over a hundred iterations.
constexpr int kTexture = 128;  // a frame's texture, kTexture x kTexture
constexpr int kStreamed = 64;  // the texture updated in place
constexpr int kBlock = 16;     // the block of it each frame writes
constexpr int kTarget = 32;    // a frame's renderbuffer, kTarget x kTarget

constexpr char kVertex[] = R"(#version 300 es
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 texcoord;
uniform vec2 offset;
out vec2 uv;
void main() {
  uv = texcoord;
  gl_Position = vec4(position + offset, 0.0, 1.0);
}
)";

// A frame's program: the fragment shader's tint is part of its source.
std::string fragment_source(int frame) {
  char tint[96];
  snprintf(tint, sizeof tint, "const vec3 tint = vec3(%.2f, %.2f, %.2f);\n",
           0.5 + 0.1 * (frame % 6), 1.0 - 0.08 * (frame % 5), 0.6 + 0.1 * (frame % 4));
  return std::string("#version 300 es\nprecision mediump float;\n") + tint +
         "uniform sampler2D image;\n"
         "in vec2 uv;\n"
         "out vec4 color;\n"
         "void main() { color = vec4(texture(image, uv).rgb * tint, 1.0); }\n";
}

// A linked program whose shaders are deleted once it links.
GLuint new_program(int frame) {
  std::string fragment = fragment_source(frame);
  GLuint vs = compile(kApp, GL_VERTEX_SHADER, kVertex);
  GLuint fs = compile(kApp, GL_FRAGMENT_SHADER, fragment.c_str());
  if (vs == 0 || fs == 0) return 0;
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDetachShader(program, vs);
  glDetachShader(program, fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint linked = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (!linked) {
    glDeleteProgram(program);
    return 0;
  }
  glUseProgram(program);
  glUniform1i(glGetUniformLocation(program, "image"), 0);
  return program;
}

// What a frame makes and the next one deletes.
struct FrameObjects {
  GLuint texture = 0, buffer = 0, vao = 0, renderbuffer = 0, framebuffer = 0;
};

// A new texture, texels of the frame's pattern.
GLuint new_texture(int frame) {
  std::vector<unsigned char> texels(kTexture * kTexture * 4);
  for (int y = 0; y < kTexture; ++y) {
    for (int x = 0; x < kTexture; ++x) {
      unsigned char* t = &texels[(y * kTexture + x) * 4];
      t[0] = static_cast<unsigned char>(x * 2 + frame * 7);
      t[1] = static_cast<unsigned char>(y * 2 + frame * 11);
      t[2] = static_cast<unsigned char>(((x / 32 + y / 32 + frame) % 2) * 200 + 40);
      t[3] = 255;
    }
  }
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kTexture, kTexture, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               texels.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return texture;
}

// A new vertex buffer (a quad whose shape is the frame's) and a vertex
// array reading it.
void new_vertices(int frame, FrameObjects* objects) {
  float inset = 0.05f * static_cast<float>(frame % 7);
  float skew = 0.04f * static_cast<float>(frame % 5);
  const float vertices[] = {
      -1.0f + inset, -1.0f + skew,  0.0f, 0.0f,  // position, texcoord
      1.0f - skew,   -1.0f + inset, 1.0f, 0.0f,  //
      -1.0f + skew,  1.0f - inset,  0.0f, 1.0f,  //
      1.0f - inset,  1.0f - skew,   1.0f, 1.0f,
  };
  glGenVertexArrays(1, &objects->vao);
  glBindVertexArray(objects->vao);
  glGenBuffers(1, &objects->buffer);
  glBindBuffer(GL_ARRAY_BUFFER, objects->buffer);
  glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), nullptr);
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float),
                        reinterpret_cast<const void*>(2 * sizeof(float)));
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
}

// A new framebuffer of a new renderbuffer, bound.
bool new_target(FrameObjects* objects) {
  glGenRenderbuffers(1, &objects->renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, objects->renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, kTarget, kTarget);
  glGenFramebuffers(1, &objects->framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, objects->framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            objects->renderbuffer);
  return check(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, kApp,
               "the frame's framebuffer");
}

void delete_objects(FrameObjects* objects) {
  glDeleteTextures(1, &objects->texture);
  glDeleteBuffers(1, &objects->buffer);
  glDeleteVertexArrays(1, &objects->vao);
  glDeleteFramebuffers(1, &objects->framebuffer);
  glDeleteRenderbuffers(1, &objects->renderbuffer);
  *objects = FrameObjects{};
}

// The block of the streamed texture that `frame` writes in place.
void update_streamed(GLuint streamed, int frame) {
  std::vector<unsigned char> texels(kBlock * kBlock * 4);
  for (size_t i = 0; i < texels.size(); ++i)
    texels[i] = static_cast<unsigned char>(i % 4 == 3 ? 255 : i * 3 + frame * 37);
  int blocks = kStreamed / kBlock;
  int x = (frame * 3) % blocks, y = (frame / blocks + frame) % blocks;
  glBindTexture(GL_TEXTURE_2D, streamed);
  glTexSubImage2D(GL_TEXTURE_2D, 0, x * kBlock, y * kBlock, kBlock, kBlock, GL_RGBA,
                  GL_UNSIGNED_BYTE, texels.data());
}

void own_handler(int sig) {
  char message[] = "churn: its own handler got signal NN\n";
  message[sizeof message - 4] = static_cast<char>('0' + sig / 10);
  message[sizeof message - 3] = static_cast<char>('0' + sig % 10);
  (void)!write(STDERR_FILENO, message, sizeof message - 1);
  _exit(3);
}

// The end --then asks for; returns only for "exit".
// Real faults, not undefined behaviour (which a sanitizer reports and
// exits on before any signal): a store to a page without access, and a
// float division by zero with that exception enabled.
void end_as_asked(const std::string& then) {
  if (then == "segv") {
    void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *static_cast<volatile int*>(page) = 1;
  } else if (then == "abort") {
    abort();
  } else if (then == "fpe") {
    feenableexcept(FE_DIVBYZERO);
    volatile double zero = 0.0;
    volatile double quotient = 1.0 / zero;
    (void)quotient;
  } else if (then == "hang") {
    for (;;) pause();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 30;
  std::string then = "exit";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--frames" && i + 1 < argc) {
      frames = atoi(argv[++i]);
    } else if (arg == "--then" && i + 1 < argc) {
      then = argv[++i];
    } else if (arg == "--own-handler") {
      for (int sig : {SIGSEGV, SIGABRT, SIGFPE}) signal(sig, own_handler);
    } else {
      fprintf(stderr,
              "usage: gltrace-churn [--frames N] [--then segv|abort|fpe|hang] [--own-handler]\n");
      return 2;
    }
  }
  if (then != "exit" && then != "segv" && then != "abort" && then != "fpe" && then != "hang") {
    fprintf(stderr, "churn: --then %s: not segv, abort, fpe or hang\n", then.c_str());
    return 2;
  }
  EGLDisplay display;
  EGLConfig config;
  EGLSurface surface;
  EGLContext context;
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, kWidth, kHeight, es3, "the context", &surface,
                            &context))
    return 2;

  // The texture of the whole run: grey at first, a block of it new every frame.
  GLuint streamed = 0;
  glGenTextures(1, &streamed);
  glBindTexture(GL_TEXTURE_2D, streamed);
  std::vector<unsigned char> grey(kStreamed * kStreamed * 4, 128);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kStreamed, kStreamed, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               grey.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);

  GLuint program = 0;
  GLint offset = -1;
  FrameObjects previous;
  for (int frame = 0; frame < frames; ++frame) {
    // Every third frame a new program, the old one deleted.
    if (frame % 3 == 0) {
      GLuint next = new_program(frame);
      if (next == 0) return 1;
      glDeleteProgram(program);
      program = next;
      offset = glGetUniformLocation(program, "offset");
    }
    glUseProgram(program);
    FrameObjects objects;
    objects.texture = new_texture(frame);
    new_vertices(frame, &objects);
    update_streamed(streamed, frame);

    // The frame's renderbuffer: cleared to the frame's color, the new
    // texture drawn over its middle.
    if (!new_target(&objects)) return 1;
    glViewport(0, 0, kTarget, kTarget);
    glClearColor(0.1f * static_cast<float>(frame % 10), 0.3f, 1.0f - 0.1f * (frame % 8), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glViewport(6, 6, kTarget - 12, kTarget - 12);
    glUniform2f(offset, 0.0f, 0.0f);
    glBindTexture(GL_TEXTURE_2D, objects.texture);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

    // The window: the new texture (moving) on the left, the streamed one on
    // the right, the renderbuffer blitted in between.
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, kWidth, kHeight);
    glClearColor(0.05f, 0.05f, 0.1f + 0.02f * static_cast<float>(frame % 5), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glViewport(0, 8, 32, 32);
    glUniform2f(offset, 0.05f * static_cast<float>(frame % 6) - 0.1f, 0.0f);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glViewport(32, 0, 32, 32);
    glUniform2f(offset, 0.0f, 0.0f);
    glBindTexture(GL_TEXTURE_2D, streamed);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, objects.framebuffer);
    int x = 16 + frame % 8;
    glBlitFramebuffer(0, 0, kTarget, kTarget, x, 16, x + kTarget, 16 + kTarget, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);

    // The previous frame's objects go, as a streaming app's would.
    delete_objects(&previous);
    previous = objects;
    if (!check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers")) return 1;
  }
  // Midway through one more frame.
  glClear(GL_COLOR_BUFFER_BIT);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  end_as_asked(then);
  delete_objects(&previous);
  glDeleteProgram(program);
  glDeleteTextures(1, &streamed);
  if (!check(glGetError() == GL_NO_ERROR, kApp, "drawing")) return 1;
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(display);
  return 0;
}
