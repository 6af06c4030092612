// A real setuid process (AT_SECURE set by the kernel): every path the
// caller controls through the environment is ignored, XDG_RUNTIME_DIR
// included. Runs as root (CI does): the test binary is made setuid to
// nobody and run by root, which is enough for AT_SECURE.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "support/subprocess.h"

namespace gltrace::test {
namespace {

constexpr uid_t kNobody = 65534;

TEST(SecureMode, SetuidProcessIgnoresCallerPaths) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to make a setuid binary";
  // Next to the build's binaries rather than in /tmp, which may be mounted nosuid.
  std::string bin = build_bin("gltrace-secure-paths");
  std::string dir = bin.substr(0, bin.rfind('/')) + "/setuid-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  std::string setuid_bin = dir + "/secure-paths";
  std::filesystem::copy_file(bin, setuid_bin);
  // A directory every user may write: without the rule, the setuid process
  // (uid nobody) would create gltrace/ in it.
  std::string caller_dir = dir + "/caller";
  ASSERT_EQ(mkdir(caller_dir.c_str(), 0777), 0);
  ASSERT_EQ(chmod(caller_dir.c_str(), 0777), 0);
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(chown(setuid_bin.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(chmod(setuid_bin.c_str(), 04755), 0);
  std::string fallback = "/tmp/gltrace-" + std::to_string(kNobody);
  bool fallback_existed = access(fallback.c_str(), F_OK) == 0;

  ProcessResult r = run_process({setuid_bin}, {{"XDG_RUNTIME_DIR", caller_dir},
                                               {"XDG_CONFIG_HOME", caller_dir},
                                               {"GLTRACE_SYSTEM_SETTINGS", caller_dir + "/s.conf"},
                                               {"GLTRACE_ASSUME_SECURE", std::nullopt}});
  EXPECT_NE(r.out.find("secure 1\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(access((caller_dir + "/gltrace").c_str(), F_OK), 0) << "created in the caller's path";
  EXPECT_NE(r.out.find("socket directory " + fallback + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("user settings ''"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("system settings '/etc/gltrace/settings.conf'"), std::string::npos) << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  if (!fallback_existed) rmdir(fallback.c_str());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gltrace::test
