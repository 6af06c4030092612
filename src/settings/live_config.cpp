#include "settings/live_config.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "settings/known.h"

namespace gltrace::settings {
namespace {

std::string lookup(const Values& values, EnvLookup env, const char* setting, const char* variable,
                   std::string* source) {
  const char* from_env = env != nullptr ? env(variable) : nullptr;
  if (from_env != nullptr && *from_env != '\0') {
    *source += std::string(source->empty() ? "" : ", ") + variable;
    return from_env;
  }
  auto it = values.find(setting);
  if (it == values.end() || it->second.empty()) return "";
  *source += std::string(source->empty() ? "" : ", ") + "setting " + setting;
  return it->second;
}

}  // namespace

bool parse_live_start(std::string_view value, uint64_t* frame, double* seconds, int* signal) {
  *frame = 0;
  *seconds = 0;
  *signal = 0;
  if (value == "attach" || value == "now") return true;
  if (value == "signal:USR1" || value == "signal:USR2") {
    *signal = value == "signal:USR1" ? SIGUSR1 : SIGUSR2;
    return true;
  }
  std::string text(value);
  char* end = nullptr;
  if (text.rfind("frame:", 0) == 0) {
    const char* digits = text.c_str() + 6;
    if (*digits < '0' || *digits > '9') return false;
    unsigned long long n = strtoull(digits, &end, 10);
    *frame = n;
    return *end == '\0' && n >= 1 && n < (1ull << 48);
  }
  if (text.rfind("after:", 0) == 0) return parse_seconds(value.substr(6), seconds) && *seconds > 0;
  return false;
}

bool parse_seconds(std::string_view value, double* seconds) {
  std::string text(value);
  // Plain decimals: strtod alone would also take spaces, signs, hex, inf and nan.
  if (text.empty() || ((text[0] < '0' || text[0] > '9') && text[0] != '.') ||
      text.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return false;
  char* end = nullptr;
  double s = strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(s) || s < 0 || s >= 1e7) return false;
  *seconds = s;
  return true;
}

bool process_matches(const std::string& list, const std::string& process_name) {
  if (list.empty()) return true;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    if (!item.empty() && item.back() == '*') {
      if (process_name.compare(0, item.size() - 1, item, 0, item.size() - 1) == 0) return true;
    } else if (!item.empty() && item == process_name) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

LiveConfig choose_live_config(const Values& values, EnvLookup env,
                              const std::string& process_name) {
  LiveConfig config;
  std::string source;
  std::string mode = lookup(values, env, kLiveTrace, "GLTRACE_LIVE", &source);
  std::string flight = lookup(values, env, kFlight, "GLTRACE_FLIGHT", &source);
  uint64_t flight_frames = 0;
  if (std::string why = check_setting_value(kFlight, flight); !why.empty())
    config.error = "flight " + why + ": no flight recorder";
  else if (!flight.empty())
    flight_frames = strtoull(flight.c_str(), nullptr, 10);
  // A flight recorder is a reason to be traceable of its own.
  bool no_mode = mode.empty() || mode == "off" || mode == "0";
  if (no_mode && flight_frames == 0) return config;
  if (std::string why = check_setting_value(kLiveTrace, mode); !why.empty()) {
    config.error = "unknown tracing mode: " + why;
    return config;
  }
  std::string proc = lookup(values, env, kLiveProc, "GLTRACE_LIVE_PROC", &source);
  if (!process_matches(proc, process_name)) return config;
  config.enabled = true;
  config.mode = no_mode ? "full" : mode;
  // It keeps whole calls to replay: a text mode has none to keep.
  if (flight_frames != 0 && config.mode != "full")
    config.error = "the flight recorder needs the full mode, not " + config.mode + ": it is off";
  else
    config.flight_frames = flight_frames;
  std::string start = lookup(values, env, kLiveStart, "GLTRACE_LIVE_START", &source);
  if (start == "now") {
    config.start_now = true;
  } else if (std::string why = check_setting_value(kLiveStart, start); !why.empty()) {
    config.error = "unknown start: " + why + ": waiting for a host";
  } else if (!start.empty()) {
    parse_live_start(start, &config.start_frame, &config.start_after_s, &config.start_signal);
  }
  std::string frames = lookup(values, env, kLiveFrames, "GLTRACE_LIVE_FRAMES", &source);
  if (std::string why = check_setting_value(kLiveFrames, frames); !why.empty())
    config.error = "frames " + why + ": no limit";
  else if (!frames.empty())
    config.max_frames = strtoull(frames.c_str(), nullptr, 10);
  std::string output_source;  // not a reason to trace: kept out of `source`
  std::string shadow = lookup(values, env, kShadowMb, "GLTRACE_SHADOW_MB", &output_source);
  if (std::string why = check_setting_value(kShadowMb, shadow); !why.empty())
    config.error = "shadow_mb " + why + ": " + std::to_string(kDefaultShadowMb) + " MiB";
  else if (!shadow.empty())
    config.shadow_mb = strtoull(shadow.c_str(), nullptr, 10);
  std::string flight_mb = lookup(values, env, kFlightMb, "GLTRACE_FLIGHT_MB", &output_source);
  if (std::string why = check_setting_value(kFlightMb, flight_mb); !why.empty())
    config.error = "flight_mb " + why + ": " + std::to_string(kDefaultFlightMb) + " MiB";
  else if (!flight_mb.empty())
    config.flight_mb = strtoull(flight_mb.c_str(), nullptr, 10);
  std::string watchdog =
      lookup(values, env, kFlightWatchdog, "GLTRACE_FLIGHT_WATCHDOG", &output_source);
  if (std::string why = check_setting_value(kFlightWatchdog, watchdog); !why.empty()) {
    char fallback[32];
    snprintf(fallback, sizeof fallback, ": %g s", kDefaultFlightWatchdogS);
    config.error = "flight_watchdog " + why + fallback;
  } else if (!watchdog.empty()) {
    parse_seconds(watchdog, &config.flight_watchdog_s);
  }
  config.output = lookup(values, env, kLiveOutput, "GLTRACE_TRACE_FILE", &output_source);
  std::string socket = lookup(values, env, kLiveSocket, "GLTRACE_CONTROL_SOCKET", &source);
  if (std::string why = check_setting_value(kLiveSocket, socket); !why.empty()) {
    config.error = "control socket name " + why + ": using the default";
  } else {
    config.socket_name = socket;
  }
  std::string tcp = lookup(values, env, kLiveTcp, "GLTRACE_CONTROL_TCP", &source);
  if (!tcp.empty()) {
    if (std::string why = check_setting_value(kLiveTcp, tcp); !why.empty())
      config.error = why + ": no TCP listener";
    else
      config.tcp_port = static_cast<int>(strtol(tcp.c_str(), nullptr, 10));
  }
  config.source = source;
  return config;
}

}  // namespace gltrace::settings
