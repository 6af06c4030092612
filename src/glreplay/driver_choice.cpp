#include "glreplay/driver_choice.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gltrace::glreplay {

const char kDriverOptionHelp[] =
    "the EGL/GLES driver: llvmpipe, softpipe, zink (Mesa's GL on Vulkan, on lavapipe), "
    "default, a directory holding libEGL.so.1 and libGLESv2.so.2, a GLVND EGL vendor file "
    "(.json) or a GLVND vendor library (libEGL_nvidia.so.0)";

namespace {

bool is_directory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string absolute(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string out = real;
  free(real);
  return out;
}

// The first file in `dirs` (each a directory of JSON files) that mentions
// `needle`, in the order the loaders read them (by name).
std::string find_json(const char* const* dirs, size_t count, const char* needle) {
  for (size_t d = 0; d < count; ++d) {
    DIR* dir = opendir(dirs[d]);
    if (dir == nullptr) continue;
    std::string best;
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (!ends_with(name, ".json")) continue;
      std::string path = std::string(dirs[d]) + "/" + name;
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find(needle) != std::string::npos && (best.empty() || path < best))
        best = path;
    }
    closedir(dir);
    if (!best.empty()) return best;
  }
  return "";
}

constexpr const char* kEglVendorDirs[] = {"/etc/glvnd/egl_vendor.d",
                                          "/usr/share/glvnd/egl_vendor.d"};
constexpr const char* kVulkanIcdDirs[] = {"/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d"};

// GLVND loads only this vendor: another (NVIDIA's, say) listed first would
// otherwise take the display.
void only_vendor(const std::string& file) {
  setenv("__EGL_VENDOR_LIBRARY_FILENAMES", file.c_str(), 1);
}

// A vendor file for a vendor library given by path. It lives in memory
// (memfd) under /proc/self/fd/N; the descriptor is inherited, so processes
// this one starts read it under the same path.
bool vendor_file_for(const std::string& library, std::string* file, std::string* error) {
  int fd = memfd_create("gltrace-egl-vendor.json", 0);
  if (fd < 0) {
    *error = std::string("cannot make a GLVND vendor file: ") + strerror(errno);
    return false;
  }
  std::string json =
      "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + library + "\"}}\n";
  if (write(fd, json.data(), json.size()) != static_cast<ssize_t>(json.size())) {
    *error = std::string("cannot write a GLVND vendor file: ") + strerror(errno);
    close(fd);
    return false;
  }
  *file = "/proc/self/fd/" + std::to_string(fd);
  return true;
}

bool mesa_driver(const std::string& name, std::string* error) {
  if (name == "zink" && find_json(kVulkanIcdDirs, std::size(kVulkanIcdDirs), "lvp").empty()) {
    *error =
        "--driver zink runs on lavapipe, Mesa's software Vulkan driver, which is not installed "
        "(Debian package mesa-vulkan-drivers)";
    return false;
  }
  // Mesa's loader reads these when libEGL initializes; zink with software
  // rendering asked for picks the CPU Vulkan device (lavapipe) even where a
  // GPU's Vulkan driver is there too.
  setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);
  setenv("GALLIUM_DRIVER", name.c_str(), 1);
  unsetenv("MESA_LOADER_DRIVER_OVERRIDE");
  std::string mesa = find_json(kEglVendorDirs, std::size(kEglVendorDirs), "libEGL_mesa");
  if (!mesa.empty()) only_vendor(mesa);
  return true;
}

}  // namespace

bool choose_driver(const std::string& spec, DriverChoice* choice, std::string* error) {
  choice->name = spec.empty() ? "default" : spec;
  choice->dir.clear();
  if (spec.empty() || spec == "default") return true;
  if (spec == "llvmpipe" || spec == "softpipe" || spec == "zink") return mesa_driver(spec, error);
  if (is_directory(spec)) {
    choice->dir = spec;
    return true;
  }
  if (!is_file(spec)) {
    *error = "--driver " + spec +
             ": no such driver (llvmpipe, softpipe, zink, default, or the path of a directory, "
             "a GLVND vendor file or a libEGL)";
    return false;
  }
  std::string base = base_name(spec);
  if (ends_with(base, ".json")) {
    only_vendor(absolute(spec));
    return true;
  }
  if (base.rfind("libEGL_", 0) == 0) {
    std::string file;
    if (!vendor_file_for(absolute(spec), &file, error)) return false;
    only_vendor(file);
    return true;
  }
  if (base.rfind("libEGL.so", 0) == 0) {
    std::string path = absolute(spec);
    choice->dir = path.substr(0, path.rfind('/'));
    return true;
  }
  *error = "--driver " + spec +
           ": not a driver (a directory, a GLVND vendor file (.json), libEGL_VENDOR.so.0 or "
           "libEGL.so.1)";
  return false;
}

bool choose_driver_for(const std::string& program, const std::string& spec, std::string* dir) {
  DriverChoice choice;
  std::string error;
  if (!choose_driver(spec, &choice, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return false;
  }
  *dir = choice.dir;
  return true;
}

}  // namespace gltrace::glreplay
