// The manual console: a client of the ReplayController (run_console), and
// its pieces that need no replay: parsing a command line, and reading lines
// from an fd while watching for Ctrl-C and wake-ups. Internal to the engine
// (tests use it too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "replay/controller.h"
#include "replay/options.h"

namespace gltrace::replay {

struct Command {
  enum class Kind {
    kNext,      // n [COUNT]: to the end of the next frame
    kNextI,     // ni [COUNT]: one increment
    kContinue,  // c [MS]
    kUntil,     // s TIMESTAMP
    kFrame,     // f N
    kCall,      // call N
    kList,      // l
    kInfo,      // info
    kSnap,      // snap FILE
    kHelp,      // h
    kQuit,      // q
  };
  Kind kind = Kind::kHelp;
  uint64_t count = 1;        // n, ni: how many; f, call: which
  std::optional<double> ms;  // c MS
  TimeSpec time;             // s
  std::string path;          // snap
};

// One line, without its newline. False with *error for an unknown command or
// a bad argument. An empty line is not a command (the console repeats the
// last one).
bool parse_command(const std::string& line, Command* out, std::string* error);

// Reads lines from an fd, also waking when one of two other fds becomes
// readable (the SIGINT self-pipe, the replay's wake-up eventfd).
class LineReader {
 public:
  enum class Result { kLine, kEof, kInterrupt, kWake };

  explicit LineReader(int fd) : fd_(fd) {}
  // Either watch fd may be -1. kInterrupt and kWake leave the readable fd as is.
  Result read_line(std::string* line, int interrupt_fd, int wake_fd);

 private:
  int fd_;
  std::string buffer_;
  bool eof_ = false;
};

// Replays as the options say (to the end; paused first with -m; to -s's
// time), with the prompt on options.console_in/out whenever the replay
// parks, until the trace ends, the user quits, or a failure.
ReplayStatus run_console(ReplayController& controller);

// Writes all of text to fd (retrying short writes; errors are ignored: a
// closed console must not stop a replay).
void write_all(int fd, const std::string& text);

}  // namespace gltrace::replay
