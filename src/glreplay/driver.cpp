#include "glreplay/driver.h"

#include <dlfcn.h>

#include <cstring>

#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

Driver::~Driver() {
  // The libraries stay loaded: driver threads and atexit handlers may still
  // run their code after the replay is gone.
}

bool Driver::load(std::string* error, std::string* warning, const std::string& dir) {
  std::string prefix = dir.empty() ? "" : dir + "/";
  std::string egl = prefix + "libEGL.so.1", gles = prefix + "libGLESv2.so.2";
  egl_ = dlopen(egl.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (egl_ == nullptr) {
    *error = "cannot load " + egl + ": " + dlerror();
    return false;
  }
  gles_ = dlopen(gles.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (gles_ == nullptr) {
    *error = "cannot load " + gles + ": " + dlerror();
    return false;
  }
  get_proc_address_ = reinterpret_cast<void* (*)(const char*)>(dlsym(egl_, "eglGetProcAddress"));
  if (get_proc_address_ == nullptr) {
    *error = "libEGL.so.1 has no eglGetProcAddress";
    return false;
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(get_proc_address_), &info) != 0 && info.dli_fname != nullptr &&
      strstr(info.dli_fname, "gltrace") != nullptr)
    *warning = std::string("EGL comes from ") + info.dli_fname +
               ", gltrace's interposer: the replay should run on the real driver "
               "(unset LD_PRELOAD and LD_LIBRARY_PATH)";
  table_.assign(api::kFunctionIdLimit, nullptr);
  resolved_.assign(api::kFunctionIdLimit, 0);
  return true;
}

void* Driver::resolve(uint32_t id) {
  if (id >= table_.size()) return nullptr;
  const api::FunctionInfo& info = api::kFunctionInfo[id];
  void* fn = nullptr;
  if (info.name != nullptr) {
    fn = dlsym(info.api == api::Api::kEgl ? egl_ : gles_, info.name);
    // Extensions are only reachable through eglGetProcAddress.
    if (fn == nullptr) fn = get_proc_address_(info.name);
  }
  table_[id] = fn;
  resolved_[id] = 1;
  return fn;
}

}  // namespace gltrace::glreplay
