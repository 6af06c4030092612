#include "dispatch/dl.h"

#include <dlfcn.h>

namespace gltrace::dispatch {

void* real_dlopen(const char* filename, int flags) {
  using DlopenFn = void* (*)(const char*, int);
  static const DlopenFn next = reinterpret_cast<DlopenFn>(dlsym(RTLD_NEXT, "dlopen"));
  return next(filename, flags);
}

const char* self_path() {
  static const char* path = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&self_path), &info);
    return info.dli_fname != nullptr ? info.dli_fname : "";
  }();
  return path;
}

}  // namespace gltrace::dispatch
