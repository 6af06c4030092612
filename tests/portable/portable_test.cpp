// gltrace trace --portable: glmark2-es2 sees its driver (llvmpipe) through
// the es3.0 profile (spec/portable_profiles.toml): at most OpenGL ES 3.0,
// only the profile's extensions, its limits. The trace's requirements are
// within the profile, and it replays on llvmpipe, softpipe and zink within
// the default tolerance of `gltrace check`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <string>

#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

TEST(Portable, Glmark2SeesTheProfileAndItsTraceReplaysOnThreeDrivers) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  IsolatedEnv env;
  std::string trace = env.dir + "/glmark2.gltrace";
  std::string plain = env.dir + "/plain.gltrace";
  {
    XvfbServer xvfb;
    ASSERT_FALSE(xvfb.display().empty());
    EnvChanges vars = env.vars;
    vars["DISPLAY"] = xvfb.display();
    for (const std::string& out : {trace, plain}) {
      std::vector<std::string> args = {"trace", "--framebuffer", "swap", "-o", out};
      if (out == trace) args.emplace_back("--portable");
      args.insert(args.end(), {"--", "/usr/bin/glmark2-es2", "-s", "160x120", "-b",
                               "buffer:duration=0.2", "-b", "build:duration=0.2"});
      ProcessResult r = gltrace(args, vars);
      ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    }
  }
  ProcessResult dump = gltrace(env, {"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dump.out, m,
                                std::regex("glGetString\\(name = GL_VERSION\\) = "
                                           "\"OpenGL ES ([0-9.]+) ")))
      << dump.out.substr(0, 3000);
  EXPECT_EQ(m[1], "3.0");
  ASSERT_TRUE(std::regex_search(dump.out, m,
                                std::regex("glGetString\\(name = GL_EXTENSIONS\\) = "
                                           "\"([^\"]*)\"")));
  std::string extensions = m[1];
  EXPECT_TRUE(contains(extensions, "GL_OES_mapbuffer")) << extensions;  // the profile's
  // llvmpipe's, not the profile's.
  EXPECT_FALSE(contains(extensions, "GL_EXT_texture_compression_s3tc")) << extensions;
  EXPECT_FALSE(contains(extensions, "GL_OES_get_program_binary")) << extensions;
  ProcessResult plain_dump = gltrace(env, {"dump", plain});
  EXPECT_TRUE(contains(plain_dump.out, "GL_OES_get_program_binary")) << "llvmpipe changed?";

  ProcessResult needs = gltrace(env, {"info", "--requirements", "--profile", "es3.0", trace});
  EXPECT_EQ(needs.exit_code, 0) << needs.out << needs.err;
  EXPECT_TRUE(contains(needs.out, "profile:      within es3.0")) << needs.out;

  // An app that writes GLSL ES 3.20 whatever it is told: its trace is
  // beyond the profile, and info says so (exit 1).
  std::string glsl = env.dir + "/glsl-320.gltrace";
  ProcessResult traced = gltrace(env, {"trace", "--portable=es3.0", "-o", glsl, "--",
                                       build_bin("gltrace-glsl-320"), "--frames", "1"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  ProcessResult beyond = gltrace(env, {"info", "--requirements", "--profile", "es3.0", glsl});
  EXPECT_EQ(beyond.exit_code, 1) << beyond.out << beyond.err;
  EXPECT_TRUE(contains(beyond.out, "profile:      beyond es3.0: OpenGL ES 3.2")) << beyond.out;

  for (const char* driver : {"llvmpipe", "softpipe", "zink"}) {
    ProcessResult r = gltrace(env, {"replay", "-n", "--driver", driver, "--tolerance",
                                    "channel=16,pixels=0.5%,edges", trace});
    EXPECT_EQ(r.exit_code, 0) << driver << ":\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out, " 0 differ, 0 without a trace image, 0 not replayed"))
        << driver << ":\n"
        << r.out;
  }
}

}  // namespace
}  // namespace gltrace::test
