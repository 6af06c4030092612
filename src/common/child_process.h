// A command run as a child process to its end or its deadline: what
// `gltrace check` and `gltrace diverge` run their replays in, so a replay
// that hangs or crashes is one result, never the caller's end.
#pragma once

#include <string>
#include <vector>

namespace gltrace {

struct ChildResult {
  int status = 0;  // waitpid's
  bool timed_out = false;
  std::string error;  // it could not be started
};

// Runs argv (argv[0] a path) with stdout and stderr in the file `log`, stdin
// from /dev/null, in a process group of its own (its children go with it),
// killed at `timeout` seconds; what it left running in its group is killed
// when it ends.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& log, double timeout);

// The last `lines` lines of a file, joined with " | " (each cut at 300
// characters), for a message.
std::string log_tail(const std::string& path, size_t lines = 3);

}  // namespace gltrace
