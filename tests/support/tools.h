// How tests run the project's own commands (build/bin/gltrace, glreplay):
// in an environment cleared of the machine's layers, preloads, settings and
// trace file, with a private configuration directory and a private runtime
// directory per test process.
#pragma once

#include <string>
#include <vector>

#include "support/subprocess.h"

namespace gltrace::test {

// The cleared environment; a fresh XDG_CONFIG_HOME each call, the test
// process's runtime_dir() as XDG_RUNTIME_DIR.
EnvChanges clean_env();
// The test process's private (0700) runtime folder.
const std::string& runtime_dir();

// A test's own environment: clean_env() with a private folder, dir, whose
// runtime (dir/run: control sockets, live-tracing files) and configuration
// (dir/config: settings) folders no other test shares, for tests that look
// into them.
struct IsolatedEnv {
  IsolatedEnv();
  std::string dir = make_temp_dir();
  std::string runtime = dir + "/run";
  EnvChanges vars;
  // The control socket of a traced process (settings' live tracing).
  std::string socket(int pid) const {
    return runtime + "/gltrace/gltrace-" + std::to_string(pid) + ".sock";
  }
};

// build/bin/NAME ARGS.
ProcessResult run_tool(const std::string& name, const std::vector<std::string>& args,
                       const EnvChanges& env = clean_env(), int timeout_seconds = 300);

inline ProcessResult gltrace(const std::vector<std::string>& args,
                             const EnvChanges& env = clean_env(), int timeout_seconds = 300) {
  return run_tool("gltrace", args, env, timeout_seconds);
}
inline ProcessResult gltrace(const IsolatedEnv& env, const std::vector<std::string>& args) {
  return run_tool("gltrace", args, env.vars);
}
inline ProcessResult glreplay(const std::vector<std::string>& args,
                              const EnvChanges& env = clean_env(), int timeout_seconds = 300) {
  return run_tool("glreplay", args, env, timeout_seconds);
}

}  // namespace gltrace::test
