// `gltrace view`'s HTTP server (protocol B of docs/viewer.md): loopback only,
// a random token on every /api/ request, the compiled-in front end, JSON
// answers from the trace model and the state worker.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace gltrace::view {

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
};

// Serves until SIGINT or SIGTERM; prints the URL line on `out` once
// listening. Returns 0, or 1 after printing why on stderr.
int run_view(const ViewOptions& options, FILE* out);

// A random 128-bit token in hex.
std::string random_token();

}  // namespace gltrace::view
