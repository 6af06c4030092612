// `gltrace settings`: the analogue of `adb shell settings put|get|delete|list global`.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/process.h"
#include "settings/settings.h"

namespace gltrace::cli {

const char kUsage_settings[] =
    "usage: gltrace settings [--system] put [global] NAME VALUE\n"
    "       gltrace settings [--system] get [global] NAME\n"
    "       gltrace settings [--system] delete [global] NAME\n"
    "       gltrace settings [--system] list [global]\n"
    "\n"
    "Persistent settings, like `adb shell settings ... global ...` on Android\n"
    "(the word `global` is optional). put and delete change your user file;\n"
    "get and list show the effective values: the system file, overridden per\n"
    "name by your user file. get prints `null` for a name that is not set.\n"
    "\n"
    "options:\n"
    "  --system   read or write only the system file (needs write permission there)\n"
    "  --         end of options, for a VALUE that starts with --\n"
    "\n"
    "files:\n"
    "  user       $XDG_CONFIG_HOME/gltrace/settings.conf (or ~/.config/gltrace/...)\n"
    "  system     /etc/gltrace/settings.conf, or $GLTRACE_SYSTEM_SETTINGS\n"
    "\n"
    "settings read by the layer loader (the names Android uses):\n"
    "  enable_gpu_debug_layers  1 to load the layers below into gpu_debug_app\n"
    "  gpu_debug_app            the process (executable name) to load layers into\n"
    "  gpu_debug_layers_gles    layers, top (nearest the app) first: libA.so:libB.so\n"
    "  gpu_debug_layer_app      where else to search for layers (Android: packages)\n"
    "  debug.gles.layers        layers for every process (like `setprop debug.gles.layers`)\n";

namespace {

constexpr char kName[] = "settings";

struct Target {
  bool system = false;
  std::string path;
};

void warn(const std::string& errors) {
  if (!errors.empty()) fprintf(stderr, "gltrace settings: warning: %s\n", errors.c_str());
}

int fail(const std::string& message) {
  fprintf(stderr, "gltrace settings: %s\n", message.c_str());
  return kExitFailure;
}

int invalid_name(const std::string& name) {
  return usage_error(kName, "invalid name '" + name +
                                "': use letters, digits, '_', '.' and '-' (at most " +
                                std::to_string(settings::kMaxNameLength) + " characters)");
}

// The file is replaced by rename(), so what matters is write access to its
// directory, or to the nearest ancestor when directories must be created.
bool directory_writable(const std::string& path, std::string* dir_out) {
  std::string dir = dirname_of(path);
  while (access(dir.c_str(), F_OK) != 0 && dir != "/" && dir != ".") dir = dirname_of(dir);
  *dir_out = dir;
  return access(dir.c_str(), W_OK) == 0;
}

// Reads the file to be modified; refuses to go on when it could not be read,
// since writing it back would lose its contents.
bool load_for_update(const Target& target, settings::Values* values, int* status) {
  if (target.system) {
    std::string dir;
    if (!directory_writable(target.path, &dir)) {
      *status = fail("cannot write the system settings file " + target.path +
                     ": no write permission on " + dir +
                     " (--system needs write access there; run as root, e.g. with sudo)");
      return false;
    }
  }
  settings::LoadResult loaded = settings::load_file(target.path);
  if (!loaded.read_ok) {
    *status = fail("cannot update " + target.path + ": " + loaded.error);
    return false;
  }
  if (!loaded.error.empty())
    warn(loaded.error + "\n(malformed lines are dropped when the file is rewritten)");
  *values = std::move(loaded.values);
  return true;
}

int save(const Target& target, const settings::Values& values) {
  std::string error;
  if (settings::save_file(target.path, values, &error,
                          target.system ? settings::FileKind::kSystem : settings::FileKind::kUser))
    return kExitOk;
  return fail(error);
}

// get/list without --system show what the loader would see.
settings::Values load_for_reading(const Target& target) {
  std::string errors;
  settings::Values values;
  if (target.system) {
    settings::LoadResult loaded = settings::load_file(target.path);
    errors = loaded.error;
    values = std::move(loaded.values);
  } else {
    values = settings::load_effective(&errors);
  }
  warn(errors);
  return values;
}

int put(const Target& target, const std::string& name, const std::string& value) {
  if (!settings::valid_name(name)) return invalid_name(name);
  if (!settings::valid_value(value))
    return usage_error(kName, "invalid value: it must not contain a newline and be at most " +
                                  std::to_string(settings::kMaxValueLength) + " bytes");
  settings::Values values;
  int status = kExitOk;
  if (!load_for_update(target, &values, &status)) return status;
  values[name] = value;
  return save(target, values);
}

int get(const Target& target, const std::string& name) {
  if (!settings::valid_name(name)) return invalid_name(name);
  settings::Values values = load_for_reading(target);
  auto it = values.find(name);
  // `null` is exactly what adb prints for an unset name; scripts compare against it.
  printf("%s\n", it == values.end() ? "null" : it->second.c_str());
  return kExitOk;
}

int delete_setting(const Target& target, const std::string& name) {
  if (!settings::valid_name(name)) return invalid_name(name);
  settings::Values values;
  int status = kExitOk;
  if (!load_for_update(target, &values, &status)) return status;
  if (values.erase(name) > 0) status = save(target, values);
  if (status == kExitOk && !target.system) {
    // Otherwise the user would be surprised that `get` still shows a value.
    settings::Values system = settings::load_file(settings::system_file_path()).values;
    auto it = system.find(name);
    if (it != system.end())
      fprintf(stderr, "gltrace settings: note: %s is still set to '%s' in the system file %s\n",
              name.c_str(), it->second.c_str(), settings::system_file_path().c_str());
  }
  return status;
}

int list(const Target& target) {
  for (const auto& [name, value] : load_for_reading(target))
    printf("%s=%s\n", name.c_str(), value.c_str());
  return kExitOk;
}

void print_help() {
  fputs(kUsage_settings, stdout);
  std::string user = settings::user_file_path();
  printf("\nhere: user file %s\n      system file %s\n",
         user.empty() ? "(none: HOME not set)" : user.c_str(),
         settings::system_file_path().c_str());
}

}  // namespace

int cmd_settings(const std::vector<std::string>& args) {
  Target target;
  std::vector<std::string> words;
  bool options_done = false;
  for (const std::string& arg : args) {
    if (!options_done) {
      if (arg == "--") {
        options_done = true;
        continue;
      }
      if (arg == "--system") {
        target.system = true;
        continue;
      }
      if (arg == "--help" || arg == "-h") {
        print_help();
        return kExitOk;
      }
      // Single-dash words pass as operands: "-1" is a fine VALUE.
      if (arg.size() > 2 && arg.compare(0, 2, "--") == 0)
        return usage_error(kName, "unknown option '" + arg + "'");
      if (words.empty() && arg.size() > 1 && arg[0] == '-')
        return usage_error(kName, "unknown option '" + arg + "'");
    }
    words.push_back(arg);
  }
  if (words.empty()) return usage_error(kName, "missing put, get, delete or list");

  const std::string verb = words[0];
  std::vector<std::string> operands(words.begin() + 1, words.end());
  size_t expected;
  if (verb == "put")
    expected = 2;
  else if (verb == "get" || verb == "delete")
    expected = 1;
  else if (verb == "list")
    expected = 0;
  else
    return usage_error(kName, "unknown subcommand '" + verb + "'");

  if (!operands.empty() && operands[0] == "global") {
    operands.erase(operands.begin());
  } else if (operands.size() > expected && (operands[0] == "system" || operands[0] == "secure")) {
    return usage_error(kName, "there is no '" + operands[0] +
                                  "' namespace here; gltrace has only 'global' (optional)");
  }
  if (operands.size() < expected) return usage_error(kName, verb + ": missing argument");
  if (operands.size() > expected)
    return usage_error(kName, verb + ": unexpected argument '" + operands[expected] + "'");

  target.path = target.system ? settings::system_file_path() : settings::user_file_path();
  // get and list fall back to the system file alone, as the loader would.
  if (target.path.empty() && (verb == "put" || verb == "delete"))
    return fail("cannot locate the user settings file: set HOME or XDG_CONFIG_HOME");

  if (verb == "put") return put(target, operands[0], operands[1]);
  if (verb == "get") return get(target, operands[0]);
  if (verb == "delete") return delete_setting(target, operands[0]);
  return list(target);
}

}  // namespace gltrace::cli
