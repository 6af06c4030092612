// surfacereplayer's command line, shared by the `surfacereplayer` executable
// and `gltrace surface replay`.
#pragma once

#include <string>
#include <vector>

namespace gltrace::surface {

// Parses args (the words after the program name; gltrace's command line), replays, prints the
// summary; returns the exit status: 0 replayed, 1 failed, 2 bad usage.
int run_replay(const std::vector<std::string>& args, const std::string& program);

}  // namespace gltrace::surface
