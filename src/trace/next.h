// NEXT(name): the function below the trace layer, typed, for the hooks
// (src/trace/hooks/) (the generated ones cast next_function() themselves).
#pragma once

#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"
#include "trace/recorder.h"

namespace gltrace::trace {

template <api::FunctionId kId, typename Pfn>
Pfn next() {
  return reinterpret_cast<Pfn>(next_function(kId));
}

}  // namespace gltrace::trace

#define NEXT(name) ::gltrace::trace::next<::gltrace::api::kFn_##name, PFN_gltrace_##name>()
