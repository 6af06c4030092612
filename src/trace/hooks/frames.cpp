// Frame hooks: swaps end frames (the back buffer read before, the frame's
// size recorded), glFinish and glReadPixels end the frames of programs that
// never swap, and the first draw, clear or blit of a frame notices a resized
// window. With capture after draws, what each draw rendered is read back.
#define GL_GLES_PROTOTYPES 0
#include "trace/hooks/frames.h"

#include <GL/glxtokens.h>

#include <atomic>
#include <cstdlib>

#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/trace_decls.h"
#include "trace/compsize.h"
#include "trace/hooks/context_state.h"
#include "trace/hooks/hook_state.h"
#include "trace/hooks/read_back.h"
#include "trace/live.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/window_watch.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

// The session (generation) in which the program swapped first: from then
// on only swaps end frames (see record_offscreen_frame_end). 0: none yet.
std::atomic<uint32_t> g_swapped_generation{0};

void complete_reads_at_exit_once();

void write_image(ThreadState* thread, uint64_t frame, uint64_t seq, GLsizei width, GLsizei height,
                 const void* pixels, const char* origin) {
  AppendGuard guard(thread);  // read-backs happen outside any call's window
  if (!guard.ok()) return;
  uint64_t blob = store_blob(thread, pixels, static_cast<size_t>(width) * height * 4);
  wire::Encoder body;
  schema::image::set_frame(body, frame);
  schema::image::set_seq(body, seq);
  schema::image::set_width(body, static_cast<uint64_t>(width));
  schema::image::set_height(body, static_cast<uint64_t>(height));
  schema::image::set_blob(body, blob);
  schema::image::set_origin(body, origin);
  schema::image::set_context(body, thread->context);
  append_record(thread, schema::record::kImage, body.data(), body.size());
}

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

// ES 3: starts reading a framebuffer region into a pack buffer (the oldest
// read in flight is completed first when all are busy).
bool start_async_read(ThreadState* thread, GLint source_fb, GLint x, GLint y, GLsizei width,
                      GLsizei height, const char* origin) {
  TracedContext* state = context_state(thread);
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

// The back buffer about to be presented, of the size the frame was drawn at
// (0: the surface's).
void capture_framebuffer(ThreadState* thread, const Drawable& drawable, uint32_t frame_width,
                         uint32_t frame_height, HeldSwapImage* hold) {
  if (thread->context == 0) return;
  if ((frame_width == 0 || frame_height == 0) &&
      !query_surface_size(drawable, &frame_width, &frame_height))
    return;
  auto width = static_cast<GLsizei>(frame_width), height = static_cast<GLsizei>(frame_height);
  // The last frame of a capture is read now: nothing completes it later.
  if (last_frame_of_session() || !start_async_read(thread, 0, 0, 0, width, height, "swap"))
    read_framebuffer(thread, 0, 0, 0, width, height, "swap", hold);
}

Drawable thread_drawable(const ThreadState* thread) {
  return {thread->draw_display, thread->draw_surface, thread->draw_glx};
}

// Whether the thread's window, watched, still has the size last recorded:
// no query needed (its answer would be that size).
bool surface_size_unchanged(const ThreadState* thread) {
  return window_size_known(thread->surface_watch, thread->draw_surface, thread->surface_width,
                           thread->surface_height);
}

// At a draw, clear or blit: the first one of a frame on the default framebuffer
// is where the driver sizes a window's buffers, so when the app resized its
// window since the swap, the new size goes with that call. eglQuerySurface
// answers the window's size, not its buffers': some drivers (Mesa's software
// X11 path) keep the buffers they made at eglMakeCurrent until the first
// swap, so the buffers are checked to have the new size (a pixel inside,
// none beyond: one-pixel reads, once per resize). On X11 eglQuerySurface is
// a round trip to the server: a watched window (window_watch.h) is asked
// only when its watch says its size is not the recorded one.
void check_surface_resize(CallRecorder& rec) {
  ThreadState* thread = rec.thread();
  if (!thread->surface_size_check) return;
  if (driver_integer(GL_FRAMEBUFFER_BINDING) != 0) return;  // not the window yet
  thread->surface_size_check = false;
  if (surface_size_unchanged(thread)) return;
  uint32_t width = 0, height = 0;
  if (!query_surface_size(thread_drawable(thread), &width, &height) ||
      (width == thread->surface_width && height == thread->surface_height))
    return;
  if (buffers_have_size(thread, width, height)) record_surface_size(rec, width, height);
}

// What a draw call just rendered: the bound draw framebuffer, in the viewport.
void capture_drawn(CallRecorder* recorded) {
  if (recorded == nullptr) {
    note_unrecorded_draw();  // live tracing: may join at the next glFinish
    return;
  }
  ThreadState* thread = recorded->thread();
  if (thread->context != 0) context_state(thread)->drew = true;
  if (mode() != Mode::kFull || !capture_framebuffer_on_draw() || thread->context == 0) return;
  GLint viewport[4] = {0, 0, 0, 0};
  NEXT(glGetIntegerv)(GL_VIEWPORT, viewport);
  capture_region(thread, driver_integer(GL_FRAMEBUFFER_BINDING), viewport[0], viewport[1],
                 viewport[2], viewport[3], "draw");
}

// The frame's size, before the swap (a replay checks it drew the frame so),
// and the back buffer, undefined after the swap.
void read_back_before_swap(SwapFrame& state, const Drawable& drawable) {
  if (recording()) g_swapped_generation.store(g_hot.generation.load(std::memory_order_relaxed));
  if (!recording() || mode() != Mode::kFull || thread_state()->context == 0) return;
  ThreadState* thread = thread_state();
  bool tracked = thread->draw_surface == drawable.surface && thread->draw_glx == drawable.glx &&
                 thread->surface_width != 0;
  if (tracked && (!thread->surface_size_check || surface_size_unchanged(thread))) {
    // The frame's first draw checked the size: it holds for the frame (one
    // size query a frame at most: on X11 each is a round trip to the
    // server). Or the window, watched, still has the recorded size.
    state.width = thread->surface_width;
    state.height = thread->surface_height;
    state.sized = true;
  } else {
    // No draw or clear on the window this frame (a blit, or nothing): the
    // window's size if the buffers have it by now, else the one they had.
    state.sized = query_surface_size(drawable, &state.width, &state.height);
    if (state.sized && tracked &&
        (state.width != thread->surface_width || state.height != thread->surface_height) &&
        !buffers_have_size(thread, state.width, state.height)) {
      state.width = thread->surface_width;
      state.height = thread->surface_height;
    }
  }
  // What was read during the frame is done by now (or soon): written out
  // here, so no more than the last swap's read is ever in flight at a
  // capture's end.
  complete_pending_reads(thread);
  if (capture_framebuffer_on_swap()) {
    complete_reads_at_exit_once();
    capture_framebuffer(thread, drawable, state.sized ? state.width : 0,
                        state.sized ? state.height : 0, &state.held);
  }
}

void record_swap_size(CallRecorder& rec, const SwapFrame& state) {
  if (state.sized) record_surface_size(rec, state.width, state.height);
  // The next frame's first draw checks whether the window was resized.
  ThreadState* thread = rec.thread();
  thread->surface_size_check =
      mode() == Mode::kFull && thread->draw_surface != nullptr && !thread->draw_surface_fixed;
}

void end_swapped_frame(CallRecorder* recorded, const SwapFrame& state) {
  if (recorded != nullptr) {
    write_held_image(recorded->thread(), state.held);
    end_frame(recorded->thread(), recorded->seq());
  }
  live_switch_point(true);
}

// What a frame ended by glFinish rendered: the bound draw framebuffer, read
// now (glFinish has waited for the rendering already). Framebuffer 0 is read
// whole (its surface), an FBO within the viewport, as after draws.
void capture_finished_frame(ThreadState* thread) {
  GLint framebuffer = driver_integer(GL_FRAMEBUFFER_BINDING);
  GLint region[4] = {0, 0, 0, 0};
  if (framebuffer == 0) {
    Drawable drawable = thread_drawable(thread);
    if (!drawable.glx) {
      drawable.display = NEXT(eglGetCurrentDisplay)();
      drawable.surface = NEXT(eglGetCurrentSurface)(EGL_DRAW);
    }
    uint32_t width = 0, height = 0;
    if (!query_surface_size(drawable, &width, &height)) return;  // surfaceless: nothing to read
    region[2] = static_cast<GLint>(width);
    region[3] = static_cast<GLint>(height);
  } else {
    NEXT(glGetIntegerv)(GL_VIEWPORT, region);
  }
  read_framebuffer(thread, framebuffer, region[0], region[1], region[2], region[3], "finish");
}

}  // namespace

bool query_surface_size(const Drawable& drawable, uint32_t* width, uint32_t* height) {
  if (drawable.surface == nullptr) return false;
  if (drawable.glx) {
    // GLX 1.3's query (a round trip to the X server, as EGL's on X11).
    auto* display = static_cast<Display*>(drawable.display);
    auto xid = static_cast<GLXDrawable>(reinterpret_cast<uintptr_t>(drawable.surface));
    unsigned int w = 0, h = 0;
    NEXT(glXQueryDrawable)(display, xid, GLX_WIDTH, &w);
    NEXT(glXQueryDrawable)(display, xid, GLX_HEIGHT, &h);
    if (w == 0 || h == 0) return false;
    *width = w;
    *height = h;
    return true;
  }
  EGLint w = 0, h = 0;
  if (!NEXT(eglQuerySurface)(drawable.display, drawable.surface, EGL_WIDTH, &w) ||
      !NEXT(eglQuerySurface)(drawable.display, drawable.surface, EGL_HEIGHT, &h) || w <= 0 ||
      h <= 0)
    return false;
  *width = static_cast<uint32_t>(w);
  *height = static_cast<uint32_t>(h);
  return true;
}

void record_surface_size(CallRecorder& rec, uint32_t width, uint32_t height) {
  ThreadState* thread = rec.thread();
  thread->surface_width = width;
  thread->surface_height = height;
  schema::call::set_surface_width(rec.call_encoder(), width);
  schema::call::set_surface_height(rec.call_encoder(), height);
}

void complete_pending_reads(ThreadState* thread) {
  TracedContext* state = context_state(thread);
  for (size_t k = 0; k < kReadsInFlight; ++k)
    complete_read(thread, state->reads[(state->next_read + k) % kReadsInFlight]);
}

namespace {

// An app that exits with its context still current (no eglMakeCurrent, no
// eglTerminate: most small programs) leaves its last swap's read in flight,
// and its last frame would have no image. Completed at exit, on the exiting
// thread, by an atexit handler registered at the first read: after the
// driver's own (Mesa's, registered at eglGetDisplay, terminates its
// displays), so it runs first. Registered from this library, it is dropped
// if the library is unloaded.
void complete_reads_at_exit() {
  if (!recording() || mode() != Mode::kFull) return;
  ThreadState* thread = thread_state();
  if (thread->context != 0 && !thread->busy.load(std::memory_order_acquire))
    complete_pending_reads(thread);
}

void complete_reads_at_exit_once() {
  static std::atomic<bool> registered{false};
  if (!registered.exchange(true)) atexit(complete_reads_at_exit);
}

}  // namespace

// --- swaps -----------------------------------------------------------------------

bool read_back_before_swap(SwapFrame& state, EGLDisplay& dpy, EGLSurface& surface,
                           EGLBoolean& /*result*/) {
  read_back_before_swap(state, Drawable{dpy, surface, false});
  return true;
}
bool read_back_before_swap(SwapFrame& state, EGLDisplay& dpy, EGLSurface& surface,
                           const EGLint*& /*rects*/, EGLint& /*n_rects*/, EGLBoolean& /*result*/) {
  read_back_before_swap(state, Drawable{dpy, surface, false});
  return true;
}
bool read_back_before_swap(SwapFrame& state, Display*& dpy, GLXDrawable& drawable) {
  read_back_before_swap(state, Drawable{dpy, reinterpret_cast<void*>(drawable), true});
  return true;
}

void record_swap_size(CallRecorder& rec, SwapFrame& state, EGLDisplay /*dpy*/,
                      EGLSurface /*surface*/, EGLBoolean /*result*/) {
  record_swap_size(rec, state);
}
void record_swap_size(CallRecorder& rec, SwapFrame& state, EGLDisplay /*dpy*/,
                      EGLSurface /*surface*/, const EGLint* /*rects*/, EGLint /*n_rects*/,
                      EGLBoolean /*result*/) {
  record_swap_size(rec, state);
}

void end_swapped_frame(CallRecorder* recorded, SwapFrame& state, EGLDisplay /*dpy*/,
                       EGLSurface /*surface*/, EGLBoolean /*result*/) {
  end_swapped_frame(recorded, state);
}
void record_swap_size(CallRecorder& rec, SwapFrame& state, Display* /*dpy*/,
                      GLXDrawable /*drawable*/) {
  record_swap_size(rec, state);
}
void end_swapped_frame(CallRecorder* recorded, SwapFrame& state, Display* /*dpy*/,
                       GLXDrawable /*drawable*/) {
  end_swapped_frame(recorded, state);
}
void end_swapped_frame(CallRecorder* recorded, SwapFrame& state, EGLDisplay /*dpy*/,
                       EGLSurface /*surface*/, const EGLint* /*rects*/, EGLint /*n_rects*/,
                       EGLBoolean /*result*/) {
  end_swapped_frame(recorded, state);
}

// --- frames of off-screen programs -------------------------------------------------

// A program that never presents (rendering into FBOs or pbuffers, glmark2
// --off-screen, a media pipeline downloading each frame) has no swaps to
// count frames by. Until the program swaps for the first time (in this
// session, or, live, in the process), a glFinish (waiting for the frame) or
// a glReadPixels of a framebuffer object (reading the frame back, as
// pipelines do with a fence and no glFinish) ends a frame when its context
// drew (a glDraw* call) since its last frame end: uploads, helper contexts
// that only wait and a second read of the same frame do not make frames,
// nor does a read of the window or pbuffer (a program that will swap reads
// its first frame so: a screenshot, a checksum). The call carries
// ends_frame, so a replay needs no rule of its own.
namespace {

// Whether the thread's calls may end off-screen frames: it has a context and
// the program has not swapped yet.
bool before_first_swap(const ThreadState* thread) {
  return thread->context != 0 &&
         g_swapped_generation.load(std::memory_order_relaxed) != thread->generation &&
         !live_process_swapped();
}

// The call ends a frame when its context drew since the last one.
void end_frame_if_drawn(CallRecorder& rec, OffscreenFrameEnd& state) {
  TracedContext* context = context_state(rec.thread());
  state.ends_frame = context->drew;
  context->drew = false;
  if (state.ends_frame) schema::call::set_ends_frame(rec.call_encoder(), true);
}

}  // namespace

void record_offscreen_frame_end(CallRecorder& rec, OffscreenFrameEnd& state) {
  if (before_first_swap(rec.thread())) end_frame_if_drawn(rec, state);
}
// The binding is asked only before the first swap: a program that swaps
// and reads back every frame pays nothing more per read.
void record_offscreen_frame_end(CallRecorder& rec, OffscreenFrameEnd& state, GLint /*x*/,
                                GLint /*y*/, GLsizei /*width*/, GLsizei /*height*/,
                                GLenum /*format*/, GLenum /*type*/, void* /*pixels*/) {
  if (before_first_swap(rec.thread()) && driver_integer(GL_FRAMEBUFFER_BINDING) != 0)
    end_frame_if_drawn(rec, state);
}
void record_offscreen_frame_end(CallRecorder& rec, OffscreenFrameEnd& state, GLint x, GLint y,
                                GLsizei width, GLsizei height, GLenum format, GLenum type,
                                GLsizei /*buf_size*/, void* data) {
  record_offscreen_frame_end(rec, state, x, y, width, height, format, type, data);
}

// Not recording (live tracing's idle table): a read of a framebuffer
// object is a frame end by the same rule, so a thread may join there.
void live_unrecorded_read_back() {
  if (!live_process_swapped() && driver_integer(GL_FRAMEBUFFER_BINDING) != 0)
    live_unrecorded_finish();
}

void end_offscreen_frame(CallRecorder* recorded, OffscreenFrameEnd& state) {
  if (recorded != nullptr && state.ends_frame) {
    ThreadState* thread = recorded->thread();
    if (mode() == Mode::kFull) {
      complete_pending_reads(thread);  // the frame's after-draw images, before its end
      if (capture_framebuffer_on_swap()) capture_finished_frame(thread);
    }
    end_frame(thread, recorded->seq());
  }
  live_finish_point(recorded != nullptr, state.ends_frame);
}
// A read-back not recorded (error mode) is judged as live tracing's idle
// table judges it; a recorded one that ended no frame leaves live tracing's
// draw flag alone.
void end_offscreen_frame(CallRecorder* recorded, OffscreenFrameEnd& state, GLint /*x*/, GLint /*y*/,
                         GLsizei /*width*/, GLsizei /*height*/, GLenum /*format*/, GLenum /*type*/,
                         void* /*pixels*/) {
  if (recorded == nullptr)
    live_unrecorded_read_back();
  else if (state.ends_frame)
    end_offscreen_frame(recorded, state);
}
void end_offscreen_frame(CallRecorder* recorded, OffscreenFrameEnd& state, GLint x, GLint y,
                         GLsizei width, GLsizei height, GLenum format, GLenum type,
                         GLsizei /*buf_size*/, void* data) {
  end_offscreen_frame(recorded, state, x, y, width, height, format, type, data);
}

// --- the first call on a resized window --------------------------------------------

void record_surface_resize(CallRecorder& rec, GLbitfield /*mask*/) { check_surface_resize(rec); }

// Apps that draw off-screen reach their window by a blit.
void record_surface_resize(CallRecorder& rec, GLint /*srcX0*/, GLint /*srcY0*/, GLint /*srcX1*/,
                           GLint /*srcY1*/, GLint /*dstX0*/, GLint /*dstY0*/, GLint /*dstX1*/,
                           GLint /*dstY1*/, GLbitfield /*mask*/, GLenum /*filter*/) {
  check_surface_resize(rec);
}

// --- draws -----------------------------------------------------------------------

void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLint /*first*/, GLsizei /*count*/) {
  check_surface_resize(rec);
}
void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLint /*first*/, GLsizei /*count*/,
                           GLsizei /*instancecount*/) {
  check_surface_resize(rec);
}
void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLsizei /*count*/, GLenum /*type*/,
                           const void* /*indices*/) {
  check_surface_resize(rec);
}
// (glDrawElementsInstanced, and glDrawElementsBaseVertex: GLint and GLsizei
// are one type.)
void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLsizei /*count*/, GLenum /*type*/,
                           const void* /*indices*/, GLsizei /*instancecount*/) {
  check_surface_resize(rec);
}
void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLsizei /*count*/, GLenum /*type*/,
                           const void* /*indices*/, GLsizei /*instancecount*/,
                           GLint /*basevertex*/) {
  check_surface_resize(rec);
}
void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLuint /*start*/, GLuint /*end*/,
                           GLsizei /*count*/, GLenum /*type*/, const void* /*indices*/) {
  check_surface_resize(rec);
}
void record_surface_resize(CallRecorder& rec, GLenum /*mode*/, GLuint /*start*/, GLuint /*end*/,
                           GLsizei /*count*/, GLenum /*type*/, const void* /*indices*/,
                           GLint /*basevertex*/) {
  check_surface_resize(rec);
}

void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLint /*first*/,
                        GLsizei /*count*/) {
  capture_drawn(recorded);
}
void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLint /*first*/, GLsizei /*count*/,
                        GLsizei /*instancecount*/) {
  capture_drawn(recorded);
}
void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLsizei /*count*/, GLenum /*type*/,
                        const void* /*indices*/) {
  capture_drawn(recorded);
}
void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLsizei /*count*/, GLenum /*type*/,
                        const void* /*indices*/, GLsizei /*instancecount*/) {
  capture_drawn(recorded);
}
void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLsizei /*count*/, GLenum /*type*/,
                        const void* /*indices*/, GLsizei /*instancecount*/, GLint /*basevertex*/) {
  capture_drawn(recorded);
}
void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLuint /*start*/, GLuint /*end*/,
                        GLsizei /*count*/, GLenum /*type*/, const void* /*indices*/) {
  capture_drawn(recorded);
}
void capture_after_draw(CallRecorder* recorded, GLenum /*mode*/, GLuint /*start*/, GLuint /*end*/,
                        GLsizei /*count*/, GLenum /*type*/, const void* /*indices*/,
                        GLint /*basevertex*/) {
  capture_drawn(recorded);
}

}  // namespace gltrace::trace
