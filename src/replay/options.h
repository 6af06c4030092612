// The options every replayer shares: the seed's command line (-m -t -s -n -l
// -h), the library-only settings, and the help texts. parse_replay_options
// reads the seed's command line by itself (front ends that leave the rest of
// argv to their own parsing); add_replay_options puts the same options on a
// CLI11 command line, as glreplay's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "replay/stats.h"

namespace CLI {
class App;
}

namespace gltrace::replay {

// Where Executor::execute() runs.
enum class ExecuteOn {
  // The thread that called Replayer::replay(), every increment in index order.
  // The default because GL contexts are thread-bound: the caller made its
  // EGL display and contexts there, the manual console runs there (snap and
  // info reach the context with no thread hop), and a call costs no thread
  // switch (a GL trace has ~10^5 calls a second).
  kMainThread,
  // One thread per target, started at its first increment and kept to the
  // end, so a context stays current on one thread; different targets overlap
  // as the recorded threads did. The main thread still starts each increment
  // at its time, in index order, and waits until its thread really runs it.
  kTargetThread,
  // A thread per target as kTargetThread, but in the recorded order across
  // targets: each increment has finished before the next one, of any target,
  // starts. For recorded threads that depend on each other (one uses what
  // another made: a GL trace's threads sharing objects). The first target's
  // increments run on the main thread itself, so a one-target trace costs no
  // thread switch, as with kMainThread.
  kTargetThreadInOrder,
  // The seed's way: the worker that prepared an increment executes it once
  // the main thread signals it; one increment per target is in flight at a
  // time (one_per_target is implied). Needs threads >= 1.
  kWorker,
};

// A time in the trace: an absolute timestamp in ns (as the trace records it
// and `l` prints it), or, written with a unit, an offset from the first
// increment: "1500000000" vs "1.5s", "200ms", "10us", "500ns".
struct TimeSpec {
  int64_t ns = 0;
  bool from_start = false;
};

struct ReplayOptions {
  // The seed's command line.
  bool manual = false;              // -m: start paused at the prompt
  int threads = 3;                  // -t N: preparing workers; 0 prepares on the executing thread
  std::optional<TimeSpec> stop_at;  // -s TIMESTAMP: switch to manual there
  bool wait = true;                 // -n clears it: ignore timestamps, run as fast as possible
  uint64_t loops = 1;               // -l sets 0: loop forever; a count is for tests and scripts
  bool help = false;                // -h
  // What parse_replay_options() did not take (positional arguments and other
  // options), in order, for the front end's own parsing.
  std::vector<std::string> args;

  // Library-only settings.
  ExecuteOn execute_on = ExecuteOn::kMainThread;
  // Prepare an increment only after the previous one of its target has
  // executed, for executors whose prepare() holds a per-target resource (the
  // seed's BufferQueueScheduler: two buffer updates of one surface would both
  // lock a buffer and deadlock).
  bool one_per_target = false;
  // Increments read ahead of the one due next (bounds memory); 0: 4 * threads + 4.
  size_t lookahead = 0;
  // The manual console: commands are read from console_in, everything is
  // written to console_out (a terminal, a pipe, a file).
  int console_in = 0;
  int console_out = 1;
  // Ctrl-C (SIGINT) goes to manual mode, a second one ends the replay; the
  // handler is installed only while replay() runs, and only by one replay at
  // a time in a process.
  bool handle_sigint = true;
  // Called on the main thread after each frame-ending increment.
  std::function<void(const FrameTiming&)> on_frame;
};

// Parses argv[1..argc): -m, -n, -l, -h, -t N, -s TIMESTAMP (flags may be
// bundled: -mn, -t4). "--" ends the options; everything else goes to
// options.args in order. On a bad value returns the defaults with *error set.
ReplayOptions parse_replay_options(int argc, const char* const* argv, std::string* error);

// Defines -m, -t N, -s TIMESTAMP, -n and -l on a CLI11 command line (a
// front end's: glreplay's), in the group "replay engine options", filling
// in *options as they are parsed (the same values and checks as
// parse_replay_options; -h is the front end's help). *options must outlive
// the parse; its threads at the call is the -t default the help names.
void add_replay_options(CLI::App& app, ReplayOptions* options);

// "1234" (absolute ns) or "1.5s" / "200ms" / "10us" / "500ns" (from the start).
bool parse_time_spec(const std::string& text, TimeSpec* out, std::string* error);

// The -m ... -h lines for a front end's usage text.
const char* replay_options_help();
// The manual-mode commands (what `h` prints).
const char* manual_help_text();

}  // namespace gltrace::replay
