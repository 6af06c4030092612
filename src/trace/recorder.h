// The trace layer's capture side: per-thread record buffers, the call
// recorder the generated wrappers use, and the trace session.
//
// Nothing here does I/O on the app's thread: records are encoded into the
// thread's payload buffer, which goes to the writer thread when it is full
// or at the end of a frame.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "format/wire.h"

namespace gltrace::trace {

struct ThreadState;

// CLOCK_MONOTONIC read through the TSC: two clock_gettime calls per call
// were a third of the capture cost. Calibrated once at start; used only on an
// invariant TSC (constant_tsc and nonstop_tsc), else clock_gettime.
struct TscClock {
  bool usable = false;
  uint64_t tsc0 = 0;
  uint64_t ns0 = 0;
  double ns_per_tick = 0;
};
extern TscClock g_tsc_clock;
void calibrate_tsc_clock();

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Time on the trace's clock (CLOCK_MONOTONIC, ns).
inline uint64_t now_ns() {
#if defined(__x86_64__)
  if (g_tsc_clock.usable)
    return g_tsc_clock.ns0 +
           static_cast<uint64_t>(static_cast<double>(__builtin_ia32_rdtsc() - g_tsc_clock.tsc0) *
                                 g_tsc_clock.ns_per_tick);
#endif
  return monotonic_ns();
}

// The value of an opaque handle (pointer or integer typedef) as 64 bits.
template <typename T>
uint64_t handle_bits(T value) {
  if constexpr (std::is_pointer_v<T>)
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(value));
  else
    return static_cast<uint64_t>(value);
}

// The function below the trace layer in the chain.
void* next_function(uint32_t id);

// Writes Value messages (proto/trace.proto) for one repeated field of a Call.
class ValueWriter {
 public:
  ValueWriter(ThreadState* thread, wire::Encoder* call, uint32_t field)
      : thread_(thread), call_(call), field_(field) {}

  void uint_value(uint64_t v);
  void sint_value(int64_t v);
  void f32_value(float v);
  void f64_value(double v);
  void pointer_value(const void* p);
  void unknown_value(const void* p, const char* reason);
  // A NUL-terminated string; with max_length, at most that many bytes.
  void text_value(const char* s, int64_t max_length = -1);
  // `size` bytes; a negative size records the pointer alone (an offset into
  // a bound buffer, or a size the call rejects).
  void bytes_value(const void* p, int64_t size);
  template <typename T>
  void array_value(const T* p, int64_t count);
  // EGL attribute lists, up to and including EGL_NONE.
  void attrib_list_value(const int32_t* list);
  void attrib_list_value(const intptr_t* list);
  // glShaderSource: count strings, each of length[i] bytes or NUL-terminated.
  void strings_value(const char* const* strings, int32_t count, const int32_t* lengths);

 private:
  void typed_array(const void* p, int64_t count, size_t element_size, int kind);

  ThreadState* thread_;
  wire::Encoder* call_;
  uint32_t field_;
};

// One call being recorded: created before the driver is called, finished
// after it returned.
class CallRecorder {
 public:
  explicit CallRecorder(uint32_t function);
  // Ends the timing; false when nothing is to be recorded (no session).
  bool finish();
  ValueWriter args();
  ValueWriter ret();
  ThreadState* thread() { return thread_; }
  uint64_t seq() const { return seq_; }
  // The Call's repeated field `field` (client arrays, buffer writes) is
  // written by the caller between finish() and commit().
  wire::Encoder& call_encoder();
  // The call made a different context current (eglMakeCurrent).
  void set_context(uint32_t context_index);
  // Not a call the app made just now (live tracing's eglMakeCurrent at join).
  void set_synthetic() { synthetic_ = true; }
  // Appends the call to the thread's records.
  void commit();

 private:
  uint32_t function_;
  ThreadState* thread_;
  uint64_t start_;
  uint64_t duration_ = 0;
  uint64_t thread_start_ = 0;  // thread CPU time, when asked for (a system call)
  uint64_t thread_time_ = 0;
  uint64_t seq_;
  uint32_t context_;
  bool synthetic_ = false;
};

}  // namespace gltrace::trace
