// `glreplay`: the GL replayer on its own, with the arguments of `gltrace replay`.
#include <cstdio>
#include <string>
#include <vector>

#include "glreplay/glreplay.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Alone, as `gltrace --version` is: packaging and scripts ask for it.
  if (args.size() == 1 && args[0] == "--version") {
    printf("glreplay %s\n", GLTRACE_VERSION);
    return fflush(stdout) != 0 ? 1 : 0;
  }
  int status = gltrace::glreplay::run_replay(args, "glreplay", GLTRACE_GLREPLAY_USAGE("glreplay"));
  return fflush(stdout) != 0 ? 1 : status;
}
