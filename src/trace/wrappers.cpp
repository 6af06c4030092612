// The generated trace wrappers (codegen/gltrace_codegen/trace.py), and the
// calls of the hooks the table names (src/trace/hooks/).
#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"
#include "gltrace/api/trace_decls.h"
#include "trace/compsize.h"
#include "trace/hooks/hook_state.h"
#include "trace/hooks/object_names.h"
#include "trace/layer.h"
#include "trace/recorder.h"

namespace gltrace::trace {

#include "gltrace/api/trace_wrappers.inc"

void* trace_wrapper(uint32_t id) {
  static void** by_id = [] {
    auto** table = new void*[api::kFunctionIdLimit]();
    for (const auto& w : kTraceWrappers) table[w.id] = w.function;
    return table;
  }();
  return id < api::kFunctionIdLimit ? by_id[id] : nullptr;
}

void* idle_wrapper(uint32_t id) {
  for (const auto& w : kIdleWrappers)
    if (w.id == id && w.function != nullptr) return w.function;
  return nullptr;
}

}  // namespace gltrace::trace
