// The flight recorder: a traceable app records all the time into memory,
// keeps the last frames (at least `frames`, in rounds that each begin with a
// snapshot of every thread's state, the last two rounds kept) within a
// memory bound, and writes them as a trace when the app crashes (SIGSEGV,
// SIGBUS, SIGABRT, SIGFPE, SIGILL), when a frame takes longer than the
// watchdog, on a signal, or when a host asks (`gltrace flight PID`). The
// written trace begins with a snapshot, as an attach's does, and replays
// from its first frame. The app's own crash behaviour (its handlers, core
// dump, exit status) is unchanged: the trace is written by a copy of the
// process (a fork) while the app waits, then the signal goes where it
// would have gone without gltrace.
#pragma once

#include <cstdint>
#include <string>

namespace gltrace::trace {

struct FlightConfig {
  uint64_t frames = 0;       // keep at least this many frames (0: no flight recorder)
  uint64_t memory_mb = 256;  // the kept trace's bound; a round ends early to stay in it
  double watchdog_s = 10;    // a frame longer than this writes a trace (0: no watchdog)
  std::string output;        // a directory or a file pattern (%p, %n); "" = the current directory
};

// Starts recording into memory (live_initialize, when the settings ask).
void start_flight_recorder(const FlightConfig& config);
bool flight_recorder_on();

// A frame ended (session.h end_frame): a new round begins when one is due;
// each thread takes its snapshot for it at its next call.
void flight_frame_ended();

// Writes what is kept now to a new file (a host's request, the signal):
// *path names it. False with *error when nothing could be written.
bool write_flight_trace(const char* reason, std::string* path, std::string* error);

struct FlightStats {
  bool on = false;
  uint64_t frames_kept = 0;     // frames the next trace would hold
  uint64_t bytes_kept = 0;      // memory held by the kept chunks
  uint64_t traces_written = 0;  // flight traces written so far
};
FlightStats flight_stats();

}  // namespace gltrace::trace
