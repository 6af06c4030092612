#include "trace/symbolize.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <execinfo.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace gltrace::trace {
namespace {

// The libdw functions used, from dlopen: the layer has no link dependency
// on libdw (symbolize.h).
struct Libdw {
  decltype(&dwfl_begin) begin = nullptr;
  decltype(&dwfl_linux_proc_find_elf) proc_find_elf = nullptr;
  decltype(&dwfl_standard_find_debuginfo) find_debuginfo = nullptr;
  decltype(&dwfl_report_begin) report_begin = nullptr;
  decltype(&dwfl_linux_proc_report) proc_report = nullptr;
  decltype(&dwfl_report_end) report_end = nullptr;
  decltype(&dwfl_addrmodule) addrmodule = nullptr;
  decltype(&dwfl_module_addrname) addrname = nullptr;
  decltype(&dwfl_module_getsrc) getsrc = nullptr;
  decltype(&dwfl_lineinfo) lineinfo = nullptr;
  decltype(&dwfl_line_comp_dir) line_comp_dir = nullptr;
};

template <typename F>
bool resolve(void* library, const char* name, F* function) {
  *function = reinterpret_cast<F>(dlsym(library, name));
  return *function != nullptr;
}

// Null where libdw is not installed (or not the expected one).
const Libdw* load_libdw() {
  void* library = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return nullptr;
  auto* l = new Libdw();  // kept for the process's life, as the library
  if (resolve(library, "dwfl_begin", &l->begin) &&
      resolve(library, "dwfl_linux_proc_find_elf", &l->proc_find_elf) &&
      resolve(library, "dwfl_standard_find_debuginfo", &l->find_debuginfo) &&
      resolve(library, "dwfl_report_begin", &l->report_begin) &&
      resolve(library, "dwfl_linux_proc_report", &l->proc_report) &&
      resolve(library, "dwfl_report_end", &l->report_end) &&
      resolve(library, "dwfl_addrmodule", &l->addrmodule) &&
      resolve(library, "dwfl_module_addrname", &l->addrname) &&
      resolve(library, "dwfl_module_getsrc", &l->getsrc) &&
      resolve(library, "dwfl_lineinfo", &l->lineinfo) &&
      resolve(library, "dwfl_line_comp_dir", &l->line_comp_dir))
    return l;
  delete l;
  dlclose(library);
  return nullptr;
}

// The process's modules as libdwfl knows them: reported from
// /proc/self/maps at the first report, again when an address falls outside
// them (a library loaded since). Guarded by g_mutex.
std::mutex g_mutex;
const Libdw* g_libdw = nullptr;
Dwfl* g_dwfl = nullptr;

bool report_modules() {
  g_libdw->report_begin(g_dwfl);
  int failed = g_libdw->proc_report(g_dwfl, getpid());
  return g_libdw->report_end(g_dwfl, nullptr, nullptr) == 0 && failed == 0;
}

Dwfl* dwfl() {
  static bool tried = false;
  if (!tried) {
    tried = true;
    g_libdw = load_libdw();
    if (g_libdw == nullptr) return nullptr;
    static char* debuginfo_path = nullptr;  // libdwfl's default search path
    static const Dwfl_Callbacks callbacks = {g_libdw->proc_find_elf, g_libdw->find_debuginfo,
                                             nullptr, &debuginfo_path};
    g_dwfl = g_libdw->begin(&callbacks);
    if (g_dwfl != nullptr && !report_modules()) g_dwfl = nullptr;  // kept: its memory is small
  }
  return g_dwfl;
}

Dwfl_Module* module_of(Dwfl* d, uintptr_t address) {
  Dwfl_Module* module = g_libdw->addrmodule(d, address);
  if (module == nullptr && report_modules()) module = g_libdw->addrmodule(d, address);
  return module;
}

void append_demangled(std::string& out, const char* name) {
  int status = -1;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  out += status == 0 && demangled != nullptr ? demangled : name;
  free(demangled);
}

// A source file as an editor opens it: relative ones are to the directory
// the compiler ran in.
std::string source_path(const char* file, const char* compile_dir) {
  std::filesystem::path path(file);
  if (path.is_relative() && compile_dir != nullptr && *compile_dir != '\0')
    path = (std::filesystem::path(compile_dir) / path).lexically_normal();
  return path.string();
}

// The layer's own module: its frames are not the app's.
const void* own_module() {
  Dl_info info{};
  return dladdr(reinterpret_cast<const void*>(&own_module), &info) != 0 ? info.dli_fbase : nullptr;
}

}  // namespace

std::string describe_call_stack() {
  void* frames[32];
  int n = backtrace(frames, 32);
  std::lock_guard<std::mutex> lock(g_mutex);
  Dwfl* d = dwfl();
  const void* own = own_module();
  // The app's frames begin after the last of the trace layer's and the
  // interposer's (before them: backtrace itself, or a sanitizer's
  // interceptor of it).
  auto ours = [own](void* frame) {
    Dl_info info{};
    return dladdr(frame, &info) != 0 && info.dli_fname != nullptr &&
           (info.dli_fbase == own || strstr(info.dli_fname, "libgltrace.so") != nullptr);
  };
  int first = 0;
  for (int i = 0; i < n; ++i)
    if (ours(frames[i])) first = i + 1;
  std::string out;
  for (int i = first; i < n; ++i) {
    auto pc = reinterpret_cast<uintptr_t>(frames[i]);
    Dl_info info{};
    bool known = dladdr(frames[i], &info) != 0 && info.dli_fname != nullptr;
    // A return address: the call is the instruction before it (its line).
    uintptr_t call = pc - 1;
    std::string function, source;
    if (d != nullptr) {
      if (Dwfl_Module* module = module_of(d, call)) {
        if (const char* name = g_libdw->addrname(module, call)) append_demangled(function, name);
        if (Dwfl_Line* line = g_libdw->getsrc(module, call)) {
          int number = 0;
          const char* file = g_libdw->lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
          if (file != nullptr)
            source = source_path(file, g_libdw->line_comp_dir(line)) + ":" + std::to_string(number);
        }
      }
    }
    if (function.empty() && known && info.dli_sname != nullptr)
      append_demangled(function, info.dli_sname);
    char where[64];
    snprintf(where, sizeof where, "+0x%" PRIxPTR,
             known ? pc - reinterpret_cast<uintptr_t>(info.dli_fbase) : pc);
    out += "\n    at ";
    if (!function.empty()) {
      out += function;
      if (!source.empty()) out += " (" + source + ")";
      out += " in ";
    }
    out += known ? info.dli_fname : "?";
    out += where;
  }
  return out;
}

}  // namespace gltrace::trace
