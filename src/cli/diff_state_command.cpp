// `gltrace diff-state`: the GL and EGL state at two points of replays,
// compared object by object (src/glreplay/state_diff.h).
#include "cli/commands.h"
#include "glreplay/driver_choice.h"
#include "glreplay/state_diff.h"

namespace gltrace::cli {

namespace {

struct DiffStateCommandOptions {
  std::string left, right, driver;
  size_t max_lines = 20;
};

// TRACE@POINT -> its parts; false when there is no '@'.
bool split_point(const std::string& text, glreplay::StatePoint* point) {
  size_t at = text.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == text.size()) return false;
  point->trace = text.substr(0, at);
  point->at = text.substr(at + 1);
  return true;
}

int diff_state(const DiffStateCommandOptions& o, const CommandLine& line) {
  glreplay::DiffStateOptions options;
  if (!split_point(o.left, &options.left))
    return line.usage_error("'" + o.left + "' is not TRACE@CALL or TRACE@frame:N");
  if (!split_point(o.right, &options.right))
    return line.usage_error("'" + o.right + "' is not TRACE@CALL or TRACE@frame:N");
  if (!glreplay::choose_driver_for(line.program(), o.driver, &options.driver_dir))
    return kExitFailure;
  options.max_lines = o.max_lines;
  return glreplay::run_diff_state(options);
}

}  // namespace

void register_diff_state(Commands& commands) {
  auto options = std::make_shared<DiffStateCommandOptions>();
  CommandLine& line =
      commands.add("diff-state", "compare the GL state at two points of replays",
                   [options](const CommandLine& line) { return diff_state(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Replays each side headless to its point and compares the whole GL and EGL state there\n"
      "object by object: every buffer, texture (contents as checksums), renderbuffer, sampler,\n"
      "shader, program (uniform values), framebuffer and vertex array, and the context's\n"
      "settings and bindings, as a state snapshot writes them. A point is TRACE@CALL (after\n"
      "call CALL) or TRACE@frame:N (where frame N begins; frame:0 of a trimmed or attached\n"
      "trace is after its snapshot). Exit status: 0 the same, 1 they differ, 2 an error.");
  app.add_option("--max-lines", options->max_lines, "differing calls printed per object")
      ->type_name("N");
  app.add_option("--driver", options->driver, glreplay::kDriverOptionHelp)->type_name("DRIVER");
  app.add_option("LEFT", options->left, "TRACE@CALL or TRACE@frame:N")->required();
  app.add_option("RIGHT", options->right, "TRACE@CALL or TRACE@frame:N")->required();
}

}  // namespace gltrace::cli
