#include "dispatch/dispatch.h"

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/log.h"
#include "dispatch/driver.h"
#include "dispatch/stubs.h"

extern "C" {
__thread const gltrace::dispatch::Table* gltrace_thread_table = nullptr;
const gltrace::dispatch::Table* gltrace_global_table = &gltrace::dispatch::kBootstrapTable;
// Address of trampoline 0 of the dynamic slots (trampolines_x86_64.S).
extern char gltrace_dynamic_trampolines[] __attribute__((visibility("hidden")));
}

namespace gltrace::dispatch {
namespace {

ChainBuilder* g_builder = nullptr;
gl_loader::Driver g_driver;
Table g_driver_table;
Table g_missing_table;  // used when there is no driver at all
std::atomic<bool> g_ready{false};
std::mutex g_init_mutex;
thread_local bool t_initializing = false;

std::atomic<void*> g_resolved[api::kFunctionIdLimit];
std::atomic<bool> g_reported_missing[api::kFunctionIdLimit];

// Guards the dynamic slots.
std::mutex g_tables_mutex;
std::map<std::string, uint32_t> g_dynamic_slots;  // name -> slot index

void initialize_locked() {
  const Table* table = nullptr;
  if (load_driver(g_driver, g_driver_table)) {
    table = &g_driver_table;
    if (g_builder != nullptr) table = g_builder->build(g_driver_table);
  } else {
    for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id)
      g_missing_table.entries[id] = missing_stubs()[id];
    table = &g_missing_table;
  }
  __atomic_store_n(&gltrace_global_table, table, __ATOMIC_RELEASE);
}

}  // namespace

void set_chain_builder(ChainBuilder* builder) { g_builder = builder; }

void set_thread_table(const Table* table) { gltrace_thread_table = table; }

void set_global_table(const Table* table) {
  if (g_ready.load(std::memory_order_acquire))
    __atomic_store_n(&gltrace_global_table, table, __ATOMIC_RELEASE);
}

const Table* bootstrap_table() {
  if (!g_ready.load(std::memory_order_acquire)) {
    // A layer that calls EGL/GL from its AndroidGLESLayer_Initialize reaches
    // here again on the same thread: give it the driver.
    if (t_initializing) return &g_driver_table;
    std::lock_guard<std::mutex> lock(g_init_mutex);
    if (!g_ready.load(std::memory_order_relaxed)) {
      t_initializing = true;
      initialize_locked();
      t_initializing = false;
      g_ready.store(true, std::memory_order_release);
    }
  }
  return __atomic_load_n(&gltrace_global_table, __ATOMIC_ACQUIRE);
}

const Table* driver_table() {
  return g_ready.load(std::memory_order_acquire) || t_initializing ? &g_driver_table : nullptr;
}

void* driver_get_proc_address(const char* name) { return g_driver.get_proc_address(name); }

void* resolve_driver_function(uint32_t id) {
  void* function = g_resolved[id].load(std::memory_order_acquire);
  if (function != nullptr) return function;
  // Exported by a library, else from the API's GetProcAddress.
  function = g_driver.proc(id);
  if (function == nullptr) function = missing_stubs()[id];
  g_resolved[id].store(function, std::memory_order_release);
  return function;
}

void report_missing_function(uint32_t id) {
  if (!g_reported_missing[id].exchange(true))
    GLTRACE_LOG_WARN("the app called %s, which the driver does not provide; it does nothing",
                     api::kFunctionInfo[id].name);
}

void* dynamic_entry_point(const char* name, void* driver_function) {
#if defined(__x86_64__)
  std::lock_guard<std::mutex> lock(g_tables_mutex);
  auto found = g_dynamic_slots.find(name);
  uint32_t index;
  if (found != g_dynamic_slots.end()) {
    index = found->second;
  } else {
    if (g_dynamic_slots.size() >= kDynamicSlotCount) {
      GLTRACE_LOG_WARN("more than %u unknown functions were asked for; %s bypasses the layers",
                       kDynamicSlotCount, name);
      return driver_function;
    }
    index = static_cast<uint32_t>(g_dynamic_slots.size());
    uint32_t slot = api::kFunctionIdLimit + index;
    g_driver_table.entries[slot] = driver_function;
    if (g_builder != nullptr) g_builder->add_dynamic(slot, name, driver_function);
    g_dynamic_slots.emplace(name, index);
    GLTRACE_LOADER_DEBUG("unknown function %s gets dynamic slot %u", name, index);
  }
  return gltrace_dynamic_trampolines + 16 * index;
#else
  GLTRACE_LOG_WARN("%s is unknown to gltrace and bypasses the layers on this CPU", name);
  return driver_function;
#endif
}

}  // namespace gltrace::dispatch
