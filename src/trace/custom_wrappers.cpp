// Hand-written trace wrappers: calls whose recording needs state (contexts,
// frames, client memory, mapped buffers) that the registry cannot describe.
#define GL_GLES_PROTOTYPES 0
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/process.h"
#include "format/schema.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/trace_decls.h"
#include "trace/compsize.h"
#include "trace/live.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

constexpr int kMaxAttribs = 32;

// Vertex-array state of VAO 0 (the only one that may use client memory), and
// the buffers mapped in a context.
struct ClientAttrib {
  const void* pointer = nullptr;
  GLint size = 4;
  GLenum type = GL_FLOAT;
  GLsizei stride = 0;
};

struct Mapping {
  GLenum target;
  uint8_t* pointer;
  int64_t offset;
  int64_t length;
  GLbitfield access;
};

// A framebuffer read-back in flight: glReadPixels into a pixel-pack buffer,
// a fence, and the copy out later (when its slot is needed again, at the
// next swap, or when the context is released), so the app does not wait for
// the GPU at every swap or draw.
struct PendingRead {
  GLuint buffer = 0;  // the pack buffer (a name of ours in the app's namespace)
  GLsync fence = nullptr;
  size_t capacity = 0;
  bool in_flight = false;
  uint64_t frame = 0, seq = 0;
  GLsizei width = 0, height = 0;
  const char* origin = "";
};

// Read-backs in flight per context: after-draw ones come several per frame.
constexpr size_t kReadsInFlight = 4;

struct ContextState {
  int client_version = 2;
  // A desktop OpenGL context (EGL_OPENGL_API): its GL calls pass the layers
  // by (dispatch/make_current.cpp) and the trace layer makes none in it.
  bool desktop_gl = false;
  uint32_t client_mask = 0;  // attributes pointing into client memory
  ClientAttrib attribs[kMaxAttribs];
  std::vector<Mapping> mappings;
  PendingRead reads[kReadsInFlight];
  size_t next_read = 0;  // reads[next_read % kReadsInFlight] is the oldest
  // A draw call was made since the context's last frame end (see
  // trace_glFinish).
  bool drew = false;
};

// Per session (contexts are numbered per session). A map a new session
// replaces is kept, not freed: a thread may still hold one of its states.
using ContextStates = std::unordered_map<uint32_t, std::unique_ptr<ContextState>>;
std::mutex g_contexts_mutex;
ContextStates* g_contexts = new ContextStates();

// The session (generation) in which the program swapped first: from then
// on only swaps end frames (see trace_glFinish). 0: none yet.
std::atomic<uint32_t> g_swapped_generation{0};

ContextState* context_state(ThreadState* thread) {
  if (thread->context_data != nullptr && thread->context_data_index == thread->context)
    return static_cast<ContextState*>(thread->context_data);
  std::lock_guard<std::mutex> lock(g_contexts_mutex);
  auto& state = (*g_contexts)[thread->context];
  if (state == nullptr) state = std::make_unique<ContextState>();
  thread->context_data = state.get();
  thread->context_data_index = thread->context;
  return state.get();
}

int64_t type_size(GLenum type) {
  switch (type) {
    case GL_BYTE:
    case GL_UNSIGNED_BYTE:
      return 1;
    case GL_SHORT:
    case GL_UNSIGNED_SHORT:
    case GL_HALF_FLOAT:
    case GL_HALF_FLOAT_OES:
      return 2;
    default:  // 32-bit types, and the packed 2_10_10_10 ones (a whole vertex)
      return 4;
  }
}

int64_t attrib_bytes(const ClientAttrib& a) {
  if (a.type == GL_INT_2_10_10_10_REV || a.type == GL_UNSIGNED_INT_2_10_10_10_REV) return 4;
  return a.size * type_size(a.type);
}

// --- contexts and frames -----------------------------------------------------

void write_context_record(ThreadState* thread, uint32_t index, EGLDisplay display,
                          EGLContext context, EGLSurface draw) {
  wire::Encoder body;
  body.uint_field(schema::context::kIndex, index);
  body.uint_field(schema::context::kHandle, handle_bits(context));
  body.uint_field(schema::context::kDisplay, handle_bits(display));
  EGLint value = 0;
  if (NEXT(eglQueryContext)(display, context, EGL_CONFIG_ID, &value))
    body.uint_field(schema::context::kConfig, static_cast<uint64_t>(value));
  if (NEXT(eglQueryContext)(display, context, EGL_CONTEXT_CLIENT_VERSION, &value))
    body.uint_field(schema::context::kClientVersion, static_cast<uint64_t>(value));
  // The config's attributes, so a replay can choose an equivalent one.
  EGLConfig config = nullptr;
  EGLint config_id = 0, count = 0;
  if (NEXT(eglQueryContext)(display, context, EGL_CONFIG_ID, &config_id)) {
    const EGLint wanted[] = {EGL_CONFIG_ID, config_id, EGL_NONE};
    NEXT(eglChooseConfig)(display, wanted, &config, 1, &count);
  }
  if (count == 1) {
    size_t m = body.begin_nested(schema::context::kConfigAttribs);
    for (EGLint name : {EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE, EGL_ALPHA_SIZE, EGL_DEPTH_SIZE,
                        EGL_STENCIL_SIZE, EGL_SAMPLES, EGL_SURFACE_TYPE, EGL_RENDERABLE_TYPE}) {
      EGLint v = 0;
      NEXT(eglGetConfigAttrib)(display, config, name, &v);
      body.raw_varint(static_cast<uint64_t>(int64_t{name}));  // int64: two's complement
      body.raw_varint(static_cast<uint64_t>(int64_t{v}));
    }
    body.end_nested(m);
  }
  auto gl_string = [](GLenum name) {
    const GLubyte* s = NEXT(glGetString)(name);
    return s != nullptr ? reinterpret_cast<const char*>(s) : "";
  };
  body.string_field(schema::context::kGlVendor, gl_string(GL_VENDOR));
  body.string_field(schema::context::kGlRenderer, gl_string(GL_RENDERER));
  body.string_field(schema::context::kGlVersion, gl_string(GL_VERSION));
  if (draw != EGL_NO_SURFACE) {
    EGLint width = 0, height = 0;
    NEXT(eglQuerySurface)(display, draw, EGL_WIDTH, &width);
    NEXT(eglQuerySurface)(display, draw, EGL_HEIGHT, &height);
    body.uint_field(schema::context::kSurfaceWidth, static_cast<uint64_t>(width));
    body.uint_field(schema::context::kSurfaceHeight, static_cast<uint64_t>(height));
  }
  append_record(thread, schema::record::kContext, body.data(), body.size());
}

// --- configs and surface sizes ----------------------------------------------

// Every attribute of an EGL 1.5 config, and the component type when the
// display has EGL_EXT_pixel_format_float: what a replay matches to find the
// config with the same framebuffer, whatever the app asked for or learnt.
constexpr EGLint kConfigAttribs[] = {EGL_CONFIG_ID,
                                     EGL_BUFFER_SIZE,
                                     EGL_RED_SIZE,
                                     EGL_GREEN_SIZE,
                                     EGL_BLUE_SIZE,
                                     EGL_ALPHA_SIZE,
                                     EGL_LUMINANCE_SIZE,
                                     EGL_ALPHA_MASK_SIZE,
                                     EGL_COLOR_BUFFER_TYPE,
                                     EGL_DEPTH_SIZE,
                                     EGL_STENCIL_SIZE,
                                     EGL_SAMPLE_BUFFERS,
                                     EGL_SAMPLES,
                                     EGL_SURFACE_TYPE,
                                     EGL_RENDERABLE_TYPE,
                                     EGL_CONFORMANT,
                                     EGL_CONFIG_CAVEAT,
                                     EGL_NATIVE_RENDERABLE,
                                     EGL_NATIVE_VISUAL_ID,
                                     EGL_NATIVE_VISUAL_TYPE,
                                     EGL_TRANSPARENT_TYPE,
                                     EGL_LEVEL,
                                     EGL_BIND_TO_TEXTURE_RGB,
                                     EGL_BIND_TO_TEXTURE_RGBA,
                                     EGL_MIN_SWAP_INTERVAL,
                                     EGL_MAX_SWAP_INTERVAL};

bool has_float_configs(EGLDisplay display) {
  const char* extensions = NEXT(eglQueryString)(display, EGL_EXTENSIONS);
  return extensions != nullptr && strstr(extensions, "EGL_EXT_pixel_format_float") != nullptr;
}

// Call.config_attribs of a call that used `config` and succeeded (a valid
// config: no query below fails, so the app's EGL error stays EGL_SUCCESS).
void record_config_attribs(CallRecorder& rec, EGLDisplay display, EGLConfig config) {
  if (mode() != Mode::kFull) return;
  wire::Encoder& call = rec.call_encoder();
  size_t m = call.begin_nested(schema::call::kConfigAttribs);
  auto put = [&](EGLint name) {
    EGLint value = 0;
    if (!NEXT(eglGetConfigAttrib)(display, config, name, &value)) return;
    call.raw_varint(static_cast<uint64_t>(int64_t{name}));  // int64: two's complement
    call.raw_varint(static_cast<uint64_t>(int64_t{value}));
  };
  for (EGLint name : kConfigAttribs) put(name);
  if (has_float_configs(display)) put(EGL_COLOR_COMPONENT_TYPE_EXT);
  call.end_nested(m);
}

bool query_surface_size(EGLDisplay display, EGLSurface surface, uint32_t* width, uint32_t* height) {
  EGLint w = 0, h = 0;
  if (surface == EGL_NO_SURFACE || !NEXT(eglQuerySurface)(display, surface, EGL_WIDTH, &w) ||
      !NEXT(eglQuerySurface)(display, surface, EGL_HEIGHT, &h) || w <= 0 || h <= 0)
    return false;
  *width = static_cast<uint32_t>(w);
  *height = static_cast<uint32_t>(h);
  return true;
}

// Call.surface_width/height, and the thread's last recorded size.
void record_surface_size(CallRecorder& rec, uint32_t width, uint32_t height) {
  ThreadState* thread = rec.thread();
  thread->surface_width = width;
  thread->surface_height = height;
  rec.call_encoder().uint_field(schema::call::kSurfaceWidth, width);
  rec.call_encoder().uint_field(schema::call::kSurfaceHeight, height);
}

// eglMakeCurrent bound `draw` on this thread: its size now, and a check at
// the first draw (the app may resize the window before drawing).
void record_bound_surface(CallRecorder& rec, EGLDisplay display, EGLSurface draw) {
  ThreadState* thread = rec.thread();
  uint32_t width = thread->surface_width, height = thread->surface_height;
  // The surface this thread had (apps that make current every frame): its
  // size as known, checked at the next draw like after a swap, without a
  // query (a round trip to the X server).
  bool known = draw != EGL_NO_SURFACE && draw == thread->draw_surface &&
               display == thread->draw_display && width != 0;
  thread->draw_display = display;
  thread->draw_surface = draw;
  thread->surface_width = thread->surface_height = 0;
  thread->surface_size_check = false;
  if (mode() != Mode::kFull || (!known && !query_surface_size(display, draw, &width, &height)))
    return;
  record_surface_size(rec, width, height);
  thread->surface_size_check = true;
}

void write_image(ThreadState* thread, uint64_t frame, uint64_t seq, GLsizei width, GLsizei height,
                 const void* pixels, const char* origin) {
  AppendGuard guard(thread);  // read-backs happen outside any call's window
  if (!guard.ok()) return;
  uint64_t blob = store_blob(thread, pixels, static_cast<size_t>(width) * height * 4);
  wire::Encoder body;
  body.uint_field(schema::image::kFrame, frame);
  body.uint_field(schema::image::kSeq, seq);
  body.uint_field(schema::image::kWidth, static_cast<uint64_t>(width));
  body.uint_field(schema::image::kHeight, static_cast<uint64_t>(height));
  body.fixed64_field(schema::image::kBlob, blob);
  body.string_field(schema::image::kOrigin, origin);
  body.uint_field(schema::image::kContext, thread->context);
  append_record(thread, schema::record::kImage, body.data(), body.size());
}

// A read-back of ours inside the app's GL state. Errors stay the app's: one
// it had not read yet is kept for its next glGetError, and ours (an
// unreadable attachment format...) are dropped at the end. The read
// framebuffer and pixel-pack buffer bindings and the pack parameters are
// saved, set for a tightly packed read by prepare(), and put back.
class ReadBackScope {
 public:
  explicit ReadBackScope(ThreadState* thread)
      : es3_(context_state(thread)->client_version >= 3),
        framebuffer_target_(es3_ ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER) {
    GLenum app_error = NEXT(glGetError)();
    if (app_error != GL_NO_ERROR && thread->pending_gl_error == 0)
      thread->pending_gl_error = app_error;
    framebuffer_ = driver_integer(es3_ ? GL_READ_FRAMEBUFFER_BINDING : GL_FRAMEBUFFER_BINDING);
    alignment_ = driver_integer(GL_PACK_ALIGNMENT);
    if (es3_) {
      pack_buffer_ = driver_integer(GL_PIXEL_PACK_BUFFER_BINDING);
      row_length_ = driver_integer(GL_PACK_ROW_LENGTH);
      skip_pixels_ = driver_integer(GL_PACK_SKIP_PIXELS);
      skip_rows_ = driver_integer(GL_PACK_SKIP_ROWS);
    }
  }
  ~ReadBackScope() {
    NEXT(glPixelStorei)(GL_PACK_ALIGNMENT, alignment_);
    if (es3_) {
      NEXT(glPixelStorei)(GL_PACK_ROW_LENGTH, row_length_);
      NEXT(glPixelStorei)(GL_PACK_SKIP_PIXELS, skip_pixels_);
      NEXT(glPixelStorei)(GL_PACK_SKIP_ROWS, skip_rows_);
      NEXT(glBindBuffer)(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer_));
    }
    NEXT(glBindFramebuffer)(framebuffer_target_, static_cast<GLuint>(framebuffer_));
    for (int k = 0; k < 8 && NEXT(glGetError)() != GL_NO_ERROR; ++k) {
    }
  }
  ReadBackScope(const ReadBackScope&) = delete;
  ReadBackScope& operator=(const ReadBackScope&) = delete;

  // Reads from `framebuffer` into `pack_buffer` (ES 3; 0: client memory),
  // RGBA rows tightly packed.
  void prepare(GLuint framebuffer, GLuint pack_buffer) {
    NEXT(glBindFramebuffer)(framebuffer_target_, framebuffer);
    NEXT(glPixelStorei)(GL_PACK_ALIGNMENT, 1);
    if (es3_) {
      NEXT(glBindBuffer)(GL_PIXEL_PACK_BUFFER, pack_buffer);
      NEXT(glPixelStorei)(GL_PACK_ROW_LENGTH, 0);
      NEXT(glPixelStorei)(GL_PACK_SKIP_PIXELS, 0);
      NEXT(glPixelStorei)(GL_PACK_SKIP_ROWS, 0);
    }
  }
  // Where prepare() bound the framebuffer (only the read binding on ES 3).
  GLenum framebuffer_target() const { return framebuffer_target_; }

 private:
  bool es3_;
  GLenum framebuffer_target_;
  GLint framebuffer_ = 0, alignment_ = 4, pack_buffer_ = 0;
  GLint row_length_ = 0, skip_pixels_ = 0, skip_rows_ = 0;
};

// Whether pixel (x, y) of the default framebuffer exists: a read outside
// the buffer writes nothing (the driver clips it), so a pixel that keeps
// each of two different fillings was not read.
bool has_pixel(GLint x, GLint y) {
  for (uint8_t fill : {0x5a, 0xa5}) {
    uint8_t pixel[4] = {fill, fill, fill, fill};
    NEXT(glReadPixels)(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
    if (pixel[0] != fill || pixel[1] != fill || pixel[2] != fill || pixel[3] != fill) return true;
  }
  return false;
}

// Whether the default framebuffer is width x height (a pixel inside, none
// beyond).
bool buffers_have_size(ThreadState* thread, uint32_t width, uint32_t height) {
  ReadBackScope scope(thread);
  scope.prepare(0, 0);
  auto w = static_cast<GLint>(width), h = static_cast<GLint>(height);
  return has_pixel(w - 1, h - 1) && !has_pixel(w, 0) && !has_pixel(0, h);
}

// At a draw, clear or blit: the first one of a frame on the default framebuffer
// is where the driver sizes a window's buffers, so when the app resized its
// window since the swap, the new size goes with that call. eglQuerySurface
// answers the window's size, not its buffers': some drivers (Mesa's software
// X11 path) keep the buffers they made at eglMakeCurrent until the first
// swap, so the buffers are checked to have the new size (a pixel inside,
// none beyond: one-pixel reads, once per resize).
void record_surface_resize(CallRecorder& rec) {
  ThreadState* thread = rec.thread();
  if (!thread->surface_size_check) return;
  if (driver_integer(GL_FRAMEBUFFER_BINDING) != 0) return;  // not the window yet
  thread->surface_size_check = false;
  uint32_t width = 0, height = 0;
  if (!query_surface_size(static_cast<EGLDisplay>(thread->draw_display),
                          static_cast<EGLSurface>(thread->draw_surface), &width, &height) ||
      (width == thread->surface_width && height == thread->surface_height))
    return;
  if (buffers_have_size(thread, width, height)) record_surface_size(rec, width, height);
}

// Reads a framebuffer region into an Image record, now.
// A swap image read at once (ES 2, a capture's last frame), kept in the
// thread's pixels until the swap's call is recorded: an app killed inside
// the swap would otherwise leave an image of a call the trace does not hold.
struct HeldSwapImage {
  bool held = false;
  uint64_t frame = 0;
  uint64_t seq = 0;
  GLsizei width = 0;
  GLsizei height = 0;
};

// Reads a framebuffer region into the thread's pixels and writes it as an
// Image, or, given `hold`, leaves it there for write_held_image.
void read_framebuffer(ThreadState* thread, GLint source_fb, GLint x, GLint y, GLsizei width,
                      GLsizei height, const char* origin, HeldSwapImage* hold = nullptr) {
  if (width <= 0 || height <= 0 || thread->context == 0) return;
  ReadBackScope scope(thread);
  scope.prepare(static_cast<GLuint>(source_fb), 0);
  thread->pixels.resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
  NEXT(glReadPixels)(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, thread->pixels.data());
  if (NEXT(glGetError)() != GL_NO_ERROR) return;
  if (hold != nullptr)
    *hold = {true, frames_completed(), thread->last_seq, width, height};
  else
    write_image(thread, frames_completed(), thread->last_seq, width, height, thread->pixels.data(),
                origin);
}

void write_held_image(ThreadState* thread, const HeldSwapImage& image) {
  if (image.held)
    write_image(thread, image.frame, image.seq, image.width, image.height, thread->pixels.data(),
                "swap");
}

// Copies a finished asynchronous read-back into the trace. Needs its
// context current.
void complete_read(ThreadState* thread, PendingRead& read) {
  if (!read.in_flight) return;
  read.in_flight = false;
  ReadBackScope scope(thread);
  NEXT(glClientWaitSync)(read.fence, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_C(1000000000));
  NEXT(glDeleteSync)(read.fence);
  read.fence = nullptr;
  NEXT(glBindBuffer)(GL_PIXEL_PACK_BUFFER, read.buffer);
  size_t bytes = static_cast<size_t>(read.width) * read.height * 4;
  const void* pixels = NEXT(glMapBufferRange)(GL_PIXEL_PACK_BUFFER, 0,
                                              static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT);
  if (pixels != nullptr) {
    write_image(thread, read.frame, read.seq, read.width, read.height, pixels, read.origin);
    NEXT(glUnmapBuffer)(GL_PIXEL_PACK_BUFFER);
  }
}

// Every read-back of the current context in flight, oldest first.
void complete_pending_reads(ThreadState* thread) {
  ContextState* state = context_state(thread);
  for (size_t k = 0; k < kReadsInFlight; ++k)
    complete_read(thread, state->reads[(state->next_read + k) % kReadsInFlight]);
}

// ES 3: starts reading a framebuffer region into a pack buffer (the oldest
// read in flight is completed first when all are busy).
bool start_async_read(ThreadState* thread, GLint source_fb, GLint x, GLint y, GLsizei width,
                      GLsizei height, const char* origin) {
  ContextState* state = context_state(thread);
  if (state->client_version < 3 || width <= 0 || height <= 0) return false;
  PendingRead& read = state->reads[state->next_read % kReadsInFlight];
  complete_read(thread, read);
  ReadBackScope scope(thread);
  if (read.buffer == 0) NEXT(glGenBuffers)(1, &read.buffer);
  scope.prepare(static_cast<GLuint>(source_fb), read.buffer);
  size_t bytes = static_cast<size_t>(width) * height * 4;
  if (read.capacity != bytes) {
    NEXT(glBufferData)
    (GL_PIXEL_PACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_READ);
    read.capacity = bytes;
  }
  NEXT(glReadPixels)(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  if (NEXT(glGetError)() != GL_NO_ERROR) return false;
  read.fence = NEXT(glFenceSync)(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  read.in_flight = read.fence != nullptr;
  read.frame = frames_completed();
  read.seq = thread->last_seq;
  read.width = width;
  read.height = height;
  read.origin = origin;
  ++state->next_read;
  return true;
}

// A region of a framebuffer: asynchronously on ES 3, else now.
void capture_region(ThreadState* thread, GLint source_fb, GLint x, GLint y, GLsizei width,
                    GLsizei height, const char* origin) {
  if (!start_async_read(thread, source_fb, x, y, width, height, origin))
    read_framebuffer(thread, source_fb, x, y, width, height, origin);
}

// What a draw call just rendered: the bound draw framebuffer, in the viewport.
void capture_after_draw(ThreadState* thread) {
  if (thread->context != 0) context_state(thread)->drew = true;
  if (mode() != Mode::kFull || !capture_framebuffer_on_draw() || thread->context == 0) return;
  GLint viewport[4] = {0, 0, 0, 0};
  NEXT(glGetIntegerv)(GL_VIEWPORT, viewport);
  capture_region(thread, driver_integer(GL_FRAMEBUFFER_BINDING), viewport[0], viewport[1],
                 viewport[2], viewport[3], "draw");
}

// The back buffer about to be presented, of the size the frame was drawn at
// (0: the surface's).
void capture_framebuffer(ThreadState* thread, EGLDisplay display, EGLSurface surface,
                         uint32_t frame_width, uint32_t frame_height, HeldSwapImage* hold) {
  if (thread->context == 0) return;
  auto width = static_cast<EGLint>(frame_width), height = static_cast<EGLint>(frame_height);
  if (width == 0 || height == 0) {
    NEXT(eglQuerySurface)(display, surface, EGL_WIDTH, &width);
    NEXT(eglQuerySurface)(display, surface, EGL_HEIGHT, &height);
  }
  // The last frame of a capture is read now: nothing completes it later.
  if (last_frame_of_session() || !start_async_read(thread, 0, 0, 0, width, height, "swap"))
    read_framebuffer(thread, 0, 0, 0, width, height, "swap", hold);
}

template <typename Swap>
EGLBoolean traced_swap(uint32_t id, Swap call, EGLDisplay display, EGLSurface surface,
                       const EGLint* rects, EGLint n_rects, bool with_damage) {
  if (recording()) g_swapped_generation.store(g_hot.generation.load(std::memory_order_relaxed));
  // The frame's size, before the swap (a replay checks it drew the frame so).
  uint32_t width = 0, height = 0;
  bool sized = false;
  HeldSwapImage held;
  if (recording() && mode() == Mode::kFull && thread_state()->context != 0 &&
      !context_state(thread_state())->desktop_gl) {
    ThreadState* thread = thread_state();
    bool tracked = thread->draw_surface == surface && thread->surface_width != 0;
    if (tracked && !thread->surface_size_check) {
      // The frame's first draw checked the size: it holds for the frame
      // (one size query a frame: on X11 each is a round trip to the server).
      width = thread->surface_width;
      height = thread->surface_height;
      sized = true;
    } else {
      // No draw or clear on the window this frame (a blit, or nothing): the
      // window's size if the buffers have it by now, else the one they had.
      sized = query_surface_size(display, surface, &width, &height);
      if (sized && tracked &&
          (width != thread->surface_width || height != thread->surface_height) &&
          !buffers_have_size(thread, width, height)) {
        width = thread->surface_width;
        height = thread->surface_height;
      }
    }
    // What was read during the frame is done by now (or soon): written out
    // here, so no more than the last swap's read is ever in flight at a
    // capture's end.
    complete_pending_reads(thread_state());
    // The back buffer is undefined after the swap: read it before.
    if (capture_framebuffer_on_swap())
      capture_framebuffer(thread_state(), display, surface, sized ? width : 0, sized ? height : 0,
                          &held);
  }
  CallRecorder rec(id);
  EGLBoolean result = call();
  if (rec.finish()) {
    rec.args().uint_value(handle_bits(display));
    rec.args().uint_value(handle_bits(surface));
    if (with_damage) {
      rec.args().array_value(rects, int64_t{n_rects} * 4);
      rec.args().sint_value(n_rects);
    }
    rec.ret().uint_value(result);
    if (sized) record_surface_size(rec, width, height);
    // The next frame's first draw checks whether the window was resized.
    rec.thread()->surface_size_check =
        mode() == Mode::kFull && rec.thread()->draw_surface != nullptr;
    rec.commit();
    write_held_image(rec.thread(), held);
    end_frame(rec.thread(), rec.seq());
  }
  live_switch_point(true);
  return result;
}

// --- frames of off-screen programs --------------------------------------------

// What a frame ended by glFinish rendered: the bound draw framebuffer, read
// now (glFinish has waited for the rendering already). Framebuffer 0 is read
// whole (its surface), an FBO within the viewport, as after draws.
void capture_finished_frame(ThreadState* thread) {
  GLint framebuffer = driver_integer(GL_FRAMEBUFFER_BINDING);
  GLint region[4] = {0, 0, 0, 0};
  if (framebuffer == 0) {
    EGLSurface surface = NEXT(eglGetCurrentSurface)(EGL_DRAW);
    if (surface == EGL_NO_SURFACE) return;  // surfaceless: nothing to read
    EGLDisplay display = NEXT(eglGetCurrentDisplay)();
    NEXT(eglQuerySurface)(display, surface, EGL_WIDTH, &region[2]);
    NEXT(eglQuerySurface)(display, surface, EGL_HEIGHT, &region[3]);
  } else {
    NEXT(glGetIntegerv)(GL_VIEWPORT, region);
  }
  read_framebuffer(thread, framebuffer, region[0], region[1], region[2], region[3], "finish");
}

// --- client memory at draws --------------------------------------------------

// Writes the client-side vertex arrays that vertices [first, first+count)
// and `instances` instances read.
void record_client_arrays(CallRecorder& rec, int64_t first, int64_t count, int64_t instances) {
  ContextState* state = context_state(rec.thread());
  if (state->client_mask == 0 || count <= 0 || driver_integer(GL_VERTEX_ARRAY_BINDING) != 0) return;
  wire::Encoder& call = rec.call_encoder();
  for (int i = 0; i < kMaxAttribs; ++i) {
    if ((state->client_mask & (1u << i)) == 0) continue;
    GLint enabled = 0, divisor = 0;
    NEXT(glGetVertexAttribiv)(static_cast<GLuint>(i), GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
    if (!enabled) continue;
    NEXT(glGetVertexAttribiv)(static_cast<GLuint>(i), GL_VERTEX_ATTRIB_ARRAY_DIVISOR, &divisor);
    const ClientAttrib& a = state->attribs[i];
    int64_t element = attrib_bytes(a);
    int64_t stride = a.stride != 0 ? a.stride : element;
    int64_t start = divisor != 0 ? 0 : first;
    int64_t vertices =
        divisor != 0 ? (std::max<int64_t>(instances, 1) + divisor - 1) / divisor : count;
    int64_t bytes = (vertices - 1) * stride + element;
    const auto* data = static_cast<const uint8_t*>(a.pointer) + start * stride;
    size_t m = call.begin_nested(schema::call::kClientArrays);
    call.uint_field(schema::client_array::kIndex, static_cast<uint64_t>(i));
    call.uint_field(schema::client_array::kFirst, static_cast<uint64_t>(start));
    call.uint_field(schema::client_array::kStride, static_cast<uint64_t>(stride));
    call.uint_field(schema::client_array::kPointer, handle_bits(a.pointer));
    call.fixed64_field(schema::client_array::kBlob,
                       store_blob(rec.thread(), data, static_cast<size_t>(bytes)));
    call.end_nested(m);
  }
}

// The range of vertices that `count` indices of `type` reference.
bool index_range(const void* indices, GLsizei count, GLenum type, int64_t* lo, int64_t* hi) {
  const void* data = indices;
  void* mapped = nullptr;
  int64_t bytes = int64_t{count} * type_size(type);
  if (driver_integer(GL_ELEMENT_ARRAY_BUFFER_BINDING) != 0) {
    mapped = NEXT(glMapBufferRange)(GL_ELEMENT_ARRAY_BUFFER, reinterpret_cast<GLintptr>(indices),
                                    bytes, GL_MAP_READ_BIT);
    if (mapped == nullptr) return false;
    data = mapped;
  }
  *lo = INT64_MAX;
  *hi = -1;
  for (GLsizei i = 0; i < count; ++i) {
    int64_t v = type == GL_UNSIGNED_BYTE    ? static_cast<const uint8_t*>(data)[i]
                : type == GL_UNSIGNED_SHORT ? static_cast<const uint16_t*>(data)[i]
                                            : static_cast<const uint32_t*>(data)[i];
    *lo = std::min(*lo, v);
    *hi = std::max(*hi, v);
  }
  if (mapped != nullptr) NEXT(glUnmapBuffer)(GL_ELEMENT_ARRAY_BUFFER);
  return *hi >= *lo;
}

// Indices: data from client memory, or an offset when an element buffer is bound.
void record_indices(CallRecorder& rec, const void* indices, GLsizei count, GLenum type) {
  if (driver_integer(GL_ELEMENT_ARRAY_BUFFER_BINDING) != 0)
    rec.args().pointer_value(indices);
  else
    rec.args().bytes_value(indices, int64_t{count} * type_size(type));
}

void record_element_client_arrays(CallRecorder& rec, const void* indices, GLsizei count,
                                  GLenum type, GLint base_vertex, int64_t instances) {
  if (context_state(rec.thread())->client_mask == 0) return;
  int64_t lo, hi;
  if (index_range(indices, count, type, &lo, &hi))
    record_client_arrays(rec, lo + base_vertex, hi - lo + 1, instances);
}

// --- mapped buffers ------------------------------------------------------------

void remember_mapping(ThreadState* thread, GLenum target, void* pointer, int64_t offset,
                      int64_t length, GLbitfield access) {
  if (pointer == nullptr) return;
  auto& mappings = context_state(thread)->mappings;
  std::erase_if(mappings, [&](const Mapping& m) { return m.target == target; });
  mappings.push_back({target, static_cast<uint8_t*>(pointer), offset, length, access});
}

Mapping* find_mapping(ThreadState* thread, GLenum target) {
  for (auto& m : context_state(thread)->mappings)
    if (m.target == target) return &m;
  return nullptr;
}

void write_buffer_write(wire::Encoder& call, uint32_t target, int64_t offset, uint64_t blob) {
  size_t m = call.begin_nested(schema::call::kBufferWrites);
  call.uint_field(schema::buffer_write::kTarget, target);
  call.uint_field(schema::buffer_write::kOffset, static_cast<uint64_t>(offset));
  call.fixed64_field(schema::buffer_write::kBlob, blob);
  call.end_nested(m);
}

// What the app wrote into [offset, offset+length) of the mapping, as a blob,
// captured before the driver may unmap it. 0 when there is nothing to record.
uint64_t capture_mapped(ThreadState* thread, Mapping* mapping, int64_t offset, int64_t length) {
  if (mapping == nullptr || (mapping->access & GL_MAP_WRITE_BIT) == 0 || length <= 0 ||
      offset < 0 || offset + length > mapping->length)
    return 0;
  return store_blob(thread, mapping->pointer + offset, static_cast<size_t>(length));
}

GLboolean traced_unmap(uint32_t id, PFN_gltrace_glUnmapBuffer call, GLenum target) {
  // The data must be read while it is still mapped.
  ThreadState* thread = recording() ? thread_state() : nullptr;
  Mapping* mapping = thread != nullptr ? find_mapping(thread, target) : nullptr;
  uint64_t blob = 0;
  int64_t offset = 0;
  if (mapping != nullptr && (mapping->access & GL_MAP_FLUSH_EXPLICIT_BIT) == 0) {
    blob = capture_mapped(thread, mapping, 0, mapping->length);
    offset = mapping->offset;
  }
  CallRecorder rec(id);
  GLboolean result = call(target);
  if (rec.finish()) {
    rec.args().uint_value(target);
    rec.ret().uint_value(result);
    if (blob != 0) write_buffer_write(rec.call_encoder(), target, offset, blob);
    rec.commit();
  }
  if (thread != nullptr)
    std::erase_if(context_state(thread)->mappings,
                  [&](const Mapping& m) { return m.target == target; });
  return result;
}

void traced_flush(uint32_t id, PFN_gltrace_glFlushMappedBufferRange call, GLenum target,
                  GLintptr offset, GLsizeiptr length) {
  CallRecorder rec(id);
  call(target, offset, length);
  if (rec.finish()) {
    Mapping* mapping = find_mapping(rec.thread(), target);
    uint64_t blob = capture_mapped(rec.thread(), mapping, offset, length);
    rec.args().uint_value(target);
    rec.args().sint_value(offset);
    rec.args().sint_value(length);
    if (blob != 0) write_buffer_write(rec.call_encoder(), target, mapping->offset + offset, blob);
    rec.commit();
  }
}

void* traced_map_range(uint32_t id, PFN_gltrace_glMapBufferRange call, GLenum target,
                       GLintptr offset, GLsizeiptr length, GLbitfield access) {
  CallRecorder rec(id);
  void* result = call(target, offset, length, access);
  if (rec.finish()) {
    remember_mapping(rec.thread(), target, result, offset, length, access);
    rec.args().uint_value(target);
    rec.args().sint_value(offset);
    rec.args().sint_value(length);
    rec.args().uint_value(access);
    rec.ret().pointer_value(result);
    rec.commit();
  }
  return result;
}

template <typename Call>
void traced_attrib_pointer(uint32_t id, Call call, GLuint index, GLint size, GLenum type,
                           GLint normalized, bool has_normalized, GLsizei stride,
                           const void* pointer) {
  CallRecorder rec(id);
  call();
  ThreadState* thread = recording() ? thread_state() : nullptr;
  if (thread != nullptr && index < kMaxAttribs && driver_integer(GL_VERTEX_ARRAY_BINDING) == 0) {
    ContextState* state = context_state(thread);
    bool client = pointer != nullptr && driver_integer(GL_ARRAY_BUFFER_BINDING) == 0;
    if (client) {
      state->attribs[index] = {pointer, size, type, stride};
      state->client_mask |= 1u << index;
    } else {
      state->client_mask &= ~(1u << index);
    }
  }
  if (rec.finish()) {
    rec.args().uint_value(index);
    rec.args().sint_value(size);
    rec.args().uint_value(type);
    if (has_normalized) rec.args().uint_value(static_cast<uint64_t>(normalized));
    rec.args().sint_value(stride);
    // An offset into the bound buffer, or the client address whose data the
    // draws record.
    rec.args().pointer_value(pointer);
    rec.commit();
  }
}

// --- EGL images ----------------------------------------------------------------

// Targets whose client buffer is a GL object name: a replay recreates the
// image from its own copy of that object. (The KHR names have the same values.)
bool is_gl_image_target(EGLenum target) {
  return target >= EGL_GL_TEXTURE_2D && target <= EGL_GL_RENDERBUFFER;
}

// An attribute's value in an EGL attribute list (EGLint or EGLAttrib), or -1.
template <typename T>
int64_t attrib_value(const T* list, EGLint name) {
  for (const T* p = list; p != nullptr && p[0] != EGL_NONE; p += 2)
    if (p[0] == name) return static_cast<int64_t>(p[1]);
  return -1;
}

// Reads what an EGL image holds, RGBA8, into thread->pixels: a texture of
// ours is bound to the image, attached to a framebuffer of ours and read
// (the app's state put back: ReadBackScope, and the 2D texture binding).
// nullptr on success, else why not.
const char* read_image_pixels(ThreadState* thread, EGLImage image, int64_t width_hint,
                              int64_t height_hint, GLsizei* width, GLsizei* height) {
  if (thread->context == 0) return "no context was current";
  int version = context_state(thread)->client_version;
  if (version < 2) return "an ES 1 context was current";
  auto target_texture = NEXT(glEGLImageTargetTexture2DOES);
  if (target_texture == nullptr) return "the driver has no glEGLImageTargetTexture2DOES";
  ReadBackScope scope(thread);
  GLint texture_binding = driver_integer(GL_TEXTURE_BINDING_2D);
  const char* failure = nullptr;
  GLuint texture = 0, framebuffer = 0;
  NEXT(glGenTextures)(1, &texture);
  NEXT(glBindTexture)(GL_TEXTURE_2D, texture);
  target_texture(GL_TEXTURE_2D, static_cast<GLeglImageOES>(image));
  if (NEXT(glGetError)() != GL_NO_ERROR) failure = "the image cannot back a GL_TEXTURE_2D";
  // Its size: asked of the texture where ES 3.1 can, else the attributes.
  GLint w = static_cast<GLint>(width_hint), h = static_cast<GLint>(height_hint);
  if (failure == nullptr && version >= 3 && NEXT(glGetTexLevelParameteriv) != nullptr) {
    GLint qw = 0, qh = 0;
    NEXT(glGetTexLevelParameteriv)(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &qw);
    NEXT(glGetTexLevelParameteriv)(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &qh);
    if (NEXT(glGetError)() == GL_NO_ERROR && qw > 0 && qh > 0) {
      w = qw;
      h = qh;
    }
  }
  if (failure == nullptr && (w <= 0 || h <= 0 || int64_t{w} * h > (int64_t{1} << 26)))
    failure = "the image's size is unknown";
  if (failure == nullptr) {
    NEXT(glGenFramebuffers)(1, &framebuffer);
    scope.prepare(framebuffer, 0);
    NEXT(glFramebufferTexture2D)
    (scope.framebuffer_target(), GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    if (NEXT(glCheckFramebufferStatus)(scope.framebuffer_target()) != GL_FRAMEBUFFER_COMPLETE)
      failure = "the image cannot be a color attachment";
  }
  if (failure == nullptr) {
    thread->pixels.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
    NEXT(glReadPixels)(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, thread->pixels.data());
    if (NEXT(glGetError)() != GL_NO_ERROR) failure = "glReadPixels of the image failed";
  }
  if (framebuffer != 0) NEXT(glDeleteFramebuffers)(1, &framebuffer);
  NEXT(glBindTexture)(GL_TEXTURE_2D, static_cast<GLuint>(texture_binding));
  NEXT(glDeleteTextures)(1, &texture);
  *width = w;
  *height = h;
  return failure;
}

// Call.image_source: the image's pixels (or why not), so a replay can
// recreate an image whose source it cannot.
void record_image_source(CallRecorder& rec, EGLImage image, int64_t width_hint,
                         int64_t height_hint) {
  ThreadState* thread = rec.thread();
  GLsizei width = 0, height = 0;
  const char* failure = !capture_texture_data() ? "texture data capture is off"
                                                : read_image_pixels(thread, image, width_hint,
                                                                    height_hint, &width, &height);
  wire::Encoder& call = rec.call_encoder();
  size_t m = call.begin_nested(schema::call::kImageSource);
  if (failure == nullptr) {
    call.uint_field(schema::image_source::kWidth, static_cast<uint64_t>(width));
    call.uint_field(schema::image_source::kHeight, static_cast<uint64_t>(height));
    call.fixed64_field(schema::image_source::kBlob,
                       store_blob(thread, thread->pixels.data(), thread->pixels.size()));
  } else {
    call.string_field(schema::image_source::kNotCaptured, failure);
  }
  call.end_nested(m);
}

// GLTRACE_IMAGE_PIXELS=all: images of GL objects get their pixels recorded
// too (what each image held when it was made, for a reader of the trace).
bool image_pixels_of_gl_objects() {
  static const bool all = [] {
    const char* value = env_get("GLTRACE_IMAGE_PIXELS");
    return value != nullptr && strcmp(value, "all") == 0;
  }();
  return all;
}

template <typename T, typename Create>
EGLImage traced_create_image(uint32_t id, Create create, EGLDisplay dpy, EGLContext ctx,
                             EGLenum target, EGLClientBuffer buffer, const T* attrib_list) {
  CallRecorder rec(id);
  EGLImage result = create();
  if (rec.finish()) {
    rec.args().uint_value(handle_bits(dpy));
    rec.args().uint_value(handle_bits(ctx));
    rec.args().uint_value(target);
    rec.args().uint_value(handle_bits(buffer));
    rec.args().attrib_list_value(attrib_list);
    rec.ret().uint_value(handle_bits(result));
    // An image of a GL object is recreated from the replay's copy of it;
    // any other source is gone by replay time: its pixels are kept.
    if (result != EGL_NO_IMAGE && mode() == Mode::kFull &&
        (!is_gl_image_target(target) || image_pixels_of_gl_objects()))
      record_image_source(rec, result, attrib_value(attrib_list, EGL_WIDTH),
                          attrib_value(attrib_list, EGL_HEIGHT));
    rec.commit();
  }
  return result;
}

// Records an eglMakeCurrent that bound `ctx` (a context new to the trace
// gets its Context record first).
void record_make_current(CallRecorder& rec, EGLDisplay dpy, EGLSurface draw, EGLSurface read,
                         EGLContext ctx, EGLBoolean result) {
  ThreadState* thread = rec.thread();
  if (result) {
    uint32_t index = 0;
    if (ctx != EGL_NO_CONTEXT) {
      bool created = false;
      index = context_index(handle_bits(ctx), &created);
      if (created) write_context_record(thread, index, dpy, ctx, draw);
    }
    thread->context = index;
    rec.set_context(index);
    EGLint version = 0, client_type = 0;
    if (ctx != EGL_NO_CONTEXT &&
        NEXT(eglQueryContext)(dpy, ctx, EGL_CONTEXT_CLIENT_VERSION, &version))
      context_state(thread)->client_version = version;
    if (ctx != EGL_NO_CONTEXT &&
        NEXT(eglQueryContext)(dpy, ctx, EGL_CONTEXT_CLIENT_TYPE, &client_type))
      context_state(thread)->desktop_gl = client_type == EGL_OPENGL_API;
    record_bound_surface(rec, dpy, ctx != EGL_NO_CONTEXT ? draw : EGL_NO_SURFACE);
  }
  rec.args().uint_value(handle_bits(dpy));
  rec.args().uint_value(handle_bits(draw));
  rec.args().uint_value(handle_bits(read));
  rec.args().uint_value(handle_bits(ctx));
  rec.ret().uint_value(result);
  rec.commit();
}

}  // namespace

void reset_context_states() {
  std::lock_guard<std::mutex> lock(g_contexts_mutex);
  g_contexts = new ContextStates();
}

void record_current_binding() {
  EGLDisplay dpy = NEXT(eglGetCurrentDisplay)();
  EGLContext ctx = NEXT(eglGetCurrentContext)();
  EGLSurface draw = NEXT(eglGetCurrentSurface)(EGL_DRAW);
  EGLSurface read = NEXT(eglGetCurrentSurface)(EGL_READ);
  thread_state();  // joins the session
  CallRecorder rec(api::kFn_eglMakeCurrent);
  if (!rec.finish()) return;
  rec.set_synthetic();
  record_make_current(rec, dpy, draw, read, ctx, EGL_TRUE);
}

// --- the wrappers ------------------------------------------------------------

EGLBoolean trace_eglMakeCurrent(EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext ctx) {
  // A read-back in flight needs the context that is still current.
  if (recording() && mode() == Mode::kFull && thread_state()->context != 0)
    complete_pending_reads(thread_state());
  CallRecorder rec(api::kFn_eglMakeCurrent);
  EGLBoolean result = NEXT(eglMakeCurrent)(dpy, draw, read, ctx);
  if (rec.finish()) record_make_current(rec, dpy, draw, read, ctx, result);
  live_switch_point(false);
  return result;
}

EGLBoolean trace_eglSwapBuffers(EGLDisplay dpy, EGLSurface surface) {
  return traced_swap(
      api::kFn_eglSwapBuffers, [&] { return NEXT(eglSwapBuffers)(dpy, surface); }, dpy, surface,
      nullptr, 0, false);
}

EGLBoolean trace_eglSwapBuffersWithDamageKHR(EGLDisplay dpy, EGLSurface surface,
                                             const EGLint* rects, EGLint n_rects) {
  return traced_swap(
      api::kFn_eglSwapBuffersWithDamageKHR,
      [&] { return NEXT(eglSwapBuffersWithDamageKHR)(dpy, surface, rects, n_rects); }, dpy, surface,
      rects, n_rects, true);
}

EGLBoolean trace_eglSwapBuffersWithDamageEXT(EGLDisplay dpy, EGLSurface surface,
                                             const EGLint* rects, EGLint n_rects) {
  return traced_swap(
      api::kFn_eglSwapBuffersWithDamageEXT,
      [&] { return NEXT(eglSwapBuffersWithDamageEXT)(dpy, surface, rects, n_rects); }, dpy, surface,
      rects, n_rects, true);
}

GLenum trace_glGetError() {
  CallRecorder rec(api::kFn_glGetError);
  // Error mode read the error already; the app still gets it, once.
  ThreadState* thread = recording() ? thread_state() : nullptr;
  GLenum result;
  if (thread != nullptr && thread->pending_gl_error != 0) {
    result = thread->pending_gl_error;
    thread->pending_gl_error = 0;
  } else {
    result = NEXT(glGetError)();
  }
  if (rec.finish()) {
    rec.ret().uint_value(result);
    rec.commit();
  }
  return result;
}

void trace_glShaderSource(GLuint shader, GLsizei count, const GLchar* const* string,
                          const GLint* length) {
  CallRecorder rec(api::kFn_glShaderSource);
  NEXT(glShaderSource)(shader, count, string, length);
  if (rec.finish()) {
    rec.args().uint_value(shader);
    rec.args().sint_value(count);
    rec.args().strings_value(string, count, length);
    rec.args().array_value(length, count);
    rec.commit();
  }
}

void trace_glVertexAttribPointer(GLuint index, GLint size, GLenum type, GLboolean normalized,
                                 GLsizei stride, const void* pointer) {
  traced_attrib_pointer(
      api::kFn_glVertexAttribPointer,
      [&] {
        NEXT(glVertexAttribPointer)
        (index, size, type, normalized, stride, pointer);
      },
      index, size, type, normalized, true, stride, pointer);
}

void trace_glVertexAttribIPointer(GLuint index, GLint size, GLenum type, GLsizei stride,
                                  const void* pointer) {
  traced_attrib_pointer(
      api::kFn_glVertexAttribIPointer,
      [&] {
        NEXT(glVertexAttribIPointer)
        (index, size, type, stride, pointer);
      },
      index, size, type, 0, false, stride, pointer);
}

void trace_glDrawArrays(GLenum mode, GLint first, GLsizei count) {
  CallRecorder rec(api::kFn_glDrawArrays);
  NEXT(glDrawArrays)(mode, first, count);
  if (rec.finish()) {
    rec.args().uint_value(mode);
    rec.args().sint_value(first);
    rec.args().sint_value(count);
    record_client_arrays(rec, first, count, 1);
    record_surface_resize(rec);
    rec.commit();
    capture_after_draw(rec.thread());
  }
}

void trace_glDrawArraysInstanced(GLenum mode, GLint first, GLsizei count, GLsizei instances) {
  CallRecorder rec(api::kFn_glDrawArraysInstanced);
  NEXT(glDrawArraysInstanced)(mode, first, count, instances);
  if (rec.finish()) {
    rec.args().uint_value(mode);
    rec.args().sint_value(first);
    rec.args().sint_value(count);
    rec.args().sint_value(instances);
    record_client_arrays(rec, first, count, instances);
    record_surface_resize(rec);
    rec.commit();
    capture_after_draw(rec.thread());
  }
}

// The glDrawElements family: (mode, [start, end,] count, type, indices,
// [instances,] [basevertex]).
#define TRACE_DRAW_ELEMENTS(name, params, call_args, range, instances, base_vertex) \
  void trace_##name params {                                                        \
    CallRecorder rec(api::kFn_##name);                                              \
    NEXT(name) call_args;                                                           \
    if (rec.finish()) {                                                             \
      rec.args().uint_value(mode);                                                  \
      range;                                                                        \
      rec.args().sint_value(count);                                                 \
      rec.args().uint_value(type);                                                  \
      record_indices(rec, indices, count, type);                                    \
      instances;                                                                    \
      base_vertex;                                                                  \
      record_element_client_arrays(rec, indices, count, type, BASE, INSTANCES);     \
      record_surface_resize(rec);                                                   \
      rec.commit();                                                                 \
      capture_after_draw(rec.thread());                                             \
    }                                                                               \
  }

#define BASE 0
#define INSTANCES 1
TRACE_DRAW_ELEMENTS(glDrawElements, (GLenum mode, GLsizei count, GLenum type, const void* indices),
                    (mode, count, type, indices), , , )
TRACE_DRAW_ELEMENTS(glDrawRangeElements,
                    (GLenum mode, GLuint start, GLuint end, GLsizei count, GLenum type,
                     const void* indices),
                    (mode, start, end, count, type, indices),
                    (rec.args().uint_value(start), rec.args().uint_value(end)), , )
#undef INSTANCES
#define INSTANCES instancecount
TRACE_DRAW_ELEMENTS(glDrawElementsInstanced,
                    (GLenum mode, GLsizei count, GLenum type, const void* indices,
                     GLsizei instancecount),
                    (mode, count, type, indices, instancecount), ,
                    rec.args().sint_value(instancecount), )
#undef BASE
#define BASE basevertex
TRACE_DRAW_ELEMENTS(glDrawElementsInstancedBaseVertex,
                    (GLenum mode, GLsizei count, GLenum type, const void* indices,
                     GLsizei instancecount, GLint basevertex),
                    (mode, count, type, indices, instancecount, basevertex), ,
                    rec.args().sint_value(instancecount), rec.args().sint_value(basevertex))
#undef INSTANCES
#define INSTANCES 1
TRACE_DRAW_ELEMENTS(glDrawElementsBaseVertex,
                    (GLenum mode, GLsizei count, GLenum type, const void* indices,
                     GLint basevertex),
                    (mode, count, type, indices, basevertex), , , rec.args().sint_value(basevertex))
TRACE_DRAW_ELEMENTS(glDrawRangeElementsBaseVertex,
                    (GLenum mode, GLuint start, GLuint end, GLsizei count, GLenum type,
                     const void* indices, GLint basevertex),
                    (mode, start, end, count, type, indices, basevertex),
                    (rec.args().uint_value(start), rec.args().uint_value(end)), ,
                    rec.args().sint_value(basevertex))
#undef BASE
#undef INSTANCES

// A program that never presents (rendering into FBOs or pbuffers, glmark2
// --off-screen) has no swaps to count frames by. Until the program swaps
// for the first time in the session, a glFinish ends a frame when its
// context drew (a glDraw* call) since its last frame end: uploads and
// helper contexts that only wait do not make frames. The call carries
// ends_frame, so a replay needs no rule of its own.
void trace_glFinish() {
  CallRecorder rec(api::kFn_glFinish);
  NEXT(glFinish)();
  if (!rec.finish()) return;
  ThreadState* thread = rec.thread();
  bool ends_frame = false;
  if (thread->context != 0 &&
      g_swapped_generation.load(std::memory_order_relaxed) != thread->generation) {
    ContextState* state = context_state(thread);
    ends_frame = state->drew;
    state->drew = false;
  }
  if (ends_frame) rec.call_encoder().uint_field(schema::call::kEndsFrame, 1);
  rec.commit();
  if (!ends_frame) return;
  if (mode() == Mode::kFull) {
    complete_pending_reads(thread);  // the frame's after-draw images, before its end
    if (capture_framebuffer_on_swap()) capture_finished_frame(thread);
  }
  end_frame(thread, rec.seq());
}

void* trace_glMapBufferRange(GLenum target, GLintptr offset, GLsizeiptr length, GLbitfield access) {
  return traced_map_range(api::kFn_glMapBufferRange, NEXT(glMapBufferRange), target, offset, length,
                          access);
}
void* trace_glMapBufferRangeEXT(GLenum target, GLintptr offset, GLsizeiptr length,
                                GLbitfield access) {
  return traced_map_range(api::kFn_glMapBufferRangeEXT, NEXT(glMapBufferRangeEXT), target, offset,
                          length, access);
}

void* trace_glMapBufferOES(GLenum target, GLenum access) {
  CallRecorder rec(api::kFn_glMapBufferOES);
  void* result = NEXT(glMapBufferOES)(target, access);
  if (rec.finish()) {
    GLint size = 0;
    NEXT(glGetBufferParameteriv)(target, GL_BUFFER_SIZE, &size);
    remember_mapping(rec.thread(), target, result, 0, size,
                     access == GL_WRITE_ONLY_OES ? GL_MAP_WRITE_BIT : 0);
    rec.args().uint_value(target);
    rec.args().uint_value(access);
    rec.ret().pointer_value(result);
    rec.commit();
  }
  return result;
}

void trace_glFlushMappedBufferRange(GLenum target, GLintptr offset, GLsizeiptr length) {
  traced_flush(api::kFn_glFlushMappedBufferRange, NEXT(glFlushMappedBufferRange), target, offset,
               length);
}
void trace_glFlushMappedBufferRangeEXT(GLenum target, GLintptr offset, GLsizeiptr length) {
  traced_flush(api::kFn_glFlushMappedBufferRangeEXT, NEXT(glFlushMappedBufferRangeEXT), target,
               offset, length);
}

GLboolean trace_glUnmapBuffer(GLenum target) {
  return traced_unmap(api::kFn_glUnmapBuffer, NEXT(glUnmapBuffer), target);
}
GLboolean trace_glUnmapBufferOES(GLenum target) {
  return traced_unmap(api::kFn_glUnmapBufferOES, NEXT(glUnmapBufferOES), target);
}

EGLImage trace_eglCreateImage(EGLDisplay dpy, EGLContext ctx, EGLenum target,
                              EGLClientBuffer buffer, const EGLAttrib* attrib_list) {
  return traced_create_image(
      api::kFn_eglCreateImage,
      [&] { return NEXT(eglCreateImage)(dpy, ctx, target, buffer, attrib_list); }, dpy, ctx, target,
      buffer, attrib_list);
}

EGLImageKHR trace_eglCreateImageKHR(EGLDisplay dpy, EGLContext ctx, EGLenum target,
                                    EGLClientBuffer buffer, const EGLint* attrib_list) {
  return traced_create_image(
      api::kFn_eglCreateImageKHR,
      [&] { return NEXT(eglCreateImageKHR)(dpy, ctx, target, buffer, attrib_list); }, dpy, ctx,
      target, buffer, attrib_list);
}

// The calls that use a config record all its attributes.
EGLSurface trace_eglCreateWindowSurface(EGLDisplay dpy, EGLConfig config, EGLNativeWindowType win,
                                        const EGLint* attrib_list) {
  CallRecorder rec(api::kFn_eglCreateWindowSurface);
  EGLSurface result = NEXT(eglCreateWindowSurface)(dpy, config, win, attrib_list);
  if (rec.finish()) {
    rec.args().uint_value(handle_bits(dpy));
    rec.args().uint_value(handle_bits(config));
    rec.args().uint_value(handle_bits(win));
    rec.args().attrib_list_value(attrib_list);
    rec.ret().uint_value(handle_bits(result));
    if (result != EGL_NO_SURFACE) record_config_attribs(rec, dpy, config);
    rec.commit();
  }
  return result;
}

template <typename Attrib, typename Create>
EGLSurface traced_platform_window_surface(uint32_t id, Create create, EGLDisplay dpy,
                                          EGLConfig config, void* native_window,
                                          const Attrib* attrib_list) {
  CallRecorder rec(id);
  EGLSurface result = create();
  if (rec.finish()) {
    rec.args().uint_value(handle_bits(dpy));
    rec.args().uint_value(handle_bits(config));
    rec.args().unknown_value(native_window, "no size in the registry");
    rec.args().attrib_list_value(attrib_list);
    rec.ret().uint_value(handle_bits(result));
    if (result != EGL_NO_SURFACE) record_config_attribs(rec, dpy, config);
    rec.commit();
  }
  return result;
}

EGLSurface trace_eglCreatePlatformWindowSurface(EGLDisplay dpy, EGLConfig config,
                                                void* native_window, const EGLAttrib* attrib_list) {
  return traced_platform_window_surface(
      api::kFn_eglCreatePlatformWindowSurface,
      [&] { return NEXT(eglCreatePlatformWindowSurface)(dpy, config, native_window, attrib_list); },
      dpy, config, native_window, attrib_list);
}

EGLSurface trace_eglCreatePlatformWindowSurfaceEXT(EGLDisplay dpy, EGLConfig config,
                                                   void* native_window, const EGLint* attrib_list) {
  return traced_platform_window_surface(
      api::kFn_eglCreatePlatformWindowSurfaceEXT,
      [&] {
        return NEXT(eglCreatePlatformWindowSurfaceEXT)(dpy, config, native_window, attrib_list);
      },
      dpy, config, native_window, attrib_list);
}

EGLSurface trace_eglCreatePbufferSurface(EGLDisplay dpy, EGLConfig config,
                                         const EGLint* attrib_list) {
  CallRecorder rec(api::kFn_eglCreatePbufferSurface);
  EGLSurface result = NEXT(eglCreatePbufferSurface)(dpy, config, attrib_list);
  if (rec.finish()) {
    rec.args().uint_value(handle_bits(dpy));
    rec.args().uint_value(handle_bits(config));
    rec.args().attrib_list_value(attrib_list);
    rec.ret().uint_value(handle_bits(result));
    if (result != EGL_NO_SURFACE) record_config_attribs(rec, dpy, config);
    rec.commit();
  }
  return result;
}

EGLContext trace_eglCreateContext(EGLDisplay dpy, EGLConfig config, EGLContext share_context,
                                  const EGLint* attrib_list) {
  CallRecorder rec(api::kFn_eglCreateContext);
  EGLContext result = NEXT(eglCreateContext)(dpy, config, share_context, attrib_list);
  if (rec.finish()) {
    rec.args().uint_value(handle_bits(dpy));
    rec.args().uint_value(handle_bits(config));
    rec.args().uint_value(handle_bits(share_context));
    rec.args().attrib_list_value(attrib_list);
    rec.ret().uint_value(handle_bits(result));
    // EGL_NO_CONFIG_KHR (no config) has no attributes.
    if (result != EGL_NO_CONTEXT && config != nullptr) record_config_attribs(rec, dpy, config);
    rec.commit();
  }
  return result;
}

void trace_glClear(GLbitfield mask) {
  CallRecorder rec(api::kFn_glClear);
  NEXT(glClear)(mask);
  if (rec.finish()) {
    rec.args().uint_value(mask);
    record_surface_resize(rec);
    rec.commit();
  }
}

// Apps that draw off-screen reach their window by a blit.
void trace_glBlitFramebuffer(GLint srcX0, GLint srcY0, GLint srcX1, GLint srcY1, GLint dstX0,
                             GLint dstY0, GLint dstX1, GLint dstY1, GLbitfield mask,
                             GLenum filter) {
  CallRecorder rec(api::kFn_glBlitFramebuffer);
  NEXT(glBlitFramebuffer)(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1, mask, filter);
  if (rec.finish()) {
    for (GLint v : {srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1})
      rec.args().sint_value(v);
    rec.args().uint_value(mask);
    rec.args().uint_value(filter);
    record_surface_resize(rec);
    rec.commit();
  }
}

}  // namespace gltrace::trace
