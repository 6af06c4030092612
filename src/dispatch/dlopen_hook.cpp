// The exported dlopen: apps that dlopen libEGL/libGLESv2, or GLVND's GLX
// and desktop GL libraries, by name (glmark2, SDL, glad and epoxy loaders,
// Qt's xcb_glx) get the interposer instead of the driver.
#include <dlfcn.h>

#include <cstring>

#include "common/log.h"
#include "dispatch/dl.h"

namespace {

bool is_gl_library(const char* filename) {
  const char* slash = strrchr(filename, '/');
  const char* base = slash != nullptr ? slash + 1 : filename;
  static const char* const kNames[] = {"libEGL.so",      "libEGL.so.1",     "libGLESv2.so",
                                       "libGLESv2.so.2", "libGLESv1_CM.so", "libGLESv1_CM.so.1",
                                       "libGL.so",       "libGL.so.1",      "libGLX.so",
                                       "libGLX.so.0",    "libOpenGL.so",    "libOpenGL.so.0"};
  for (const char* name : kNames)
    if (strcmp(base, name) == 0) return true;
  return false;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* dlopen(const char* filename, int flags) {
  using gltrace::dispatch::real_dlopen;
  if (filename != nullptr && is_gl_library(filename)) {
    void* self =
        real_dlopen(gltrace::dispatch::self_path(), (flags & ~RTLD_DEEPBIND) | RTLD_NOLOAD);
    if (self != nullptr) {
      GLTRACE_LOADER_DEBUG("dlopen(\"%s\") is answered by the interposer", filename);
      return self;
    }
  }
  return real_dlopen(filename, flags);
}
