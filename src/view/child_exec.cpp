#include "view/child_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gltrace::view {

void exec_child(char* const* args, pid_t parent, int in, int out, int err) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  int null = in < 0 || out < 0 ? open("/dev/null", O_RDWR) : -1;
  dup2(in >= 0 ? in : null, 0);
  dup2(out >= 0 ? out : null, 1);
  dup2(err, 2);
  close_range(3, ~0u, 0);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execv(args[0], args);
  dprintf(2, "cannot run %s: %s\n", args[0], strerror(errno));
  _exit(127);
}

}  // namespace gltrace::view
