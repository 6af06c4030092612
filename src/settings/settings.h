// Persistent gltrace settings: the Linux analogue of Android's
// `adb shell settings put global NAME VALUE`.
//
// Two files of `name=value` lines: a system file (/etc/gltrace/settings.conf)
// and a per-user file under $XDG_CONFIG_HOME; the user's values override the
// system's per name. This library is linked into the interposer, which runs
// inside arbitrary apps: nothing here throws, prints or uses heavy globals.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace gltrace::settings {

// Android's setting names (gles-layers seed, "enabling layers").
inline constexpr char kEnableGpuDebugLayers[] = "enable_gpu_debug_layers";
inline constexpr char kGpuDebugApp[] = "gpu_debug_app";
inline constexpr char kGpuDebugLayersGles[] = "gpu_debug_layers_gles";
inline constexpr char kGpuDebugLayerApp[] = "gpu_debug_layer_app";
// Android's global property (`setprop debug.gles.layers`), kept as a setting.
inline constexpr char kDebugGlesLayers[] = "debug.gles.layers";

inline constexpr size_t kMaxNameLength = 128;
inline constexpr size_t kMaxValueLength = 4096;
inline constexpr size_t kMaxFileSize = 1024 * 1024;

using Values = std::map<std::string, std::string>;

// $XDG_CONFIG_HOME/gltrace/settings.conf, else $HOME/.config/gltrace/settings.conf,
// else "" (always "" in secure processes: the environment is not trusted there).
std::string user_file_path();

// /etc/gltrace/settings.conf, or $GLTRACE_SYSTEM_SETTINGS outside secure processes.
std::string system_file_path();

struct LoadResult {
  Values values;
  // Empty when all is well; otherwise one "path:line: message" (or "path: message") per line.
  std::string error;
  // False when the file exists but could not be read at all (too large, not a
  // regular file, unreadable); values is then empty and must not be written back.
  bool read_ok = true;
};

// A missing file gives no values and no error. Malformed lines are skipped and
// reported; later lines win over earlier ones with the same name.
LoadResult load_file(const std::string& path);

enum class FileKind { kUser, kSystem };

// Atomically replaces `path` (temp file in the same directory, fsync, rename),
// creating missing parent directories (0700 for kUser, 0755 for kSystem). The
// file gets mode 0600 (kUser) or 0644 (kSystem). Refuses invalid names/values.
bool save_file(const std::string& path, const Values& values, std::string* error,
               FileKind kind = FileKind::kUser);

// The values in effect: system file, overridden per name by the user file. In
// a secure process only the system file (at its default path) is read.
// Problems are appended to *errors (one per line) when it is not null.
Values load_effective(std::string* errors = nullptr);

// load_effective() with explicit paths; an empty user_path skips the user file.
Values load_effective_from(const std::string& system_path, const std::string& user_path,
                           std::string* errors = nullptr);

// [A-Za-z0-9_.-]+, at most kMaxNameLength characters.
bool valid_name(const std::string& name);
// Any text without newline or NUL, at most kMaxValueLength bytes.
bool valid_value(const std::string& value);

}  // namespace gltrace::settings
