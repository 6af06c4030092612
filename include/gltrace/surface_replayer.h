// surfacereplayer as a library: the seed's Replayer for gltrace surface
// traces (proto/surface.proto). It replays a trace's increments at their
// recorded times on gltrace's replay engine: worker threads prepare each
// surface's next buffer ahead of time, then wait until the main thread
// completes them at their deadline; a GLES compositor draws every display at
// each VSync (headless, or X11 windows), optionally writing each image as a
// PNG. Manual mode (the seed's gdb-like console) and Ctrl-C work as in the
// `surfacereplayer` command.
//
//   #include <gltrace/surface_replayer.h>
//   gltrace::surface::Replayer replayer("trace.surf", false, 3, true);
//   gltrace::surface::ReplayResult result = replayer.replay();
//   if (!result.ok) fprintf(stderr, "%s\n", result.message.c_str());
//
// Link gltrace_surface_replayer (CMake target).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gltrace::surface {

// proto/surface.proto's Trace; include "surface/surface.pb.h" to build one.
class Trace;

// What the seed's constructors do not cover.
struct ReplayerSettings {
  std::string output_dir;  // non-empty: DIR/display-<D>-vsync-<K>.png per VSync
  bool x11 = false;        // X11 windows on $DISPLAY instead of headless
  bool loop = false;       // replay again and again
  // stop_here is an offset from the trace's first time stamp, not a time stamp.
  bool stop_from_start = false;
  // The manual console's input and output (a terminal, a pipe).
  int console_in = 0;
  int console_out = 1;
  // Ctrl-C enters manual mode (a second one ends the replay).
  bool handle_sigint = true;
  // All buffers alive at once (prepared, shown, being drawn) stay below
  // this; a trace that needs more fails with a message.
  uint64_t buffer_memory_bytes = uint64_t{1} << 30;
};

struct ReplayResult {
  bool ok = false;
  std::string message;                  // for the user: why it stopped, or the summary
  uint64_t increments = 0;              // executed
  uint64_t vsyncs = 0;                  // executed
  uint64_t images = 0;                  // PNG files written
  uint64_t vsyncs_without_display = 0;  // VSyncs for display 0 while no display existed
  double seconds = 0;                   // replaying (not counting time at the manual prompt)
  double recorded_seconds = 0;          // the span of the trace's time stamps
  uint64_t timed_vsyncs = 0;            // run at their recorded time (not stepped, not -n)
  int64_t max_lateness_ns = 0;          // of timed VSyncs: when composited minus when due
  double mean_lateness_ns = 0;
};

class Replayer {
 public:
  // The seed's parameters: start in manual mode; worker threads (>= 1);
  // honour the time stamps (false: as fast as possible); switch to manual
  // mode at this trace time stamp (ns; -1: never).
  Replayer(const std::string& filename, bool replay_manually = false, int num_threads = 3,
           bool wait = true, int64_t stop_here = -1, ReplayerSettings settings = {});
  // The trace must outlive replay().
  Replayer(const Trace& trace, bool replay_manually = false, int num_threads = 3, bool wait = true,
           int64_t stop_here = -1, ReplayerSettings settings = {});
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  // Replays until the end of the trace (every pass when looping), an error,
  // or the user quits. Once per Replayer.
  ReplayResult replay();

  // From any thread while replay() runs: as Ctrl-C (manual mode), or end it.
  void interrupt();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gltrace::surface
