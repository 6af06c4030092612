// The replayer's command line, shared by `gltrace replay` and the `glreplay`
// executable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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

// Whether the trace at `path` holds a framebuffer image (what --compare
// compares with): read until the first one (a capture's first frame has
// one), or to the end. A trace that cannot be read says "yes": opening it
// for the replay then says why not.
bool trace_holds_images(const std::string& path);

// The PNG file --snapshot writes frame `frame` to in `dir` (DIR/frame-NNNNNN.png).
std::string snapshot_png(const std::string& dir, uint64_t frame);

}  // namespace gltrace::glreplay
