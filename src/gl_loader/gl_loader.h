// The real EGL/GLES driver, for every part of gltrace that calls it (the
// interposer below the app, the replay, the surface compositor): its
// libraries opened with dlopen (so nothing links GL), each function resolved
// by its generated id, typed at the call (GL_CALL, gl_loader/call.h), and
// the EGL displays of the platforms the tools use.
#pragma once

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "gltrace/api/functions.h"
#include "gltrace/api/limits.h"
#include "gltrace/api/types.h"

namespace gltrace::gl_loader {

// kGlx and kOpenGl: GLVND's GLX library and its desktop GL one, whose
// entry points serve GLX contexts as EGL ones (the same dispatch).
enum class Library : uint8_t { kEgl, kGles2, kGles1, kGlx, kOpenGl };
inline constexpr int kLibraries = 5;

// libEGL.so.1, libGLESv2.so.2, libGLESv1_CM.so.1, libGLX.so.0, libOpenGL.so.0.
const char* soname(Library library);

// Where Driver::open looks for a library.
struct Search {
  enum class Mode {
    // By soname through the dynamic linker (LD_LIBRARY_PATH, its cache), or
    // in `dir`: the replay and the compositor, which run on whatever driver
    // the user points them at.
    kLinker,
    // By path in the system's library directories (libc's own first), with
    // `override_path` tried before them; the file `self` (the interposer's
    // own shared object) is never taken: the interposer must not load itself
    // as its driver through a library path that names it (DESIGN.md).
    kSystemPaths,
  };
  Mode mode = Mode::kLinker;
  std::string dir;                      // kLinker; empty: the linker's search
  const char* override_path = nullptr;  // kSystemPaths
  const char* self = nullptr;           // kSystemPaths
  int flags = RTLD_NOW | RTLD_LOCAL;
  // The dlopen to call: the interposer exports its own and passes the real
  // one; null: libc's.
  void* (*dlopen)(const char*, int) = nullptr;
};

// Each library is opened once, and stays loaded for the life of the process:
// driver threads and atexit handlers may still run its code.
class Driver {
 public:
  Driver() = default;
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // False with *error ("cannot load PATH: why", or the paths tried) when no
  // file of the library could be loaded.
  bool open(Library library, const Search& search, std::string* error);
  void* handle(Library library) const { return handles_[static_cast<int>(library)]; }
  const std::string& path(Library library) const { return paths_[static_cast<int>(library)]; }

  // The function as the libraries export it: its API's library (EGL, GLX,
  // or GLES 2, then GLES 1's and desktop GL's); null when none does
  // (extensions).
  void* exported(uint32_t id) const;
  bool has_get_proc_address() const { return get_proc_address_ != nullptr; }
  // The real eglGetProcAddress's answer; null before EGL is open.
  void* get_proc_address(const char* name) const {
    return get_proc_address_ != nullptr ? get_proc_address_(name) : nullptr;
  }
  // The file the EGL library's eglGetProcAddress comes from when it is
  // gltrace's own interposer (a replay run under LD_PRELOAD or the
  // interposer's LD_LIBRARY_PATH would be traced, or loop into itself); empty
  // otherwise.
  std::string interposer_file() const;

  // The function with this id (gltrace/api/functions.h): exported, else
  // through eglGetProcAddress (a GLX function through glXGetProcAddressARB);
  // null when the driver has none. Resolved once
  // (a cache, hence const); safe from several threads.
  void* proc(uint32_t id) const {
    if (id >= GLTRACE_FUNCTION_ID_LIMIT) return nullptr;
    void* fn = resolved_[id].load(std::memory_order_relaxed);
    if (fn == nullptr) fn = resolve(id);
    return fn == kAbsent ? nullptr : fn;
  }
  // Typed: GL_CALL(driver, glGetIntegerv) (gl_loader/call.h).
  template <api::FunctionId kId, typename Pfn>
  Pfn fn() const {
    return reinterpret_cast<Pfn>(proc(kId));
  }

 private:
  static inline char absent_marker_;
  static inline void* const kAbsent = &absent_marker_;

  void* resolve(uint32_t id) const;

  void* handles_[kLibraries] = {};
  std::string paths_[kLibraries];
  void* (*get_proc_address_)(const char*) = nullptr;
  void* (*glx_get_proc_address_)(const unsigned char*) = nullptr;
  // null: not looked up yet; kAbsent: the driver has none.
  mutable std::atomic<void*> resolved_[GLTRACE_FUNCTION_ID_LIMIT] = {};
};

// The EGL display of the platform the tools draw on: X11 (a window per
// surface, on `native`, an X Display*) or Mesa's surfaceless one (pbuffers,
// no display server), initialized. EGL_NO_DISPLAY with *error ("cannot open
// the X11 EGL display") when the driver has neither eglGetPlatformDisplay
// nor its EXT form, or refuses.
enum class Platform { kX11, kSurfaceless };
EGLDisplay platform_display(Driver& driver, Platform platform, void* native, std::string* error);

}  // namespace gltrace::gl_loader
