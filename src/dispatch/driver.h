// The interposer's table of the real driver's functions.
#pragma once

#include "dispatch/table.h"
#include "gl_loader/gl_loader.h"

namespace gltrace::dispatch {

// Opens the real libraries (gl_loader's system paths, never the interposer
// itself, GLTRACE_DRIVER_{EGL,GLESV2,GLESV1} first) and fills `table` with
// their functions: exported symbols directly, everything else with a lazy
// stub. Returns false (with the reason logged) if no real libEGL could be
// loaded.
bool load_driver(gl_loader::Driver& driver, Table& table);

}  // namespace gltrace::dispatch
