#include "settings/known.h"

#include <cstdlib>
#include <cstring>

#include "settings/live_config.h"
#include "settings/settings.h"

namespace gltrace::settings {
namespace {

constexpr const char* kOnOff[] = {"0", "1", nullptr};
constexpr const char* kLiveModes[] = {"off", "0", "full", "log", "error", "systrace", nullptr};

std::string start_value(std::string_view value) {
  uint64_t frame = 0;
  double seconds = 0;
  int signal = 0;
  if (parse_live_start(value, &frame, &seconds, &signal)) return "";
  return "'" + std::string(value) +
         "' is not one of attach, now, frame:N (N >= 1), after:S (S > 0), signal:USR1, "
         "signal:USR2";
}

std::string whole_number(std::string_view value) {
  std::string text(value);
  char* end = nullptr;
  unsigned long long n = strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] < '0' || text[0] > '9' || *end != '\0' || n >= (1ull << 48))
    return "'" + text + "' is no whole number";
  return "";
}

std::string whole_number_from_1(std::string_view value) {
  if (std::string why = whole_number(value); !why.empty()) return why;
  if (strtoull(std::string(value).c_str(), nullptr, 10) == 0)
    return "'" + std::string(value) + "' is less than 1";
  return "";
}

std::string seconds(std::string_view value) {
  double s = 0;
  if (parse_seconds(value, &s)) return "";
  return "'" + std::string(value) + "' is no number of seconds (a decimal, 0 or more)";
}

std::string plain_file_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == ".." ||
      name.find('/') != std::string_view::npos)
    return "'" + std::string(name) +
           "' is no plain file name (at most 64 characters, no '/', not . or ..)";
  return "";
}

std::string tcp_port(std::string_view value) {
  std::string text(value);
  char* end = nullptr;
  long port = strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || port < 0 || port > 65535)
    return "'" + text + "' is no TCP port (0 to 65535; 0: any free one)";
  return "";
}

constexpr KnownSetting kKnown[] = {
    {kEnableGpuDebugLayers, "1 to load the layers below into gpu_debug_app", kOnOff, nullptr},
    {kGpuDebugApp, "the process (executable name) to load layers into", nullptr, nullptr},
    {kGpuDebugLayersGles, "layers, top (nearest the app) first: libA.so:libB.so", nullptr, nullptr},
    {kGpuDebugLayerApp, "where else to search for layers (Android: packages)", nullptr, nullptr},
    {kDebugGlesLayers, "layers for every process (like `setprop debug.gles.layers`)", nullptr,
     nullptr},
    {kLiveTrace, "make processes traceable, with the mode an attach records (GLTRACE_LIVE)",
     kLiveModes, nullptr},
    {kLiveProc,
     "the executable names that are traceable, ':'-separated, name* a prefix; "
     "empty: every process",
     nullptr, nullptr},
    {kLiveStart,
     "attach: idle until a host attaches; now: trace from the first call; frame:N: from the "
     "app's frame N, after:S: from S seconds in, signal:USR1|USR2: each signal starts or stops "
     "a capture (all to `output`, each starting with a snapshot)",
     nullptr, start_value},
    {kLiveFrames, "a start of the process's own (frame:N, after:S) records this many frames",
     nullptr, whole_number},
    {kShadowMb,
     "MiB of copies of compressed texture uploads a traceable process keeps, so that a capture "
     "starting mid-run writes them exactly (0: none; default 256)",
     nullptr, whole_number},
    {kFlight,
     "a flight recorder: keep the last N frames in memory and write them as a trace on a "
     "crash, a hang, the start signal or `gltrace flight` (0: none; the process is traceable, "
     "in full mode)",
     nullptr, whole_number},
    {kFlightMb, "MiB the flight recorder's frames may take (default 256)", nullptr,
     whole_number_from_1},
    {kFlightWatchdog,
     "a frame longer than this many seconds writes the flight recorder's trace (0: no "
     "watchdog; default 10)",
     nullptr, seconds},
    {kLiveOutput,
     "where a `now` start and the flight recorder write (GLTRACE_TRACE_FILE): a file (%p: pid, %n: "
     "process name) or "
     "a directory (NAME.PID.gltrace per process); a process never writes over another's file",
     nullptr, nullptr},
    {kLiveSocket, "the control socket's file name under $XDG_RUNTIME_DIR/gltrace", nullptr,
     plain_file_name},
    {kLiveTcp, "also listen on 127.0.0.1:PORT (0: any) for a host with the printed token", nullptr,
     tcp_port},
};

}  // namespace

std::span<const KnownSetting> known_settings() { return kKnown; }

const KnownSetting* find_known_setting(std::string_view name) {
  for (const KnownSetting& setting : kKnown)
    if (name == setting.name) return &setting;
  return nullptr;
}

std::string check_setting_value(std::string_view name, std::string_view value) {
  const KnownSetting* setting = find_known_setting(name);
  // An empty value is no value: every reader takes it as the setting unset.
  if (setting == nullptr || value.empty()) return "";
  if (setting->check != nullptr) return setting->check(value);
  if (setting->choices == nullptr) return "";
  std::string list;
  for (const char* const* choice = setting->choices; *choice != nullptr; ++choice) {
    if (value == *choice) return "";
    list += std::string(list.empty() ? "" : ", ") + *choice;
  }
  return "'" + std::string(value) + "' is not one of " + list;
}

}  // namespace gltrace::settings
