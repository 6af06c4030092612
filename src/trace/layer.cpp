// libGLES_trace.so: a GLES layer that records every EGL/GLES call passing
// through it. Loaded as an ordinary layer (usually the last, nearest the
// driver) it records from the start; loaded as a live layer (top of the
// chain, two tables) it records when a host attaches (trace/live.h).
// This file is the module's entry points only; everything else is the
// gltrace_trace_core library, which tests link directly.
#include "trace/layer.h"

#include "gltrace/api/functions.h"
#include "gltrace/gles_layer.h"
#include "gltrace/live_layer.h"
#include "trace/live.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {
namespace {

__attribute__((destructor)) void finish_trace() { live_shutdown(); }

}  // namespace

}  // namespace gltrace::trace

extern "C" __attribute__((visibility("default"))) void AndroidGLESLayer_Initialize(
    void* /*layer_id*/, PFNEGLGETNEXTLAYERPROCADDRESSPROC /*get_next_layer_proc_address*/) {
  gltrace::trace::start_session();
}

extern "C" __attribute__((visibility("default"))) void* AndroidGLESLayer_GetProcAddress(
    const char* name, EGLFuncPointer next) {
  using namespace gltrace;
  api::FunctionId id = api::find_function(name);
  void* wrapper = trace::trace_wrapper(id);
  if (id == api::kInvalidFunction || next == nullptr || wrapper == nullptr)
    return reinterpret_cast<void*>(next);
  trace::g_next_functions[id] = reinterpret_cast<void*>(next);
  void* live = trace::live_active_function(id);
  return live != nullptr ? live : wrapper;
}

extern "C" __attribute__((visibility("default"))) void GltraceLiveLayer_Initialize(
    void* /*layer_id*/, PFNEGLGETNEXTLAYERPROCADDRESSPROC /*get_next_layer_proc_address*/,
    const GltraceLiveHost* host) {
  gltrace::trace::live_initialize(host);
}

extern "C" __attribute__((visibility("default"))) void* GltraceLiveLayer_GetIdleProcAddress(
    const char* name, EGLFuncPointer next) {
  using namespace gltrace;
  api::FunctionId id = api::find_function(name);
  if (id == api::kInvalidFunction || next == nullptr) return nullptr;
  trace::g_next_functions[id] = reinterpret_cast<void*>(next);
  return trace::live_idle_function(id);
}
