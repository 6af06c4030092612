// `gltrace surface record`: runs Wayland clients under a headless weston
// that loads gltrace-surface-recorder.so, and leaves what weston showed as a
// surface trace.
#pragma once

#include <string>
#include <vector>

namespace gltrace::surface {

struct RecordOptions {
  std::string output;               // -o FILE
  bool contents = false;            // --contents: shm buffer pixels
  std::string module;               // the recorder module; empty: next to the executable
  std::string size;                 // --size WxH of the headless output; empty: weston's
  std::string renderer = "pixman";  // --renderer pixman|gl: how weston composites
  std::vector<std::string> client;  // CLIENT ARGS...
};

// The recorder module where the build and an install put it:
// <dir of the executable>/../lib/gltrace/weston/gltrace-surface-recorder.so.
// Empty, with `error` set, when it is not there.
std::string find_recorder_module(std::string& error);

// Records; messages go to stderr prefixed "gltrace surface record: ".
// Returns the client's exit status (128+N for signal N), 1 when the
// recording failed or the compositor died, 127 when CLIENT cannot be run.
int record(const RecordOptions& options);

}  // namespace gltrace::surface
