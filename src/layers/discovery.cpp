#include "layers/discovery.h"

#include <unistd.h>

#include "common/log.h"
#include "common/process.h"
#include "common/trusted_file.h"
#include "layers/layer_list.h"

namespace gltrace::layers {

std::vector<SearchDir> search_dirs(const SearchContext& context) {
  std::vector<SearchDir> dirs;
  const char* system_dir =
      context.secure || context.system_dir == nullptr ? kDefaultSystemLayerDir : context.system_dir;
  dirs.push_back({system_dir, "system debug directory", true});
  std::string exe_dir = context.executable.empty() ? "" : dirname_of(context.executable);
  if (!exe_dir.empty()) dirs.push_back({exe_dir, "app base directory", false});

  auto package_setting = context.settings.find(settings::kGpuDebugLayerApp);
  if (package_setting != context.settings.end()) {
    for (const auto& package : split_list(package_setting->second)) {
      if (package[0] == '/') {
        dirs.push_back({package, "layer package " + package, false});
        continue;
      }
      if (package.find('/') != std::string::npos || package == "." || package == "..") continue;
      if (!context.secure) {
        std::string data_home =
            context.xdg_data_home != nullptr && *context.xdg_data_home
                ? context.xdg_data_home
                : (context.home != nullptr ? std::string(context.home) + "/.local/share" : "");
        if (!data_home.empty())
          dirs.push_back(
              {data_home + "/gltrace/packages/" + package, "layer package " + package, false});
      }
      for (const char* prefix : {"/usr/local/lib", "/usr/lib"})
        dirs.push_back({std::string(prefix) + "/gltrace/packages/" + package,
                        "layer package " + package, false});
    }
  }
  if (!exe_dir.empty())
    dirs.push_back({dirname_of(exe_dir) + "/lib", "app library directory", false});
  if (!context.secure && context.layer_path != nullptr)
    for (const auto& dir : split_list(context.layer_path))
      dirs.push_back({dir, "GLTRACE_LAYER_PATH", false});
  return dirs;
}

namespace {

// The trust check (common/trusted_file.h) decides; the descriptor is only
// for the check: the file is loaded by the path it returns, with no link on
// the way, through directories only root or this user can change.
TrustResult check(const std::string& path, bool root_only, std::string* canonical,
                  std::string* reason) {
  TrustedFile file;
  TrustResult result = open_trusted_file(path, root_only, "layer", &file, reason);
  if (result == TrustResult::kOk) {
    close(file.fd);
    *canonical = file.path;
  }
  return result;
}

}  // namespace

FoundLayer find_layer(const std::string& name, const std::vector<SearchDir>& dirs) {
  std::string canonical;
  std::string reason;
  if (name[0] == '/') {
    switch (check(name, false, &canonical, &reason)) {
      case TrustResult::kOk:
        GLTRACE_LOADER_DEBUG("  %s: trusted, loaded as %s", name.c_str(), canonical.c_str());
        return {canonical, ""};
      case TrustResult::kMissing:
        return {"", "not found at " + name};
      case TrustResult::kRefused:
        return {"", "refused: " + reason};
    }
  }
  if (name.find('/') != std::string::npos)
    return {"", "a layer is named by a file name or an absolute path, not a relative path"};
  std::string tried;
  for (const auto& dir : dirs) {
    std::string candidate = dir.path + "/" + name;
    tried += (tried.empty() ? "" : ", ") + dir.path;
    switch (check(candidate, dir.root_only, &canonical, &reason)) {
      case TrustResult::kMissing:
        GLTRACE_LOADER_DEBUG("  %s: not in %s (%s)", name.c_str(), dir.path.c_str(),
                             dir.why.c_str());
        continue;
      case TrustResult::kRefused:
        GLTRACE_LOADER_DEBUG("  %s: refused in %s (%s): %s", name.c_str(), dir.path.c_str(),
                             dir.why.c_str(), reason.c_str());
        return {"", "refused: " + reason};
      case TrustResult::kOk:
        GLTRACE_LOADER_DEBUG("  %s: found in %s (%s), loaded as %s", name.c_str(), dir.path.c_str(),
                             dir.why.c_str(), canonical.c_str());
        return {canonical, ""};
    }
  }
  return {"", "not found (searched: " + tried + ")"};
}

}  // namespace gltrace::layers
