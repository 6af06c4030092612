// The trace layer's capture side: per-thread record buffers, the call
// recorder the generated wrappers use, and the trace session.
//
// Nothing here does I/O on the app's thread, and calls are not encoded
// there: they are copied flat (format/flat_calls.h) into the thread's
// payload buffer, which goes to the writer thread, which encodes them, when
// it is full or at the end of a frame.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "format/encoders.h"
#include "format/flat_calls.h"
#include "format/schema.h"
#include "protowire/wire.h"
#include "trace/hooks/gpu_time.h"
#include "trace/session.h"
#include "trace/tsc_clock.h"

namespace gltrace::trace {

// The value of an opaque handle (pointer or integer typedef) as 64 bits.
template <typename T>
uint64_t handle_bits(T value) {
  if constexpr (std::is_pointer_v<T>)
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(value));
  else
    return static_cast<uint64_t>(value);
}

inline uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The functions below the trace layer in the chain, by function id (layer.cpp).
extern void* g_next_functions[];
inline void* next_function(uint32_t id) { return g_next_functions[id]; }

// Writes the values of one field of a Call, named by its generated key
// (schema::call::kArgsTag or kRetTag): numbers, small arrays and data flat
// (format/flat_calls.h: the writer thread encodes them), the rest as Value
// messages (proto/trace.proto); with a line (the log and error modes), the
// values as text on it instead.
class ValueWriter {
 public:
  ValueWriter(ThreadState* thread, wire::Encoder* call, uint32_t key, CallLine* line = nullptr)
      : thread_(thread), call_(call), key_(key), line_(line) {}

  // Scalars, inline: most calls record only these, as a flat copy.
  void uint_value(uint64_t v) {
    if (line_ != nullptr) [[unlikely]]
      return line_uint(v);
    flat_value(format::FlatValue::kUint, &v, 8);
  }
  void sint_value(int64_t v) {
    if (line_ != nullptr) [[unlikely]]
      return line_sint(v);
    flat_value(format::FlatValue::kSint, &v, 8);
  }
  void pointer_value(const void* p) {
    if (line_ != nullptr) [[unlikely]]
      return line_pointer(p);
    flat_value(format::FlatValue::kPointer, &p, 8);
  }
  void f32_value(float v) {
    if (line_ != nullptr) [[unlikely]]
      return line_f32(v);
    flat_value(format::FlatValue::kF32, &v, 4);
  }
  void f64_value(double v) {
    if (line_ != nullptr) [[unlikely]]
      return line_f64(v);
    flat_value(format::FlatValue::kF64, &v, 8);
  }
  void unknown_value(const void* p, const char* reason);
  // A NUL-terminated string; with max_length, at most that many bytes.
  void text_value(const char* s, int64_t max_length = -1);
  // `size` bytes; a negative size records the pointer alone (an offset into
  // a bound buffer, or a size the call rejects).
  void bytes_value(const void* p, int64_t size);
  template <typename T>
  void array_value(const T* p, int64_t count);
  // Attribute lists, up to and including EGL_NONE (GL's: `none` = GL_NONE;
  // a malformed list: as far as it can be read, see recorder.cpp).
  void attrib_list_value(const int32_t* list, int32_t none = 0x3038 /* EGL_NONE */);
  void attrib_list_value(const intptr_t* list);
  // glMultiDrawElementsEXT's `n` index arrays of counts[k] indices of
  // `type`: their bytes (a list), or, with an element array buffer bound,
  // the offsets into it (numbers).
  void index_lists_value(const void* const* lists, const int32_t* counts, uint32_t type, int64_t n);
  // glShaderSource: count strings, each of length[i] bytes or NUL-terminated.
  void strings_value(const char* const* strings, int32_t count, const int32_t* lengths);

 private:
  static_assert(sizeof(void*) == 8);
  // A flat value: its byte, then n bytes.
  void flat_value(format::FlatValue kind, const void* bytes, size_t n) {
    // The byte is worked out before the buffer may grow: after an opaque
    // call the compiler would read key_ again instead of folding it.
    uint8_t byte = format::flat_value_byte(kind, key_ == schema::call::kRetTag);
    wire::Encoder* call = call_;
    uint8_t* p = call->begin_write(1 + 8);
    *p = byte;
    memcpy(p + 1, bytes, n);
    call->end_write(p + 1 + n);
  }
  // Value{value_key: n bytes} (one-byte keys and length).
  static_assert(schema::value::kBlobTag < 0x80);
  void fixed_value(uint32_t value_key, const void* bytes, size_t n) {
    uint8_t* p = call_->begin_write(5 + 1 + 1 + 8);
    p = wire::put_varint(p, key_);
    *p++ = static_cast<uint8_t>(1 + n);
    *p++ = static_cast<uint8_t>(value_key);
    memcpy(p, bytes, n);
    call_->end_write(p + n);
  }
  void typed_array(const void* p, int64_t count, size_t element_size, int kind);
  // A flat array or data (kInts: `element` is its size | kFlatSigned).
  void flat_array(format::FlatValue kind, int element, size_t count, const void* p, size_t bytes);
  // The text of a value (recorder.cpp), out of line: full mode never calls them.
  void line_uint(uint64_t v);
  void line_sint(int64_t v);
  void line_pointer(const void* p);
  void line_f32(float v);
  void line_f64(double v);
  void line_array(const void* p, int64_t count, size_t element_size, int kind);

  ThreadState* thread_;
  wire::Encoder* call_;
  uint32_t key_;
  CallLine* line_;
};

// The calling thread's part of a flight recorder's new round (flight.h):
// its snapshot, before the call that found the round due.
void begin_flight_part();

// One call being recorded: created before the driver is called, finished
// after it returned. Inline: this is the cost of every call.
class CallRecorder {
 public:
  explicit CallRecorder(uint32_t function) : function_(function) {
    // A flight recorder's new round: this thread's snapshot comes first.
    if (flight_round_due()) [[unlikely]]
      begin_flight_part();
    if (capture_gpu_time()) [[unlikely]]
      gpu_query_ = gpu_time_at_call_start(function);
    start_ = now_ns();
    if (capture_thread_time()) [[unlikely]]
      thread_start_ = thread_cpu_ns();
  }
  // Ends the timing; false when nothing is to be recorded (no session).
  bool finish() {
    uint64_t end = now_ns();
    if (gpu_query_ != 0) [[unlikely]]
      return finish_gpu_work(end);
    return finish_at(end);
  }
  // finish() of GPU work timed on the GPU (trace --gpu-time).
  [[gnu::noinline]] bool finish_gpu_work(uint64_t end) {
    bool recorded = finish_at(end);
    if (recorded)
      gpu_time_at_call_end(thread_, seq_, gpu_query_);
    else
      gpu_time_cancel(gpu_query_);
    return recorded;
  }
  bool finish_at(uint64_t end) {
    if (!recording()) return false;
    ThreadState* thread = thread_state();
    if (!enter_busy(thread)) return false;  // end_session began meanwhile
    // (end < start only by the few ns of error when the clock switched to the TSC in between.)
    duration_ = end > start_ ? end - start_ : 0;
    if (thread_start_ != 0) [[unlikely]]
      thread_time_ = thread_cpu_ns() - thread_start_;
    thread_ = thread;
    seq_ = next_seq();
    thread->last_seq = seq_;
    context_ = thread->context;
    if (thread->frame_started) [[unlikely]]
      note_frame_start();
    thread->call.clear();
    if (mode() != Mode::kFull) [[unlikely]]
      return finish_text();
    return true;
  }
  ValueWriter args() { return ValueWriter(thread_, &thread_->call, schema::call::kArgsTag, line_); }
  ValueWriter ret() { return ValueWriter(thread_, &thread_->call, schema::call::kRetTag, line_); }
  ThreadState* thread() { return thread_; }
  uint64_t seq() const { return seq_; }
  // The Call's repeated field `field` (client arrays, buffer writes) is
  // written by the caller between finish() and commit().
  wire::Encoder& call_encoder() { return thread_->call; }
  // The call made a different context current (eglMakeCurrent).
  void set_context(uint32_t context_index) { context_ = context_index; }
  // Not a call the app made just now (live tracing's eglMakeCurrent at join).
  void set_synthetic() { synthetic_ = true; }
  // Part of the snapshot a capture that starts mid-run begins with (Call.snapshot).
  void set_snapshot() { snapshot_ = true; }
  bool snapshot() const { return snapshot_; }
  // Appends the call to the thread's records (a text mode: writes its text).
  void commit();

 private:
  void note_frame_start();  // the first call of a frame, for the index
  // The text modes: what the mode records of the call (nothing, when
  // finish_text() returns false), without encoding it.
  bool finish_text();
  void commit_text();

  uint32_t function_;
  ThreadState* thread_ = nullptr;
  uint64_t start_;
  uint64_t duration_ = 0;
  uint64_t thread_start_ = 0;  // thread CPU time, when asked for (a system call)
  uint32_t gpu_query_ = 0;     // trace --gpu-time: the GPU work's first timestamp
  uint64_t thread_time_ = 0;
  uint64_t seq_ = 0;
  uint32_t context_ = 0;
  bool synthetic_ = false;
  bool snapshot_ = false;
  CallLine* line_ = nullptr;  // the call's text in the log and error modes
};

}  // namespace gltrace::trace
