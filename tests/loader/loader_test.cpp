// The loader against the real Mesa driver: apps of every kind run through
// layer chains, and broken or untrusted layers are skipped with a message.
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/apps.h"
#include "support/subprocess.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;

enum class Mode { kPreload, kDropin };

// An environment with no layer configuration from outside the test.
EnvChanges base_env(const std::string& config_home) {
  static const std::string runtime = make_temp_dir();
  return {{"DEBUG_GLES_LAYERS", std::nullopt},
          {"LD_PRELOAD", std::nullopt},
          {"LD_LIBRARY_PATH", std::nullopt},
          {"GLTRACE_LAYER_PATH", std::nullopt},
          {"GLTRACE_LOADER_DEBUG", std::nullopt},
          {"XDG_CONFIG_HOME", config_home},
          {"GLTRACE_SYSTEM_SETTINGS", config_home + "/system.conf"},
          {"GLTRACE_SYSTEM_LAYER_DIR", config_home + "/no-system-layers"},
          {"XDG_RUNTIME_DIR", runtime},
          {"GLTRACE_COUNT_DIR", std::nullopt}};
}

EnvChanges layer_env(const std::string& layers, Mode mode = Mode::kPreload,
                     const std::string& layer_path = "") {
  EnvChanges env = base_env(make_temp_dir());
  if (mode == Mode::kPreload)
    env["LD_PRELOAD"] = build_lib("libgltrace.so");
  else
    env["LD_LIBRARY_PATH"] = build_lib("dropin");
  env["DEBUG_GLES_LAYERS"] = layers;
  env["GLTRACE_LAYER_PATH"] = (layer_path.empty() ? "" : layer_path + ":") + build_lib("layers") +
                              ":" + GLTRACE_TEST_LAYER_DIR;
  return env;
}

std::string demo_crc(const ProcessResult& r) { return demo_final_crc(r.out); }

const std::string& native_demo_crc() {
  static const std::string crc = [] {
    ProcessResult r = run_process({build_bin("gltrace-demo"), "--frames", "5", "--verify"},
                                  base_env(make_temp_dir()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return demo_crc(r);
  }();
  return crc;
}

// Lines of `text` that contain `needle`, in order.
std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  return lines;
}

TEST(Loader, SeedLayersInBothOrdersSeeTheirCallsAndPixelsStayTheSame) {
  ASSERT_FALSE(native_demo_crc().empty());
  const std::vector<std::pair<std::string, std::string>> orders = {{"passive", "active"},
                                                                   {"active", "passive"}};
  for (const auto& [top, bottom] : orders) {
    std::string list = "libGLES_layer_" + top + ".so:libGLES_layer_" + bottom + ".so";
    ProcessResult r =
        run_process({build_bin("gltrace-demo"), "--frames", "5", "--verify"}, layer_env(list));
    ASSERT_EQ(r.exit_code, 0) << list << "\n" << r.err;
    EXPECT_EQ(demo_crc(r), native_demo_crc()) << list;
    // Top first on the way down, bottom first on the way back.
    std::vector<std::string> lines = lines_with(r.err, ": eglChooseConfig ");
    ASSERT_EQ(lines.size(), 4u) << r.err;
    EXPECT_EQ(lines[0], "gles-layer-" + top + ": eglChooseConfig enter") << r.err;
    EXPECT_EQ(lines[1], "gles-layer-" + bottom + ": eglChooseConfig enter") << r.err;
    EXPECT_NE(lines[2].find("gles-layer-" + bottom + ": eglChooseConfig leave ("),
              std::string::npos);
    EXPECT_NE(lines[3].find("gles-layer-" + top + ": eglChooseConfig leave ("), std::string::npos);
    // The active layer looked its function up through get_next_layer_proc_address.
    EXPECT_NE(r.err.find("gles-layer-active: initialize, next eglChooseConfig=found"),
              std::string::npos);
    EXPECT_EQ(r.err.find("gltrace: error"), std::string::npos) << r.err;
  }
}

struct AppCase {
  std::string probe;
  Mode mode;
};

void PrintTo(const AppCase& app, std::ostream* out) {
  *out << app.probe << (app.mode == Mode::kPreload ? " (preload)" : " (drop-in)");
}

class EveryKindOfApp : public ::testing::TestWithParam<AppCase> {};

TEST_P(EveryKindOfApp, GoesThroughTheChain) {
  const AppCase& app = GetParam();
  std::string counts = make_temp_dir();
  EnvChanges env = layer_env("libGLES_layer_counting.so:libGLES_layer_passive.so", app.mode);
  env["GLTRACE_COUNT_DIR"] = counts;
  env["GLTRACE_COUNT_VOID_FUNCTIONS"] = "glGltraceProbeUnknownFunction";
  ProcessResult r = run_process({build_bin(app.probe)}, env);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": OK"), std::string::npos) << r.out;
  // The seed layer below the counting layer was reached.
  EXPECT_EQ(lines_with(r.err, "gles-layer-passive: eglChooseConfig enter").size(), 1u) << r.err;
  auto seen = read_layer_counts(counts, "libGLES_layer_counting.so");
  for (const char* fn : {"eglInitialize", "eglChooseConfig", "eglMakeCurrent", "glClear",
                         "glReadPixels", "glCompileShader", "glDrawArrays"})
    EXPECT_GE(seen[fn], 1u) << fn << " not seen by the counting layer (" << app.probe << ")";
  if (app.probe == "probe_gpa") {
    EXPECT_GE(seen["eglGetProcAddress"], 10u);
  }
  // A function gltrace does not know, obtained with eglGetProcAddress, still
  // passes through the layers (a dynamic slot).
  ASSERT_NE(r.out.find("unknown function pointer=yes"), std::string::npos) << r.out;
  EXPECT_EQ(seen["glGltraceProbeUnknownFunction"], 1u);
}

INSTANTIATE_TEST_SUITE_P(
    , EveryKindOfApp,
    ::testing::Values(AppCase{"probe_direct", Mode::kPreload},
                      AppCase{"probe_dlopen", Mode::kPreload}, AppCase{"probe_gpa", Mode::kPreload},
                      AppCase{"probe_direct", Mode::kDropin},
                      AppCase{"probe_dlopen", Mode::kDropin}, AppCase{"probe_gpa", Mode::kDropin}),
    [](const auto& info) {
      return info.param.probe + (info.param.mode == Mode::kPreload ? "_preload" : "_dropin");
    });

TEST(Loader, ChainOrderFollowsTheList) {
  std::string dir = make_temp_dir();
  for (const char* name : {"libA.so", "libB.so"})
    fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), dir + "/" + name);
  for (const std::string list : {"libA.so:libB.so", "libB.so:libA.so"}) {
    ProcessResult r =
        run_process({build_bin("probe_direct")}, layer_env(list, Mode::kPreload, dir));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> lines = lines_with(r.err, "first eglInitialize");
    ASSERT_EQ(lines.size(), 2u) << r.err;
    EXPECT_EQ(lines[0], list.substr(0, 7) + ": first eglInitialize");
    EXPECT_EQ(lines[1], list.substr(8) + ": first eglInitialize");
  }
}

TEST(Loader, BrokenLayersAreSkippedAndTheRestStillLoads) {
  // A world-writable directory holding an otherwise good layer.
  std::string unsafe = make_temp_dir() + "/unsafe";
  fs::create_directory(unsafe);
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), unsafe + "/libUnsafe.so");
  chmod(unsafe.c_str(), 0777);
  std::string list =
      "libMissing.so:libGLES_layer_broken.so:libUnsafe.so:libGLES_layer_passive.so:" + unsafe +
      "/libUnsafe.so";
  ProcessResult r = run_process({build_bin("gltrace-demo"), "--frames", "3", "--verify"},
                                layer_env(list, Mode::kPreload, unsafe));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gltrace: error: layer libMissing.so skipped: not found (searched: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("layer libGLES_layer_broken.so skipped: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not export AndroidGLESLayer_GetProcAddress"), std::string::npos);
  EXPECT_NE(r.err.find("layer libUnsafe.so skipped: refused: layer directory " + unsafe +
                       " is writable by other users (mode 0777)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(lines_with(r.err, "skipped").size(), 4u) << r.err;  // the absolute path too
  // The good layer still works.
  EXPECT_EQ(lines_with(r.err, "gles-layer-passive: eglChooseConfig enter").size(), 1u) << r.err;
  EXPECT_EQ(lines_with(r.err, "first eglInitialize").size(), 0u);
}

TEST(Loader, LayerWritableByOthersIsRefused) {
  std::string dir = make_temp_dir();
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), dir + "/libLoose.so");
  chmod((dir + "/libLoose.so").c_str(), 0666);
  ProcessResult r =
      run_process({build_bin("probe_direct")}, layer_env("libLoose.so", Mode::kPreload, dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("refused: layer file " + dir + "/libLoose.so is writable by other users"),
            std::string::npos)
      << r.err;
}

constexpr uid_t kNobody = 65534;

// A directory tree for the path tests: `root` is root's and open to
// traverse (the nobody child below must reach into it); `good` holds a
// passive layer, both root's and private.
struct PathTree {
  std::string root = make_temp_dir();
  std::string good = root + "/good/libGood.so";
  PathTree() {
    chmod(root.c_str(), 0755);
    fs::create_directory(root + "/good");
    chmod((root + "/good").c_str(), 0755);
    fs::copy_file(build_lib("layers/libGLES_layer_passive.so"), good);
  }
  std::string dir(const std::string& name, mode_t mode) const {
    std::string path = root + "/" + name;
    fs::create_directory(path);
    chmod(path.c_str(), mode);
    return path;
  }
};

ProcessResult run_with_layer(const std::string& layer) {
  return run_process({build_bin("probe_direct")}, layer_env(layer));
}

bool passive_layer_ran(const ProcessResult& r) {
  return lines_with(r.err, "gles-layer-passive: eglChooseConfig enter").size() == 1;
}

// Anyone can swap a link in a world-writable directory, whatever it points
// to; in a sticky one, only its owner can (root's link: trusted, another
// user's: refused).
TEST(Loader, LayerReachedThroughALinkOthersCanSwapIsRefused) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to own files as another user";
  PathTree tree;
  std::string open_dir = tree.dir("open", 0777);
  fs::create_symlink(tree.good, open_dir + "/libLinked.so");
  ProcessResult r = run_with_layer(open_dir + "/libLinked.so");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("refused: layer directory " + open_dir +
                       " is writable by other users (mode 0777)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(passive_layer_ran(r)) << r.err;

  std::string sticky = tree.dir("sticky", 01777);
  fs::create_symlink(tree.good, sticky + "/libRootLink.so");
  r = run_with_layer(sticky + "/libRootLink.so");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(passive_layer_ran(r)) << r.err;

  fs::create_symlink(tree.good, sticky + "/libNobodyLink.so");
  ASSERT_EQ(lchown((sticky + "/libNobodyLink.so").c_str(), kNobody, kNobody), 0);
  r = run_with_layer(sticky + "/libNobodyLink.so");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("refused: layer link " + sticky +
                       "/libNobodyLink.so is owned by uid 65534, neither root nor this user"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(passive_layer_ran(r)) << r.err;
}

// A private directory is no protection inside one that anyone can write:
// the private one can be renamed away and replaced.
TEST(Loader, DirectoryInsideAWorldWritableParentIsRefused) {
  PathTree tree;
  std::string open_dir = tree.dir("open", 0777);
  std::string inner = open_dir + "/inner";
  fs::create_directory(inner);
  chmod(inner.c_str(), 0755);
  fs::copy_file(tree.good, inner + "/libInner.so");
  for (const std::string& layer : {inner + "/libInner.so", std::string("libInner.so")}) {
    EnvChanges env = layer_env(layer, Mode::kPreload, inner);
    ProcessResult r = run_process({build_bin("probe_direct")}, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("refused: layer directory " + open_dir +
                         " is writable by other users (mode 0777)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(passive_layer_ran(r)) << r.err;
  }
}

// Another user swaps a link between a good layer and its own as fast as it
// can while root loads through the link: its layer is never loaded. (Before
// the walk, a check of the link's target and a dlopen of the link loaded
// the swapped-in library in about a third of the tries.)
TEST(Loader, LinkSwappedByAnotherUserNeverLoadsItsLibrary) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to run a process as another user";
  PathTree tree;
  std::string open_dir = tree.dir("open", 0777);
  std::string own = tree.dir("nobody", 0755);
  std::string bad = own + "/libBad.so";
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), bad);
  ASSERT_EQ(chown(own.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(chown(bad.c_str(), kNobody, kNobody), 0);
  std::string link = open_dir + "/libRace.so";
  fs::create_symlink(tree.good, link);
  std::string temp = open_dir + "/.swap";

  pid_t swapper = fork();
  ASSERT_GE(swapper, 0);
  if (swapper == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(2);
    // Bounded; the test kills it long before.
    for (long i = 0; i < 100000000; ++i) {
      unlink(temp.c_str());
      if (symlink((i % 2 != 0 ? bad : tree.good).c_str(), temp.c_str()) != 0) _exit(3);
      if (rename(temp.c_str(), link.c_str()) != 0) _exit(4);
    }
    _exit(0);
  }
  int refused = 0;
  for (int i = 0; i < 20; ++i) {
    ProcessResult r = run_with_layer(link);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_with(r.err, "first eglInitialize").size(), 0u) << "attempt " << i << ":\n"
                                                                   << r.err;
    refused += r.err.find("refused: layer directory " + open_dir) != std::string::npos ? 1 : 0;
  }
  int status = 0;
  EXPECT_EQ(waitpid(swapper, &status, WNOHANG), 0) << "the swapper stopped early: " << status;
  kill(swapper, SIGKILL);
  waitpid(swapper, &status, 0);
  EXPECT_EQ(refused, 20);
}

TEST(Loader, AppSettingsBeatTheEnvironmentVariable) {
  std::string dir = make_temp_dir();
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), dir + "/libFromSettings.so");
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), dir + "/libFromEnv.so");
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), dir + "/libGlobal.so");
  EnvChanges env = layer_env("libFromEnv.so", Mode::kPreload, dir);
  std::string config = *env["XDG_CONFIG_HOME"];
  auto run = [&](const std::string& settings, bool with_env) {
    write_text_file(config + "/gltrace/settings.conf", settings);
    EnvChanges e = env;
    if (!with_env) e["DEBUG_GLES_LAYERS"] = std::nullopt;
    ProcessResult r = run_process({build_bin("probe_direct")}, e);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return lines_with(r.err, "first eglInitialize");
  };
  std::string app_settings =
      "enable_gpu_debug_layers=1\ngpu_debug_app=probe_direct\n"
      "gpu_debug_layers_gles=libFromSettings.so\ndebug.gles.layers=libGlobal.so\n";
  EXPECT_EQ(run(app_settings, true),
            std::vector<std::string>{"libFromSettings.so: first eglInitialize"});
  std::string other_app =
      "enable_gpu_debug_layers=1\ngpu_debug_app=someone_else\n"
      "gpu_debug_layers_gles=libFromSettings.so\ndebug.gles.layers=libGlobal.so\n";
  EXPECT_EQ(run(other_app, true), std::vector<std::string>{"libFromEnv.so: first eglInitialize"});
  EXPECT_EQ(run(other_app, false), std::vector<std::string>{"libGlobal.so: first eglInitialize"});
  std::string disabled =
      "enable_gpu_debug_layers=0\ngpu_debug_app=probe_direct\n"
      "gpu_debug_layers_gles=libFromSettings.so\n";
  EXPECT_EQ(run(disabled, true), std::vector<std::string>{"libFromEnv.so: first eglInitialize"});
}

TEST(Loader, SecureProcessIgnoresEnvironmentAndUserSettings) {
  std::string dir = make_temp_dir();
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), dir + "/libFromSettings.so");
  EnvChanges env = layer_env("libGLES_layer_counting.so", Mode::kPreload, dir);
  write_text_file(*env["XDG_CONFIG_HOME"] + "/gltrace/settings.conf",
                  "enable_gpu_debug_layers=1\ngpu_debug_app=probe_direct\n"
                  "gpu_debug_layers_gles=libFromSettings.so\n");
  env["GLTRACE_ASSUME_SECURE"] = "1";
  env["GLTRACE_LOADER_DEBUG"] = "1";  // ignored too: a secure process logs no debug lines
  ProcessResult r = run_process({build_bin("probe_direct")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "first eglInitialize").size(), 0u) << r.err;
  EXPECT_EQ(r.err.find("gltrace: debug"), std::string::npos) << r.err;
  // The same without the secure flag does load both.
  env.erase("GLTRACE_ASSUME_SECURE");
  r = run_process({build_bin("probe_direct")}, env);
  EXPECT_EQ(lines_with(r.err, "first eglInitialize").size(), 1u) << r.err;
}

TEST(Loader, AppBaseDirectoryComesBeforeLayerPath) {
  // The same file name in the app's directory and on GLTRACE_LAYER_PATH: the
  // app's copy (counting) wins over the path's (pass-through, silent).
  std::string app_dir = make_temp_dir();
  std::string path_dir = make_temp_dir();
  fs::copy_file(build_bin("probe_direct"), app_dir + "/probe_direct");
  fs::copy_file(build_lib("layers/libGLES_layer_counting.so"), app_dir + "/libSame.so");
  fs::copy_file(build_lib("layers/libGLES_layer_passthrough.so"), path_dir + "/libSame.so");
  EnvChanges env = layer_env("libSame.so", Mode::kPreload, path_dir);
  env["GLTRACE_LOADER_DEBUG"] = "1";
  ProcessResult r = run_process({app_dir + "/probe_direct"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "libSame.so: first eglInitialize").size(), 1u) << r.err;
  EXPECT_NE(r.err.find("found in " + app_dir + " (app base directory)"), std::string::npos);
}

TEST(Loader, LoaderDebugLogsEveryDecision) {
  EnvChanges env = layer_env("libGLES_layer_passive.so:libMissing.so");
  env["GLTRACE_LOADER_DEBUG"] = "1";
  ProcessResult r = run_process({build_bin("probe_direct")}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"layer list from environment DEBUG_GLES_LAYERS: 2 layer(s)",
                           "driver library libEGL.so.1: ", "(system debug directory)",
                           "initializing layer libGLES_layer_passive.so",
                           "layer libGLES_layer_passive.so intercepts 1 functions",
                           "layer chain (app first): libGLES_layer_passive.so -> driver"})
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
}

TEST(Loader, GltraceRunLaunchesAnAppWithLayers) {
  EnvChanges env = base_env(make_temp_dir());
  ProcessResult r = run_process({build_bin("gltrace"), "run", "--layers", "libGLES_layer_active.so",
                                 "--", build_bin("gltrace-demo"), "--frames", "2", "--verify"},
                                env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "gles-layer-active: eglChooseConfig enter").size(), 1u) << r.err;
  r = run_process({build_bin("gltrace"), "run", "--dropin", "--layers", "libGLES_layer_active.so",
                   "--", build_bin("probe_dlopen")},
                  env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "gles-layer-active: eglChooseConfig enter").size(), 1u) << r.err;
}

TEST(Loader, DemoInAnX11WindowRendersTheSameThroughTheChain) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty()) << "Xvfb did not start";
  EnvChanges env = layer_env("libGLES_layer_passive.so:libGLES_layer_counting.so");
  env["DISPLAY"] = xvfb.display();
  ProcessResult r = run_process(
      {build_bin("gltrace-demo"), "--platform", "x11", "--frames", "5", "--verify"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(demo_crc(r), native_demo_crc());
  EXPECT_EQ(lines_with(r.err, "gles-layer-passive: eglChooseConfig enter").size(), 1u) << r.err;
}

TEST(Loader, Glmark2RunsItsDefaultBenchmarkThroughTwoLayers) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty()) << "Xvfb did not start";
  std::string counts = make_temp_dir();
  EnvChanges env = layer_env("libGLES_layer_counting.so:libGLES_layer_passive.so");
  env["GLTRACE_COUNT_DIR"] = counts;
  env["DISPLAY"] = xvfb.display();
  // The default benchmark (every default scene), each scene shortened.
  ProcessResult r =
      run_process({"/usr/bin/glmark2-es2", "-b", ":duration=0.1", "-s", "160x120"}, env, 240);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("glmark2 Score:"), std::string::npos) << r.out;
  auto seen = read_layer_counts(counts, "libGLES_layer_counting.so");
  // glmark2 resolves everything through dlopen + eglGetProcAddress (glad).
  EXPECT_GE(seen["eglGetProcAddress"], 100u);
  EXPECT_GE(seen["eglSwapBuffers"], 30u);
  EXPECT_GE(seen["glDrawArrays"] + seen["glDrawElements"], 30u);
  EXPECT_GE(seen["glUseProgram"], 1u);
  EXPECT_GE(seen["total"], 10000u);
  // Each scene makes its own context.
  EXPECT_GE(seen["eglCreateContext"], 10u);
  // The seed layer below the counting layer saw its function too.
  EXPECT_GE(lines_with(r.err, "gles-layer-passive: eglChooseConfig enter").size(), 1u);
}

}  // namespace
}  // namespace gltrace::test
