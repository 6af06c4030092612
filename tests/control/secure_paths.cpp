// Prints the paths gltrace would use in this process, for the setuid test
// (secure_mode_test.cpp): it runs as a setuid binary, so AT_SECURE is set
// by the kernel, not forced by GLTRACE_ASSUME_SECURE.
#include <cstdio>
#include <string>

#include "common/process.h"
#include "control/server.h"
#include "settings/settings.h"

int main() {
  std::string error;
  std::string socket_dir = gltrace::control::socket_directory(&error);
  printf("secure %d\n", gltrace::is_secure_process() ? 1 : 0);
  printf("socket directory %s%s\n", socket_dir.c_str(), error.c_str());
  printf("user settings '%s'\n", gltrace::settings::user_file_path().c_str());
  printf("system settings '%s'\n", gltrace::settings::system_file_path().c_str());
  return socket_dir.empty() ? 1 : 0;
}
