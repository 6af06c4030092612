#include "settings/live_config.h"

#include <cstdlib>

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

bool plain_file_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && name != "." && name != ".." &&
         name.find('/') == std::string::npos;
}

}  // namespace

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
  if (mode.empty() || mode == "off" || mode == "0") return config;
  if (mode != "full" && mode != "log" && mode != "error" && mode != "systrace") {
    config.error = "unknown tracing mode '" + mode + "' (off, full, log, error, systrace)";
    return config;
  }
  std::string proc = lookup(values, env, kLiveProc, "GLTRACE_LIVE_PROC", &source);
  if (!process_matches(proc, process_name)) return config;
  config.enabled = true;
  config.mode = mode;
  std::string start = lookup(values, env, kLiveStart, "GLTRACE_LIVE_START", &source);
  if (start == "now") {
    config.start_now = true;
  } else if (!start.empty() && start != "attach") {
    config.error = "unknown start '" + start + "' (attach, now): waiting for a host";
  }
  std::string socket = lookup(values, env, kLiveSocket, "GLTRACE_CONTROL_SOCKET", &source);
  if (!socket.empty() && !plain_file_name(socket)) {
    config.error =
        "control socket name '" + socket + "' is not a plain file name: using the default";
  } else {
    config.socket_name = socket;
  }
  std::string tcp = lookup(values, env, kLiveTcp, "GLTRACE_CONTROL_TCP", &source);
  if (!tcp.empty()) {
    char* end = nullptr;
    long port = strtol(tcp.c_str(), &end, 10);
    if (end == tcp.c_str() || *end != '\0' || port < 0 || port > 65535)
      config.error = "bad TCP port '" + tcp + "': no TCP listener";
    else
      config.tcp_port = static_cast<int>(port);
  }
  config.source = source;
  return config;
}

}  // namespace gltrace::settings
