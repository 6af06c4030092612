// `gltrace replay`: glreplay (src/glreplay) as a subcommand.
#include "cli/commands.h"
#include "glreplay/glreplay.h"

namespace gltrace::cli {

void register_replay(Commands& commands) {
  // The line is made here and filled in by glreplay, which defines the same
  // options for the glreplay executable.
  auto args = std::make_shared<std::shared_ptr<glreplay::ReplayArguments>>();
  CommandLine& line =
      commands.add("replay", "re-execute a trace's GL calls, timed or stepped; compare frames",
                   [args](const CommandLine& line) { return glreplay::run_replay(**args, line); });
  *args = glreplay::define_replay_command_line(line);
}

}  // namespace gltrace::cli
