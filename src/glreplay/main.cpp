// `glreplay`: the GL replayer on its own, with the arguments of `gltrace replay`.
#include <cstdio>
#include <string>
#include <vector>

#include "glreplay/glreplay.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int status = gltrace::glreplay::run_replay(args, "glreplay", GLTRACE_GLREPLAY_USAGE("glreplay"));
  return fflush(stdout) != 0 ? 1 : status;
}
