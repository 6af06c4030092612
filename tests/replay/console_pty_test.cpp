// Manual mode and Ctrl-C as a user meets them: a child replays on a
// pseudo-terminal; the test types commands, ^C, and sends SIGINT.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/subprocess.h"

namespace gltrace::replay {
namespace {

using Clock = std::chrono::steady_clock;

// The child on the slave side of a pty; reads accumulate in output_, and
// expect() waits for text after what earlier expects consumed.
class PtyChild {
 public:
  explicit PtyChild(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {test::build_bin("replay_console_child")};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> argp;
    for (std::string& arg : argv) argp.push_back(arg.data());
    argp.push_back(nullptr);
    pid_ = forkpty(&master_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      execv(argp[0], argp.data());
      _exit(127);
    }
  }
  ~PtyChild() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  void type(const std::string& text) {
    ASSERT_EQ(write(master_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

  // True once needle shows up after the consumed part; consumes through it.
  bool expect(const std::string& needle,
              std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    Clock::time_point deadline = Clock::now() + limit;
    for (;;) {
      size_t at = output_.find(needle, consumed_);
      if (at != std::string::npos) {
        consumed_ = at + needle.size();
        return true;
      }
      if (!read_some(deadline)) return false;
    }
  }

  // Waits for the child to end (reading what it prints): its exit code, or
  // 128 + signal.
  int wait_exit(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    Clock::time_point deadline = Clock::now() + limit;
    for (;;) {
      int status = 0;
      pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        reaped_ = true;
        while (read_some(Clock::now() + std::chrono::milliseconds(50))) {
        }
        if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
        return WEXITSTATUS(status);
      }
      if (Clock::now() > deadline) return -1;
      read_some(Clock::now() + std::chrono::milliseconds(20));
    }
  }

  const std::string& output() const { return output_; }

 private:
  bool read_some(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd fd = {master_, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(left.count())) <= 0) return false;
    char buffer[4096];
    ssize_t got = read(master_, buffer, sizeof buffer);
    if (got <= 0) return false;  // EIO: the child closed the terminal
    output_.append(buffer, static_cast<size_t>(got));
    return true;
  }

  pid_t pid_ = -1;
  int master_ = -1;
  bool reaped_ = false;
  std::string output_;
  size_t consumed_ = 0;
};

constexpr char kPrompt[] = "(replay) ";

TEST(ConsolePty, ManualSession) {
  // 200 increments 5 ms apart, a frame every 10: 1 s, timed.
  PtyChild child({"-m"});
  ASSERT_TRUE(child.started());
  ASSERT_TRUE(child.expect("stopped before call 0 (frame 0, +0.000000 s)")) << child.output();
  ASSERT_TRUE(child.expect(kPrompt));
  struct Step {
    const char* typed;
    const char* reply;
  };
  const Step steps[] = {
      {"n\r", "stopped before call 10 (frame 1, +0.050000 s)"},
      {"\r", "stopped before call 20 (frame 2, +0.100000 s)"},  // Enter repeats
      {"ni\r", "stopped before call 21 (frame 2, +0.105000 s)"},
      {"s 300ms\r", "stopped at +0.300000 s, before call 60 (frame 6, +0.300000 s)"},
      {"c 100\r", "stopped at +0.400000 s, before call 80 (frame 8, +0.400000 s)"},
      {"f 12\r", "stopped before call 120 (frame 12, +0.600000 s)"},
      {"call 150\r", "stopped before call 150 (frame 15, +0.750000 s)"},
      {"l\r", "time +0.745000 s (1745000000 ns); next: call 150 (frame 15) at +0.750000 s"},
      {"info\r", "target 0: synthetic target 0"},
  };
  for (const Step& step : steps) {
    child.type(step.typed);
    ASSERT_TRUE(child.expect(step.reply)) << "after " << step.typed << ":\n" << child.output();
    ASSERT_TRUE(child.expect(kPrompt)) << child.output();
  }
  child.type("c\r");
  ASSERT_TRUE(child.expect("status: finished")) << child.output();
  EXPECT_EQ(child.wait_exit(), 0) << child.output();
}

TEST(ConsolePty, QuitFromThePrompt) {
  PtyChild child({"-m", "-n"});
  ASSERT_TRUE(child.expect(kPrompt)) << child.output();
  child.type("ni 7\r");
  ASSERT_TRUE(child.expect("stopped before call 7")) << child.output();
  child.type("q\r");
  ASSERT_TRUE(child.expect("status: quit: quit before call 7")) << child.output();
  EXPECT_EQ(child.wait_exit(), 0);
}

TEST(ConsolePty, CtrlCPausesAndAtThePromptExits) {
  // 20 s of increments, a frame every 50 ms, printed.
  PtyChild child(
      {"--count", "20000", "--interval-us", "1000", "--frame-every", "50", "--print-frames"});
  ASSERT_TRUE(child.expect("first frame")) << child.output();
  child.type("\x03");  // the terminal turns ^C into SIGINT for the child
  ASSERT_TRUE(child.expect("interrupted: stopped at +")) << child.output();
  ASSERT_TRUE(child.expect(kPrompt)) << child.output();
  child.type("c\r");
  ASSERT_TRUE(child.expect("frame ")) << child.output();  // replaying again
  child.type("\x03");
  ASSERT_TRUE(child.expect("interrupted: stopped at +")) << child.output();
  ASSERT_TRUE(child.expect(kPrompt)) << child.output();
  child.type("\x03");  // at the prompt: exit
  ASSERT_TRUE(child.expect("status: interrupted")) << child.output();
  EXPECT_EQ(child.wait_exit(), 130) << child.output();
}

TEST(ConsolePty, SecondSigintExits) {
  PtyChild child({"--count", "20000", "--interval-us", "1000"});
  ASSERT_TRUE(child.expect("first frame")) << child.output();
  kill(child.pid(), SIGINT);
  ASSERT_TRUE(child.expect("interrupted: ")) << child.output();
  ASSERT_TRUE(child.expect(kPrompt)) << child.output();
  kill(child.pid(), SIGINT);
  ASSERT_TRUE(child.expect("status: interrupted")) << child.output();
  EXPECT_EQ(child.wait_exit(), 130) << child.output();
}

TEST(ConsolePty, ThirdCtrlCEndsAHungReplay) {
  // execute() of call 30 never returns: two presses cannot be served, the
  // third ends the process the default way.
  PtyChild child({"--hang-at", "30"});
  ASSERT_TRUE(child.expect("first frame")) << child.output();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well into the hang
  for (int i = 0; i < 3; ++i) {
    kill(child.pid(), SIGINT);
    // Apart: a signal sent while the same one is pending is merged with it.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(child.wait_exit(), 128 + SIGINT) << child.output();
}

}  // namespace
}  // namespace gltrace::replay
