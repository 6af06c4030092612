// The real EGL/GLES driver the replay calls: the system libEGL.so.1 and
// libGLESv2.so.2, loaded with dlopen (so the gltrace command needs no GL
// library unless it replays), every function resolved once, by id, through
// dlsym and then the real eglGetProcAddress.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gltrace::glreplay {

class Driver {
 public:
  Driver() = default;
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // False with *error when the libraries cannot be loaded. A warning goes to
  // *warning when they look like gltrace's own interposer (the replay would
  // then be traced, or loop into itself). `dir`: load them from that
  // directory (--driver) instead of the library search path.
  bool load(std::string* error, std::string* warning, const std::string& dir = "");

  // The function with this id (gltrace/api/functions.h), or null when the
  // driver has none. Cached after the first look-up.
  void* proc(uint32_t id) {
    if (id < table_.size() && resolved_[id] != 0) return table_[id];
    return resolve(id);
  }
  // The same as its function type: proc_as<PFN_gltrace_eglGetError>(api::kFn_eglGetError).
  template <typename Pfn>
  Pfn proc_as(uint32_t id) {
    return reinterpret_cast<Pfn>(proc(id));
  }

 private:
  void* resolve(uint32_t id);

  void* egl_ = nullptr;
  void* gles_ = nullptr;
  void* (*get_proc_address_)(const char*) = nullptr;
  std::vector<void*> table_;
  std::vector<uint8_t> resolved_;
};

}  // namespace gltrace::glreplay
