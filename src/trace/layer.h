// The trace layer's side of the Android layer contract.
#pragma once

#include <cstdint>

namespace gltrace::trace {

// The generated wrapper for function `id` (nullptr for none).
void* trace_wrapper(uint32_t id);
// The generated idle-table wrapper for function `id`, when the table names
// an idle hook for it (nullptr for none).
void* idle_wrapper(uint32_t id);

}  // namespace gltrace::trace
