// Runs build/bin/gltrace as a subprocess: `gltrace settings`, `gltrace run`
// and the top-level dispatch.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;

std::string canonical(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// True when `env_output` (from /usr/bin/env) has exactly the line NAME=VALUE.
bool has_env_line(const std::string& env_output, const std::string& line) {
  return ("\n" + env_output).find("\n" + line + "\n") != std::string::npos;
}

std::vector<std::string> gltrace_argv(const std::string& binary,
                                      const std::vector<std::string>& args) {
  std::vector<std::string> argv = {binary};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// ----- top level ---------------------------------------------------------------

class CliMain : public ::testing::Test {
 protected:
  ProcessResult gltrace(const std::vector<std::string>& args) {
    return run_process(gltrace_argv(build_bin("gltrace"), args));
  }
};

TEST_F(CliMain, HelpListsCommands) {
  for (const char* flag : {"--help", "-h", "help"}) {
    ProcessResult r = gltrace({flag});
    EXPECT_EQ(r.exit_code, 0) << flag << r.err;
    EXPECT_NE(r.out.find("usage: gltrace"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("settings"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("run"), std::string::npos) << r.out;
  }
}

TEST_F(CliMain, VersionIsProjectVersion) {
  ProcessResult r = gltrace({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("gltrace ") + GLTRACE_EXPECTED_VERSION + "\n");
}

TEST_F(CliMain, HelpCommandPrintsThatCommandsUsage) {
  ProcessResult r = gltrace({"help", "settings"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("gltrace settings [--system] put [global] NAME VALUE"), std::string::npos)
      << r.out;
  r = gltrace({"help", "run"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("usage: gltrace run"), std::string::npos) << r.out;
  r = gltrace({"help", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'nope'"), std::string::npos) << r.err;
}

TEST_F(CliMain, UnknownCommandOrOptionIsUsageError) {
  ProcessResult r = gltrace({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("see 'gltrace --help'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = gltrace({"--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option '--bogus'"), std::string::npos) << r.err;
  r = gltrace({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing COMMAND"), std::string::npos) << r.err;
}

// ----- gltrace settings --------------------------------------------------------

class CliSettings : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir();
    user_file_ = dir_ + "/config/gltrace/settings.conf";
    system_file_ = dir_ + "/system/settings.conf";
  }

  ProcessResult gltrace(const std::vector<std::string>& args, EnvChanges env = {}) {
    env.emplace("XDG_CONFIG_HOME", dir_ + "/config");
    env.emplace("HOME", dir_ + "/home");
    env.emplace("GLTRACE_SYSTEM_SETTINGS", system_file_);
    return run_process(gltrace_argv(build_bin("gltrace"), args), env);
  }

  // Runs `gltrace settings ARGS` and expects success.
  std::string settings_ok(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"settings"};
    full.insert(full.end(), args.begin(), args.end());
    ProcessResult r = gltrace(full);
    EXPECT_EQ(r.exit_code, 0) << "settings " << ::testing::PrintToString(args) << ": " << r.err;
    return r.out;
  }

  std::string dir_, user_file_, system_file_;
};

TEST_F(CliSettings, PutGetDeleteRoundTrip) {
  EXPECT_EQ(settings_ok({"put", "enable_gpu_debug_layers", "1"}), "");
  EXPECT_EQ(settings_ok({"get", "enable_gpu_debug_layers"}), "1\n");
  EXPECT_EQ(
      test::read_text_file(user_file_).find("enable_gpu_debug_layers=1\n") != std::string::npos,
      true);
  struct stat st;
  ASSERT_EQ(stat(user_file_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(settings_ok({"put", "enable_gpu_debug_layers", "0"}), "");
  EXPECT_EQ(settings_ok({"get", "enable_gpu_debug_layers"}), "0\n");
  EXPECT_EQ(settings_ok({"delete", "enable_gpu_debug_layers"}), "");
  EXPECT_EQ(settings_ok({"get", "enable_gpu_debug_layers"}), "null\n");
  EXPECT_FALSE(exists(system_file_));  // user operations never touch the system file
}

TEST_F(CliSettings, GlobalWordIsAcceptedLikeAdb) {
  EXPECT_EQ(settings_ok({"put", "global", "gpu_debug_app", "myapp"}), "");
  EXPECT_EQ(settings_ok({"get", "global", "gpu_debug_app"}), "myapp\n");
  EXPECT_EQ(settings_ok({"get", "gpu_debug_app"}), "myapp\n");
  EXPECT_EQ(settings_ok({"list", "global"}), "gpu_debug_app=myapp\n");
  EXPECT_EQ(settings_ok({"delete", "global", "gpu_debug_app"}), "");
  EXPECT_EQ(settings_ok({"get", "global", "gpu_debug_app"}), "null\n");
  // `global` is the namespace word only in front of NAME.
  EXPECT_EQ(settings_ok({"put", "global", "global", "yes"}), "");
  EXPECT_EQ(settings_ok({"get", "global", "global"}), "yes\n");
}

TEST_F(CliSettings, GetOfUnsetNamePrintsNull) {
  ProcessResult r = gltrace({"settings", "get", "gpu_debug_layers_gles"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "null\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(CliSettings, ListIsSortedNameValueLines) {
  settings_ok({"put", "gpu_debug_layers_gles", "libA.so:libB.so"});
  settings_ok({"put", "enable_gpu_debug_layers", "1"});
  settings_ok({"put", "debug.gles.layers", "libC.so"});
  EXPECT_EQ(settings_ok({"list"}),
            "debug.gles.layers=libC.so\n"
            "enable_gpu_debug_layers=1\n"
            "gpu_debug_layers_gles=libA.so:libB.so\n");
}

TEST_F(CliSettings, ValuesAreKeptVerbatim) {
  settings_ok({"put", "odd", " a = b # c "});
  EXPECT_EQ(settings_ok({"get", "odd"}), " a = b # c \n");
  settings_ok({"put", "neg", "-1"});  // a single-dash VALUE is not an option
  EXPECT_EQ(settings_ok({"get", "neg"}), "-1\n");
  settings_ok({"put", "--", "dash", "--system"});
  EXPECT_EQ(settings_ok({"get", "dash"}), "--system\n");
  settings_ok({"put", "empty", ""});
  EXPECT_EQ(settings_ok({"get", "empty"}), "\n");
}

TEST_F(CliSettings, InvalidNameOrValueIsRejected) {
  for (const std::string& name :
       std::vector<std::string>{"bad name", "a=b", "", std::string(129, 'n')}) {
    ProcessResult r = gltrace({"settings", "put", name, "1"});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_NE(r.err.find("invalid name"), std::string::npos) << r.err;
  }
  ProcessResult r = gltrace({"settings", "get", "bad/name"});
  EXPECT_EQ(r.exit_code, 2);
  r = gltrace({"settings", "put", "ok", "two\nlines"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("invalid value"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(user_file_));
}

TEST_F(CliSettings, UsageErrors) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{"settings"}, "missing put, get, delete or list"},
      {{"settings", "frob"}, "unknown subcommand 'frob'"},
      {{"settings", "put", "name"}, "missing argument"},
      {{"settings", "get"}, "missing argument"},
      {{"settings", "get", "global"}, "missing argument"},
      {{"settings", "get", "a", "b"}, "unexpected argument 'b'"},
      {{"settings", "list", "x"}, "unexpected argument 'x'"},
      {{"settings", "put", "system", "a", "1"}, "no 'system' namespace"},
      {{"settings", "--sytem", "list"}, "unknown option '--sytem'"},
      {{"settings", "put", "--bogus", "a", "1"}, "unknown option '--bogus'"},
  };
  for (const Case& c : cases) {
    ProcessResult r = gltrace(c.args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(c.args);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("see 'gltrace help settings'"), std::string::npos) << r.err;
  }
}

TEST_F(CliSettings, SystemFileAndUserOverride) {
  settings_ok({"--system", "put", "gpu_debug_app", "sysapp"});
  settings_ok({"put", "global", "--system", "enable_gpu_debug_layers", "1"});
  struct stat st;
  ASSERT_EQ(stat(system_file_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_FALSE(exists(user_file_));
  EXPECT_EQ(settings_ok({"get", "gpu_debug_app"}), "sysapp\n");

  settings_ok({"put", "gpu_debug_app", "userapp"});
  EXPECT_EQ(settings_ok({"get", "gpu_debug_app"}), "userapp\n");
  EXPECT_EQ(settings_ok({"--system", "get", "gpu_debug_app"}), "sysapp\n");
  EXPECT_EQ(settings_ok({"list"}), "enable_gpu_debug_layers=1\ngpu_debug_app=userapp\n");
  EXPECT_EQ(settings_ok({"list", "--system"}), "enable_gpu_debug_layers=1\ngpu_debug_app=sysapp\n");

  // Deleting the user's value uncovers the system's, and says so.
  ProcessResult r = gltrace({"settings", "delete", "gpu_debug_app"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("still set to 'sysapp' in the system file"), std::string::npos) << r.err;
  EXPECT_EQ(settings_ok({"get", "gpu_debug_app"}), "sysapp\n");
  settings_ok({"--system", "delete", "gpu_debug_app"});
  EXPECT_EQ(settings_ok({"get", "gpu_debug_app"}), "null\n");
}

TEST_F(CliSettings, SystemWriteWithoutPermissionExplains) {
  // Under root the command runs as nobody, so permissions apply; otherwise
  // the directory is made read-only.
  ASSERT_EQ(mkdir((dir_ + "/system").c_str(), 0755), 0);
  std::vector<std::string> argv =
      gltrace_argv(build_bin("gltrace"), {"settings", "--system", "put", "a", "1"});
  if (geteuid() == 0) {
    if (!exists("/usr/bin/setpriv")) GTEST_SKIP() << "root without setpriv";
    // A copy the unprivileged user can reach without opening up the build tree.
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
    fs::copy_file(build_bin("gltrace"), dir_ + "/gltrace");
    argv[0] = dir_ + "/gltrace";
    argv.insert(argv.begin(),
                {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  } else {
    ASSERT_EQ(chmod((dir_ + "/system").c_str(), 0555), 0);
  }
  ProcessResult r = run_process(
      argv, {{"GLTRACE_SYSTEM_SETTINGS", system_file_}, {"XDG_CONFIG_HOME", dir_ + "/config"}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write the system settings file " + system_file_), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--system needs write access"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(system_file_));
  chmod((dir_ + "/system").c_str(), 0755);
}

TEST_F(CliSettings, OversizeFileIsNeverOverwritten) {
  fs::create_directories(fs::path(user_file_).parent_path());
  const std::string big(2 * 1024 * 1024, '#');
  test::write_text_file(user_file_, big);
  ProcessResult r = gltrace({"settings", "put", "a", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot update " + user_file_), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("too large"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_text_file(user_file_), big);
  // Reading still works, from what can be read, like the loader would.
  settings_ok({"--system", "put", "a", "sys"});
  r = gltrace({"settings", "get", "a"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "sys\n");
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
}

TEST_F(CliSettings, MalformedLinesWarnButWork) {
  fs::create_directories(fs::path(user_file_).parent_path());
  test::write_text_file(user_file_, "garbage line\ngpu_debug_app=x\n");
  ProcessResult r = gltrace({"settings", "get", "gpu_debug_app"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "x\n");
  EXPECT_NE(r.err.find(user_file_ + ":1:"), std::string::npos) << r.err;
}

TEST_F(CliSettings, NoTempFilesLeftBehind) {
  settings_ok({"put", "a", "1"});
  settings_ok({"put", "b", "2"});
  settings_ok({"delete", "a"});
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(user_file_).parent_path()))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"settings.conf"});
}

// ----- gltrace run -------------------------------------------------------------

// A relocated install: PREFIX/bin/gltrace (a copy of the built binary) and
// PREFIX/lib/gltrace/libgltrace.so (an empty stand-in; the dynamic linker
// complains about it on stderr and goes on). It proves the CLI finds its
// libraries relative to its own executable and lets `run` be tested before
// the real interposer exists.
class CliRun : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix_ = canonical(make_temp_dir());
    fs::create_directories(prefix_ + "/bin");
    fs::copy_file(build_bin("gltrace"), prefix_ + "/bin/gltrace");
    lib_dir_ = prefix_ + "/lib/gltrace";
  }

  void make_interposer() {
    fs::create_directories(lib_dir_ + "/layers");
    test::write_text_file(lib_dir_ + "/libgltrace.so", "");
  }

  ProcessResult gltrace(const std::vector<std::string>& args, EnvChanges env = {}) {
    // Start from a known state; individual tests override.
    env.emplace("LD_PRELOAD", std::nullopt);
    env.emplace("LD_LIBRARY_PATH", std::nullopt);
    env.emplace("DEBUG_GLES_LAYERS", std::nullopt);
    env.emplace("GLTRACE_LAYER_PATH", std::nullopt);
    env.emplace("GLTRACE_LOADER_DEBUG", std::nullopt);
    return run_process(gltrace_argv(prefix_ + "/bin/gltrace", args), env);
  }

  std::string prefix_, lib_dir_;
};

TEST_F(CliRun, SetsLoaderEnvironment) {
  make_interposer();
  ProcessResult r = gltrace({"run", "--layers", "libA.so:libB.so", "--", "/usr/bin/env"},
                            {{"GLTRACE_LAYER_PATH", "/my/layers"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_env_line(r.out, "LD_PRELOAD=" + lib_dir_ + "/libgltrace.so")) << r.out;
  EXPECT_TRUE(has_env_line(r.out, "DEBUG_GLES_LAYERS=libA.so:libB.so")) << r.out;
  EXPECT_TRUE(has_env_line(r.out, "GLTRACE_LAYER_PATH=" + lib_dir_ + "/layers:/my/layers"))
      << r.out;
  EXPECT_EQ(r.out.find("GLTRACE_LOADER_DEBUG="), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("LD_LIBRARY_PATH="), std::string::npos) << r.out;
}

TEST_F(CliRun, PrependsToExistingPreloadAndOmitsUnsetLayers) {
  make_interposer();
  ProcessResult r = gltrace({"run", "/usr/bin/env"}, {{"LD_PRELOAD", "/other/pre.so"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_env_line(r.out, "LD_PRELOAD=" + lib_dir_ + "/libgltrace.so:/other/pre.so"))
      << r.out;
  EXPECT_TRUE(has_env_line(r.out, "GLTRACE_LAYER_PATH=" + lib_dir_ + "/layers")) << r.out;
  EXPECT_EQ(r.out.find("DEBUG_GLES_LAYERS="), std::string::npos) << r.out;
}

TEST_F(CliRun, LayersEqualsFormAndLoaderDebug) {
  make_interposer();
  ProcessResult r = gltrace({"run", "--layers=libX.so", "--loader-debug", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_env_line(r.out, "DEBUG_GLES_LAYERS=libX.so")) << r.out;
  EXPECT_TRUE(has_env_line(r.out, "GLTRACE_LOADER_DEBUG=1")) << r.out;
  EXPECT_NE(r.err.find("gltrace run: LD_PRELOAD="), std::string::npos) << r.err;
}

TEST_F(CliRun, DropinUsesLibraryPathInsteadOfPreload) {
  make_interposer();
  fs::create_directories(lib_dir_ + "/dropin");
  test::write_text_file(lib_dir_ + "/dropin/libEGL.so.1", "");
  ProcessResult r = gltrace({"run", "--dropin", "/usr/bin/env"}, {{"LD_LIBRARY_PATH", "/old/lib"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_env_line(r.out, "LD_LIBRARY_PATH=" + lib_dir_ + "/dropin:/old/lib")) << r.out;
  EXPECT_EQ(r.out.find("LD_PRELOAD="), std::string::npos) << r.out;
}

TEST_F(CliRun, DropinWithoutDropinLibrariesFails) {
  make_interposer();
  ProcessResult r = gltrace({"run", "--dropin", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(lib_dir_ + "/dropin/libEGL.so.1"), std::string::npos) << r.err;
}

TEST_F(CliRun, MissingInterposerNamesThePath) {
  ProcessResult r = gltrace({"run", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("interposer library not found: " + lib_dir_ + "/libgltrace.so"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CliRun, MissingAppExits127) {
  make_interposer();
  ProcessResult r = gltrace({"run", "/nonexistent/app", "arg"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("gltrace run: cannot execute /nonexistent/app: No such file or directory"),
            std::string::npos)
      << r.err;
  r = gltrace({"run", "--", "gltrace-no-such-command-on-path"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot execute gltrace-no-such-command-on-path"), std::string::npos)
      << r.err;
}

TEST_F(CliRun, ExitStatusAndArgumentsAreTheApps) {
  make_interposer();
  ProcessResult r =
      gltrace({"run", "/bin/sh", "-c", "echo \"$@\"; exit 7", "sh", "--layers", "x", "--dropin"});
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.out, "--layers x --dropin\n");
}

TEST_F(CliRun, UsageErrors) {
  make_interposer();
  ProcessResult r = gltrace({"run"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing APP"), std::string::npos) << r.err;
  r = gltrace({"run", "--bogus", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option '--bogus'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("see 'gltrace help run'"), std::string::npos) << r.err;
  r = gltrace({"run", "--layers"});
  EXPECT_EQ(r.exit_code, 2);
}

// The same against the real build tree, once the interposer is built there.
TEST(CliRunBuildTree, SetsLoaderEnvironment) {
  std::string lib = canonical(build_lib("libgltrace.so"));
  if (lib.empty()) GTEST_SKIP() << build_lib("libgltrace.so") << " not built yet";
  std::string lib_dir = fs::path(lib).parent_path().string();
  ProcessResult r = run_process(
      {build_bin("gltrace"), "run", "--layers", "libA.so:libB.so", "--", "/usr/bin/env"},
      {{"LD_PRELOAD", std::nullopt},
       {"GLTRACE_LAYER_PATH", std::nullopt},
       {"DEBUG_GLES_LAYERS", std::nullopt}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_env_line(r.out, "LD_PRELOAD=" + lib)) << r.out;
  EXPECT_TRUE(has_env_line(r.out, "DEBUG_GLES_LAYERS=libA.so:libB.so")) << r.out;
  EXPECT_TRUE(has_env_line(r.out, "GLTRACE_LAYER_PATH=" + lib_dir + "/layers")) << r.out;
}

TEST(CliRunBuildTree, MissingAppExits127) {
  if (!exists(build_lib("libgltrace.so"))) GTEST_SKIP() << "libgltrace.so not built yet";
  ProcessResult r = run_process({build_bin("gltrace"), "run", "/nonexistent/app"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("gltrace run: cannot execute /nonexistent/app: No such file or directory"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gltrace::test
