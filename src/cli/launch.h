// Starting an app with the gltrace loader active: shared by `run` and `trace`.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command_line/command_line.h"
#include "settings/known.h"

namespace gltrace::cli {

struct LaunchOptions {
  bool dropin = false;
  bool loader_debug = false;
  std::optional<std::string> layers;                     // DEBUG_GLES_LAYERS
  std::vector<std::pair<std::string, std::string>> env;  // more variables to set
  std::vector<std::string> app;                          // APP ARGS...
};

// The tracing modes, for CLI::IsMember.
inline std::vector<std::string> trace_modes() {
  return {std::begin(settings::kTraceModes), std::end(settings::kTraceModes)};
}

// Defines --layers, --dropin and --loader-debug on `line`, and APP ARGS... as
// its operands (everything from the first word that is no option on).
void add_launch_options(CommandLine& line, LaunchOptions* options);

// Takes APP ARGS... from the parsed `line` into options->app; kExitOk, or
// the usage error when there is no APP.
int take_app(const CommandLine& line, LaunchOptions* options);

// Sets up the environment and becomes the app; returns only on failure.
int launch_app(const char* command, const LaunchOptions& options);

// Sets up the environment, runs the app as a child and waits for it (Ctrl-C
// goes to the app; SIGTERM and SIGHUP are passed on). Returns the app's exit
// status (128+N when signal N ended it; 127, *started false, when it could not
// be executed), or kExitFailure with *started false when it was not started.
int run_app_and_wait(const char* command, const LaunchOptions& options, bool* started);

}  // namespace gltrace::cli
