// Which layers a process gets, and from where: Android's priority rules.
#pragma once

#include <string>
#include <vector>

#include "settings/settings.h"

namespace gltrace::layers {

struct LayerList {
  std::vector<std::string> names;  // top (nearest the app) first
  std::string source;              // where the list came from, for the log
};

// 1. gpu_debug_layers_gles, when enable_gpu_debug_layers is 1 and
//    gpu_debug_app names this process;
// 2. else the DEBUG_GLES_LAYERS environment variable (Android's
//    `setprop debug.gles.layers`), passed in as env_layers (nullptr if unset);
// 3. else the debug.gles.layers setting.
LayerList choose_layer_list(const settings::Values& values, const char* env_layers,
                            const std::string& process_name);

// Splits a ':'-separated list, dropping empty entries.
std::vector<std::string> split_list(const std::string& list);

}  // namespace gltrace::layers
