// The output of `gltrace trace` and `attach`: checked before the app runs,
// found and summarised (with warnings) after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gltrace::cli {

// `path` from the current directory, for an app that may change its own
// (piglit does).
std::string absolute_path(const std::string& path);

// Checks that the trace layer will be able to create `path` (absolute; %p and
// %n may appear in its file name, not in its directories): its directory
// exists and is writable, and the file is no read-only file; or it is a
// writable directory (each process writes NAME.PID.EXT there).
// False after printing why; nothing is created.
bool check_output(const char* command, const std::string& path);

// Makes room for this run's `path` (absolute, %p and %n unexpanded) before
// the app starts: a finished trace an earlier run left there is removed (-o
// replaces it), one another process is writing now is left alone, with a
// note that this run's files get derived names.
void make_room_for_output(const char* command, const std::string& path);

// What report_trace found.
struct TraceSummary {
  uint64_t calls = 0;
  uint64_t frames = 0;
  uint64_t file_bytes = 0;
  bool complete = false;  // closed cleanly
  uint32_t pid = 0;       // of the traced process
  std::string process_name;
};

// Reads the trace at `path` and prints "gltrace COMMAND: wrote N calls,
// M frames, X MB to FILE (NAME, pid PID)", then a warning for no EGL/GLES
// calls, no frames, desktop GL through EGL, desktop GL libraries in the
// process, or a trace cut short (all from what the trace holds, however the
// app ended). False after printing an error when it is no readable trace.
bool report_trace(const char* command, const std::string& path, TraceSummary* summary = nullptr);

}  // namespace gltrace::cli
