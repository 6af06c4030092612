// Unit tests of the settings library: parsing, limits, atomic save, merge.
#include "settings/settings.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/process.h"
#include "support/subprocess.h"

namespace gltrace::settings {
namespace {

using test::make_temp_dir;

mode_t mode_of(const std::string& path) {
  struct stat st;
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  return names;
}

// Sets (or unsets) an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(SettingsNames, AndroidNamesAreValid) {
  for (const char* name : {kEnableGpuDebugLayers, kGpuDebugApp, kGpuDebugLayersGles,
                           kGpuDebugLayerApp, kDebugGlesLayers})
    EXPECT_TRUE(valid_name(name)) << name;
  EXPECT_STREQ(kEnableGpuDebugLayers, "enable_gpu_debug_layers");
  EXPECT_STREQ(kGpuDebugApp, "gpu_debug_app");
  EXPECT_STREQ(kGpuDebugLayersGles, "gpu_debug_layers_gles");
  EXPECT_STREQ(kGpuDebugLayerApp, "gpu_debug_layer_app");
  EXPECT_STREQ(kDebugGlesLayers, "debug.gles.layers");
}

TEST(SettingsNames, ValidNameRules) {
  EXPECT_TRUE(valid_name("aZ09_.-"));
  EXPECT_TRUE(valid_name(std::string(128, 'a')));
  EXPECT_FALSE(valid_name(std::string(129, 'a')));
  EXPECT_FALSE(valid_name(""));
  for (const char* bad : {"a b", "a=b", "a/b", "a\nb", "\xc3\xa9", "a#", " a", "a\t"})
    EXPECT_FALSE(valid_name(bad)) << bad;
  EXPECT_FALSE(valid_name(std::string("a\0b", 3)));
}

TEST(SettingsNames, ValidValueRules) {
  EXPECT_TRUE(valid_value(""));
  EXPECT_TRUE(valid_value(" spaces = and # hash \xc3\xa9 "));
  EXPECT_TRUE(valid_value(std::string(4096, 'x')));
  EXPECT_FALSE(valid_value(std::string(4097, 'x')));
  EXPECT_FALSE(valid_value("a\nb"));
  EXPECT_FALSE(valid_value(std::string("a\0b", 3)));
}

TEST(SettingsLoad, MissingFileIsEmptyWithoutError) {
  std::string dir = make_temp_dir();
  for (const std::string& path : {dir + "/none.conf", dir + "/no/such/dir/x.conf"}) {
    LoadResult r = load_file(path);
    EXPECT_TRUE(r.values.empty());
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.read_ok);
  }
}

TEST(SettingsLoad, ParsesLinesCommentsAndBlanks) {
  std::string path = make_temp_dir() + "/s.conf";
  test::write_text_file(path,
                        "# header comment\n"
                        "\n"
                        "   \n"
                        "  # indented comment\n"
                        "enable_gpu_debug_layers=1\n"
                        "gpu_debug_layers_gles=libA.so:libB.so\n"
                        "eq=a=b=c\n"
                        "spaced=  keep  these  \n"
                        "empty=\n"
                        "hash=#not a comment\n"
                        "dup=first\n"
                        "dup=second\n"
                        "last=no newline");
  LoadResult r = load_file(path);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.read_ok);
  Values expected = {{"enable_gpu_debug_layers", "1"},
                     {"gpu_debug_layers_gles", "libA.so:libB.so"},
                     {"eq", "a=b=c"},
                     {"spaced", "  keep  these  "},
                     {"empty", ""},
                     {"hash", "#not a comment"},
                     {"dup", "second"},
                     {"last", "no newline"}};
  EXPECT_EQ(r.values, expected);
}

TEST(SettingsLoad, MalformedLinesAreSkippedAndReportedWithFileAndLine) {
  std::string path = make_temp_dir() + "/s.conf";
  test::write_text_file(path,
                        "no equals sign\n"  // 1
                        "good=1\n"          // 2
                        "bad name=2\n"      // 3
                        "=3\n"              // 4
                        "also_good=4\n"     // 5
                        "nul=a" +
                            std::string(1, '\0') +
                            "b\n"  // 6
                            "long=" +
                            std::string(4097, 'x') +
                            "\n"             // 7
                            "ok.too-=5\n");  // 8
  LoadResult r = load_file(path);
  EXPECT_TRUE(r.read_ok);
  Values expected = {{"good", "1"}, {"also_good", "4"}, {"ok.too-", "5"}};
  EXPECT_EQ(r.values, expected);
  for (int line : {1, 3, 4, 6, 7})
    EXPECT_NE(r.error.find(path + ":" + std::to_string(line) + ":"), std::string::npos)
        << "line " << line << " not reported in: " << r.error;
  for (int line : {2, 5, 8})
    EXPECT_EQ(r.error.find(path + ":" + std::to_string(line) + ":"), std::string::npos)
        << "line " << line << " wrongly reported in: " << r.error;
}

TEST(SettingsLoad, ReportsOfManyBadLinesAreBounded) {
  std::string path = make_temp_dir() + "/s.conf";
  std::string content;
  for (int i = 0; i < 10000; ++i) content += "bad line\n";
  content += "good=1\n";
  test::write_text_file(path, content);
  LoadResult r = load_file(path);
  EXPECT_EQ(r.values, (Values{{"good", "1"}}));
  EXPECT_LE(test::count_occurrences(r.error, "\n"), 25u);
  EXPECT_NE(r.error.find("9980 more"), std::string::npos) << r.error;
}

TEST(SettingsLoad, RefusesOversizeFile) {
  std::string path = make_temp_dir() + "/s.conf";
  test::write_text_file(path, "a=1\n" + std::string(kMaxFileSize, '#'));
  LoadResult r = load_file(path);
  EXPECT_FALSE(r.read_ok);
  EXPECT_TRUE(r.values.empty());
  EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("too large"), std::string::npos) << r.error;
}

TEST(SettingsLoad, AcceptsFileOfExactlyTheLimit) {
  std::string path = make_temp_dir() + "/s.conf";
  std::string content = "a=1\n#";
  content += std::string(kMaxFileSize - content.size() - 1, 'x') + "\n";
  ASSERT_EQ(content.size(), kMaxFileSize);
  test::write_text_file(path, content);
  LoadResult r = load_file(path);
  EXPECT_TRUE(r.read_ok) << r.error;
  EXPECT_EQ(r.values, (Values{{"a", "1"}}));
}

// Settings pick layers and make processes traceable: a file another user
// could write, or replace through a directory on its way, is not read.
TEST(SettingsLoad, RefusesAFileOthersCouldChange) {
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/loose.conf", "a=1\n");
  ASSERT_EQ(chmod((dir + "/loose.conf").c_str(), 0666), 0);
  LoadResult r = load_file(dir + "/loose.conf");
  EXPECT_FALSE(r.read_ok);
  EXPECT_TRUE(r.values.empty());
  EXPECT_NE(r.error.find("refused: settings file " + dir +
                         "/loose.conf is writable by other users (mode 0666)"),
            std::string::npos)
      << r.error;

  ASSERT_EQ(mkdir((dir + "/open").c_str(), 0777), 0);
  ASSERT_EQ(chmod((dir + "/open").c_str(), 0777), 0);
  ASSERT_EQ(mkdir((dir + "/open/inner").c_str(), 0755), 0);
  test::write_text_file(dir + "/open/inner/settings.conf", "a=1\n");
  r = load_file(dir + "/open/inner/settings.conf");
  EXPECT_FALSE(r.read_ok);
  EXPECT_NE(r.error.find("refused: settings directory " + dir +
                         "/open is writable by other users (mode 0777)"),
            std::string::npos)
      << r.error;
  // Missing is still just missing there.
  r = load_file(dir + "/open/inner/none.conf");
  EXPECT_TRUE(r.read_ok) << r.error;
}

TEST(SettingsLoad, RefusesFifoAndDirectoryWithoutHanging) {
  std::string dir = make_temp_dir();
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  LoadResult r = load_file(fifo);  // would block forever without O_NONBLOCK
  EXPECT_FALSE(r.read_ok);
  EXPECT_NE(r.error.find("not a regular file"), std::string::npos) << r.error;
  r = load_file(dir);
  EXPECT_FALSE(r.read_ok);
  EXPECT_NE(r.error.find(dir), std::string::npos) << r.error;
}

TEST(SettingsSave, RoundTripsAndWritesSortedWithHeader) {
  std::string path = make_temp_dir() + "/s.conf";
  Values values = {{"zeta", "last"},
                   {"alpha", "first"},
                   {"gpu_debug_layers_gles", "libA.so:libB.so"},
                   {"odd", " a = b # c \xc3\xa9 "},
                   {"empty", ""}};
  std::string error;
  ASSERT_TRUE(save_file(path, values, &error)) << error;
  EXPECT_EQ(test::read_text_file(path),
            "# gltrace settings: name=value per line (see `gltrace help settings`)\n"
            "alpha=first\n"
            "empty=\n"
            "gpu_debug_layers_gles=libA.so:libB.so\n"
            "odd= a = b # c \xc3\xa9 \n"
            "zeta=last\n");
  LoadResult r = load_file(path);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.values, values);
}

TEST(SettingsSave, ReplacesExistingFileAndLeavesNoTempFiles) {
  std::string dir = make_temp_dir();
  std::string path = dir + "/settings.conf";
  test::write_text_file(path, "old=1\nstale=2\n");
  std::string error;
  ASSERT_TRUE(save_file(path, {{"new", "3"}}, &error)) << error;
  EXPECT_EQ(load_file(path).values, (Values{{"new", "3"}}));
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"settings.conf"});
}

TEST(SettingsSave, UserKindCreatesPrivateDirsAndFile) {
  std::string root = make_temp_dir();
  std::string path = root + "/a/b/settings.conf";
  mode_t old_mask = umask(0);  // modes must not depend on the caller's umask
  std::string error;
  bool ok = save_file(path, {{"x", "1"}}, &error, FileKind::kUser);
  umask(old_mask);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(mode_of(root + "/a"), 0700u);
  EXPECT_EQ(mode_of(root + "/a/b"), 0700u);
  EXPECT_EQ(mode_of(path), 0600u);
}

TEST(SettingsSave, SystemKindCreatesReadableDirsAndFile) {
  std::string root = make_temp_dir();
  std::string path = root + "/etc/gltrace/settings.conf";
  mode_t old_mask = umask(077);
  std::string error;
  bool ok = save_file(path, {{"x", "1"}}, &error, FileKind::kSystem);
  umask(old_mask);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(mode_of(root + "/etc"), 0755u);
  EXPECT_EQ(mode_of(root + "/etc/gltrace"), 0755u);
  EXPECT_EQ(mode_of(path), 0644u);
}

TEST(SettingsSave, RefusesInvalidNamesAndValuesLeavingFileUntouched) {
  std::string path = make_temp_dir() + "/s.conf";
  test::write_text_file(path, "keep=1\n");
  std::string error;
  EXPECT_FALSE(save_file(path, {{"bad name", "1"}}, &error));
  EXPECT_NE(error.find("invalid name"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(save_file(path, {{"ok", "two\nlines"}}, &error));
  EXPECT_NE(error.find("invalid value"), std::string::npos) << error;
  EXPECT_EQ(test::read_text_file(path), "keep=1\n");
}

TEST(SettingsSave, ReportsUnwritablePath) {
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/file", "");
  std::string error;
  // A regular file where a directory should be fails even for root.
  EXPECT_FALSE(save_file(dir + "/file/settings.conf", {{"x", "1"}}, &error));
  EXPECT_NE(error.find(dir + "/file/settings.conf"), std::string::npos) << error;
  EXPECT_FALSE(save_file("", {{"x", "1"}}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(save_file(dir + "/file/x.conf", {}, nullptr));  // null error is allowed
}

TEST(SettingsEffective, UserOverridesSystemPerName) {
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/system.conf",
                        "enable_gpu_debug_layers=1\ngpu_debug_app=sysapp\nsys_only=s\n");
  test::write_text_file(dir + "/user.conf", "gpu_debug_app=userapp\nuser_only=u\n");
  std::string errors;
  Values v = load_effective_from(dir + "/system.conf", dir + "/user.conf", &errors);
  EXPECT_EQ(errors, "");
  Values expected = {{"enable_gpu_debug_layers", "1"},
                     {"gpu_debug_app", "userapp"},
                     {"sys_only", "s"},
                     {"user_only", "u"}};
  EXPECT_EQ(v, expected);
}

TEST(SettingsEffective, EmptyUserPathReadsOnlySystem) {
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/system.conf", "a=sys\n");
  EXPECT_EQ(load_effective_from(dir + "/system.conf", ""), (Values{{"a", "sys"}}));
  EXPECT_EQ(load_effective_from("", ""), Values{});
}

TEST(SettingsEffective, ErrorsOfBothFilesAreReported) {
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/system.conf", "sysbad\na=1\n");
  test::write_text_file(dir + "/user.conf", "b=2\nuserbad\n");
  std::string errors;
  Values v = load_effective_from(dir + "/system.conf", dir + "/user.conf", &errors);
  EXPECT_EQ(v, (Values{{"a", "1"}, {"b", "2"}}));
  EXPECT_NE(errors.find(dir + "/system.conf:1:"), std::string::npos) << errors;
  EXPECT_NE(errors.find(dir + "/user.conf:2:"), std::string::npos) << errors;
}

TEST(SettingsEffective, UnreadableUserFileKeepsSystemValues) {
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/system.conf", "a=1\n");
  test::write_text_file(dir + "/user.conf", std::string(kMaxFileSize + 10, '#'));
  std::string errors;
  EXPECT_EQ(load_effective_from(dir + "/system.conf", dir + "/user.conf", &errors),
            (Values{{"a", "1"}}));
  EXPECT_NE(errors.find("too large"), std::string::npos) << errors;
}

TEST(SettingsPaths, UserFileFollowsXdgThenHome) {
  ScopedEnv xdg("XDG_CONFIG_HOME", "/xdg/conf");
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(user_file_path(), "/xdg/conf/gltrace/settings.conf");
  setenv("XDG_CONFIG_HOME", "relative/is/ignored", 1);
  EXPECT_EQ(user_file_path(), "/home/someone/.config/gltrace/settings.conf");
  unsetenv("XDG_CONFIG_HOME");
  EXPECT_EQ(user_file_path(), "/home/someone/.config/gltrace/settings.conf");
  unsetenv("HOME");
  EXPECT_EQ(user_file_path(), "");
}

TEST(SettingsPaths, SystemFileDefaultAndOverride) {
  ScopedEnv sys("GLTRACE_SYSTEM_SETTINGS", nullptr);
  EXPECT_EQ(system_file_path(), "/etc/gltrace/settings.conf");
  setenv("GLTRACE_SYSTEM_SETTINGS", "/tmp/elsewhere.conf", 1);
  EXPECT_EQ(system_file_path(), "/tmp/elsewhere.conf");
  setenv("GLTRACE_SYSTEM_SETTINGS", "", 1);
  EXPECT_EQ(system_file_path(), "/etc/gltrace/settings.conf");
}

TEST(SettingsEffective, LoadEffectiveReadsBothFilesFromEnvironment) {
  ASSERT_FALSE(is_secure_process());
  std::string dir = make_temp_dir();
  test::write_text_file(dir + "/system.conf", "a=sys\nb=sys\n");
  ASSERT_EQ(mkdir((dir + "/config").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir + "/config/gltrace").c_str(), 0700), 0);
  test::write_text_file(dir + "/config/gltrace/settings.conf", "b=user\n");
  ScopedEnv xdg("XDG_CONFIG_HOME", (dir + "/config").c_str());
  ScopedEnv sys("GLTRACE_SYSTEM_SETTINGS", (dir + "/system.conf").c_str());
  EXPECT_EQ(load_effective(), (Values{{"a", "sys"}, {"b", "user"}}));
}

// Runs in a child started by the test below, with GLTRACE_ASSUME_SECURE=1
// (is_secure_process() is decided once per process, so it needs its own).
TEST(SettingsSecureChild, DISABLED_IgnoresEnvironmentAndUserFile) {
  ASSERT_TRUE(is_secure_process());
  ASSERT_NE(getenv("XDG_CONFIG_HOME"), nullptr);  // set, yet must be ignored
  EXPECT_EQ(user_file_path(), "");
  EXPECT_EQ(system_file_path(), "/etc/gltrace/settings.conf");
  Values v = load_effective();
  EXPECT_EQ(v.count("gltrace_test_user_only"), 0u);
  EXPECT_EQ(v.count("gltrace_test_env_system_only"), 0u);
}

TEST(SettingsSecure, SecureProcessIgnoresUserFileAndSystemOverride) {
  std::string dir = make_temp_dir();
  ASSERT_EQ(mkdir((dir + "/gltrace").c_str(), 0700), 0);
  test::write_text_file(dir + "/gltrace/settings.conf", "gltrace_test_user_only=1\n");
  test::write_text_file(dir + "/system.conf", "gltrace_test_env_system_only=1\n");
  test::ProcessResult r = test::run_process({executable_path(), "--gtest_also_run_disabled_tests",
                                             "--gtest_filter=SettingsSecureChild.*"},
                                            {{"GLTRACE_ASSUME_SECURE", "1"},
                                             {"XDG_CONFIG_HOME", dir},
                                             {"GLTRACE_SYSTEM_SETTINGS", dir + "/system.conf"}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Make sure the child really ran the check rather than filtering it out.
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gltrace::settings
