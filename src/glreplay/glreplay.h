// The replayer's command line, shared by `gltrace replay` and the `glreplay`
// executable.
#pragma once

#include <memory>

#include "command_line/command_line.h"

namespace gltrace::glreplay {

// What the command line said (filled in as it is parsed).
struct ReplayArguments;

// Defines the replayer's options on `line`: its own and the replay engine's
// (replay::add_replay_options), its description and footer. The result
// holds the values once line.parse() has run.
std::shared_ptr<ReplayArguments> define_replay_command_line(cli::CommandLine& line);

// Runs the replay the parsed command line asks for; returns the exit status.
int run_replay(ReplayArguments& args, const cli::CommandLine& line);

}  // namespace gltrace::glreplay
