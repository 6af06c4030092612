// The layer below the trace layer, as a source of GL_CALL
// (gl_loader/call.h): GL_CALL(next_layer, glGetError). NEXT(name) is its
// short form in the hooks (src/trace/hooks/) (the generated ones cast
// next_function() themselves).
#pragma once

#include "gl_loader/call.h"
#include "glstate/gl_reader.h"
#include "trace/recorder.h"

namespace gltrace::trace {

struct NextLayer {
  template <api::FunctionId kId, typename Pfn>
  Pfn fn() const {
    return reinterpret_cast<Pfn>(next_function(kId));
  }
};
inline constexpr NextLayer next_layer;

// The same as glstate's one type of GL_CALL source (glstate/gl_reader.h),
// for the snapshot writer and readers glstate shares with the replay.
inline glstate::GlFunctions next_layer_functions() {
  return {nullptr, [](const void* /*source*/, uint32_t id) { return next_function(id); }};
}

}  // namespace gltrace::trace

#define NEXT(name) GL_CALL(::gltrace::trace::next_layer, name)
