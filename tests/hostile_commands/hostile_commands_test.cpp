// The must-show of hostile input (docs/trace-format.md, "Limits"): each kind
// of hostile trace file goes through every command that reads a trace, in a
// child with an address-space limit and a wall-clock limit. None may die of a
// signal or hang; each exits 0 or 1, says what is wrong and where (an
// offset) when it fails, and peaks within the documented memory bound. The
// peaks are printed as a table, a row per kind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hostile.h"
#include "support/subprocess.h"

namespace gltrace {
namespace {

// docs/trace-format.md: a command reading a trace needs at most 768 MiB
// besides --blob-memory (replay's cache of the blobs calls referred to: no
// call of these traces refers to one), with every option at its default.
constexpr long kBoundMiB = 768;
// The address-space limit: the bound plus room for what is mapped but never
// touched (thread stacks, malloc arenas, Mesa's driver for replay).
constexpr long kAddressSpaceMiB = kBoundMiB + 3072;
constexpr int kTimeoutSeconds = 120;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// Sanitizers reserve terabytes of shadow memory and double what is used.
constexpr bool kLimitMemory = false;
#else
constexpr bool kLimitMemory = true;
#endif

struct Outcome {
  int exit_code = -1;
  int term_signal = 0;
  bool timed_out = false;
  long peak_mib = 0;
  std::string err;
};

std::string read_file(const std::string& path) {
  std::string text;
  if (FILE* f = fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    fclose(f);
  }
  return text;
}

// Runs argv with RLIMIT_AS set (unless sanitized), output to files under dir.
Outcome run_limited(const std::vector<std::string>& argv, const std::string& dir) {
  // stdout is dropped: dump prints gigabytes for some of these files.
  std::string out_path = "/dev/null", err_path = dir + "/err";
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (kLimitMemory) {
      rlimit limit{};
      limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(kAddressSpaceMiB) << 20;
      setrlimit(RLIMIT_AS, &limit);
    }
    int out = open(out_path.c_str(), O_WRONLY);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  Outcome outcome;
  if (pid < 0) return outcome;
  timespec start{}, now{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  int status = 0;
  rusage usage{};
  for (;;) {
    pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > kTimeoutSeconds && !outcome.timed_out) {
      outcome.timed_out = true;
      kill(-pid, SIGKILL);
    }
    usleep(20000);
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.term_signal = WTERMSIG(status);
  outcome.peak_mib = usage.ru_maxrss / 1024;
  outcome.err = read_file(err_path);
  return outcome;
}

struct Command {
  std::string name;
  std::vector<std::string> args;  // the trace path is appended
};

std::vector<Command> commands(const std::string& dir) {
  std::vector<Command> list = {
      {"info", {"info"}},
      {"dump", {"dump"}},
      {"stats", {"stats"}},
      {"info --json", {"info", "--json"}},
      {"stats json", {"stats", "--format", "json"}},
      {"export", {"export", "-o", dir + "/export.perfetto-trace"}},
      {"export json", {"export", "--format", "json", "-o", dir + "/export.json"}},
      {"frames", {"frames", "-o", dir + "/frames"}},
      {"replay -n", {"replay", "-n"}},
  };
  // `replay --check` where this gltrace has it.
  test::ProcessResult help = test::run_process({test::build_bin("gltrace"), "replay", "--help"});
  if (help.out.find("--check") != std::string::npos)
    list.push_back({"replay --check", {"replay", "--check"}});
  return list;
}

// The file of one hostile kind, written under dir.
std::string write_kind(const std::string& name, const std::string& dir) {
  for (const test::HostileTrace& kind : test::hostile_traces()) {
    if (kind.kind != name) continue;
    std::vector<uint8_t> bytes = kind.make();
    std::string path = dir + "/" + name + ".gltrace";
    FILE* f = fopen(path.c_str(), "wb");
    if (f == nullptr) return "";
    size_t written = fwrite(bytes.data(), 1, bytes.size(), f);
    fclose(f);
    return written == bytes.size() ? path : "";
  }
  return "";
}

test::ProcessResult gltrace(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {test::build_bin("gltrace")};
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_process(argv);
}

// Terminal escape sequences in names reach the terminal escaped.
TEST(HostileOutput, NamesPrintEscaped) {
  std::string path = write_kind("escapes_in_names", test::make_temp_dir());
  ASSERT_FALSE(path.empty());
  for (const char* command : {"info", "dump"}) {
    test::ProcessResult r = gltrace({command, path});
    EXPECT_EQ(r.exit_code, 0) << command << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << command << r.out;
    EXPECT_NE(r.out.find("t\\x1b[31mred\\x0d"), std::string::npos) << command << r.out;
  }
  EXPECT_NE(gltrace({"info", path}).out.find("app\\x1b[2J\\x1b]0;owned\\x07"), std::string::npos);
}

// stats names a function id the model has no name for.
TEST(HostileOutput, StatsNamesUnknownFunctionIds) {
  std::string path = write_kind("unknown_function_ids", test::make_temp_dir());
  ASSERT_FALSE(path.empty());
  test::ProcessResult r = gltrace({"stats", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("(null)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("function#0 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(functions unknown to this gltrace)"), std::string::npos) << r.out;
}

// A damaged index is said, and the chunks still read.
TEST(HostileOutput, DamagedIndexIsAWarning) {
  std::string path = write_kind("damaged_index", test::make_temp_dir());
  ASSERT_FALSE(path.empty());
  test::ProcessResult r = gltrace({"info", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + path +
                       ": the index is damaged (CRC mismatch in chunk at "
                       "offset "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("reading the chunks in order"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("calls:        6"), std::string::npos) << r.out;
}

// The peaks of every kind run in this process, printed as one table at the
// end (run the binary itself for all kinds: ctest runs one kind a process).
class PeakTable : public testing::Environment {
 public:
  static PeakTable* instance;
  void add(const std::string& header, const std::string& row) {
    header_ = header;
    rows_.push_back(row);
  }
  void TearDown() override {
    if (rows_.empty()) return;
    printf("\npeak memory (MiB, ru_maxrss) of each command on each hostile kind, bound %ld:\n",
           kBoundMiB);
    printf("| %s |\n|", header_.c_str());
    for (size_t i = 0, columns = test::count_occurrences(header_, " | ") + 1; i < columns; ++i)
      printf("---|");
    printf("\n");
    for (const std::string& row : rows_) printf("| %s |\n", row.c_str());
  }

 private:
  std::string header_;
  std::vector<std::string> rows_;
};
PeakTable* PeakTable::instance =
    static_cast<PeakTable*>(testing::AddGlobalTestEnvironment(new PeakTable));

class HostileCommands : public testing::TestWithParam<size_t> {};

TEST_P(HostileCommands, EveryCommandEndsWithAMessageWithinTheMemoryBound) {
  test::HostileTrace kind = test::hostile_traces()[GetParam()];
  std::string dir = test::make_temp_dir();
  std::string path = dir + "/" + kind.kind + ".gltrace";
  {
    std::vector<uint8_t> bytes = kind.make();
    FILE* f = fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    fclose(f);
  }
  std::string row = kind.kind;
  std::string header = "kind";
  for (const Command& command : commands(dir)) {
    std::vector<std::string> argv = {test::build_bin("gltrace")};
    argv.insert(argv.end(), command.args.begin(), command.args.end());
    argv.push_back(path);
    Outcome o = run_limited(argv, dir);
    SCOPED_TRACE(kind.kind + ": gltrace " + command.name + "\n" + o.err.substr(0, 2000));
    EXPECT_FALSE(o.timed_out);
    EXPECT_EQ(o.term_signal, 0);
    EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 1) << "exit " << o.exit_code;
    // A failure is said by gltrace (where in the trace is checked by
    // Hostile.GeneratedKindsFailWithAnOffset, on the decoder).
    if (o.exit_code == 1) {
      EXPECT_NE(o.err.find("gltrace "), std::string::npos);
    }
    if (kLimitMemory) {
      EXPECT_LE(o.peak_mib, kBoundMiB);
    }
    header += " | " + command.name;
    row += " | " + std::to_string(o.peak_mib);
  }
  printf("peak MiB: %s\npeak MiB: %s\n", header.c_str(), row.c_str());
  PeakTable::instance->add(header, row);
}

INSTANTIATE_TEST_SUITE_P(Kinds, HostileCommands,
                         testing::Range(size_t{0}, test::hostile_traces().size()),
                         [](const testing::TestParamInfo<size_t>& info) {
                           return test::hostile_traces()[info.param].kind;
                         });

}  // namespace
}  // namespace gltrace
