#include "common/process.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

std::string read_command_line() {
  std::string line;
  FILE* f = fopen("/proc/self/cmdline", "rbe");
  if (f == nullptr) return line;
  int c;
  while ((c = fgetc(f)) != EOF) line += c == 0 ? ' ' : static_cast<char>(c);
  fclose(f);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// Set before main in the interposer; never freed (read until exit).
const std::string* g_command_line_at_load = nullptr;

}  // namespace

// Exported by the interposer (exports.map), so that the trace layer, loaded
// later with its own copy of this file, finds the line read before main.
extern "C" __attribute__((visibility("default"))) const char* gltrace_command_line_at_load() {
  return g_command_line_at_load != nullptr ? g_command_line_at_load->c_str() : nullptr;
}

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

void remember_command_line_at_load() {
  if (g_command_line_at_load == nullptr)
    g_command_line_at_load = new std::string(read_command_line());
}

const std::string& command_line() {
  static const std::string line = [] {
    using Getter = const char* (*)();
    auto getter = reinterpret_cast<Getter>(dlsym(RTLD_DEFAULT, "gltrace_command_line_at_load"));
    const char* at_load = getter != nullptr ? getter() : nullptr;
    return at_load != nullptr ? std::string(at_load) : read_command_line();
  }();
  return line;
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
