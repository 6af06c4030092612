#include "dispatch/driver.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/process.h"
#include "dispatch/dl.h"
#include "dispatch/stubs.h"

namespace gltrace::dispatch {
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

// The real library `soname`: $override_env if set, else the first file of that
// name in the system directories that is not the interposer itself.
void* open_real(const char* soname, const char* override_env, std::string& path_out,
                std::string& tried) {
  std::vector<std::string> candidates;
  if (const char* path = env_get(override_env)) candidates.push_back(path);
  for (const auto& dir : system_library_dirs()) candidates.push_back(dir + "/" + soname);
  for (const auto& candidate : candidates) {
    tried += (tried.empty() ? "" : ", ") + candidate;
    struct stat st;
    if (stat(candidate.c_str(), &st) != 0 || same_file(candidate, self_path())) continue;
    void* handle = real_dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      GLTRACE_LOG_WARN("cannot load driver library %s: %s", candidate.c_str(), dlerror());
      continue;
    }
    path_out = candidate;
    GLTRACE_LOADER_DEBUG("driver library %s: %s", soname, candidate.c_str());
    return handle;
  }
  return nullptr;
}

}  // namespace

bool load_driver(Driver& driver, Table& table) {
  std::string tried;
  driver.egl = open_real("libEGL.so.1", "GLTRACE_DRIVER_EGL", driver.egl_path, tried);
  if (driver.egl == nullptr) {
    GLTRACE_LOG_ERROR("no real libEGL.so.1 found (tried %s); every EGL/GLES call will fail",
                      tried.c_str());
    return false;
  }
  tried.clear();
  driver.gles2 = open_real("libGLESv2.so.2", "GLTRACE_DRIVER_GLESV2", driver.gles2_path, tried);
  tried.clear();
  driver.gles1 = open_real("libGLESv1_CM.so.1", "GLTRACE_DRIVER_GLESV1", driver.gles1_path, tried);
  driver.get_proc_address =
      reinterpret_cast<void* (*)(const char*)>(dlsym(driver.egl, "eglGetProcAddress"));

  // Exported symbols are taken directly; every other function (extensions)
  // is looked up through eglGetProcAddress at its first call, because asking
  // for all of them now would make glvnd create a stub for each.
  size_t direct = 0;
  for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
    const api::FunctionInfo& info = api::kFunctionInfo[id];
    if (info.name == nullptr) continue;
    void* function = nullptr;
    void* handles[] = {info.api == api::Api::kEgl ? driver.egl : driver.gles2, driver.gles1};
    for (void* handle : handles)
      if (function == nullptr && handle != nullptr) function = dlsym(handle, info.name);
    if (function != nullptr) ++direct;
    table.entries[id] = function != nullptr ? function : lazy_driver_stubs()[id];
  }
  GLTRACE_LOADER_DEBUG("driver: %zu functions exported by the libraries, the rest resolved lazily",
                       direct);
  return true;
}

}  // namespace gltrace::dispatch
