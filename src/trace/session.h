// The trace session: output, global call order, threads and contexts.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/chunk_ring.h"
#include "format/writer.h"
#include "protowire/wire.h"
#include "trace/blob_table.h"
#include "trace/modes.h"

namespace gltrace::trace {

struct WindowWatch;

// Per-thread capture state. Only its own thread touches it, except at exit.
struct ThreadState {
  // The session these fields belong to (a thread's state is reset when it
  // first records in a new one; live tracing starts several per process).
  uint32_t generation = 0;
  // Set while the thread appends to `payload`: end_session waits for it to
  // clear before taking the payload (the app may still draw on another
  // thread while it exits).
  std::atomic<bool> busy{false};
  // Set by the sweeper while it hands the payload of a thread that is not
  // in a call to the writer: the thread waits for it in enter_busy().
  std::atomic<bool> claimed{false};
  uint32_t index = 0;
  uint32_t context = 0;   // index of the context current on this thread
  wire::Encoder payload;  // records waiting for the writer (Chunk content)
  uint32_t records = 0;
  // Calls this thread recorded in the session: written by it alone (no
  // locked add per call on a counter all threads share), summed by
  // session_calls().
  std::atomic<uint64_t> calls{0};
  wire::Encoder call;                            // the Call being recorded: arguments and the rest
  CallLine line;                                 // log and error modes: the call as text
  BlobTable blobs;                               // the blobs in this thread's records
  uint64_t flushes = 0;                          // hand-overs of `payload` to the writer
  std::vector<format::FrameStart> frame_starts;  // frames whose first call is in `payload`
  // When the payload last went to the writer (the sweeper reads it unclaimed).
  std::atomic<uint64_t> last_flush_ns{0};
  // Every call of this thread below this seq has gone to the writer (a lower
  // bound, for the sweeper's CallsComplete records).
  std::atomic<uint64_t> submitted_below{0};
  uint32_t pending_gl_error = 0;  // error mode: an error the app has not read yet
  uint64_t last_seq = 0;          // the thread's latest recorded call
  std::vector<uint8_t> pixels;    // framebuffer read-back scratch
  bool frame_started = true;      // the next call starts a frame
  // The draw surface's size as last recorded (Call.surface_width/height),
  // and whether the next draw on the default framebuffer checks it: the
  // driver sizes a window's buffers at a frame's first draw.
  void* draw_display = nullptr;
  void* draw_surface = nullptr;
  bool draw_glx = false;  // draw_surface is a GLX drawable's XID, draw_display an X Display
  uint32_t surface_width = 0, surface_height = 0;
  bool surface_size_check = false;
  // draw_surface is a pbuffer: its size is the one it was made with, so
  // frames need no check (the queries cost more than a small frame's calls).
  bool draw_surface_fixed = false;
  // draw_surface's window watch (window_watch.h), if it has one: while it
  // holds the recorded size, a frame's check asks the window system nothing.
  const WindowWatch* surface_watch = nullptr;
  void* context_data = nullptr;  // the trace layer's state of `context_data_index`
  uint32_t context_data_index = 0;
  // The flight recorder's round this thread is in, and whether its records
  // go to the writer as the round's start (its first records, or the
  // snapshot that begins a round): format/chunk_ring.h.
  uint32_t round = 0;
  bool round_start = true;
  bool round_snapshot = false;  // until end_thread_round_start
};

// What every call reads, kept apart from the rest of the session
// (session.cpp) so that the hot path inlines it: constant-initialised and
// never destroyed (app threads may call while the process exits).
struct HotState {
  std::atomic<bool> recording{false};
  std::atomic<bool> live{false};         // threads record once they joined
  std::atomic<uint32_t> generation{0};   // sessions begun so far
  std::atomic<uint64_t> seq{0};          // the global call order
  std::atomic<bool> thread_time{false};  // capture option
  std::atomic<bool> gpu_time{false};     // capture option (hooks/gpu_time.h)
  // Set once membarrier() can make every app thread fence: app threads then
  // mark themselves busy with a compiler barrier only (see enter_busy).
  std::atomic<bool> light_fence{false};
  uint64_t start_ns = 0;  // the session's trace time 0
  // The flight recorder's round (flight.h): a thread whose round is older
  // takes its snapshot at its next call.
  std::atomic<uint32_t> flight_round{0};
};
extern HotState g_hot;
extern __thread ThreadState* t_thread __attribute__((tls_model("initial-exec")));

// The calling thread's state in the current session, created or reset (and
// its Thread record written) on first use. Never null.
ThreadState* join_thread_state();
inline ThreadState* thread_state() {
  ThreadState* thread = t_thread;
  if (thread != nullptr && thread->generation == g_hot.generation.load(std::memory_order_relaxed))
      [[likely]]
    return thread;
  return join_thread_state();
}

// True while this thread's calls are recorded: a session is on and, in live
// tracing, the thread has joined it at a switch point (see live.h).
inline bool recording() {
  if (!g_hot.recording.load(std::memory_order_relaxed)) return false;
  if (!g_hot.live.load(std::memory_order_relaxed)) return true;
  ThreadState* thread = t_thread;
  return thread != nullptr &&
         thread->generation == g_hot.generation.load(std::memory_order_relaxed);
}

// True while a session records (some threads may not have joined yet).
inline bool session_on() { return g_hot.recording.load(std::memory_order_relaxed); }

bool enter_busy_slow(ThreadState* thread);

// Marks the thread as appending to its payload. False (and not marked) when
// recording stopped: end_session owns the payload then. While the sweeper
// holds the payload (claimed), it waits for it (enter_busy_slow). The store
// and the checks are ordered against end_session's and the sweeper's
// (Dekker): by a full fence here, or, where they can make every thread fence
// (membarrier), by a compiler barrier, which keeps the fence's ~20 cycles off
// every call.
inline bool enter_busy(ThreadState* thread) {
  thread->busy.store(true, std::memory_order_relaxed);
  if (g_hot.light_fence.load(std::memory_order_relaxed))
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (recording() && !thread->claimed.load(std::memory_order_acquire)) [[likely]]
    return true;
  return enter_busy_slow(thread);
}
inline void leave_busy(ThreadState* thread) {
  thread->busy.store(false, std::memory_order_release);
}

// Holds a thread's payload for records written outside a call's recording
// window (framebuffer read-backs): ok() is false when recording stopped, and
// the records must then not be written.
class AppendGuard {
 public:
  explicit AppendGuard(ThreadState* thread);
  ~AppendGuard();
  AppendGuard(const AppendGuard&) = delete;
  AppendGuard& operator=(const AppendGuard&) = delete;
  bool ok() const { return ok_; }

 private:
  ThreadState* thread_;
  bool ok_;
};

// The next value of the global call order.
inline uint64_t next_seq() { return g_hot.seq.fetch_add(1, std::memory_order_relaxed); }

// Frames ended so far (the number of the frame in progress).
uint64_t frames_completed();

// The session began while the app ran (TraceSessionOptions::mid_run): each
// thread's first calls are a snapshot of what its context holds.
bool session_mid_run();

// The frame in progress is the last one the session records (max_frames).
bool last_frame_of_session();

// Trace time of a clock value.
inline uint64_t trace_time(uint64_t clock_ns) { return clock_ns - g_hot.start_ns; }

// Appends one Record (field `kind` of Record, with `body`) to the thread's payload.
void append_record(ThreadState* thread, uint32_t kind, const uint8_t* body, size_t size);

// Past this, a thread's records go to the writer even mid-frame (chunks of
// about 256 KiB once its flat calls are encoded).
inline constexpr size_t kFlushBytes = 640 * 1024;

// Stores `data` as a Blob record unless this thread already wrote these
// bytes (blob_table.h); returns the blob's id. In the text modes, which
// write no blobs, the id is a fingerprint of the bytes.
uint64_t store_blob(ThreadState* thread, const void* data, size_t size);

// Hands the thread's payload to the writer (end of frame, full, or the
// sweeper's: a thread's records reach the writer within kFlushIntervalNs
// whether or not it calls again).
void flush_thread(ThreadState* thread);
inline constexpr uint64_t kFlushIntervalNs = 100'000'000;

// eglSwapBuffers returned on this thread: a Frame record, and a flush.
void end_frame(ThreadState* thread, uint64_t swap_seq);

// The index of the context with this EGLContext value; `created` tells
// whether it is new (its Context record still to be written by the caller).
uint32_t context_index(uint64_t handle, bool* created);

// Capture options: framebuffer on eglSwapBuffers and/or after each draw
// call, texture data, thread CPU time of each call. Live tracing may change
// them while a session runs.
struct CaptureOptions {
  bool framebuffer_on_swap = false;
  bool framebuffer_on_draw = false;
  bool texture_data = true;
  bool thread_time = false;
  bool gpu_time = false;  // hooks/gpu_time.h
};
bool capture_framebuffer_on_swap();
bool capture_framebuffer_on_draw();
bool capture_texture_data();
inline bool capture_thread_time() { return g_hot.thread_time.load(std::memory_order_relaxed); }
inline bool capture_gpu_time() { return g_hot.gpu_time.load(std::memory_order_relaxed); }
CaptureOptions capture_options();
void set_capture_options(const CaptureOptions& options);

// What begin_session() starts: a trace session's mode, output and capture
// options (glreplay::SessionOptions is a replay's).
struct TraceSessionOptions {
  Mode mode = Mode::kFull;
  CaptureOptions capture;
  // Full mode: the trace goes here (owned). Text modes: text_fd (owned), or
  // output as a path ("" or "-": stderr) when text_fd is -1.
  std::unique_ptr<format::TraceWriter> writer;
  int text_fd = -1;
  std::string output;            // a name for messages (and the text path)
  bool live = false;             // threads record only after they joined at a switch point
  bool mid_run = false;          // the app ran (and maybe drew) before this session
  uint64_t max_frames = 0;       // live: stop after this many frames (0: no limit)
  bool flight_recorder = false;  // into a flight recorder's memory (flight.h)
};

// Starts a session: the Header, then recording. False (with *error) if one
// is already on or the output cannot be used.
bool begin_session(TraceSessionOptions options, std::string* error);

// The capture options the environment asks for (GLTRACE_CAPTURE_FRAMEBUFFER,
// GLTRACE_TEXTURE_DATA=0, GLTRACE_THREAD_TIME=1, GLTRACE_ZSTD_LEVEL).
void read_capture_environment(CaptureOptions* capture, format::WriterOptions* writer);

// An output pattern with %p (the pid) and %n (the process name) expanded.
std::string expand_output_pattern(const char* pattern);

// Starts the session the environment asks for (GLTRACE_TRACE_FILE,
// GLTRACE_TRACE_SOCKET, GLTRACE_TRACE_MODE, GLTRACE_CAPTURE_FRAMEBUFFER,
// GLTRACE_TEXTURE_DATA=0, GLTRACE_THREAD_TIME=1). Called from
// AndroidGLESLayer_Initialize when the trace layer is an ordinary layer.
void start_session();
// The same with the output named by the settings (debug.gltrace.output, which
// GLTRACE_TRACE_FILE overrides), for a live start "now"; with mid_run, a
// live start of the process's own while it runs (frame:N, after:S): threads
// join at their switch points, each with a snapshot, and the session stops
// after max_frames (0: no limit).
void start_session(const std::string& output, bool mid_run = false, uint64_t max_frames = 0);

// Stops recording, flushes every thread and finishes the output (index,
// footer). Idempotent; also at process exit.
void end_session();

// A live session reached its max_frames on an app thread: recording stopped,
// and the control thread is to call end_session() (no I/O on the app thread).
bool session_stop_pending();

struct SessionStats {
  bool on = false;
  uint64_t number = 0;  // sessions begun in this process
  uint64_t frames = 0;
  uint64_t calls = 0;
  uint64_t bytes = 0;
  uint64_t stalls = 0;
  uint64_t stall_ns = 0;
  bool output_failed = false;
  std::string output;
};
SessionStats session_stats();

// What a snapshot writes once (an EGL object, a share group's objects), it
// writes once in each epoch: a session, or a flight recorder's round.
uint32_t snapshot_epoch();

// The flight recorder (flight.h) records in rounds: threads move to the
// newest at their next call (flight_round_due), and a new one begins a new
// epoch.
inline uint32_t flight_round() { return g_hot.flight_round.load(std::memory_order_relaxed); }
inline bool flight_round_due() {
  ThreadState* thread = t_thread;
  return thread != nullptr && thread->round != flight_round();
}
void begin_flight_round();
// A thread moves to flight_round(): what it recorded goes to the writer,
// and its next records, up to end_thread_round_start(), are the round's
// start (its Thread record, then its snapshot). False when not recording.
bool begin_thread_round(ThreadState* thread);
void end_thread_round_start(ThreadState* thread);
// For a flight trace written by a frozen copy of the process: each
// thread's records not yet handed to the writer, as chunks the filter keeps
// (no lock, no allocation).
bool write_unsubmitted_records(int fd, format::ChunkFilter& filter);

// Forgets the trace layer's per-context state (hooks/context_state.cpp): a new
// session numbers contexts anew.
void reset_context_states();

// Live tracing: the app's swaps so far (Frame.app_frame of the next frame).
uint64_t app_frames();
void count_app_frame();

}  // namespace gltrace::trace
