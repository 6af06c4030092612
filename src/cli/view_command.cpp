// `gltrace view`: a trace in the browser (src/view, docs/viewer.md).
#include <cstdio>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "common/process.h"
#include "view/server.h"

namespace gltrace::cli {

const char kUsage_view[] =
    "usage: gltrace view [--port N] [--no-browser] [--replay-driver PATH] TRACE\n"
    "\n"
    "Serves a viewer of TRACE at http://127.0.0.1:PORT/ (loopback only) and prints\n"
    "its URL, which carries a random token every request needs. Frames, calls\n"
    "grouped by debug markers, filters, call details, textures, the captured\n"
    "framebuffers, a timeline, and the GL state at any call, from a replay\n"
    "worker (gltrace replay --state-worker) started when first asked.\n"
    "Ctrl-C ends it. See docs/viewer.md.\n"
    "\n"
    "options:\n"
    "  --port N              listen on port N (default 0: any free port)\n"
    "  --no-browser          do not open a browser (one is opened with xdg-open\n"
    "                        when DISPLAY or WAYLAND_DISPLAY is set)\n"
    "  --replay-driver PATH  the state worker's GLES driver (replay's --driver)\n";

namespace {
constexpr char kName[] = "view";
}

int cmd_view(const std::vector<std::string>& args) {
  view::ViewOptions options;
  std::string driver;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage_view, stdout);
      return kExitOk;
    } else if (arg == "--no-browser") {
      options.open_browser = false;
    } else if (arg == "--port") {
      uint64_t port = 0, last = 0;
      if (i + 1 >= args.size() || !parse_range(args[++i], &port, &last) || port != last ||
          port > 65535)
        return usage_error(kName, "--port needs a port number (0-65535)");
      options.port = static_cast<int>(port);
    } else if (arg == "--replay-driver") {
      if (i + 1 >= args.size() || args[i + 1].empty())
        return usage_error(kName, "--replay-driver needs a path");
      driver = args[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return usage_error(kName, "unknown option '" + arg + "'");
    } else if (options.trace.empty()) {
      options.trace = arg;
    } else {
      return usage_error(kName, "more than one TRACE");
    }
  }
  if (options.trace.empty()) return usage_error(kName, "missing TRACE");
  // The worker is this executable's replay command (glreplay linked in).
  const std::string& self = executable_path();
  if (self.empty()) {
    fprintf(stderr, "gltrace view: cannot find the gltrace executable's own path\n");
    return kExitFailure;
  }
  options.worker_command = {self, "replay", "--state-worker"};
  if (!driver.empty()) {
    options.worker_command.push_back("--driver");
    options.worker_command.push_back(driver);
  }
  return view::run_view(options, stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace gltrace::cli
