// Generated stubs (dispatch_stubs.cpp) and the runtime they call back into.
#pragma once

#include <cstdint>

#include "dispatch/table.h"

namespace gltrace::dispatch {

extern const Table kBootstrapTable;        // first call: initialize, then re-dispatch
const StubArray& lazy_driver_stubs();      // resolve through the real eglGetProcAddress
const StubArray& missing_stubs();          // the driver has no such function
const StubArray& exported_entry_points();  // our exported symbols, by id

// Initializes gltrace if needed and returns the table to dispatch through.
const Table* bootstrap_table();

// The driver's address of function `id`, resolved once; a missing stub if none.
void* resolve_driver_function(uint32_t id);

// Reports, once per function, that the app called something the driver lacks.
void report_missing_function(uint32_t id);

}  // namespace gltrace::dispatch
