// The settings gltrace reads, with the values each accepts: the one table
// that `gltrace settings put` validates against, `gltrace help settings`
// lists, and the readers (layer_list, live_config) check values with.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gltrace::settings {

// The tracing modes: `gltrace trace --mode`, `run --traceable`, attach
// --mode and debug.gltrace.trace (which also takes off and 0).
inline constexpr const char* kTraceModes[] = {"full", "log", "error", "systrace"};

struct KnownSetting {
  const char* name;
  const char* help;  // one line for `gltrace help settings`
  // The values it takes, when they are a fixed set (nullptr-terminated);
  // otherwise nullptr, and `check` (if any) judges a value.
  const char* const* choices;
  // Empty when `value` is fine, else what is wrong with it.
  std::string (*check)(std::string_view value);
};

// Every setting a gltrace component reads, in the order the help lists them.
std::span<const KnownSetting> known_settings();

// nullptr for a name gltrace does not read.
const KnownSetting* find_known_setting(std::string_view name);

// Empty when `value` is one the setting `name` takes (or `name` is not
// known, or `value` is empty: unset); otherwise the error: "'fulll' is not one of off, 0, full,
// ...".
std::string check_setting_value(std::string_view name, std::string_view value);

}  // namespace gltrace::settings
