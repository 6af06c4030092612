#include "layers/layer_list.h"

namespace gltrace::layers {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) items.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

LayerList choose_layer_list(const settings::Values& values, const char* env_layers,
                            const std::string& process_name) {
  auto get = [&](const char* name) {
    auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  };
  if (get(settings::kEnableGpuDebugLayers) == "1" && !process_name.empty() &&
      get(settings::kGpuDebugApp) == process_name) {
    return {split_list(get(settings::kGpuDebugLayersGles)),
            std::string("setting ") + settings::kGpuDebugLayersGles +
                " (gpu_debug_app=" + process_name + ")"};
  }
  if (env_layers != nullptr && *env_layers != '\0')
    return {split_list(env_layers), "environment DEBUG_GLES_LAYERS"};
  std::string global = get(settings::kDebugGlesLayers);
  if (!global.empty())
    return {split_list(global), std::string("setting ") + settings::kDebugGlesLayers};
  return {{}, "none"};
}

}  // namespace gltrace::layers
