// The layer below the trace layer, as a source of GL_CALL
// (gl_loader/call.h): GL_CALL(next_layer, glGetError). NEXT(name) is its
// short form in the hooks (src/trace/hooks/) (the generated ones cast
// next_function() themselves).
#pragma once

#include "gl_loader/call.h"
#include "trace/recorder.h"

namespace gltrace::trace {

struct NextLayer {
  template <api::FunctionId kId, typename Pfn>
  Pfn fn() const {
    return reinterpret_cast<Pfn>(next_function(kId));
  }
};
inline constexpr NextLayer next_layer;

}  // namespace gltrace::trace

#define NEXT(name) GL_CALL(::gltrace::trace::next_layer, name)
