// Where layer files are looked for, and whether a found file may be loaded.
#pragma once

#include <string>
#include <vector>

#include "settings/settings.h"

namespace gltrace::layers {

struct SearchDir {
  std::string path;
  std::string why;  // "system debug directory", "app base directory", ...
  bool root_only;   // only root-owned files are trusted here
};

struct SearchContext {
  std::string executable;               // /proc/self/exe
  settings::Values settings;            // effective settings
  bool secure = false;                  // setuid/setgid: environment and user dirs ignored
  const char* system_dir = nullptr;     // GLTRACE_SYSTEM_LAYER_DIR or nullptr
  const char* layer_path = nullptr;     // GLTRACE_LAYER_PATH or nullptr
  const char* xdg_data_home = nullptr;  // for user-installed layer packages
  const char* home = nullptr;
};

inline constexpr char kDefaultSystemLayerDir[] = "/usr/local/lib/gltrace/debug-layers";

// In priority order: the system debug directory, the app's base directory,
// the directories of the packages named by gpu_debug_layer_app, the app's own
// library directory, then GLTRACE_LAYER_PATH (gltrace's addition, like
// VK_LAYER_PATH, last so Android's order is kept).
std::vector<SearchDir> search_dirs(const SearchContext& context);

struct FoundLayer {
  // What to dlopen: the checked file by its path without links, . or ..
  // (no other user can change what it names). Empty if not found or refused.
  std::string path;
  std::string error;  // why it was not loaded
};

// Looks for `name` (a file name, or an absolute path) in the directories; the
// first existing file wins, and is then checked for trust (a refused one
// ends the search, with the reason). Trusted: the file, every directory from
// / to it and every link on the way belong to root or to us and are writable
// by nobody else (a sticky directory excepted); a directory with `root_only`
// demands root ownership (common/trusted_file.h).
FoundLayer find_layer(const std::string& name, const std::vector<SearchDir>& dirs);

}  // namespace gltrace::layers
