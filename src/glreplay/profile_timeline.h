// `replay --profile --perfetto FILE`: the profiled replay as a Perfetto
// timeline. Each replayed call is a slice on its recorded thread's track, at
// the replay's times, with its arguments and its number ("call"); each frame
// a slice on the frames track, with GPU counters (draws, vertices, bytes
// uploaded); and the GPU's work as GPU render stages on three hardware
// queues: frames, render passes, and each draw, clear, blit and dispatch,
// which names its call. Clock snapshots tie the GPU's clock to the replay's.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "consumers/trace_events.h"
#include "glreplay/call.h"
#include "glreplay/profiler.h"

namespace gltrace::glreplay {

class ProfileTimeline {
 public:
  ProfileTimeline() = default;
  ~ProfileTimeline();
  ProfileTimeline(const ProfileTimeline&) = delete;
  ProfileTimeline& operator=(const ProfileTimeline&) = delete;

  // Creates `path`; `name` names the replay's process (the trace).
  bool open(const std::string& path, const std::string& name, std::string* error);
  // A call that ran from start_ns for duration_ns (CLOCK_MONOTONIC).
  void call(const ReplayCall& call, uint64_t start_ns, uint64_t duration_ns);
  // A frame ended: its slice and counters.
  void frame(const FrameRecord& frame);
  // The GPU's work, once measured; closes the file.
  bool finish(const Profile& profile, std::string* error);

 private:
  std::string path_;
  FILE* file_ = nullptr;
  std::unique_ptr<consumers::PerfettoWriter> writer_;
};

}  // namespace gltrace::glreplay
