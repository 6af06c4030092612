#include "support/tools.h"

namespace gltrace::test {

EnvChanges clean_env() {
  static const std::string runtime = make_temp_dir();
  return {{"DEBUG_GLES_LAYERS", std::nullopt},  {"LD_PRELOAD", std::nullopt},
          {"GLTRACE_LAYER_PATH", std::nullopt}, {"GLTRACE_TRACE_FILE", std::nullopt},
          {"GLTRACE_LIVE", std::nullopt},       {"XDG_CONFIG_HOME", make_temp_dir()},
          {"XDG_RUNTIME_DIR", runtime},         {"GLTRACE_SYSTEM_SETTINGS", "/nonexistent"}};
}

ProcessResult run_tool(const std::string& name, const std::vector<std::string>& args,
                       const EnvChanges& env, int timeout_seconds) {
  std::vector<std::string> argv = {build_bin(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, env, timeout_seconds);
}

}  // namespace gltrace::test
