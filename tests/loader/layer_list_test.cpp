// The layer-list priority and the search order, as plain logic.
#include "layers/layer_list.h"

#include <gtest/gtest.h>

#include "layers/discovery.h"

namespace gltrace::layers {
namespace {

settings::Values app_settings(const std::string& app) {
  return {{settings::kEnableGpuDebugLayers, "1"},
          {settings::kGpuDebugApp, app},
          {settings::kGpuDebugLayersGles, "libA.so:libB.so"},
          {settings::kDebugGlesLayers, "libGlobal.so"}};
}

TEST(LayerList, AppSettingsWinWhenTheAppMatches) {
  LayerList list = choose_layer_list(app_settings("demo"), "libEnv.so", "demo");
  EXPECT_EQ(list.names, (std::vector<std::string>{"libA.so", "libB.so"}));
  EXPECT_NE(list.source.find("gpu_debug_layers_gles"), std::string::npos);
}

TEST(LayerList, EnvironmentWhenAnotherAppIsSelected) {
  LayerList list = choose_layer_list(app_settings("other"), "libEnv.so", "demo");
  EXPECT_EQ(list.names, std::vector<std::string>{"libEnv.so"});
  EXPECT_EQ(list.source, "environment DEBUG_GLES_LAYERS");
}

TEST(LayerList, AppSettingsNeedTheEnableSwitch) {
  settings::Values values = app_settings("demo");
  values[settings::kEnableGpuDebugLayers] = "0";
  EXPECT_EQ(choose_layer_list(values, nullptr, "demo").names,
            std::vector<std::string>{"libGlobal.so"});
}

TEST(LayerList, GlobalSettingLast) {
  settings::Values values = {{settings::kDebugGlesLayers, "libGlobal.so"}};
  EXPECT_EQ(choose_layer_list(values, "", "demo").names, std::vector<std::string>{"libGlobal.so"});
  EXPECT_TRUE(choose_layer_list({}, nullptr, "demo").names.empty());
}

TEST(LayerList, SplitDropsEmptyEntries) {
  EXPECT_EQ(split_list("::a.so::b.so:"), (std::vector<std::string>{"a.so", "b.so"}));
  EXPECT_TRUE(split_list("").empty());
}

TEST(SearchDirs, AndroidOrderThenLayerPath) {
  SearchContext context;
  context.executable = "/opt/app/bin/app";
  context.settings = {{settings::kGpuDebugLayerApp, "/pkg/one:two"}};
  context.layer_path = "/extra";
  context.xdg_data_home = "/home/u/.local/share";
  std::vector<std::string> paths;
  for (const auto& dir : search_dirs(context)) paths.push_back(dir.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{kDefaultSystemLayerDir, "/opt/app/bin", "/pkg/one",
                                      "/home/u/.local/share/gltrace/packages/two",
                                      "/usr/local/lib/gltrace/packages/two",
                                      "/usr/lib/gltrace/packages/two", "/opt/app/lib", "/extra"}));
}

TEST(SearchDirs, SecureProcessIgnoresEnvironmentDirs) {
  SearchContext context;
  context.executable = "/opt/app/bin/app";
  context.secure = true;
  context.system_dir = "/tmp/evil";
  context.layer_path = "/tmp/evil2";
  context.xdg_data_home = "/tmp/evil3";
  context.settings = {{settings::kGpuDebugLayerApp, "two"}};
  for (const auto& dir : search_dirs(context)) {
    EXPECT_EQ(dir.path.find("/tmp/evil"), std::string::npos) << dir.path;
  }
  EXPECT_EQ(search_dirs(context).front().path, kDefaultSystemLayerDir);
  EXPECT_TRUE(search_dirs(context).front().root_only);
}

}  // namespace
}  // namespace gltrace::layers
