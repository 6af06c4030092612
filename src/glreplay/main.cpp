// `glreplay`: the GL replayer on its own, with the options of `gltrace replay`.
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "glreplay/glreplay.h"

int main(int argc, char** argv) {
  try {
    gltrace::cli::CommandLine line("glreplay", "glreplay --help");
    auto args = gltrace::glreplay::define_replay_command_line(line);
    // Packaging and scripts ask for it, as of `gltrace --version`.
    line.app().set_version_flag("--version", "glreplay " GLTRACE_VERSION, "print the version");
    std::optional<int> parsed = line.parse(std::vector<std::string>(argv + 1, argv + argc));
    int status = parsed ? *parsed : gltrace::glreplay::run_replay(*args, line);
    return fflush(stdout) != 0 ? 1 : status;
  } catch (const std::exception& e) {  // out of memory; a bad option definition
    fprintf(stderr, "glreplay: %s\n", e.what());
    return 1;
  }
}
