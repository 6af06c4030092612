// gltrace-two-threads: a small, deterministic GLES 3.0 program with two
// threads and two contexts in one share group, for tracing and replaying
// multi-threaded traces.
//
// Thread 1 (the main thread) opens EGL (surfaceless platform), creates context
// A with its own pbuffer and the shared objects: a program, a texture and a
// vertex buffer. Thread 2 creates context B sharing A's objects, with its own
// pbuffer. Every frame, thread 1 re-uploads the texture and the buffer
// (frame-indexed contents), fences, hands the frame to thread 2 and draws its
// own view; thread 2 waits on the fence, draws with the shared objects and
// fences back, so thread 1's next upload waits until thread 2's draw is done.
// Both threads read their pixels back and call eglSwapBuffers every frame.
// The hand-over makes every pixel deterministic although the two threads run
// at the same time. With --idle-threads N, N more threads use EGL without
// ever making a context current (query, bind the API, create and destroy a
// context, release nothing, release the thread) while thread 1 waits in
// frame 3: replay gives such threads no thread of their own, and what they
// do must not touch thread 1's current context.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr int kExitFailure = 1;  // GL error or a pixel check failed
constexpr int kExitSetup = 2;    // bad arguments, EGL or GL setup failure

// Different sizes, so a replay that mixes up the two surfaces shows.
constexpr int kWidthA = 128, kHeightA = 128;
constexpr int kWidthB = 160, kHeightB = 96;
constexpr int kTexSize = 64;

struct Options {
  int frames = 60;  // 0: until SIGTERM/SIGINT
  double fps = 0;   // 0: unpaced
  bool checksum = false;
  int idle_threads = 0;
  bool swaps_in_turn = false;
};

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

void usage(FILE* out) {
  std::fputs(
      "usage: gltrace-two-threads [options]\n"
      "  --frames N    frames per thread (default 60; 0 = until SIGTERM/SIGINT)\n"
      "  --fps F       pace frames at F per second (default unpaced)\n"
      "  --checksum    print 'thread T frame N crc 0xXXXXXXXX' (CRC32 of RGBA) per frame\n"
      "  --idle-threads N  N more threads that use EGL without a current context\n"
      "  --swaps-in-turn   thread 1 swaps right after thread 2 (its swap: a frame of one call)\n"
      "  -h, --help    this text\n"
      "exit status: 0 ok, 1 check failed, 2 usage or EGL/GL setup error\n",
      out);
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    char* end = nullptr;
    if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--frames" && has_value) {
      long v = std::strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0' || v < 0 || v > 100000000) {
        std::fprintf(stderr, "two-threads: bad --frames '%s'\n", argv[i]);
        return false;
      }
      o->frames = static_cast<int>(v);
    } else if (a == "--fps" && has_value) {
      double v = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(v > 0 && v <= 10000)) {
        std::fprintf(stderr, "two-threads: bad --fps '%s'\n", argv[i]);
        return false;
      }
      o->fps = v;
    } else if (a == "--idle-threads" && has_value) {
      long v = std::strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0' || v < 0 || v > 64) {
        std::fprintf(stderr, "two-threads: bad --idle-threads '%s'\n", argv[i]);
        return false;
      }
      o->idle_threads = static_cast<int>(v);
    } else if (a == "--checksum") {
      o->checksum = true;
    } else if (a == "--swaps-in-turn") {
      o->swaps_in_turn = true;
    } else {
      std::fprintf(stderr, "two-threads: unknown or incomplete option '%s'\n", a.c_str());
      usage(stderr);
      return false;
    }
  }
  return true;
}

// CRC-32 (IEEE 802.3, as zlib's crc32), so checksums can be cross-checked.
uint32_t crc32(const uint8_t* data, size_t size) {
  static const auto kTable = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

bool egl_fail(const char* what) {
  std::fprintf(stderr, "two-threads: %s failed (EGL error 0x%04x)\n", what,
               static_cast<unsigned>(eglGetError()));
  return false;
}

// Texel (x, y) of frame f: blocks of 16 texels centred on multiples of 16, so
// the texels around the texture's middle (31/32) share one colour and a
// pixel check does not depend on exact sampling positions.
std::array<uint8_t, 4> texel(int x, int y, int f) {
  return {static_cast<uint8_t>(((x + 8) / 16 * 40 + f * 7) & 0xFF),
          static_cast<uint8_t>(((y + 8) / 16 * 40 + f * 11) & 0xFF),
          static_cast<uint8_t>((f * 13) & 0xFF), 255};
}

// A quad (position xy, texcoord uv; two triangles) whose size changes per frame.
std::array<float, 24> quad(int f) {
  float s = 0.45f + 0.05f * static_cast<float>(f % 8);
  return {-s, -s, 0, 0, s, -s, 1, 0, s, s, 1, 1, -s, -s, 0, 0, s, s, 1, 1, -s, s, 0, 1};
}

const char* const kVertex =
    "#version 300 es\n"
    "in vec2 a_pos;\n"
    "in vec2 a_uv;\n"
    "uniform vec2 u_offset;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "  v_uv = a_uv;\n"
    "  gl_Position = vec4(a_pos + u_offset, 0.0, 1.0);\n"
    "}\n";
const char* const kFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "uniform sampler2D u_tex;\n"
    "uniform vec4 u_tint;\n"
    "in vec2 v_uv;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = texture(u_tex, v_uv) * u_tint; }\n";

// A linked program and what thread 1 asked of it.
struct Program {
  GLuint name = 0;
  GLint loc_pos = -1, loc_uv = -1, loc_offset = -1, loc_tex = -1, loc_tint = -1;
};

// What both threads share: the EGL objects, the GL names of the share group,
// and the frame hand-over.
struct Shared {
  Options opt;
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  EGLContext context_a = EGL_NO_CONTEXT;
  // Uniform values are program state, shared by the contexts: each thread
  // draws with its own program so neither sees the other's glUniform calls.
  Program program_a, program_b;
  GLuint texture = 0, buffer = 0;

  std::mutex mutex;
  std::condition_variable cv;
  int ready_frame = -1;     // last frame thread 1 handed over
  int consumed_frame = -1;  // last frame thread 2 finished drawing
  bool done = false;        // thread 1 hands over no more frames
  bool b_failed = false;    // thread 2 stopped (setup error)
  int a_at_swap = -1;       // --swaps-in-turn: last frame thread 1 is ready to swap
  GLsync to_b = nullptr;    // fence after thread 1's uploads
  GLsync to_a = nullptr;    // fence after thread 2's draw

  int status_b = 0;
  int frames_b = 0;
  uint32_t crc_b = 0;

  int idle_done = 0;  // idle threads that did their EGL calls
  int idle_failed = 0;
};

// One frame's pixels: CRC, and the optional per-frame line.
uint32_t read_crc(const Options& opt, int thread, int frame, int w, int h,
                  std::vector<uint8_t>* pixels) {
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels->data());
  uint32_t crc = crc32(pixels->data(), pixels->size());
  if (opt.checksum) std::printf("thread %d frame %d crc 0x%08x\n", thread, frame, crc);
  return crc;
}

GLuint make_vao(const Shared& s, const Program& p) {
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
  glVertexAttribPointer(p.loc_pos, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), nullptr);
  glVertexAttribPointer(p.loc_uv, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float),
                        reinterpret_cast<const void*>(2 * sizeof(float)));
  glEnableVertexAttribArray(p.loc_pos);
  glEnableVertexAttribArray(p.loc_uv);
  return vao;
}

// Thread 2: context B in A's share group; draws each handed-over frame with
// the shared program, texture and buffer (and uniform locations thread 1 got).
void thread_b(Shared* s) {
  const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  const EGLint surface_attribs[] = {EGL_WIDTH, kWidthB, EGL_HEIGHT, kHeightB, EGL_NONE};
  EGLContext context = eglCreateContext(s->display, s->config, s->context_a, ctx_attribs);
  EGLSurface surface = eglCreatePbufferSurface(s->display, s->config, surface_attribs);
  if (context == EGL_NO_CONTEXT || surface == EGL_NO_SURFACE ||
      !eglMakeCurrent(s->display, surface, surface, context)) {
    egl_fail("thread 2: context B setup");
    std::lock_guard lock(s->mutex);
    s->b_failed = true;
    s->status_b = kExitSetup;
    s->cv.notify_all();
    return;
  }
  const Program& p = s->program_b;
  GLuint vao = make_vao(*s, p);
  std::vector<uint8_t> pixels(size_t{4} * kWidthB * kHeightB);
  for (int frame = 0;; ++frame) {
    GLsync fence = nullptr;
    {
      std::unique_lock lock(s->mutex);
      s->cv.wait(lock, [&] { return s->ready_frame >= frame || s->done; });
      if (s->ready_frame < frame) break;
      fence = s->to_b;
      s->to_b = nullptr;
    }
    glWaitSync(fence, 0, GL_TIMEOUT_IGNORED);
    glDeleteSync(fence);

    glViewport(0, 0, kWidthB, kHeightB);
    glClearColor(0.0f, static_cast<float>(frame % 16) / 16.0f, 0.25f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(p.name);
    glUniform2f(p.loc_offset, 0.2f, 0.0f);
    glUniform4f(p.loc_tint, 1.0f, 1.0f, 1.0f, 1.0f);
    glBindTexture(GL_TEXTURE_2D, s->texture);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    GLsync back = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();

    s->crc_b = read_crc(s->opt, 2, frame, kWidthB, kHeightB, &pixels);
    // The quad's middle shows the texture's middle texels of this frame:
    // thread 1's upload arrived through the share group, in time.
    int cx = static_cast<int>((0.2f + 1.0f) / 2.0f * kWidthB), cy = kHeightB / 2;
    auto want = texel(kTexSize / 2, kTexSize / 2, frame);
    if (std::memcmp(&pixels[(size_t{4} * (cy * kWidthB + cx))], want.data(), 4) != 0) {
      const uint8_t* got = &pixels[size_t{4} * (cy * kWidthB + cx)];
      std::fprintf(stderr,
                   "two-threads: thread 2 frame %d: pixel (%d,%d) is %u,%u,%u,%u, expected "
                   "%u,%u,%u,%u (thread 1's texture of this frame)\n",
                   frame, cx, cy, got[0], got[1], got[2], got[3], want[0], want[1], want[2],
                   want[3]);
      s->status_b = kExitFailure;
    }
    if (GLenum error = glGetError(); error != GL_NO_ERROR) {
      std::fprintf(stderr, "two-threads: thread 2: GL error 0x%04x in frame %d\n", error, frame);
      s->status_b = kExitFailure;
    }
    if (s->opt.swaps_in_turn) {
      std::unique_lock lock(s->mutex);
      s->cv.wait(lock, [&] { return s->a_at_swap >= frame || s->done; });
    }
    if (!eglSwapBuffers(s->display, surface)) {
      egl_fail("thread 2: eglSwapBuffers");
      s->status_b = kExitFailure;
    }
    s->frames_b = frame + 1;
    {
      std::lock_guard lock(s->mutex);
      s->to_a = back;
      s->consumed_frame = frame;
    }
    s->cv.notify_all();
  }
  glDeleteVertexArrays(1, &vao);
  eglMakeCurrent(s->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroySurface(s->display, surface);
  eglDestroyContext(s->display, context);
  eglReleaseThread();
}

// Display, an exactly-RGBA8 pbuffer config (so read-backs do not depend on
// config order), context A and its surface, current on this thread.
bool open_a(Shared* s, EGLSurface* surface) {
  s->display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (s->display == EGL_NO_DISPLAY) return egl_fail("eglGetPlatformDisplay(SURFACELESS_MESA)");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(s->display, &major, &minor)) return egl_fail("eglInitialize");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return egl_fail("eglBindAPI");
  // clang-format off
  const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                            EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                            EGL_ALPHA_SIZE, 8, EGL_NONE};
  // clang-format on
  std::array<EGLConfig, 64> configs{};
  EGLint count = 0;
  if (!eglChooseConfig(s->display, attribs, configs.data(), configs.size(), &count)) {
    return egl_fail("eglChooseConfig");
  }
  for (EGLint i = 0; i < count && s->config == nullptr; ++i) {
    EGLint r = 0, g = 0, b = 0, a = 0;
    eglGetConfigAttrib(s->display, configs[i], EGL_RED_SIZE, &r);
    eglGetConfigAttrib(s->display, configs[i], EGL_GREEN_SIZE, &g);
    eglGetConfigAttrib(s->display, configs[i], EGL_BLUE_SIZE, &b);
    eglGetConfigAttrib(s->display, configs[i], EGL_ALPHA_SIZE, &a);
    if (r == 8 && g == 8 && b == 8 && a == 8) s->config = configs[i];
  }
  if (s->config == nullptr) {
    std::fprintf(stderr, "two-threads: none of %d ES3 pbuffer configs is RGBA8\n", count);
    return false;
  }
  const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  s->context_a = eglCreateContext(s->display, s->config, EGL_NO_CONTEXT, ctx_attribs);
  if (s->context_a == EGL_NO_CONTEXT) return egl_fail("eglCreateContext(A)");
  const EGLint surface_attribs[] = {EGL_WIDTH, kWidthA, EGL_HEIGHT, kHeightA, EGL_NONE};
  *surface = eglCreatePbufferSurface(s->display, s->config, surface_attribs);
  if (*surface == EGL_NO_SURFACE) return egl_fail("eglCreatePbufferSurface(A)");
  if (!eglMakeCurrent(s->display, *surface, *surface, s->context_a)) {
    return egl_fail("eglMakeCurrent(A)");
  }
  return true;
}

bool link_program(GLuint vs, GLuint fs, Program* p) {
  p->name = glCreateProgram();
  glAttachShader(p->name, vs);
  glAttachShader(p->name, fs);
  glLinkProgram(p->name);
  GLint linked = 0;
  glGetProgramiv(p->name, GL_LINK_STATUS, &linked);
  if (!linked) {
    std::fprintf(stderr, "two-threads: program does not link\n");
    return false;
  }
  p->loc_pos = glGetAttribLocation(p->name, "a_pos");
  p->loc_uv = glGetAttribLocation(p->name, "a_uv");
  p->loc_offset = glGetUniformLocation(p->name, "u_offset");
  p->loc_tex = glGetUniformLocation(p->name, "u_tex");
  p->loc_tint = glGetUniformLocation(p->name, "u_tint");
  if (p->loc_pos < 0 || p->loc_uv < 0 || p->loc_offset < 0 || p->loc_tex < 0 || p->loc_tint < 0) {
    std::fprintf(stderr, "two-threads: missing attribute or uniform\n");
    return false;
  }
  glUseProgram(p->name);
  glUniform1i(p->loc_tex, 0);
  return true;
}

// The share group's objects, made by thread 1 before thread 2 starts.
bool create_shared_objects(Shared* s) {
  GLuint vs = test_app::compile("two-threads", GL_VERTEX_SHADER, kVertex),
         fs = test_app::compile("two-threads", GL_FRAGMENT_SHADER, kFragment);
  bool linked = link_program(vs, fs, &s->program_a) && link_program(vs, fs, &s->program_b);
  glDeleteShader(vs);
  glDeleteShader(fs);
  if (!linked) return false;

  glGenTextures(1, &s->texture);
  glBindTexture(GL_TEXTURE_2D, s->texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kTexSize, kTexSize);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

  glGenBuffers(1, &s->buffer);
  glBindBuffer(GL_ARRAY_BUFFER, s->buffer);
  glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 24, nullptr, GL_DYNAMIC_DRAW);
  if (GLenum error = glGetError(); error != GL_NO_ERROR) {
    std::fprintf(stderr, "two-threads: GL error 0x%04x in setup\n", error);
    return false;
  }
  // Thread 2's context sees complete objects.
  glFinish();
  return true;
}

// An idle thread: EGL calls that need no current context, and ones that
// act on the calling thread (bind the API, release nothing, release the
// thread), made while thread 1 has its context current in frame 3.
void idle_thread(Shared* s) {
  {
    std::unique_lock lock(s->mutex);
    s->cv.wait(lock, [&] { return s->ready_frame >= 1 || s->done; });
  }
  bool ok = eglBindAPI(EGL_OPENGL_ES_API) == EGL_TRUE;
  ok = ok && eglQueryString(s->display, EGL_VENDOR) != nullptr;
  glGetError();  // no context: a no-op
  const EGLint attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
  EGLContext unused = eglCreateContext(s->display, s->config, s->context_a, attribs);
  ok = ok && unused != EGL_NO_CONTEXT && eglDestroyContext(s->display, unused);
  ok = ok && eglMakeCurrent(s->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  ok = ok && eglGetError() == EGL_SUCCESS && eglReleaseThread();
  if (!ok) egl_fail("idle thread");
  {
    std::lock_guard lock(s->mutex);
    ++s->idle_done;
    s->idle_failed += ok ? 0 : 1;
  }
  s->cv.notify_all();
}

}  // namespace

int main(int argc, char** argv) {
  Shared s;
  if (!parse_args(argc, argv, &s.opt)) return kExitSetup;
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  EGLSurface surface = EGL_NO_SURFACE;
  if (!open_a(&s, &surface) || !create_shared_objects(&s)) {
    if (s.display != EGL_NO_DISPLAY) eglTerminate(s.display);
    return kExitSetup;
  }
  GLuint vao = make_vao(s, s.program_a);
  std::thread second(thread_b, &s);
  std::vector<std::thread> idle;
  for (int i = 0; i < s.opt.idle_threads; ++i) idle.emplace_back(idle_thread, &s);

  int status = 0, frame = 0;
  uint32_t crc_a = 0;
  std::vector<uint8_t> pixels(size_t{4} * kWidthA * kHeightA);
  std::vector<uint8_t> tex(size_t{4} * kTexSize * kTexSize);
  auto start = std::chrono::steady_clock::now();
  for (; (s.opt.frames == 0 || frame < s.opt.frames) && g_stop == 0 && status == 0; ++frame) {
    if (s.opt.fps > 0) {
      std::this_thread::sleep_until(start + std::chrono::duration<double>(frame / s.opt.fps));
    }
    if (frame == 3) {  // the idle threads' calls come between frames 2 and 3
      std::unique_lock lock(s.mutex);
      s.cv.wait(lock, [&] { return s.idle_done == s.opt.idle_threads; });
    }
    // Re-upload only after thread 2 finished drawing the previous frame.
    GLsync fence = nullptr;
    {
      std::unique_lock lock(s.mutex);
      s.cv.wait(lock, [&] { return s.consumed_frame >= frame - 1 || s.b_failed; });
      if (s.b_failed) break;
      fence = s.to_a;
      s.to_a = nullptr;
    }
    if (fence != nullptr) {
      glWaitSync(fence, 0, GL_TIMEOUT_IGNORED);
      glDeleteSync(fence);
    }
    for (int y = 0; y < kTexSize; ++y) {
      for (int x = 0; x < kTexSize; ++x) {
        auto t = texel(x, y, frame);
        std::memcpy(&tex[size_t{4} * (y * kTexSize + x)], t.data(), 4);
      }
    }
    glBindTexture(GL_TEXTURE_2D, s.texture);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kTexSize, kTexSize, GL_RGBA, GL_UNSIGNED_BYTE,
                    tex.data());
    auto vertices = quad(frame);
    glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof vertices, vertices.data());
    GLsync uploaded = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();
    {
      std::lock_guard lock(s.mutex);
      s.to_b = uploaded;
      s.ready_frame = frame;
    }
    s.cv.notify_all();

    // Thread 1's own view of the same objects, at the same time as thread 2's.
    glViewport(0, 0, kWidthA, kHeightA);
    glClearColor(static_cast<float>(frame % 16) / 16.0f, 0.0f, 0.25f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(s.program_a.name);
    glUniform2f(s.program_a.loc_offset, -0.2f, 0.1f);
    glUniform4f(s.program_a.loc_tint, 1.0f, 0.5f, 0.75f, 1.0f);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    crc_a = read_crc(s.opt, 1, frame, kWidthA, kHeightA, &pixels);
    if (GLenum error = glGetError(); error != GL_NO_ERROR) {
      std::fprintf(stderr, "two-threads: thread 1: GL error 0x%04x in frame %d\n", error, frame);
      status = kExitFailure;
    }
    if (s.opt.swaps_in_turn) {
      // Thread 2 swaps after this thread's last call before its swap, and
      // makes no GL call between its swap and consumed_frame.
      std::unique_lock lock(s.mutex);
      s.a_at_swap = frame;
      s.cv.notify_all();
      s.cv.wait(lock, [&] { return s.consumed_frame >= frame || s.b_failed; });
    }
    if (!eglSwapBuffers(s.display, surface)) {
      egl_fail("thread 1: eglSwapBuffers");
      status = kExitFailure;
    }
  }
  {
    std::lock_guard lock(s.mutex);
    s.done = true;
  }
  s.cv.notify_all();
  second.join();
  for (std::thread& t : idle) t.join();
  if (s.idle_failed != 0) status = kExitFailure;
  if (s.to_a != nullptr) glDeleteSync(s.to_a);
  if (s.to_b != nullptr) glDeleteSync(s.to_b);  // handed over, never taken

  glDeleteVertexArrays(1, &vao);
  glDeleteBuffers(1, &s.buffer);
  glDeleteTextures(1, &s.texture);
  glDeleteProgram(s.program_a.name);
  glDeleteProgram(s.program_b.name);
  eglMakeCurrent(s.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroySurface(s.display, surface);
  eglDestroyContext(s.display, s.context_a);
  eglTerminate(s.display);
  eglReleaseThread();

  if (status == 0) status = s.status_b;
  if (status == 0 && s.frames_b != frame) {
    std::fprintf(stderr, "two-threads: thread 2 drew %d frames of %d\n", s.frames_b, frame);
    status = kExitFailure;
  }
  std::printf("two-threads: %d frames, crc A 0x%08x B 0x%08x\n", frame, crc_a, s.crc_b);
  return status;
}
