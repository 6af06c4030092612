// The child side of the viewer's child processes (state workers, GPU
// measures): what runs between fork() and exec.
#pragma once

#include <sys/types.h>

namespace gltrace::view {

// In the child just forked from `parent`: dies with the viewer, takes
// `in`, `out` and `err` as its standard streams (-1: /dev/null), holds no
// other descriptor of the viewer's (its listening socket), takes signals as
// any program does (the viewer blocks SIGINT/SIGTERM for its signal
// thread), then runs args (args[0] a path, null-terminated). Never returns.
[[noreturn]] void exec_child(char* const* args, pid_t parent, int in, int out, int err);

}  // namespace gltrace::view
