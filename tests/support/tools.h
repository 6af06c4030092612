// How tests run the project's own commands (build/bin/gltrace, glreplay):
// in an environment cleared of the machine's layers, preloads, settings and
// trace file, with a private configuration directory and a private runtime
// directory per test process.
#pragma once

#include <string>
#include <vector>

#include "support/subprocess.h"

namespace gltrace::test {

// The cleared environment; a fresh XDG_CONFIG_HOME each call.
EnvChanges clean_env();

// build/bin/NAME ARGS.
ProcessResult run_tool(const std::string& name, const std::vector<std::string>& args,
                       const EnvChanges& env = clean_env(), int timeout_seconds = 300);

inline ProcessResult gltrace(const std::vector<std::string>& args,
                             const EnvChanges& env = clean_env(), int timeout_seconds = 300) {
  return run_tool("gltrace", args, env, timeout_seconds);
}
inline ProcessResult glreplay(const std::vector<std::string>& args,
                              const EnvChanges& env = clean_env(), int timeout_seconds = 300) {
  return run_tool("glreplay", args, env, timeout_seconds);
}

}  // namespace gltrace::test
