// The gltrace subcommands. Adding one is one line in GLTRACE_CLI_COMMANDS plus
// a NAME_command.cpp that defines cmd_NAME() and kUsage_NAME.
#pragma once

#include <string>
#include <vector>

namespace gltrace::cli {

// X(name, one-line summary shown by `gltrace --help`)
#define GLTRACE_CLI_COMMANDS(X)                                                  \
  X(settings, "read and write persistent settings (like `adb shell settings`)")  \
  X(run, "run an app with the gltrace loader (and any layers) active")           \
  X(trace, "run an app and record every EGL/GLES call it makes to a trace file") \
  X(info, "what a trace holds: process, contexts, frames, calls, bytes")         \
  X(dump, "every call of a trace as readable text")                              \
  X(stats, "time per function and per frame")                                    \
  X(export, "a trace as a Chrome/Perfetto JSON timeline")                        \
  X(frames, "the framebuffers a trace captured, as PNG files")                   \
  X(replay, "re-execute a trace's GL calls, timed or stepped; compare frames")   \
  X(view, "look inside a trace, and at the GL state at any call, in a browser")  \
  X(ps, "list the traceable processes of this user")                             \
  X(attach, "start tracing a running traceable process, streaming to a file")    \
  X(detach, "stop tracing a process (its attach finishes the trace)")            \
  X(options, "change a running capture's options")

// Exit statuses shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Each command gets the words after its name and returns the exit status.
// kUsage_NAME is its full help text (`gltrace help NAME`), ending in a newline.
#define GLTRACE_CLI_DECLARE(name, summary)              \
  int cmd_##name(const std::vector<std::string>& args); \
  extern const char kUsage_##name[];
GLTRACE_CLI_COMMANDS(GLTRACE_CLI_DECLARE)
#undef GLTRACE_CLI_DECLARE

// Prints "gltrace NAME: MESSAGE" and NAME's usage to stderr; returns kExitUsage.
int usage_error(const char* command, const std::string& message);

}  // namespace gltrace::cli
