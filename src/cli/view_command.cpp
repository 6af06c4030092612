// `gltrace view`: a trace in the browser (src/view, docs/viewer.md), or a
// live capture as it streams (--attach).

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/attach_session.h"
#include "cli/commands.h"
#include "common/process.h"
#include "glreplay/driver_choice.h"
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
  std::string attach;  // PID|NAME
  std::string output;
  std::string framebuffer;
  int64_t call = -1;  // --call N
};

// The attach's stream, run by the viewer while it serves the file.
class AttachCapture final : public view::LiveCapture {
 public:
  explicit AttachCapture(AttachSession& session) : session_(session) {}
  int stream(const std::atomic<bool>& stop, const std::function<void()>& written) override {
    bool streamed = session_.stream(stop, written);
    return session_.finish(streamed);
  }

 private:
  AttachSession& session_;
};

int view(const ViewCommandOptions& o, const CommandLine& line) {
  bool live = !o.attach.empty();
  if (live && !o.trace.empty())
    return line.usage_error("give TRACE or --attach PID|NAME, not both");
  if (!live && o.trace.empty()) return line.usage_error("missing TRACE (or --attach PID|NAME)");
  if (!live && (!o.output.empty() || !o.framebuffer.empty()))
    return line.usage_error("--output and --framebuffer go with --attach");
  view::ViewOptions options;
  options.trace = o.trace;
  options.port = o.port;
  options.open_browser = !o.no_browser;
  options.state_workers = static_cast<size_t>(o.state_workers);
  if (o.call >= 0) options.open_at = "#call=" + std::to_string(o.call);
  // The worker is this executable's replay command (glreplay linked in).
  const std::string& self = executable_path();
  if (self.empty()) {
    fprintf(stderr, "gltrace view: cannot find the gltrace executable's own path\n");
    return kExitFailure;
  }
  options.worker_command = {self, "replay", "--state-worker"};
  if (!o.driver.empty()) {
    // Said now, not at the first request; the worker chooses it again.
    std::string dir;
    if (!glreplay::choose_driver_for("gltrace view", o.driver, &dir)) return kExitFailure;
    options.worker_command.push_back("--driver");
    options.worker_command.push_back(o.driver);
  }
  if (!live) return view::run_view(options, stdout) == 0 ? kExitOk : kExitFailure;

  Target target;
  target.what = o.attach;
  if (int status = resolve_target(line, kName, &target); status != kExitOk) return status;
  // Blocked before the capture starts, as run_view blocks them: a Ctrl-C
  // from here on stops the capture cleanly rather than killing us.
  view::block_stop_signals();
  AttachRequest request;
  request.command = kName;
  request.endpoint = target.endpoint;
  request.start.mode = "full";  // the viewer reads the binary trace
  if (!o.framebuffer.empty()) parse_framebuffer(o.framebuffer, &request.start.options);
  request.output = o.output;
  AttachSession session;
  if (!session.start(request)) return kExitFailure;
  AttachCapture capture(session);
  options.trace = session.output();
  options.live = &capture;
  // The worker reads on as the file grows: a call written after it reached
  // the end is there at the next request.
  options.worker_command.emplace_back("--follow");
  return view::run_view(options, stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace

void register_view(Commands& commands) {
  auto options = std::make_shared<ViewCommandOptions>();
  CommandLine& line =
      commands.add(kName, "look inside a trace, and at the GL state at any call, in a browser",
                   [options](const CommandLine& line) { return view(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Serves a viewer of TRACE at http://127.0.0.1:PORT/ (loopback only) and prints\n"
      "its URL, which carries a random token every request needs. Frames, calls\n"
      "grouped by debug markers, filters, call details, textures, the captured\n"
      "framebuffers, a timeline, and the GL state at any call, from a replay\n"
      "worker (gltrace replay --state-worker) started when first asked.\n"
      "Ctrl-C ends it. See docs/viewer.md.\n"
      "\n"
      "With --attach PID|NAME instead of TRACE, it starts a capture of a traceable\n"
      "process as `gltrace attach` does and shows it as it streams: new frames\n"
      "appear in the page while the app runs. Ctrl-C stops the capture, finishes\n"
      "the trace and ends the viewer; when the app exits or is detached (`gltrace\n"
      "detach`), the viewer goes on serving the finished trace.");
  app.add_option("--port", options->port, "listen on port N (default 0: any free port)")
      ->type_name("N")
      ->check(in_range(0, 65535));
  app.add_flag("--no-browser", options->no_browser,
               "do not open a browser (one is opened with xdg-open when DISPLAY or "
               "WAYLAND_DISPLAY is set)");
  app.add_option("--driver,--replay-driver", options->driver,
                 std::string("the state worker's driver: ") + glreplay::kDriverOptionHelp)
      ->type_name("DRIVER");
  app.add_option("--state-workers", options->state_workers,
                 "state workers kept at once, parked at different calls so that moving "
                 "backward replays from a frame start (default 3; 1: from the trace's start)")
      ->type_name("N")
      ->check(in_range(1, 16));
  app.add_option("--attach", options->attach,
                 "capture the traceable process with this pid or executable name (see "
                 "`gltrace ps`) and view the capture as it streams")
      ->type_name("PID|NAME");
  app.add_option("-o,--output", options->output,
                 "with --attach: the trace file (default: PROCESS-PID-DATE-TIME.gltrace, new, "
                 "in the current directory)")
      ->type_name("FILE");
  app.add_option("--framebuffer", options->framebuffer,
                 "with --attach: swap, draw, swap,draw or off: framebuffer read-backs "
                 "(default: the app's setting)")
      ->type_name("WHEN")
      ->check(one_of(framebuffer_choices()));
  app.add_option("--call", options->call,
                 "open the page at call N (its frame, the call selected); the URL printed "
                 "says so too")
      ->type_name("N")
      ->check(in_range(int64_t{0}, INT64_MAX));
  app.add_option("TRACE", options->trace, "the trace");
  app.footer(
      "Exit status: 0, or 1 when TRACE cannot be read or the server cannot listen;\n"
      "with --attach, 1 also when the capture cannot start, its file cannot be\n"
      "written, or the trace it left is incomplete; 2 for bad usage.");
}

}  // namespace gltrace::cli
