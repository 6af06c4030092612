// `surfacereplayer`: the seed's executable, for gltrace surface traces.
#include <cstdio>
#include <string>
#include <vector>

#include "surface/replay_cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int status = gltrace::surface::run_replay(args, "surfacereplayer");
  return std::fflush(stdout) != 0 ? 1 : status;
}
