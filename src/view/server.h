// `gltrace view`'s HTTP server (protocol B of docs/viewer.md): loopback only,
// a random token on every /api/ request, the compiled-in front end, JSON
// answers from the trace model and the state worker.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace gltrace::view {

// A capture writing ViewOptions::trace while the viewer serves it (gltrace
// view --attach).
class LiveCapture {
 public:
  virtual ~LiveCapture() = default;
  // Streams the capture into the trace until it ends: the app exits or
  // detaches, or `stop` was set (then the app finishes the trace). Calls
  // `written` after each write. Returns the exit status, after printing
  // what was written (or why it failed) on stderr.
  virtual int stream(const std::atomic<bool>& stop, const std::function<void()>& written) = 0;
};

struct ViewOptions {
  std::string trace;
  int port = 0;  // 0: any free port
  bool open_browser = true;
  // The state worker's argv without the trace: {gltrace, "replay",
  // "--state-worker", ["--driver", PATH]}.
  std::vector<std::string> worker_command;
  // State workers kept at once (1: one, which goes back to the trace's
  // start for every backward move).
  size_t state_workers = 3;
  // Not null: the trace is being written by this capture, run by the
  // viewer on a thread of its own.
  LiveCapture* live = nullptr;
  // Appended to the URL printed and opened: "#call=N" opens the page there.
  std::string open_at;
};

// Serves until SIGINT or SIGTERM; prints the URL line on `out` once
// listening. Returns 0, or 1 after printing why on stderr. With a live
// capture, the first SIGINT or SIGTERM stops the capture, and the viewer
// ends once the trace is finished (1 when the capture failed or the trace
// is incomplete); a capture that ends by itself leaves the viewer serving.
int run_view(const ViewOptions& options, FILE* out);

// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts
// from then on): run_view takes them on a thread of its own. Called before
// any thread starts, so none takes them with the default action. Returns
// the set blocked.
sigset_t block_stop_signals();

// A random 128-bit token in hex.
std::string random_token();

}  // namespace gltrace::view
