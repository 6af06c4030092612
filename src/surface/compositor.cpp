#include "surface/compositor.h"

// No prototypes: every function is the driver's, through gl_loader.
#define EGL_EGL_PROTOTYPES 0
#define GL_GLES_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "consumers/png.h"
#include "gl_loader/call.h"
#include "gl_loader/gl_loader.h"
#include "glreplay/x11.h"

namespace gltrace::surface {
namespace {

// What is affine in the quad (texture coordinates, the surface's pixel
// position) is computed per vertex: llvmpipe spends most of a replay's time
// in the fragment shader.
constexpr const char* kVertexShader = R"(
attribute vec2 unit;
uniform mat3 to_ndc;
uniform mat3 to_tex;
uniform vec2 size;
varying vec2 v_tex;
varying vec2 v_pixel;
void main() {
  v_tex = (to_tex * vec3(unit, 1.0)).xy;
  v_pixel = unit * size;
  vec3 p = to_ndc * vec3(unit, 1.0);
  gl_Position = vec4(p.xy, 0.0, 1.0);
}
)";

// Premultiplied colour throughout (Wayland's shm convention); the corner
// radius is measured in the surface's own pixels.
constexpr const char* kFragmentShader = R"(
precision highp float;
uniform sampler2D tex;
uniform float alpha;
uniform float opaque;
uniform vec2 size;
uniform float radius;
varying vec2 v_tex;
varying vec2 v_pixel;
void main() {
  vec4 c = texture2D(tex, v_tex);
  if (opaque > 0.5) c.a = 1.0;
  float cover = 1.0;
  if (radius > 0.0) {
    vec2 q = min(v_pixel, size - v_pixel);
    float r = min(radius, 0.5 * min(size.x, size.y));
    if (q.x < r && q.y < r) cover = clamp(r - length(vec2(r) - q) + 0.5, 0.0, 1.0);
  }
  gl_FragColor = c * (alpha * cover);
}
)";

// Surface coordinates (0..1, y down) to buffer coordinates for each
// wl_output transform, as weston samples them.
const Affine kBufferTransforms[8] = {{1, 0, 0, 1, 0, 0},  {0, -1, 1, 0, 0, 1}, {-1, 0, 0, -1, 1, 1},
                                     {0, 1, -1, 0, 1, 0}, {-1, 0, 0, 1, 1, 0}, {0, 1, 1, 0, 0, 0},
                                     {1, 0, 0, -1, 0, 1}, {0, -1, -1, 0, 1, 1}};

void to_mat3(const Affine& m, float out[9]) {
  const float values[9] = {m.a, m.b, 0, m.c, m.d, 0, m.e, m.f, 1};
  std::copy(values, values + 9, out);
}

struct Job {
  DisplayFrame frame;
  std::string png_path;
  bool counted = true;
};

}  // namespace

struct Compositor::Impl {
  explicit Impl(bool x11_in) : x11(x11_in) {}

  // Render thread.
  void main(std::promise<std::string>* started);
  bool open(std::string* error);
  void warm_up();
  void close();
  bool draw(const Job& job, std::string* error);
  bool bind_target(const DisplayFrame& frame, std::string* error);
  GLuint texture(const BufferPtr& buffer);
  std::string egl_error(const char* what) const {
    char code[16];
    std::snprintf(code, sizeof code, "0x%04x", GL_CALL(gl, eglGetError)());
    return std::string(what) + " failed (EGL error " + code + ")";
  }

  const bool x11;
  gl_loader::Driver gl;
  glreplay::X11Display x_display;
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface pbuffer = EGL_NO_SURFACE;
  GLuint program = 0, vertex_buffer = 0;
  GLint u_to_ndc = -1, u_to_tex = -1, u_alpha = -1, u_opaque = -1, u_size = -1, u_radius = -1;
  GLint max_texture = 0;

  // A display's render target: a framebuffer object, or an X11 window.
  struct Target {
    uint32_t width = 0, height = 0;
    GLuint fbo = 0, colour = 0;
    glreplay::X11Window window;
    EGLSurface surface = EGL_NO_SURFACE;
  };
  std::map<int32_t, Target> targets;
  void drop_target(Target& target);
  // Textures of the buffers drawn lately, holding their buffer so its
  // address is never reused while cached.
  struct Cached {
    BufferPtr buffer;
    GLuint texture = 0;
    uint64_t last_used = 0;
  };
  std::map<const BufferImage*, Cached> textures;
  uint64_t frames_drawn = 0;

  std::thread thread;
  mutable std::mutex mutex;
  std::condition_variable changed;
  std::deque<Job> queue;
  bool busy = false;  // a job is being drawn
  bool stopping = false;
  std::string failure;  // the first
  uint64_t written = 0;
};

bool Compositor::Impl::open(std::string* error) {
  // The system's libraries (never linked: the gltrace command must run
  // without GL).
  gl_loader::Search search;
  if (!gl.open(gl_loader::Library::kEgl, search, error) ||
      !gl.open(gl_loader::Library::kGles2, search, error))
    return false;
  void* native = EGL_DEFAULT_DISPLAY;
  if (x11) {
    if (!x_display.open(error)) return false;
    native = x_display.display();
  }
  display = gl_loader::platform_display(
      gl, x11 ? gl_loader::Platform::kX11 : gl_loader::Platform::kSurfaceless, native, error);
  if (display == EGL_NO_DISPLAY) return false;
  GL_CALL(gl, eglBindAPI)(EGL_OPENGL_ES_API);
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                   x11 ? EGL_WINDOW_BIT : EGL_PBUFFER_BIT,
                                   EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_ES2_BIT,
                                   EGL_RED_SIZE,
                                   8,
                                   EGL_GREEN_SIZE,
                                   8,
                                   EGL_BLUE_SIZE,
                                   8,
                                   EGL_ALPHA_SIZE,
                                   8,
                                   EGL_NONE};
  EGLint count = 0;
  if (!GL_CALL(gl, eglChooseConfig)(display, config_attribs, &config, 1, &count) || count < 1) {
    *error = "no RGBA8 GLES 2 EGL config";
    return false;
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
  context = GL_CALL(gl, eglCreateContext)(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) {
    *error = egl_error("eglCreateContext");
    return false;
  }
  if (!x11) {
    // A small pbuffer to be current with; each display draws into its own
    // framebuffer object.
    const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    pbuffer = GL_CALL(gl, eglCreatePbufferSurface)(display, config, pbuffer_attribs);
    if (pbuffer == EGL_NO_SURFACE ||
        !GL_CALL(gl, eglMakeCurrent)(display, pbuffer, pbuffer, context)) {
      *error = egl_error("making the compositor's context current");
      return false;
    }
  }
  // With --x11 the context is made current on a display's window when one exists.
  if (x11 && !GL_CALL(gl, eglMakeCurrent)(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    *error = egl_error("eglMakeCurrent (surfaceless context)");
    return false;
  }

  auto compile = [&](GLenum type, const char* source) -> GLuint {
    GLuint shader = GL_CALL(gl, glCreateShader)(type);
    GL_CALL(gl, glShaderSource)(shader, 1, &source, nullptr);
    GL_CALL(gl, glCompileShader)(shader);
    GLint ok = 0;
    GL_CALL(gl, glGetShaderiv)(shader, GL_COMPILE_STATUS, &ok);
    if (ok == 0) {
      char log[1024] = {};
      GL_CALL(gl, glGetShaderInfoLog)(shader, sizeof log, nullptr, log);
      *error = std::string("the compositor's shader does not compile: ") + log;
      return 0;
    }
    return shader;
  };
  GLuint vs = compile(GL_VERTEX_SHADER, kVertexShader);
  GLuint fs = vs != 0 ? compile(GL_FRAGMENT_SHADER, kFragmentShader) : 0;
  if (fs == 0) return false;
  program = GL_CALL(gl, glCreateProgram)();
  GL_CALL(gl, glAttachShader)(program, vs);
  GL_CALL(gl, glAttachShader)(program, fs);
  GL_CALL(gl, glBindAttribLocation)(program, 0, "unit");
  GL_CALL(gl, glLinkProgram)(program);
  GLint linked = 0;
  GL_CALL(gl, glGetProgramiv)(program, GL_LINK_STATUS, &linked);
  if (linked == 0) {
    char log[1024] = {};
    GL_CALL(gl, glGetProgramInfoLog)(program, sizeof log, nullptr, log);
    *error = std::string("the compositor's program does not link: ") + log;
    return false;
  }
  GL_CALL(gl, glUseProgram)(program);
  u_to_ndc = GL_CALL(gl, glGetUniformLocation)(program, "to_ndc");
  u_to_tex = GL_CALL(gl, glGetUniformLocation)(program, "to_tex");
  u_alpha = GL_CALL(gl, glGetUniformLocation)(program, "alpha");
  u_opaque = GL_CALL(gl, glGetUniformLocation)(program, "opaque");
  u_size = GL_CALL(gl, glGetUniformLocation)(program, "size");
  u_radius = GL_CALL(gl, glGetUniformLocation)(program, "radius");
  GL_CALL(gl, glUniform1i)(GL_CALL(gl, glGetUniformLocation)(program, "tex"), 0);
  const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
  GL_CALL(gl, glGenBuffers)(1, &vertex_buffer);
  GL_CALL(gl, glBindBuffer)(GL_ARRAY_BUFFER, vertex_buffer);
  GL_CALL(gl, glBufferData)(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  GL_CALL(gl, glVertexAttribPointer)(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  GL_CALL(gl, glEnableVertexAttribArray)(0);
  GL_CALL(gl, glEnable)(GL_BLEND);
  GL_CALL(gl, glBlendFunc)(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  GL_CALL(gl, glPixelStorei)(GL_UNPACK_ALIGNMENT, 1);
  GL_CALL(gl, glPixelStorei)(GL_PACK_ALIGNMENT, 1);
  GL_CALL(gl, glActiveTexture)(GL_TEXTURE0);
  GL_CALL(gl, glGetIntegerv)(GL_MAX_TEXTURE_SIZE, &max_texture);
  if (max_texture < static_cast<GLint>(std::max(kMaxBufferSide, kMaxDisplaySide))) {
    *error = "the GL driver's textures stop at " + std::to_string(max_texture) +
             " pixels; surfacereplayer needs " + std::to_string(kMaxBufferSide);
    return false;
  }
  warm_up();
  return true;
}

void Compositor::Impl::warm_up() {
  // llvmpipe compiles a shader at its first draw (tens of ms): drawn once
  // here, before the replay's clock starts, so the first VSyncs are not late.
  GLuint fbo = 0, colour = 0, source = 0;
  const uint8_t pixel[4] = {0, 0, 0, 255};
  GL_CALL(gl, glGenTextures)(1, &colour);
  GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, colour);
  GL_CALL(gl, glTexImage2D)(GL_TEXTURE_2D, 0, GL_RGBA, 1, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  GL_CALL(gl, glGenFramebuffers)(1, &fbo);
  GL_CALL(gl, glBindFramebuffer)(GL_FRAMEBUFFER, fbo);
  GL_CALL(gl, glFramebufferTexture2D)
  (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour, 0);
  GL_CALL(gl, glGenTextures)(1, &source);
  GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, source);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  GL_CALL(gl, glTexImage2D)(GL_TEXTURE_2D, 0, GL_RGBA, 1, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
  float m[9];
  to_mat3(Affine{2, 0, 0, -2, -1, 1}, m);
  GL_CALL(gl, glUniformMatrix3fv)(u_to_ndc, 1, GL_FALSE, m);
  to_mat3(Affine{}, m);
  GL_CALL(gl, glUniformMatrix3fv)(u_to_tex, 1, GL_FALSE, m);
  GL_CALL(gl, glUniform1f)(u_alpha, 1);
  GL_CALL(gl, glUniform1f)(u_opaque, 0);
  GL_CALL(gl, glUniform2f)(u_size, 1, 1);
  GL_CALL(gl, glUniform1f)(u_radius, 0);
  GL_CALL(gl, glViewport)(0, 0, 1, 1);
  GL_CALL(gl, glClear)(GL_COLOR_BUFFER_BIT);
  GL_CALL(gl, glDrawArrays)(GL_TRIANGLE_STRIP, 0, 4);  // blended
  GL_CALL(gl, glDisable)(GL_BLEND);
  GL_CALL(gl, glDrawArrays)(GL_TRIANGLE_STRIP, 0, 4);  // and not
  GL_CALL(gl, glEnable)(GL_BLEND);
  GL_CALL(gl, glFinish)();
  GL_CALL(gl, glBindFramebuffer)(GL_FRAMEBUFFER, 0);
  GL_CALL(gl, glDeleteFramebuffers)(1, &fbo);
  GL_CALL(gl, glDeleteTextures)(1, &colour);
  GL_CALL(gl, glDeleteTextures)(1, &source);
}

void Compositor::Impl::close() {
  if (display == EGL_NO_DISPLAY) return;
  for (auto& [id, cached] : textures) GL_CALL(gl, glDeleteTextures)(1, &cached.texture);
  textures.clear();
  for (auto& [id, target] : targets) {
    if (target.fbo != 0) GL_CALL(gl, glDeleteFramebuffers)(1, &target.fbo);
    if (target.colour != 0) GL_CALL(gl, glDeleteTextures)(1, &target.colour);
  }
  if (program != 0) GL_CALL(gl, glDeleteProgram)(program);
  if (vertex_buffer != 0) GL_CALL(gl, glDeleteBuffers)(1, &vertex_buffer);
  GL_CALL(gl, eglMakeCurrent)(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  for (auto& [id, target] : targets) {
    if (target.surface != EGL_NO_SURFACE) GL_CALL(gl, eglDestroySurface)(display, target.surface);
    x_display.destroy_window(&target.window);
  }
  targets.clear();
  if (pbuffer != EGL_NO_SURFACE) GL_CALL(gl, eglDestroySurface)(display, pbuffer);
  if (context != EGL_NO_CONTEXT) GL_CALL(gl, eglDestroyContext)(display, context);
  GL_CALL(gl, eglTerminate)(display);
  GL_CALL(gl, eglReleaseThread)();
  display = EGL_NO_DISPLAY;
  x_display.close();
}

bool Compositor::Impl::bind_target(const DisplayFrame& frame, std::string* error) {
  Target& target = targets[frame.display_id];
  const bool resized = target.width != frame.width || target.height != frame.height;
  if (x11) {
    if (target.surface == EGL_NO_SURFACE) {
      EGLint visual = 0;
      GL_CALL(gl, eglGetConfigAttrib)(display, config, EGL_NATIVE_VISUAL_ID, &visual);
      if (!x_display.create_window(frame.width, frame.height, visual, &target.window, error))
        return false;
      // EGL 1.5: the one function of the compositor's a driver may lack
      // (the rest is EGL 1.4 and GLES 2).
      auto create_window = GL_CALL(gl, eglCreatePlatformWindowSurface);
      if (create_window == nullptr) {
        *error = "the driver has no eglCreatePlatformWindowSurface (EGL 1.5)";
        return false;
      }
      target.surface = create_window(display, config, &target.window.window, nullptr);
      if (target.surface == EGL_NO_SURFACE) {
        *error = egl_error("eglCreatePlatformWindowSurface");
        return false;
      }
    } else if (resized &&
               !x_display.resize_window(target.window, frame.width, frame.height, error)) {
      return false;
    }
    if (!GL_CALL(gl, eglMakeCurrent)(display, target.surface, target.surface, context)) {
      *error = egl_error("eglMakeCurrent");
      return false;
    }
  } else if (resized || target.fbo == 0) {
    if (target.fbo == 0) GL_CALL(gl, glGenFramebuffers)(1, &target.fbo);
    if (target.colour == 0) GL_CALL(gl, glGenTextures)(1, &target.colour);
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, target.colour);
    GL_CALL(gl, glTexImage2D)
    (GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(frame.width),
     static_cast<GLsizei>(frame.height), 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    GL_CALL(gl, glBindFramebuffer)(GL_FRAMEBUFFER, target.fbo);
    GL_CALL(gl, glFramebufferTexture2D)
    (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target.colour, 0);
    if (GL_CALL(gl, glCheckFramebufferStatus)(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      *error = "the framebuffer of display " + std::to_string(frame.display_id) + " (" +
               std::to_string(frame.width) + "x" + std::to_string(frame.height) + ") is incomplete";
      return false;
    }
  }
  if (!x11) GL_CALL(gl, glBindFramebuffer)(GL_FRAMEBUFFER, target.fbo);
  target.width = frame.width;
  target.height = frame.height;
  return true;
}

void Compositor::Impl::drop_target(Target& target) {
  if (target.fbo != 0) GL_CALL(gl, glDeleteFramebuffers)(1, &target.fbo);
  if (target.colour != 0) GL_CALL(gl, glDeleteTextures)(1, &target.colour);
  if (target.surface != EGL_NO_SURFACE) GL_CALL(gl, eglDestroySurface)(display, target.surface);
  x_display.destroy_window(&target.window);
  target = Target{};
}

GLuint Compositor::Impl::texture(const BufferPtr& buffer) {
  Cached& cached = textures[buffer.get()];
  cached.last_used = frames_drawn;
  if (cached.texture != 0) {
    GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, cached.texture);
    return cached.texture;
  }
  cached.buffer = buffer;
  GL_CALL(gl, glGenTextures)(1, &cached.texture);
  GL_CALL(gl, glBindTexture)(GL_TEXTURE_2D, cached.texture);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  GL_CALL(gl, glTexParameteri)(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  GL_CALL(gl, glTexImage2D)
  (GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(buffer->w), static_cast<GLsizei>(buffer->h), 0,
   GL_RGBA, GL_UNSIGNED_BYTE, buffer->rgba.data());
  return cached.texture;
}

bool Compositor::Impl::draw(const Job& job, std::string* error) {
  const DisplayFrame& frame = job.frame;
  if (!bind_target(frame, error)) return false;
  ++frames_drawn;
  const float width = static_cast<float>(frame.width), height = static_cast<float>(frame.height);
  GL_CALL(gl, glViewport)
  (0, 0, static_cast<GLsizei>(frame.width), static_cast<GLsizei>(frame.height));
  GL_CALL(gl, glClearColor)(0, 0, 0, 1);
  GL_CALL(gl, glClear)(GL_COLOR_BUFFER_BIT);
  // Display pixels (y down) to normalized device coordinates (y up).
  const Affine to_ndc{2 / width, 0, 0, -2 / height, -1, 1};
  for (const DrawItem& item : frame.items) {
    float m[9];
    to_mat3(Affine{item.width, 0, 0, item.height, 0, 0}.then(item.to_display).then(to_ndc), m);
    GL_CALL(gl, glUniformMatrix3fv)(u_to_ndc, 1, GL_FALSE, m);
    const auto& s = item.source;
    to_mat3(kBufferTransforms[item.buffer_transform & 7].then(
                Affine{s[2] - s[0], 0, 0, s[3] - s[1], s[0], s[1]}),
            m);
    GL_CALL(gl, glUniformMatrix3fv)(u_to_tex, 1, GL_FALSE, m);
    GL_CALL(gl, glUniform1f)(u_alpha, item.alpha);
    const bool opaque = item.opaque || !item.buffer->has_alpha;
    GL_CALL(gl, glUniform1f)(u_opaque, opaque ? 1.0f : 0.0f);
    // What covers its area fully needs no blending (most of a desktop).
    if (opaque && item.alpha >= 1 && item.corner_radius <= 0)
      GL_CALL(gl, glDisable)(GL_BLEND);
    else
      GL_CALL(gl, glEnable)(GL_BLEND);
    GL_CALL(gl, glUniform2f)(u_size, item.width, item.height);
    GL_CALL(gl, glUniform1f)(u_radius, item.corner_radius);
    texture(item.buffer);
    GL_CALL(gl, glDrawArrays)(GL_TRIANGLE_STRIP, 0, 4);
  }
  // The targets of deleted displays go (a trace may make many in turn).
  for (auto it = targets.begin(); it != targets.end();) {
    if (std::find(frame.live_displays.begin(), frame.live_displays.end(), it->first) !=
        frame.live_displays.end()) {
      ++it;
      continue;
    }
    drop_target(it->second);
    it = targets.erase(it);
  }
  // Textures of buffers no display drew in the last few frames go.
  for (auto it = textures.begin(); it != textures.end();) {
    if (it->second.last_used + 4 < frames_drawn) {
      GL_CALL(gl, glDeleteTextures)(1, &it->second.texture);
      it = textures.erase(it);
    } else {
      ++it;
    }
  }
  if (job.png_path.empty() && !x11) {
    // The frame is composited when its VSync ends, not queued in the driver
    // for later (llvmpipe would draw every frame of a headless replay at exit).
    GL_CALL(gl, glFinish)();
  } else if (!job.png_path.empty()) {
    std::vector<uint8_t> pixels(static_cast<size_t>(frame.width) * frame.height * 4);
    GL_CALL(gl, glReadPixels)
    (0, 0, static_cast<GLsizei>(frame.width), static_cast<GLsizei>(frame.height), GL_RGBA,
     GL_UNSIGNED_BYTE, pixels.data());
    if (!consumers::write_png(job.png_path, frame.width, frame.height, pixels.data(), error))
      return false;
    std::lock_guard<std::mutex> lock(mutex);
    if (job.counted) ++written;
  }
  if (GLenum code = GL_CALL(gl, glGetError)(); code != GL_NO_ERROR) {
    char text[64];
    std::snprintf(text, sizeof text, "GL error 0x%04x drawing display %d", code, frame.display_id);
    *error = text;
    return false;
  }
  if (x11 && !GL_CALL(gl, eglSwapBuffers)(display, targets[frame.display_id].surface)) {
    *error = egl_error("eglSwapBuffers");
    return false;
  }
  return true;
}

void Compositor::Impl::main(std::promise<std::string>* started) {
  pthread_setname_np(pthread_self(), "compositor");
  {
    std::string error;
    if (!open(&error)) {
      close();
      started->set_value(error.empty() ? "cannot open EGL" : error);
      return;
    }
    started->set_value({});
  }
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex);
      busy = false;
      changed.notify_all();
      changed.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) break;
      job = std::move(queue.front());
      queue.pop_front();
      busy = true;
      if (!failure.empty()) continue;  // after a failure, frames are dropped
    }
    std::string error;
    if (!draw(job, &error)) {
      std::lock_guard<std::mutex> lock(mutex);
      if (failure.empty()) failure = error.empty() ? "drawing failed" : error;
    }
  }
  close();
}

Compositor::Compositor(bool x11) : impl_(std::make_unique<Impl>(x11)) {}

Compositor::~Compositor() {
  if (!impl_->thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->changed.notify_all();
  impl_->thread.join();
}

bool Compositor::start(std::string* error) {
  std::promise<std::string> started;
  std::future<std::string> result = started.get_future();
  impl_->thread = std::thread([this, &started] { impl_->main(&started); });
  *error = result.get();
  if (error->empty()) return true;
  impl_->thread.join();
  return false;
}

bool Compositor::submit(DisplayFrame frame, std::string png_path, std::string* error,
                        bool counted) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->changed.wait(lock, [&] { return impl_->queue.size() < 2 || !impl_->failure.empty(); });
  if (!impl_->failure.empty()) {
    *error = impl_->failure;
    return false;
  }
  impl_->queue.push_back({std::move(frame), std::move(png_path), counted});
  impl_->changed.notify_all();
  return true;
}

bool Compositor::finish(std::string* error) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->changed.wait(lock, [&] { return impl_->queue.empty() && !impl_->busy; });
  if (!impl_->failure.empty()) {
    *error = impl_->failure;
    return false;
  }
  return true;
}

uint64_t Compositor::images_written() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->written;
}

}  // namespace gltrace::surface
