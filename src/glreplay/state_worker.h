// `glreplay --state-worker TRACE`: the viewer's replay state worker
// (protocol A of gltrace view, docs/replay.md "State worker"). Reads one JSON
// request per line on stdin and writes one reply per request on stdout:
// goto a call (through the replay engine's ReplayController: forward
// replays only the calls in between, backward restarts from the trace's
// start), then query the GL/EGL state current there (state_reader.h), read
// back the framebuffer, a texture or a buffer (state_read_back.h), or a
// shader's source. Headless; nothing but replies on stdout.
//
// A reply is one JSON line. A reply that carries bytes (a read-back's PNG or
// buffer contents) says how many in "bytes": N, and exactly N raw bytes
// follow its newline: a binary frame, never base64 inside the JSON.
#pragma once

#include <cstdint>
#include <string>

namespace gltrace::glreplay {

struct StateWorkerOptions {
  std::string trace;
  uint64_t blob_memory = uint64_t{1} << 30;
  std::string program = "glreplay";  // prefixes messages on stderr
  std::string driver_dir;            // --driver (empty: the library search path)
  bool follow = false;               // --follow: the trace may still grow
};

// Runs the worker until `quit` or the end of stdin. Returns the exit
// status: 0 then, 1 when the trace or the driver cannot be opened.
int run_state_worker(const StateWorkerOptions& options);

}  // namespace gltrace::glreplay
