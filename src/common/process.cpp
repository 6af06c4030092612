#include "common/process.h"

#include <sys/auxv.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace gltrace {

bool is_secure_process() {
  static const bool secure = [] {
    if (getauxval(AT_SECURE) != 0) return true;
    const char* assume = getenv("GLTRACE_ASSUME_SECURE");
    return assume != nullptr && strcmp(assume, "1") == 0;
  }();
  return secure;
}

const char* env_get(const char* name) { return is_secure_process() ? nullptr : getenv(name); }

const std::string& executable_path() {
  static const std::string path = [] {
    char buffer[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0) return std::string();
    return std::string(buffer, static_cast<size_t>(n));
  }();
  return path;
}

const std::string& process_name() {
  static const std::string name = basename_of(executable_path());
  return name;
}

std::string dirname_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace gltrace
