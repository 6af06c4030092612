// gltrace-offscreen-app: a GLES 3 program that never swaps, as off-screen
// renderers and benchmarks (glmark2 --off-screen) are: each frame renders a
// turning triangle into a texture FBO, uploads a small pattern texture
// (glTexSubImage2D), draws both textures into a second FBO (a renderbuffer)
// or into its pbuffer, in turn, and ends with glFinish, the way such
// programs wait for their frame. Frames end alternately with the
// FBO and with framebuffer 0 bound, so both ways a frame is read back are
// exercised.
//   gltrace-offscreen-app [--frames N] [--surfaceless] [--swap-from F]
//                         [--rebuild] [--read-back] [--fps N] [--size WxH]
// --surfaceless: no surface at all (EGL_KHR_surfaceless_context): every
// frame ends with an FBO bound. --swap-from F: from frame F on, the app also
// swaps its pbuffer after the glFinish (as a program that starts presenting).
// --read-back: each frame ends, instead of with glFinish, by reading what it
// drew into the FBO back into a pixel-pack buffer, fenced and mapped once
// the GPU is done (as media pipelines download their frames).
// --frames 0: until SIGTERM or SIGINT. --rebuild: each frame makes every
// object it uses and deletes them before its glFinish, drawing its second
// pass into the pbuffer (the FBO is gone by the frame's end), so a capture
// that begins at any frame end replays alone (the live attach tests).
// --fps N: at most N frames a second. --size WxH: the pbuffer and second
// FBO's size (default 96x72).
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "offscreen_app";

bool check(bool ok, const char* what) { return test_app::check(ok, kApp, what); }

constexpr int kTextureSize = 64;
constexpr int kPatternSize = 8;
int g_width = 96, g_height = 72;  // the pbuffer and the second FBO

const char* kTriangleVertex =
    "#version 300 es\n"
    "in vec2 a_pos;\n"
    "in vec3 a_color;\n"
    "uniform float u_angle;\n"
    "out vec3 v_color;\n"
    "void main() {\n"
    "  float c = cos(u_angle), s = sin(u_angle);\n"
    "  v_color = a_color;\n"
    "  gl_Position = vec4(c * a_pos.x - s * a_pos.y, s * a_pos.x + c * a_pos.y, 0.0, 1.0);\n"
    "}\n";
const char* kTriangleFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec3 v_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = vec4(v_color, 1.0); }\n";
const char* kQuadVertex =
    "#version 300 es\n"
    "in vec2 a_pos;\n"
    "out vec2 v_uv;\n"
    "void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos * 0.8, 0.0, 1.0); }\n";
const char* kQuadFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec2 v_uv;\n"
    "uniform sampler2D u_texture;\n"
    "uniform sampler2D u_pattern;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  o_color = mix(texture(u_texture, v_uv).bgra, texture(u_pattern, v_uv), 0.25);\n"
    "}\n";

// Every object a frame uses.
struct Scene {
  GLuint triangle = 0, quad = 0;
  GLint angle = -1;
  GLuint vaos[2] = {}, buffers[2] = {};
  GLuint texture = 0, pattern = 0, renderbuffer = 0, fbos[2] = {};
};

// Makes the scene's objects; false (and a message) when one fails.
bool make_scene(Scene* scene) {
  scene->triangle = test_app::link(kApp, kTriangleVertex, kTriangleFragment);
  scene->quad = test_app::link(kApp, kQuadVertex, kQuadFragment);
  scene->angle = glGetUniformLocation(scene->triangle, "u_angle");

  // Vertex data in buffers, one VAO per program.
  const float triangle_data[] = {0.0f, 0.8f, 1, 0, 0, -0.7f, -0.6f, 0, 1, 0, 0.7f, -0.6f, 0, 0, 1};
  const float quad_data[] = {-1, -1, 1, -1, -1, 1, 1, 1};
  glGenVertexArrays(2, scene->vaos);
  glGenBuffers(2, scene->buffers);
  glBindVertexArray(scene->vaos[0]);
  glBindBuffer(GL_ARRAY_BUFFER, scene->buffers[0]);
  glBufferData(GL_ARRAY_BUFFER, sizeof triangle_data, triangle_data, GL_STATIC_DRAW);
  GLint pos = glGetAttribLocation(scene->triangle, "a_pos");
  GLint color = glGetAttribLocation(scene->triangle, "a_color");
  glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 5 * sizeof(float),
                        nullptr);
  glVertexAttribPointer(static_cast<GLuint>(color), 3, GL_FLOAT, GL_FALSE, 5 * sizeof(float),
                        reinterpret_cast<const void*>(2 * sizeof(float)));
  glEnableVertexAttribArray(static_cast<GLuint>(pos));
  glEnableVertexAttribArray(static_cast<GLuint>(color));
  glBindVertexArray(scene->vaos[1]);
  glBindBuffer(GL_ARRAY_BUFFER, scene->buffers[1]);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad_data, quad_data, GL_STATIC_DRAW);
  GLint quad_pos = glGetAttribLocation(scene->quad, "a_pos");
  glVertexAttribPointer(static_cast<GLuint>(quad_pos), 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(static_cast<GLuint>(quad_pos));

  // FBO 1: a texture; FBO 2: a renderbuffer.
  glGenTextures(1, &scene->texture);
  glBindTexture(GL_TEXTURE_2D, scene->texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kTextureSize, kTextureSize);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  // The pattern: texture unit 1, new content every frame.
  glGenTextures(1, &scene->pattern);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, scene->pattern);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kPatternSize, kPatternSize);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glActiveTexture(GL_TEXTURE0);
  glUseProgram(scene->quad);
  glUniform1i(glGetUniformLocation(scene->quad, "u_texture"), 0);
  glUniform1i(glGetUniformLocation(scene->quad, "u_pattern"), 1);
  glGenRenderbuffers(1, &scene->renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, scene->renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, g_width, g_height);
  glGenFramebuffers(2, scene->fbos);
  glBindFramebuffer(GL_FRAMEBUFFER, scene->fbos[0]);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, scene->texture, 0);
  if (!check(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, "texture FBO"))
    return false;
  glBindFramebuffer(GL_FRAMEBUFFER, scene->fbos[1]);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            scene->renderbuffer);
  if (!check(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE,
             "renderbuffer FBO"))
    return false;
  return true;
}

void delete_scene(const Scene& scene) {
  glDeleteFramebuffers(2, scene.fbos);
  glDeleteRenderbuffers(1, &scene.renderbuffer);
  glDeleteTextures(1, &scene.texture);
  glDeleteTextures(1, &scene.pattern);
  glDeleteVertexArrays(2, scene.vaos);
  glDeleteBuffers(2, scene.buffers);
  for (GLuint program : {scene.triangle, scene.quad}) {
    GLuint shaders[2] = {};
    GLsizei count = 0;
    glGetAttachedShaders(program, 2, &count, shaders);
    for (GLsizei i = 0; i < count; ++i) glDeleteShader(shaders[i]);
    glDeleteProgram(program);
  }
}

volatile std::sig_atomic_t g_stop = 0;
void stop(int /*signal*/) { g_stop = 1; }

}  // namespace

int main(int argc, char** argv) {
  int frames = 6;
  bool surfaceless = false;
  int swap_from = -1;
  bool rebuild = false;
  bool read_back = false;
  int fps = 0;  // 0: as fast as it can
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--surfaceless") == 0) {
      surfaceless = true;
    } else if (strcmp(argv[i], "--swap-from") == 0 && i + 1 < argc) {
      swap_from = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--rebuild") == 0) {
      rebuild = true;
    } else if (strcmp(argv[i], "--read-back") == 0) {
      read_back = true;
    } else if (strcmp(argv[i], "--fps") == 0 && i + 1 < argc) {
      fps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc &&
               sscanf(argv[i + 1], "%dx%d", &g_width, &g_height) == 2 && g_width > 0 &&
               g_height > 0) {
      ++i;
    } else {
      fprintf(stderr,
              "usage: %s [--frames N] [--surfaceless] [--swap-from F] [--rebuild] [--read-back] "
              "[--fps N] [--size WxH]\n",
              argv[0]);
      return 2;
    }
  }
  if (frames < 0 || fps < 0 || (rebuild && surfaceless)) {
    fprintf(stderr, "%s: bad --frames or --fps, or --rebuild without a surface\n", kApp);
    return 2;
  }
  if (surfaceless && swap_from >= 0) {
    fprintf(stderr, "%s: --swap-from needs a surface\n", kApp);
    return 2;
  }
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  if (!test_app::open_surfaceless(kApp, &dpy, &config)) return 2;
  EGLSurface surface = EGL_NO_SURFACE;
  if (!surfaceless) {
    const EGLint surface_attribs[] = {EGL_WIDTH, g_width, EGL_HEIGHT, g_height, EGL_NONE};
    surface = eglCreatePbufferSurface(dpy, config, surface_attribs);
    if (!check(surface != EGL_NO_SURFACE, "eglCreatePbufferSurface")) return 1;
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  EGLContext context = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  if (!check(context != EGL_NO_CONTEXT && eglMakeCurrent(dpy, surface, surface, context),
             "eglMakeCurrent"))
    return 1;

  Scene scene;
  if (!rebuild && !make_scene(&scene)) return 1;
  GLuint pack = 0;  // --read-back: where each frame is read into
  const GLsizeiptr frame_bytes = static_cast<GLsizeiptr>(g_width) * g_height * 4;
  if (read_back) {
    glGenBuffers(1, &pack);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack);
    glBufferData(GL_PIXEL_PACK_BUFFER, frame_bytes, nullptr, GL_STREAM_READ);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  }
  unsigned long checksum = 0;  // of the frames read back
  unsigned char pattern_pixels[kPatternSize * kPatternSize * 4];
  if (frames == 0) {  // until told to stop
    std::signal(SIGTERM, stop);
    std::signal(SIGINT, stop);
  }
  auto start = std::chrono::steady_clock::now();

  int frame = 0;
  for (; frames == 0 ? g_stop == 0 : frame < frames; ++frame) {
    if (rebuild && !make_scene(&scene)) return 1;
    // Pass 1: the triangle into the texture.
    glBindFramebuffer(GL_FRAMEBUFFER, scene.fbos[0]);
    glViewport(0, 0, kTextureSize, kTextureSize);
    glClearColor(0.1f, 0.1f, 0.2f + 0.1f * static_cast<float>(frame % 5), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(scene.triangle);
    glUniform1f(scene.angle, 0.4f * static_cast<float>(frame));
    glBindVertexArray(scene.vaos[0]);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    for (int i = 0; i < kPatternSize * kPatternSize * 4; ++i)
      pattern_pixels[i] =
          static_cast<unsigned char>(i % 4 == 3 ? 255 : (i * 29 + frame * 71) % 256);
    glActiveTexture(GL_TEXTURE1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kPatternSize, kPatternSize, GL_RGBA, GL_UNSIGNED_BYTE,
                    pattern_pixels);
    glActiveTexture(GL_TEXTURE0);
    // Pass 2: both textures on a quad, into the renderbuffer FBO or the
    // pbuffer (odd frames, and every frame that rebuilds; surfaceless or
    // reading back: always the FBO).
    bool to_surface = !surfaceless && !read_back && (rebuild || frame % 2 == 1);
    glBindFramebuffer(GL_FRAMEBUFFER, to_surface ? 0 : scene.fbos[1]);
    glViewport(0, 0, g_width, g_height);
    glClearColor(0.3f, 0.2f, 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(scene.quad);
    glBindTexture(GL_TEXTURE_2D, scene.texture);
    glBindVertexArray(scene.vaos[1]);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    if (rebuild) delete_scene(scene);
    if (read_back) {  // the frame's end: read back, no glFinish and no swap
      glBindBuffer(GL_PIXEL_PACK_BUFFER, pack);
      glReadPixels(0, 0, g_width, g_height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
      GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
      glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, GL_TIMEOUT_IGNORED);
      glDeleteSync(fence);
      const auto* pixels = static_cast<const unsigned char*>(
          glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, frame_bytes, GL_MAP_READ_BIT));
      if (!check(pixels != nullptr, "glMapBufferRange")) return 1;
      for (GLsizeiptr i = 0; i < frame_bytes; ++i) checksum = checksum * 31 + pixels[i];
      glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
      glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    } else {
      glFinish();  // the frame's end: no swap
    }
    if (swap_from >= 0 && frame >= swap_from &&
        !check(eglSwapBuffers(dpy, surface), "eglSwapBuffers"))
      return 1;
    if (fps != 0)  // paced at absolute deadlines: no drift
      std::this_thread::sleep_until(start +
                                    std::chrono::microseconds(1000000LL * (frame + 1) / fps));
  }
  // What the last frame made, as an off-screen program would take it.
  unsigned char pixel[4] = {};
  glReadPixels(g_width / 2, g_height / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
  if (!check(glGetError() == GL_NO_ERROR, "rendering")) return 1;
  printf("%s: %d frames, center pixel %u %u %u %u\n", kApp, frame, pixel[0], pixel[1], pixel[2],
         pixel[3]);
  if (read_back) printf("%s: frames read back, checksum %lx\n", kApp, checksum);
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, context);
  if (surface != EGL_NO_SURFACE) eglDestroySurface(dpy, surface);
  eglTerminate(dpy);
  return 0;
}
