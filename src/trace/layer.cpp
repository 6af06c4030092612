// libGLES_trace.so: an ordinary GLES layer (usually the last, nearest the
// driver) that records every EGL/GLES call passing through it.
#include "trace/layer.h"

#include "gltrace/api/functions.h"
#include "gltrace/gles_layer.h"
#include "trace/recorder.h"
#include "trace/session.h"

namespace gltrace::trace {
namespace {

void* g_next[api::kFunctionIdLimit];

__attribute__((destructor)) void finish_trace() { end_session(); }

}  // namespace

void* next_function(uint32_t id) { return g_next[id]; }

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
  trace::g_next[id] = reinterpret_cast<void*>(next);
  return wrapper;
}
