#include "dispatch/driver.h"

#include <string>

#include "common/log.h"
#include "common/process.h"
#include "dispatch/dl.h"
#include "dispatch/stubs.h"

namespace gltrace::dispatch {

bool load_driver(gl_loader::Driver& driver, Table& table) {
  using gl_loader::Library;
  gl_loader::Search search;
  search.mode = gl_loader::Search::Mode::kSystemPaths;
  search.self = self_path();
  search.dlopen = &real_dlopen;  // ours would hand the driver's names back to us
  std::string error;
  search.override_path = env_get("GLTRACE_DRIVER_EGL");
  if (!driver.open(Library::kEgl, search, &error)) {
    GLTRACE_LOG_ERROR("no real libEGL.so.1 found (%s); every EGL/GLES call will fail",
                      error.c_str());
    return false;
  }
  search.override_path = env_get("GLTRACE_DRIVER_GLESV2");
  driver.open(Library::kGles2, search, &error);
  search.override_path = env_get("GLTRACE_DRIVER_GLESV1");
  driver.open(Library::kGles1, search, &error);
  // GLVND's GLX and desktop GL libraries, where installed (GLX programs).
  search.override_path = nullptr;
  driver.open(Library::kGlx, search, &error);
  driver.open(Library::kOpenGl, search, &error);

  // Exported symbols are taken directly; every other function (extensions)
  // is looked up through eglGetProcAddress at its first call, because asking
  // for all of them now would make glvnd create a stub for each.
  size_t direct = 0;
  for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
    if (api::kFunctionInfo[id].name == nullptr) continue;
    void* function = driver.exported(id);
    if (function != nullptr) ++direct;
    table.entries[id] = function != nullptr ? function : lazy_driver_stubs()[id];
  }
  GLTRACE_LOADER_DEBUG("driver: %zu functions exported by the libraries, the rest resolved lazily",
                       direct);
  return true;
}

}  // namespace gltrace::dispatch
