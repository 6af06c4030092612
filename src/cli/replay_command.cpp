// `gltrace replay`: glreplay (src/glreplay) as a subcommand.
#include "cli/commands.h"
#include "glreplay/glreplay.h"

namespace gltrace::cli {

const char kUsage_replay[] = GLTRACE_GLREPLAY_USAGE("gltrace replay");

int cmd_replay(const std::vector<std::string>& args) {
  return glreplay::run_replay(args, "gltrace replay", kUsage_replay);
}

}  // namespace gltrace::cli
