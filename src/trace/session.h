// The trace session: output, global call order, threads and contexts.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "format/wire.h"
#include "format/writer.h"

namespace gltrace::trace {

// Per-thread capture state. Only its own thread touches it, except at exit.
struct ThreadState {
  // Set while the thread appends to `payload`: end_session waits for it to
  // clear before taking the payload (the app may still draw on another
  // thread while it exits).
  std::atomic<bool> busy{false};
  uint32_t index = 0;
  uint32_t context = 0;   // index of the context current on this thread
  wire::Encoder payload;  // records waiting for the writer (Chunk content)
  uint32_t records = 0;
  wire::Encoder call;           // the Call being recorded: arguments and the rest
  wire::Encoder call_head;      // its function, thread, order and time fields
  bool chunk_has_call = false;  // a call of this thread is in `payload` (deltas)
  uint64_t chunk_last_seq = 0;
  uint64_t chunk_last_start = 0;
  std::unordered_set<uint64_t> blobs;            // blob ids already in this thread's records
  std::vector<format::FrameStart> frame_starts;  // frames whose first call is in `payload`
  uint64_t last_flush_ns = 0;
  uint32_t pending_gl_error = 0;  // error mode: an error the app has not read yet
  uint64_t last_seq = 0;          // the thread's latest recorded call
  std::vector<uint8_t> pixels;    // framebuffer read-back scratch
  bool frame_started = true;      // the next call starts a frame
  void* context_data = nullptr;   // the trace layer's state of `context_data_index`
  uint32_t context_data_index = 0;
};

// The calling thread's state, created (and its Thread record written) on
// first use. Never null.
ThreadState* thread_state();

// True while calls are being recorded.
bool recording();

// The next value of the global call order.
uint64_t next_seq();

// Frames ended so far (the number of the frame in progress).
uint64_t frames_completed();

// Trace time of a clock value.
uint64_t trace_time(uint64_t clock_ns);

// Appends one Record (field `kind` of Record, with `body`, and `tail` after
// it if given) to the thread's payload.
void append_record(ThreadState* thread, uint32_t kind, const uint8_t* body, size_t size,
                   const wire::Encoder* tail = nullptr);

// Stores `data` as a Blob record unless this thread already wrote it; returns its id.
uint64_t store_blob(ThreadState* thread, const void* data, size_t size);

// Hands the thread's payload to the writer (end of frame, or full).
void flush_thread(ThreadState* thread);

// eglSwapBuffers returned on this thread: a Frame record, and a flush.
void end_frame(ThreadState* thread, uint64_t swap_seq);

// The index of the context with this EGLContext value; `created` tells
// whether it is new (its Context record still to be written by the caller).
uint32_t context_index(uint64_t handle, bool* created);

// Capture options, fixed at start: framebuffer on eglSwapBuffers and/or
// after each draw call (GLTRACE_CAPTURE_FRAMEBUFFER=swap, draw or swap,draw), texture data
// (GLTRACE_TEXTURE_DATA=0 turns it off), thread CPU time of each call (GLTRACE_THREAD_TIME=1).
bool capture_framebuffer_on_swap();
bool capture_framebuffer_on_draw();
bool capture_texture_data();
bool capture_thread_time();

// Opens the output named by the environment and writes the Header. Called
// from AndroidGLESLayer_Initialize.
void start_session();

// Flushes every thread and closes the output (process exit).
void end_session();

}  // namespace gltrace::trace
