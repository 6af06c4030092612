// One writer per trace file (format/output_file.h), on a real file system:
// the names a taken file leads to, the lock that tells a file being written,
// and what a new run may replace.
#include "format/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "support/subprocess.h"

namespace gltrace::format {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

TEST(OutputFile, DerivedNamesSayTheProcess) {
  EXPECT_EQ(derived_file_name("/t/x.gltrace", "weston", 42), "/t/x.weston.42.gltrace");
  EXPECT_EQ(derived_file_name("/t/x.gltrace", "weston", 42, 3), "/t/x.weston.42.3.gltrace");
  EXPECT_EQ(derived_file_name("/t.d/x", "a b/c", 7), "/t.d/x.a_b_c.7");
  EXPECT_EQ(derived_file_name("x.log", "", 7), "x.process.7.log");
  EXPECT_EQ(derived_file_name("/t/.hidden", "app", 1), "/t/.hidden.app.1");
  EXPECT_EQ(file_in_directory("/t/dir//", "app", 9, ".json"), "/t/dir/app.9.json");
}

TEST(OutputFile, TheFirstWriterGetsTheNameAndLaterOnesOfTheirOwn) {
  std::string dir = test::make_temp_dir();
  std::string wanted = dir + "/x.gltrace";
  std::string error;
  ClaimedFile first = claim_new_file(wanted, "app", 5, &error);
  ASSERT_GE(first.fd, 0) << error;
  EXPECT_EQ(first.path, wanted);
  EXPECT_TRUE(being_written(wanted));
  ClaimedFile second = claim_new_file(wanted, "app", 5, &error);
  ClaimedFile third = claim_new_file(wanted, "app", 5, &error);
  ASSERT_GE(second.fd, 0) << error;
  ASSERT_GE(third.fd, 0) << error;
  EXPECT_EQ(second.path, dir + "/x.app.5.gltrace");
  EXPECT_EQ(third.path, dir + "/x.app.5.2.gltrace");
  // A file that is there is never written over, finished or not.
  close(first.fd);
  EXPECT_FALSE(being_written(wanted));
  ClaimedFile fourth = claim_new_file(wanted, "other", 6, &error);
  ASSERT_GE(fourth.fd, 0) << error;
  EXPECT_EQ(fourth.path, dir + "/x.other.6.gltrace");
  close(second.fd);
  close(third.fd);
  close(fourth.fd);
  // The private names are gone.
  int files = 0;
  for (const char* name :
       {"x.gltrace", "x.app.5.gltrace", "x.app.5.2.gltrace", "x.other.6.gltrace"})
    files += exists(dir + "/" + name) ? 1 : 0;
  EXPECT_EQ(files, 4);
  EXPECT_EQ(system(("test $(ls -A " + dir + " | wc -l) -eq 4").c_str()), 0);
}

TEST(OutputFile, ManyProcessesAtOnceNeverShareAFile) {
  std::string dir = test::make_temp_dir();
  std::string wanted = dir + "/race.gltrace";
  constexpr int kProcesses = 16;
  int pipes[2];
  ASSERT_EQ(pipe(pipes), 0);
  for (int i = 0; i < kProcesses; ++i) {
    if (fork() == 0) {
      std::string error;
      ClaimedFile file = claim_new_file(wanted, "p", static_cast<uint32_t>(getpid()), &error);
      std::string line = (file.fd >= 0 ? file.path : "error: " + error) + "\n";
      if (write(pipes[1], line.data(), line.size()) < 0) _exit(2);
      _exit(0);
    }
  }
  close(pipes[1]);
  for (int i = 0; i < kProcesses; ++i) wait(nullptr);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(pipes[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<size_t>(n));
  close(pipes[0]);
  std::set<std::string> paths;
  size_t lines = 0;
  for (size_t begin = 0, end; (end = text.find('\n', begin)) != std::string::npos;
       begin = end + 1, ++lines) {
    std::string path = text.substr(begin, end - begin);
    EXPECT_EQ(path.rfind("error", 0), std::string::npos) << path;
    paths.insert(path);
  }
  EXPECT_EQ(lines, size_t{kProcesses});
  EXPECT_EQ(paths.size(), size_t{kProcesses}) << text;
  EXPECT_EQ(paths.count(wanted), 1u) << text;
}

TEST(OutputFile, ANewRunReplacesOnlyAFinishedTrace) {
  std::string dir = test::make_temp_dir();
  std::string path = dir + "/old.gltrace";
  EXPECT_EQ(replace_finished(path), Previous::kNone);
  test::write_text_file(path, "finished");
  EXPECT_EQ(replace_finished(path), Previous::kRemoved);
  EXPECT_FALSE(exists(path));
  std::string error;
  ClaimedFile live = claim_new_file(path, "app", 1, &error);
  ASSERT_GE(live.fd, 0) << error;
  EXPECT_EQ(replace_finished(path), Previous::kBeingWritten);
  EXPECT_TRUE(exists(path));
  close(live.fd);
  // No regular file (a directory, a link): left alone.
  std::string link = dir + "/link.gltrace";
  ASSERT_EQ(symlink(path.c_str(), link.c_str()), 0);
  EXPECT_EQ(replace_finished(link), Previous::kKept);
  EXPECT_TRUE(exists(link));
}

TEST(OutputFile, ADeviceIsWrittenAsItIs) {
  std::string error;
  ClaimedFile file = claim_new_file("/dev/null", "app", 1, &error);
  ASSERT_GE(file.fd, 0) << error;
  EXPECT_EQ(file.path, "/dev/null");
  close(file.fd);
}

TEST(OutputFile, AMissingDirectoryIsAClearError) {
  std::string error;
  ClaimedFile file = claim_new_file("/nonexistent-dir/x.gltrace", "app", 1, &error);
  EXPECT_EQ(file.fd, -1);
  EXPECT_NE(error.find("cannot create /nonexistent-dir/x.gltrace: No such file or directory"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace gltrace::format
