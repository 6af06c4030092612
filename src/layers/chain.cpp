#include "layers/chain.h"

#include <dlfcn.h>

#include <atomic>
#include <set>

#include "common/log.h"
#include "common/process.h"
#include "dispatch/dl.h"
#include "gltrace/api/pfn.h"
#include "layers/discovery.h"
#include "layers/layer_list.h"
#include "settings/live_config.h"

namespace gltrace::layers {
namespace {

// Android's getNextLayerProcAddress: layer_id is the table below the layer.
// Known names come from that table; unknown ones are asked of its
// eglGetProcAddress, so they still pass the layers further down.
void* get_next_layer_proc_address(void* layer_id, const char* name) {
  auto next = static_cast<const dispatch::Table*>(layer_id);
  if (next == nullptr || name == nullptr) return nullptr;
  api::FunctionId id = api::find_function(name);
  if (id != api::kInvalidFunction) return next->entries[id];
  auto gpa =
      reinterpret_cast<PFN_gltrace_eglGetProcAddress>(next->entries[api::kFn_eglGetProcAddress]);
  return reinterpret_cast<void*>(gpa(name));
}

void* layer_function(PFNANDROIDGLESLAYERGETPROCADDRESSPROC gpa, const char* name, void* next) {
  void* function = gpa(name, reinterpret_cast<EGLFuncPointer>(next));
  return function != nullptr ? function : next;  // nullptr: the layer does not care
}

// The live layer's two tables, for the host functions it calls.
const dispatch::Table* g_live_idle = nullptr;
const dispatch::Table* g_live_active = nullptr;
std::atomic<bool> g_live_default_active{false};

void live_use_active(int active) {
  dispatch::set_thread_table(active != 0 ? g_live_active : g_live_idle);
}

void live_set_default(int active) {
  g_live_default_active.store(active != 0);
  if (g_live_idle != nullptr) dispatch::set_global_table(active != 0 ? g_live_active : g_live_idle);
}

const GltraceLiveHost kLiveHost = {GLTRACE_LIVE_HOST_VERSION, &live_use_active, &live_set_default};

constexpr char kTraceLayerName[] = "libGLES_trace.so";

// The trace layer installed with the interposer: <its dir>/layers/.
std::string bundled_trace_layer() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&live_use_active), &info) == 0 || info.dli_fname == nullptr)
    return "";
  return dirname_of(info.dli_fname) + "/layers/" + kTraceLayerName;
}

}  // namespace

const dispatch::Table* LayerChain::build(const dispatch::Table& driver) {
  std::string errors;
  SearchContext context;
  context.executable = executable_path();
  context.settings = settings::load_effective(&errors);
  if (!errors.empty()) GLTRACE_LOG_WARN("settings: %s", errors.c_str());
  context.secure = is_secure_process();
  context.system_dir = env_get("GLTRACE_SYSTEM_LAYER_DIR");
  context.layer_path = env_get("GLTRACE_LAYER_PATH");
  context.xdg_data_home = env_get("XDG_DATA_HOME");
  context.home = env_get("HOME");

  LayerList list =
      choose_layer_list(context.settings, env_get("DEBUG_GLES_LAYERS"), process_name());
  GLTRACE_LOADER_DEBUG("process %s%s: layer list from %s: %zu layer(s)", process_name().c_str(),
                       context.secure ? " (secure: environment and user settings ignored)" : "",
                       list.source.c_str(), list.names.size());
  if (list.names.empty()) return build_live(context, &driver);

  std::vector<SearchDir> dirs = search_dirs(context);
  std::vector<Layer> loaded;  // top first, as listed
  std::set<std::string> seen;
  for (const auto& name : list.names) {
    if (!seen.insert(name).second) {
      GLTRACE_LOG_WARN("layer %s is listed twice; loaded once", name.c_str());
      continue;
    }
    FoundLayer found = find_layer(name, dirs);
    if (found.path.empty()) {
      GLTRACE_LOG_ERROR("layer %s skipped: %s", name.c_str(), found.error.c_str());
      continue;
    }
    void* handle = dispatch::real_dlopen(found.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      GLTRACE_LOG_ERROR("layer %s skipped: cannot load %s: %s", name.c_str(), found.path.c_str(),
                        dlerror());
      continue;
    }
    auto initialize = reinterpret_cast<PFNANDROIDGLESLAYERINITIALIZEPROC>(
        dlsym(handle, "AndroidGLESLayer_Initialize"));
    auto gpa = reinterpret_cast<PFNANDROIDGLESLAYERGETPROCADDRESSPROC>(
        dlsym(handle, "AndroidGLESLayer_GetProcAddress"));
    if (initialize == nullptr || gpa == nullptr) {
      GLTRACE_LOG_ERROR("layer %s skipped: %s does not export %s", name.c_str(), found.path.c_str(),
                        initialize == nullptr && gpa == nullptr
                            ? "AndroidGLESLayer_Initialize nor AndroidGLESLayer_GetProcAddress"
                        : initialize == nullptr ? "AndroidGLESLayer_Initialize"
                                                : "AndroidGLESLayer_GetProcAddress");
      dlclose(handle);
      continue;
    }
    Layer layer;
    layer.name = name;
    layer.path = found.path;
    layer.initialize = initialize;
    layer.get_proc_address = gpa;
    loaded.push_back(std::move(layer));
  }

  // Bottom-up: the last listed layer sits on the driver.
  const dispatch::Table* next = &driver;
  for (auto it = loaded.rbegin(); it != loaded.rend(); ++it) {
    Layer& layer = *it;
    layer.next = next;
    GLTRACE_LOADER_DEBUG("initializing layer %s (%s)", layer.name.c_str(), layer.path.c_str());
    layer.initialize(const_cast<dispatch::Table*>(next), &get_next_layer_proc_address);
    layer.table = std::make_unique<dispatch::Table>();
    size_t intercepted = 0;
    for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
      const char* function_name = api::kFunctionInfo[id].name;
      if (function_name == nullptr) continue;
      void* function = layer_function(layer.get_proc_address, function_name, next->entries[id]);
      intercepted += function != next->entries[id];
      layer.table->entries[id] = function;
    }
    GLTRACE_LOADER_DEBUG("layer %s intercepts %zu functions", layer.name.c_str(), intercepted);
    next = layer.table.get();
    layers_.push_back(std::move(layer));
  }
  std::string chain;
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) chain += it->name + " -> ";
  GLTRACE_LOADER_DEBUG("layer chain (app first): %sdriver", chain.c_str());
  return build_live(context, next);
}

const dispatch::Table* LayerChain::build_live(const SearchContext& context,
                                              const dispatch::Table* top) {
  settings::LiveConfig config =
      settings::choose_live_config(context.settings, &env_get, process_name());
  if (!config.enabled) {
    if (!config.error.empty()) GLTRACE_LOG_WARN("live tracing off: %s", config.error.c_str());
    return top;
  }
  GLTRACE_LOADER_DEBUG("process %s is traceable (%s mode, from %s)", process_name().c_str(),
                       config.mode.c_str(), config.source.c_str());
  for (const Layer& layer : layers_) {
    if (basename_of(layer.path) == kTraceLayerName) {
      GLTRACE_LOG_WARN("live tracing off: the trace layer is already in the layer list");
      return top;
    }
  }
  FoundLayer found = find_layer(kTraceLayerName, search_dirs(context));
  if (found.path.empty()) {
    std::string bundled = bundled_trace_layer();
    FoundLayer installed =
        bundled.empty() ? FoundLayer{"", "not installed"} : find_layer(bundled, {});
    if (installed.path.empty()) {
      GLTRACE_LOG_ERROR("live tracing off: %s: %s; %s", kTraceLayerName, found.error.c_str(),
                        installed.error.c_str());
      return top;
    }
    found.path = installed.path;
  }
  void* handle = dispatch::real_dlopen(found.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto initialize = handle == nullptr ? nullptr
                                      : reinterpret_cast<PFNGLTRACELIVELAYERINITIALIZEPROC>(
                                            dlsym(handle, "GltraceLiveLayer_Initialize"));
  live_.get_proc_address = handle == nullptr
                               ? nullptr
                               : reinterpret_cast<PFNANDROIDGLESLAYERGETPROCADDRESSPROC>(
                                     dlsym(handle, "AndroidGLESLayer_GetProcAddress"));
  live_.get_idle_proc_address = handle == nullptr
                                    ? nullptr
                                    : reinterpret_cast<PFNGLTRACELIVELAYERGETIDLEPROCADDRESSPROC>(
                                          dlsym(handle, "GltraceLiveLayer_GetIdleProcAddress"));
  if (initialize == nullptr || live_.get_proc_address == nullptr ||
      live_.get_idle_proc_address == nullptr) {
    GLTRACE_LOG_ERROR("live tracing off: %s is not a live layer (%s)", found.path.c_str(),
                      handle == nullptr ? dlerror() : "missing GltraceLiveLayer_* exports");
    live_.get_proc_address = nullptr;
    return top;
  }
  live_.active = std::make_unique<dispatch::Table>();
  live_.idle = std::make_unique<dispatch::Table>(*top);
  for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
    const char* name = api::kFunctionInfo[id].name;
    if (name == nullptr) continue;
    live_.active->entries[id] = layer_function(live_.get_proc_address, name, top->entries[id]);
    void* idle =
        live_.get_idle_proc_address(name, reinterpret_cast<EGLFuncPointer>(top->entries[id]));
    if (idle != nullptr) live_.idle->entries[id] = idle;
  }
  g_live_idle = live_.idle.get();
  g_live_active = live_.active.get();
  initialize(const_cast<dispatch::Table*>(top), &get_next_layer_proc_address, &kLiveHost);
  GLTRACE_LOADER_DEBUG("live layer %s on top of the chain; threads start %s", found.path.c_str(),
                       g_live_default_active.load() ? "tracing" : "idle");
  return g_live_default_active.load() ? g_live_active : g_live_idle;
}

void LayerChain::add_dynamic(uint32_t slot, const char* name, void* driver_function) {
  void* next = driver_function;
  for (auto& layer : layers_) {
    next = layer_function(layer.get_proc_address, name, next);
    layer.table->entries[slot] = next;
  }
  if (live_.active != nullptr) {
    live_.idle->entries[slot] = next;
    live_.active->entries[slot] = layer_function(live_.get_proc_address, name, next);
  }
}

}  // namespace gltrace::layers
