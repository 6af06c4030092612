// `gltrace settings`: the analogue of `adb shell settings put|get|delete|list global`.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/process.h"
#include "settings/known.h"
#include "settings/settings.h"

namespace gltrace::cli {

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

std::vector<std::string> known_names() {
  std::vector<std::string> names;
  for (const settings::KnownSetting& setting : settings::known_settings())
    names.emplace_back(setting.name);
  return names;
}

int put(const Target& target, const std::string& name, const std::string& value) {
  if (!settings::valid_name(name)) return invalid_name(name);
  if (!settings::valid_value(value))
    return usage_error(kName, "invalid value: it must not contain a newline and be at most " +
                                  std::to_string(settings::kMaxValueLength) + " bytes");
  // A known setting's value is checked now, not when a process reads it and
  // silently ignores it. An unknown name is stored, as Android's `settings
  // put` does (a layer or a newer gltrace may read it), with a warning: a
  // misspelt name would otherwise do nothing without a word.
  if (std::string why = settings::check_setting_value(name, value); !why.empty())
    return usage_error(kName, "invalid value for " + name + ": " + why);
  if (settings::find_known_setting(name) == nullptr)
    warn("'" + name + "' is no setting gltrace reads" + did_you_mean(name, known_names()) +
         "; stored anyway (`gltrace help settings` lists the known ones)");
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

// The help's footer: the files, and every known setting from the table.
std::string settings_footer() {
  std::string text =
      "files:\n"
      "  user       $XDG_CONFIG_HOME/gltrace/settings.conf (or ~/.config/gltrace/...)\n"
      "  system     /etc/gltrace/settings.conf, or $GLTRACE_SYSTEM_SETTINGS\n"
      "\n"
      "settings (the layer loader's are the names Android uses):";
  for (const settings::KnownSetting& setting : settings::known_settings()) {
    std::string entry = std::string("  ") + setting.name;
    entry += entry.size() < 26 ? std::string(26 - entry.size(), ' ') : "  ";
    entry += setting.help;
    if (setting.choices != nullptr) {
      std::string choices;
      for (const char* const* c = setting.choices; *c != nullptr; ++c)
        choices += std::string(choices.empty() ? "" : "|") + *c;
      entry += " (" + choices + ")";
    }
    text += "\n" + entry;
  }
  std::string user = settings::user_file_path();
  text += "\n\nhere: user file " + (user.empty() ? "(none: HOME not set)" : user) +
          "\n      system file " + settings::system_file_path();
  return text;
}

}  // namespace

namespace {

// The verb and its operands, after the options CLI11 took ([--system]):
// --system may still come after the verb, and "--" ends the options.
int settings_command(Target target, const CommandLine& line) {
  std::vector<std::string> words;
  bool options_done = false;
  for (const std::string& arg : line.operands()) {
    if (!options_done) {
      if (arg == "--") {
        options_done = true;
        continue;
      }
      if (arg == "--system") {
        target.system = true;
        continue;
      }
      // Single-dash words pass as operands: "-1" is a fine VALUE.
      if ((arg.size() > 2 && arg.compare(0, 2, "--") == 0) ||
          (words.empty() && arg.size() > 1 && arg[0] == '-'))
        return line.usage_error(line.unknown_option(arg));
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

}  // namespace

void register_settings(Commands& commands) {
  auto target = std::make_shared<Target>();
  CommandLine& line =
      commands.add(kName, "read and write persistent settings (like `adb shell settings`)",
                   [target](const CommandLine& line) { return settings_command(*target, line); });
  CLI::App& app = line.app();
  app.add_flag("--system", target->system,
               "read or write only the system file (needs write permission there)");
  line.set_operands(
      {"put [global] NAME VALUE", "get [global] NAME", "delete [global] NAME", "list [global]"});
  line.pass_operands_through();
  app.description(
      "Persistent settings, like `adb shell settings ... global ...` on Android\n"
      "(the word `global` is optional). put and delete change your user file;\n"
      "get and list show the effective values: the system file, overridden per\n"
      "name by your user file. get prints `null` for a name that is not set.\n"
      "put checks the value of a setting gltrace reads; a name it does not read\n"
      "is stored with a warning. `--` ends the options, for a VALUE that starts\n"
      "with --.");
  app.footer(settings_footer());
}

}  // namespace gltrace::cli
