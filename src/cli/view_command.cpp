// `gltrace view`: a trace in the browser (src/view, docs/viewer.md).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "common/process.h"
#include "view/server.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "view";

struct ViewCommandOptions {
  std::string trace;
  int port = 0;
  bool no_browser = false;
  std::string driver;
  int state_workers = 3;
};

int view(const ViewCommandOptions& o) {
  view::ViewOptions options;
  options.trace = o.trace;
  options.port = o.port;
  options.open_browser = !o.no_browser;
  options.state_workers = static_cast<size_t>(o.state_workers);
  // The worker is this executable's replay command (glreplay linked in).
  const std::string& self = executable_path();
  if (self.empty()) {
    fprintf(stderr, "gltrace view: cannot find the gltrace executable's own path\n");
    return kExitFailure;
  }
  options.worker_command = {self, "replay", "--state-worker"};
  if (!o.driver.empty()) {
    options.worker_command.push_back("--driver");
    options.worker_command.push_back(o.driver);
  }
  return view::run_view(options, stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace

void register_view(Commands& commands) {
  auto options = std::make_shared<ViewCommandOptions>();
  CommandLine& line =
      commands.add(kName, "look inside a trace, and at the GL state at any call, in a browser",
                   [options](const CommandLine&) { return view(*options); });
  CLI::App& app = line.app();
  app.description(
      "Serves a viewer of TRACE at http://127.0.0.1:PORT/ (loopback only) and prints\n"
      "its URL, which carries a random token every request needs. Frames, calls\n"
      "grouped by debug markers, filters, call details, textures, the captured\n"
      "framebuffers, a timeline, and the GL state at any call, from a replay\n"
      "worker (gltrace replay --state-worker) started when first asked.\n"
      "Ctrl-C ends it. See docs/viewer.md.");
  app.add_option("--port", options->port, "listen on port N (default 0: any free port)")
      ->type_name("N")
      ->check(in_range(0, 65535));
  app.add_flag("--no-browser", options->no_browser,
               "do not open a browser (one is opened with xdg-open when DISPLAY or "
               "WAYLAND_DISPLAY is set)");
  app.add_option("--replay-driver", options->driver,
                 "the directory of the state worker's EGL and GLES driver (replay's --driver)")
      ->type_name("DIR");
  app.add_option("--state-workers", options->state_workers,
                 "state workers kept at once, parked at different calls so that moving "
                 "backward replays from a frame start (default 3; 1: from the trace's start)")
      ->type_name("N")
      ->check(in_range(1, 16));
  app.add_option("TRACE", options->trace, "the trace")->required();
}

}  // namespace gltrace::cli
