#include "layers/discovery.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "common/log.h"
#include "common/process.h"
#include "layers/layer_list.h"

namespace gltrace::layers {
namespace {

std::string mode_string(mode_t mode) {
  char buffer[16];
  snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

std::string check_owner_and_mode(const std::string& path, const struct stat& st, bool root_only,
                                 const char* what) {
  uid_t me = geteuid();
  if (st.st_uid != 0 && (root_only || st.st_uid != me))
    return std::string(what) + " " + path + " is owned by uid " + std::to_string(st.st_uid) +
           (root_only ? ", not root" : ", neither root nor this user");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return std::string(what) + " " + path + " is writable by other users (mode " +
           mode_string(st.st_mode) + ")";
  return "";
}

}  // namespace

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

std::string untrusted_reason(const std::string& path, bool root_only) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return "cannot resolve " + path;
  struct stat st;
  if (stat(resolved, &st) != 0 || !S_ISREG(st.st_mode)) return path + " is not a regular file";
  std::string reason = check_owner_and_mode(resolved, st, root_only, "layer file");
  if (!reason.empty()) return reason;
  std::string dir = dirname_of(resolved);
  if (stat(dir.c_str(), &st) != 0) return "cannot stat directory " + dir;
  return check_owner_and_mode(dir, st, root_only, "layer directory");
}

FoundLayer find_layer(const std::string& name, const std::vector<SearchDir>& dirs) {
  struct stat st;
  if (name[0] == '/') {
    if (stat(name.c_str(), &st) != 0) return {"", "not found at " + name};
    std::string reason = untrusted_reason(name, false);
    if (!reason.empty()) return {"", "refused: " + reason};
    return {name, ""};
  }
  if (name.find('/') != std::string::npos)
    return {"", "a layer is named by a file name or an absolute path, not a relative path"};
  std::string tried;
  for (const auto& dir : dirs) {
    std::string candidate = dir.path + "/" + name;
    tried += (tried.empty() ? "" : ", ") + dir.path;
    if (stat(candidate.c_str(), &st) != 0) {
      GLTRACE_LOADER_DEBUG("  %s: not in %s (%s)", name.c_str(), dir.path.c_str(), dir.why.c_str());
      continue;
    }
    std::string reason = untrusted_reason(candidate, dir.root_only);
    if (!reason.empty()) return {"", "refused: " + reason};
    GLTRACE_LOADER_DEBUG("  %s: found in %s (%s)", name.c_str(), dir.path.c_str(), dir.why.c_str());
    return {candidate, ""};
  }
  return {"", "not found (searched: " + tried + ")"};
}

}  // namespace gltrace::layers
