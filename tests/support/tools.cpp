#include "support/tools.h"

#include <sys/stat.h>

namespace gltrace::test {

const std::string& runtime_dir() {
  static const std::string runtime = make_temp_dir();
  return runtime;
}

EnvChanges clean_env() {
  const std::string& runtime = runtime_dir();
  return {{"DEBUG_GLES_LAYERS", std::nullopt},  {"LD_PRELOAD", std::nullopt},
          {"GLTRACE_LAYER_PATH", std::nullopt}, {"GLTRACE_TRACE_FILE", std::nullopt},
          {"GLTRACE_LIVE", std::nullopt},       {"XDG_CONFIG_HOME", make_temp_dir()},
          {"XDG_RUNTIME_DIR", runtime},         {"GLTRACE_SYSTEM_SETTINGS", "/nonexistent"}};
}

IsolatedEnv::IsolatedEnv() : vars(clean_env()) {
  mkdir(runtime.c_str(), 0700);
  vars["XDG_RUNTIME_DIR"] = runtime;
  vars["XDG_CONFIG_HOME"] = dir + "/config";
}

ProcessResult run_tool(const std::string& name, const std::vector<std::string>& args,
                       const EnvChanges& env, int timeout_seconds) {
  std::vector<std::string> argv = {build_bin(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, env, timeout_seconds);
}

}  // namespace gltrace::test
