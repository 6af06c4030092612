#include "gl_loader/gl_loader.h"

#include <sys/stat.h>

#include <cstdio>
#include <vector>

#include "common/log.h"
#include "common/process.h"
#include "gl_loader/call.h"

namespace gltrace::gl_loader {
namespace {

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// Directories the system's GL libraries live in: libc's own directory first
// (the multiarch one), then the usual ones.
std::vector<std::string> system_library_dirs() {
  std::vector<std::string> dirs;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&fopen), &info) != 0 && info.dli_fname != nullptr)
    dirs.push_back(dirname_of(info.dli_fname));
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
                          "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib"})
    dirs.push_back(dir);
  return dirs;
}

}  // namespace

const char* soname(Library library) {
  switch (library) {
    case Library::kEgl:
      return "libEGL.so.1";
    case Library::kGles2:
      return "libGLESv2.so.2";
    case Library::kGles1:
      return "libGLESv1_CM.so.1";
    case Library::kGlx:
      return "libGLX.so.0";
    case Library::kOpenGl:
      return "libOpenGL.so.0";
  }
  return "";
}

bool Driver::open(Library library, const Search& search, std::string* error) {
  auto open = search.dlopen != nullptr ? search.dlopen : &::dlopen;
  const char* name = soname(library);
  void* handle = nullptr;
  std::string path;
  if (search.mode == Search::Mode::kLinker) {
    path = search.dir.empty() ? name : search.dir + "/" + name;
    handle = open(path.c_str(), search.flags);
    if (handle == nullptr) *error = "cannot load " + path + ": " + dlerror();
  } else {
    std::vector<std::string> candidates;
    if (search.override_path != nullptr) candidates.push_back(search.override_path);
    for (const auto& dir : system_library_dirs()) candidates.push_back(dir + "/" + name);
    std::string tried;
    for (const auto& candidate : candidates) {
      tried += (tried.empty() ? "" : ", ") + candidate;
      struct stat st;
      if (stat(candidate.c_str(), &st) != 0 ||
          (search.self != nullptr && same_file(candidate, search.self)))
        continue;
      handle = open(candidate.c_str(), search.flags);
      if (handle == nullptr) {
        GLTRACE_LOG_WARN("cannot load driver library %s: %s", candidate.c_str(), dlerror());
        continue;
      }
      path = candidate;
      GLTRACE_LOADER_DEBUG("driver library %s: %s", name, candidate.c_str());
      break;
    }
    if (handle == nullptr) *error = "tried " + tried;
  }
  if (handle == nullptr) return false;
  handles_[static_cast<int>(library)] = handle;
  paths_[static_cast<int>(library)] = path;
  if (library == Library::kEgl)
    get_proc_address_ =
        reinterpret_cast<void* (*)(const char*)>(dlsym(handle, "eglGetProcAddress"));
  if (library == Library::kGlx)
    glx_get_proc_address_ =
        reinterpret_cast<void* (*)(const unsigned char*)>(dlsym(handle, "glXGetProcAddressARB"));
  return true;
}

void* Driver::exported(uint32_t id) const {
  if (id >= GLTRACE_FUNCTION_ID_LIMIT) return nullptr;
  const api::FunctionInfo& info = api::kFunctionInfo[id];
  if (info.name == nullptr) return nullptr;
  void* fn = nullptr;
  if (info.api == api::Api::kEgl || info.api == api::Api::kGlx) {
    void* library = handle(info.api == api::Api::kEgl ? Library::kEgl : Library::kGlx);
    return library != nullptr ? dlsym(library, info.name) : nullptr;
  }
  for (Library library : {Library::kGles2, Library::kGles1, Library::kOpenGl})
    if (fn == nullptr && handle(library) != nullptr) fn = dlsym(handle(library), info.name);
  return fn;
}

std::string Driver::interposer_file() const {
  Dl_info info{};
  if (get_proc_address_ != nullptr &&
      dladdr(reinterpret_cast<void*>(get_proc_address_), &info) != 0 && info.dli_fname != nullptr &&
      std::string(info.dli_fname).find("gltrace") != std::string::npos)
    return info.dli_fname;
  return "";
}

void* Driver::resolve(uint32_t id) const {
  void* fn = exported(id);
  // Extensions are only reachable through eglGetProcAddress.
  const char* name = api::kFunctionInfo[id].name;
  if (fn == nullptr && name != nullptr && api::kFunctionInfo[id].api == api::Api::kGlx &&
      glx_get_proc_address_ != nullptr)
    fn = glx_get_proc_address_(reinterpret_cast<const unsigned char*>(name));
  else if (fn == nullptr && name != nullptr)
    fn = get_proc_address(name);
  if (fn == nullptr) fn = kAbsent;
  resolved_[id].store(fn, std::memory_order_relaxed);
  return fn;
}

EGLDisplay platform_display(Driver& driver, Platform platform, void* native, std::string* error) {
  bool x11 = platform == Platform::kX11;
  EGLenum name = x11 ? EGL_PLATFORM_X11_KHR : EGL_PLATFORM_SURFACELESS_MESA;
  EGLDisplay display = EGL_NO_DISPLAY;
  if (auto get = GL_CALL(driver, eglGetPlatformDisplay))
    display = get(name, native, nullptr);
  else if (auto get_ext = GL_CALL(driver, eglGetPlatformDisplayEXT))
    display = get_ext(name, native, nullptr);
  EGLint major = 0, minor = 0;
  auto initialize = GL_CALL(driver, eglInitialize);
  if (display == EGL_NO_DISPLAY || initialize == nullptr || !initialize(display, &major, &minor)) {
    *error = std::string("cannot open the ") + (x11 ? "X11" : "surfaceless") + " EGL display";
    return EGL_NO_DISPLAY;
  }
  return display;
}

}  // namespace gltrace::gl_loader
