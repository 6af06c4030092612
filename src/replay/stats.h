// Timing results of a replay: each frame's lateness as it happens, totals after.
#pragma once

#include <cstdint>

namespace gltrace::replay {

// Reported when a frame-ending increment has run.
struct FrameTiming {
  uint64_t pass = 1;   // 1-based; > 1 only when looping
  uint64_t frame = 0;  // 0-based within the pass
  uint64_t index = 0;  // the increment that ended it
  // When it ran minus when it was due (the first increment's time plus its
  // offset: absolute deadlines, so lateness never accumulates).
  int64_t lateness_ns = 0;
  // False when the frame was stepped through in manual mode or timestamps were
  // ignored (-n): lateness means nothing then and is left out of the totals.
  bool timed = false;
};

struct ReplayStats {
  uint64_t increments = 0;  // executed
  uint64_t frames = 0;      // frame-ending increments executed
  uint64_t passes = 0;      // completed passes of the trace
  double seconds = 0;       // spent replaying; time waiting at the manual prompt is not counted
  // The recorded time the increments run span (the last timestamp of the
  // first pass minus its first): what a timed replay's `seconds` should be.
  double recorded_seconds = 0;

  uint64_t timed_frames = 0;  // frames whose lateness counts
  int64_t max_lateness_ns = 0;
  uint64_t max_lateness_frame = 0;  // frame number (within its pass) of the latest one
  double mean_lateness_ns = 0;

  double frames_per_second() const {
    return seconds > 0 ? static_cast<double>(frames) / seconds : 0;
  }
  double calls_per_second() const {
    return seconds > 0 ? static_cast<double>(increments) / seconds : 0;
  }
};

}  // namespace gltrace::replay
