// `gltrace diff-state`: the whole GL and EGL state at a point of two
// replays (of two traces, or of one trace at two points), compared object by
// object. Each side's state is its state snapshot (snapshot.h) taken from a
// headless replay, so what is compared is exactly what a trimmed or attached
// trace would recreate: every object with its contents (as a checksum),
// every binding and setting.
#pragma once

#include <cstddef>
#include <string>

namespace gltrace::glreplay {

struct StatePoint {
  std::string trace;
  // "N": after call N; "frame:N": where frame N begins (after the previous
  // frame's last call; frame 0 of a trace that begins with a snapshot: after
  // the snapshot).
  std::string at;
};

struct DiffStateOptions {
  StatePoint left, right;
  std::string driver_dir;  // the replays' --driver
  size_t max_lines = 20;   // differing calls printed per object
  std::string program = "gltrace diff-state";
};

// 0 when the states are the same, 1 when they differ (printed on stdout),
// 2 when a side could not be read.
int run_diff_state(const DiffStateOptions& options);

}  // namespace gltrace::glreplay
