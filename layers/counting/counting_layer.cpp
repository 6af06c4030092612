// A layer that intercepts every known EGL/GLES function. Built twice:
//  - libGLES_layer_counting.so counts calls per function, announces the first
//    eglInitialize it sees (so tests can prove the order of the chain) and
//    reports the counts at exit;
//  - libGLES_layer_passthrough.so (GLTRACE_PASSTHROUGH) only forwards: the
//    benchmark's measure of what one layer costs.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gltrace/api/functions.h"
#include "gltrace/gles_layer.h"

namespace {

void* g_next[gltrace::api::kFunctionIdLimit];

#ifdef GLTRACE_PASSTHROUGH
#define GLTRACE_LAYER_BEFORE(id) ((void)0)
#else
std::atomic<uint64_t> g_counts[gltrace::api::kFunctionIdLimit];
std::atomic<bool> g_announced{false};
// Unknown void(void) functions wrapped on request (see wrap_void_function).
constexpr int kVoidSlots = 4;
// Plain arrays: they must outlive C++ static destructors (read at exit).
char g_void_names[kVoidSlots][128];
void (*g_void_next[kVoidSlots])();
std::atomic<uint64_t> g_void_counts[kVoidSlots];

void on_call(unsigned id);
#define GLTRACE_LAYER_BEFORE(id) on_call(id)
#endif
#define GLTRACE_LAYER_NEXT(id) g_next[id]

}  // namespace

#include "gltrace/api/layer_wrappers.inc"

namespace {

#ifndef GLTRACE_PASSTHROUGH
// This copy's file name: tests load the same layer under several names.
const char* layer_name() {
  // A plain buffer, not a std::string: it is still read at exit, after C++
  // static destructors have run.
  static char name[256];
  if (name[0] == '\0') {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&g_next), &info);
    const char* path = info.dli_fname != nullptr ? info.dli_fname : "counting-layer";
    const char* slash = strrchr(path, '/');
    snprintf(name, sizeof name, "%s", slash != nullptr ? slash + 1 : path);
  }
  return name;
}
#endif

void* wrapper_for(unsigned id) {
  static const std::vector<void*> by_id = [] {
    std::vector<void*> table(gltrace::api::kFunctionIdLimit, nullptr);
    for (const auto& w : gltrace_layer_wrappers::kWrappers) table[w.id] = w.function;
    return table;
  }();
  return by_id[id];
}

#ifndef GLTRACE_PASSTHROUGH
void on_call(unsigned id) {
  g_counts[id].fetch_add(1, std::memory_order_relaxed);
  if (id == gltrace::api::kFn_eglInitialize && !g_announced.exchange(true))
    fprintf(stderr, "%s: first eglInitialize\n", layer_name());
}

// At exit: "total N" and "NAME COUNT" lines, to $GLTRACE_COUNT_DIR/<layer>.<pid>
// if set, else a one-line summary on stderr.
__attribute__((destructor)) void report_counts() {
  uint64_t total = 0;
  size_t distinct = 0;
  for (auto& count : g_counts) {
    uint64_t n = count.load(std::memory_order_relaxed);
    total += n;
    distinct += n != 0;
  }
  const char* dir = getenv("GLTRACE_COUNT_DIR");
  if (dir == nullptr || *dir == '\0') {
    fprintf(stderr, "%s: %llu calls to %zu distinct functions\n", layer_name(),
            static_cast<unsigned long long>(total), distinct);
    return;
  }
  std::string path = std::string(dir) + "/" + layer_name() + "." + std::to_string(getpid());
  FILE* out = fopen(path.c_str(), "w");
  if (out == nullptr) {
    fprintf(stderr, "%s: cannot write %s\n", layer_name(), path.c_str());
    return;
  }
  fprintf(out, "total %llu\n", static_cast<unsigned long long>(total));
  for (int slot = 0; slot < kVoidSlots; ++slot)
    if (g_void_names[slot][0] != '\0')
      fprintf(out, "%s %llu\n", g_void_names[slot],
              static_cast<unsigned long long>(g_void_counts[slot].load()));
  for (unsigned id = 0; id < gltrace::api::kFunctionIdLimit; ++id) {
    uint64_t n = g_counts[id].load(std::memory_order_relaxed);
    if (n != 0)
      fprintf(out, "%s %llu\n", gltrace::api::kFunctionInfo[id].name,
              static_cast<unsigned long long>(n));
  }
  fclose(out);
}
#endif

#ifndef GLTRACE_PASSTHROUGH
// Functions the generated model does not know have unknown signatures and
// cannot be wrapped in general. Tests name a few void(void) ones in
// GLTRACE_COUNT_VOID_FUNCTIONS (','-separated) to prove that such functions,
// obtained through eglGetProcAddress, still pass through the layers.

template <int kSlot>
void void_wrapper() {
  g_void_counts[kSlot].fetch_add(1, std::memory_order_relaxed);
  g_void_next[kSlot]();
}
void (*const kVoidWrappers[kVoidSlots])() = {void_wrapper<0>, void_wrapper<1>, void_wrapper<2>,
                                             void_wrapper<3>};

void* wrap_void_function(const char* name, EGLFuncPointer next) {
  const char* list = getenv("GLTRACE_COUNT_VOID_FUNCTIONS");
  if (list == nullptr || strstr(list, name) == nullptr) return nullptr;
  for (int slot = 0; slot < kVoidSlots; ++slot) {
    if (g_void_names[slot][0] == '\0' || strcmp(g_void_names[slot], name) == 0) {
      snprintf(g_void_names[slot], sizeof g_void_names[slot], "%s", name);
      g_void_next[slot] = next;
      return reinterpret_cast<void*>(kVoidWrappers[slot]);
    }
  }
  return nullptr;
}
#endif

}  // namespace

extern "C" __attribute__((visibility("default"))) void AndroidGLESLayer_Initialize(
    void* /*layer_id*/, PFNEGLGETNEXTLAYERPROCADDRESSPROC /*get_next_layer_proc_address*/) {}

extern "C" __attribute__((visibility("default"))) void* AndroidGLESLayer_GetProcAddress(
    const char* name, EGLFuncPointer next) {
  gltrace::api::FunctionId id = gltrace::api::find_function(name);
  if (next == nullptr) return nullptr;
  if (id == gltrace::api::kInvalidFunction) {
#ifndef GLTRACE_PASSTHROUGH
    if (void* wrapper = wrap_void_function(name, next)) return wrapper;
#endif
    return reinterpret_cast<void*>(next);  // unknown signature: cannot wrap
  }
  g_next[id] = reinterpret_cast<void*>(next);
  return wrapper_for(id);
}
