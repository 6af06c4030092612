// Starting an app with the gltrace loader active: shared by `run` and `trace`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gltrace::cli {

struct LaunchOptions {
  bool dropin = false;
  bool loader_debug = false;
  std::optional<std::string> layers;                     // DEBUG_GLES_LAYERS
  std::vector<std::pair<std::string, std::string>> env;  // more variables to set
  std::vector<std::string> app;                          // APP ARGS...
};

// A command's own option at args[*i]: returns kExitOk (advancing *i past any
// value it took), an exit status on error, or -1 if it is not one of its own.
using ExtraOption = std::function<int(const std::vector<std::string>& args, size_t* i)>;

// Parses [--layers L] [--dropin] [--loader-debug] [own options] [--] APP ARGS...
int parse_launch_options(const char* command, const std::vector<std::string>& args,
                         LaunchOptions* options, const ExtraOption& extra);

// Sets up the environment and becomes the app; returns only on failure.
int launch_app(const char* command, const LaunchOptions& options);

// Sets up the environment, runs the app as a child and waits for it (Ctrl-C
// goes to the app; SIGTERM and SIGHUP are passed on). Returns the app's exit
// status (128+N when signal N ended it; 127, *started false, when it could not
// be executed), or kExitFailure with *started false when it was not started.
int run_app_and_wait(const char* command, const LaunchOptions& options, bool* started);

}  // namespace gltrace::cli
