// The hooks table (the seeds' gl_hooks) and the per-thread pointer to it.
//
// Every exported entry point is one load of the calling thread's table and one
// indirect jump. A thread with no table of its own uses the global one; live
// tracing (later) switches a thread's table at eglSwapBuffers/eglMakeCurrent.
#pragma once

#include <cstdint>

#include "gltrace/api/functions.h"

namespace gltrace::dispatch {

// Slots after the known functions, for functions the model does not know that
// the app gets through eglGetProcAddress.
inline constexpr uint32_t kDynamicSlotCount = 512;
inline constexpr uint32_t kTableSize = api::kFunctionIdLimit + kDynamicSlotCount;

struct Table {
  void* entries[kTableSize];

  // Typed: GL_CALL(*table, eglMakeCurrent) (gl_loader/call.h).
  template <api::FunctionId kId, typename Pfn>
  Pfn fn() const {
    return reinterpret_cast<Pfn>(entries[kId]);
  }
};

using StubArray = void* const[api::kFunctionIdLimit];

}  // namespace gltrace::dispatch

// C names: the dynamic-slot trampolines (assembly) read them too. Both hidden.
extern "C" {
extern __thread const gltrace::dispatch::Table* gltrace_thread_table
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern const gltrace::dispatch::Table* gltrace_global_table __attribute__((visibility("hidden")));
}

namespace gltrace::dispatch {

inline const Table* current_table() {
  const Table* table = gltrace_thread_table;
  return table != nullptr ? table : __atomic_load_n(&gltrace_global_table, __ATOMIC_ACQUIRE);
}

// The calling thread's own table (nullptr: follow the global one).
void set_thread_table(const Table* table);

// The table of threads without one of their own (after initialization).
void set_global_table(const Table* table);

}  // namespace gltrace::dispatch
