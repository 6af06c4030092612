// The real EGL/GLES driver libraries, found by path, never by our own names.
#pragma once

#include <string>

#include "dispatch/table.h"

namespace gltrace::dispatch {

struct Driver {
  void* egl = nullptr;  // dlopen handles of the real libraries
  void* gles2 = nullptr;
  void* gles1 = nullptr;
  std::string egl_path, gles2_path, gles1_path;
  void* (*get_proc_address)(const char*) = nullptr;  // the real eglGetProcAddress
};

// Loads the real libraries and fills `table` with their functions: exported
// symbols directly, everything else with a lazy stub. Returns false (with the
// reason logged) if no real libEGL could be loaded.
bool load_driver(Driver& driver, Table& table);

}  // namespace gltrace::dispatch
