// `gltrace trim`: a trace of frames A to B of another, which replays them as
// the original does: it replays the original headless to the start of frame
// A, takes a state snapshot there from the replay's driver (snapshot.h),
// and writes the EGL setup the frames need, the snapshot, and frames A-B
// (docs/trace-format.md, "Snapshots").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace gltrace::glreplay {

struct TrimOptions {
  std::string trace;
  std::string output;
  uint64_t first_frame = 0;  // frames A-B, both kept
  uint64_t last_frame = 0;
  // Calls C-D (seq numbers, both kept) instead of frames: a cut anywhere,
  // inside a frame too; the frames that end in it are its frames.
  std::optional<std::pair<uint64_t, uint64_t>> calls;
  std::string program = "gltrace trim";  // prefixes messages
  std::string driver_dir;                // --driver: where the replay's driver is
  bool quiet = false;                    // no line saying what it wrote
};

// 0 when OUT was written; messages on stderr.
int run_trim(const TrimOptions& options);

}  // namespace gltrace::glreplay
