// Threads that stop calling GL lose nothing: gltrace-idle-threads sets GL up
// on its main thread (a few hundred calls), releases the context and idles
// while a worker renders; killed with SIGKILL, its trace still holds the main
// thread's calls (the sweeper hands a quiet thread's records to the writer)
// and replays every frame identical, headless and on X11. Killed at random
// moments, every trace replays to its end and each thread lost at most its
// last moments.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "format/encoders.h"
#include "format/reader.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/writer.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/functions.h"
#include "protowire/wire.h"
#include "support/apps.h"
#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

// What the app wrote to --progress: its pid, whether the main thread went
// idle, the last frame the worker completed.
struct Progress {
  pid_t pid = 0;
  bool idle = false;
  int frames = 0;
};
Progress read_progress(const std::string& path) {
  Progress p;
  std::istringstream in(read_text_file(path));
  std::string word;
  long value = 0;
  while (in >> word) {
    if (word == "idle") {
      p.idle = true;
    } else if (in >> value) {
      if (word == "pid") p.pid = static_cast<pid_t>(value);
      if (word == "frame") p.frames = static_cast<int>(value);
    }
  }
  return p;
}

// The app under `gltrace trace --framebuffer swap`, paced at 10 ms a frame.
class TracedApp {
 public:
  TracedApp(const std::string& dir, const std::string& trace)
      : progress_(dir + "/progress"),
        process_({build_bin("gltrace"), "trace", "--framebuffer", "swap", "-o", trace, "--",
                  build_bin("gltrace-idle-threads"), "--frames", "0", "--frame-ms", "10",
                  "--progress", progress_},
                 clean_env(), dir + "/out", dir + "/err") {}

  Progress progress() const { return read_progress(progress_); }

  // Waits (polling, 60 s at most) until the worker completed `frames`.
  bool wait_for_frames(int frames) {
    for (int i = 0; i < 6000 && progress().frames < frames; ++i) usleep(10000);
    return progress().frames >= frames;
  }

  // SIGKILLs the app (not gltrace, which then reports the app's end); what
  // the app had reported when it died.
  Progress kill_app() {
    Progress p = progress();
    if (p.pid > 0) ::kill(p.pid, SIGKILL);
    Progress last = progress();  // the last line may have come in between
    process_.wait(60);
    return last;
  }

 private:
  std::string progress_;
  BackgroundProcess process_;
};

// The calls of a trace, by seq: thread and function; plus contexts.
struct TraceCalls : format::Consumer {
  void on_call(const format::Call& c) override { calls[c.seq] = {c.thread, c.function}; }
  void on_context(const format::Context&) override { ++contexts; }
  void on_image(const format::Image&) override { ++images; }
  struct Entry {
    uint32_t thread = 0;
    uint32_t function = 0;
  };
  std::map<uint64_t, Entry> calls;
  int contexts = 0;
  int images = 0;

  // The seqs missing below the last one read.
  std::vector<uint64_t> missing() const {
    std::vector<uint64_t> out;
    uint64_t next = 0;
    for (const auto& [seq, entry] : calls) {
      for (; next < seq; ++next) out.push_back(next);
      next = seq + 1;
    }
    return out;
  }
  uint64_t count(uint32_t thread, uint32_t function) const {
    uint64_t n = 0;
    for (const auto& [seq, entry] : calls)
      n += entry.thread == thread && entry.function == function;
    return n;
  }
};

TraceCalls read_calls(const std::string& trace, format::ReadStatus* status) {
  TraceCalls calls;
  format::ChunkReader reader;
  if (reader.open(trace)) format::read_trace(reader, calls, status);
  return calls;
}

// Every swap of a killed trace compared identical, but for its last: the
// trace layer reads a frame back during the next (the read is in flight
// meanwhile), so the last swap's image dies with the app.
void expect_all_identical(const CompareLine& c, uint64_t swaps, const std::string& out) {
  ASSERT_TRUE(c.found) << out;
  EXPECT_EQ(c.differ, 0u) << out;
  EXPECT_LE(c.without, 1u) << out;
  EXPECT_EQ(c.identical + c.without, swaps) << out;
}

// The main thread's ~800 set-up calls (with its final eglMakeCurrent
// releasing the context) are in the trace although it never calls GL again
// and the app is killed: the contexts are listed, no seq is missing, and
// every frame replays identical, headless and into X11 windows.
TEST(IdleThreads, KilledAppKeepsTheIdleMainThreadsCalls) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/idle.gltrace";
  TracedApp app(dir, trace);
  ASSERT_TRUE(app.wait_for_frames(30)) << read_text_file(dir + "/err");
  Progress last = app.kill_app();
  ASSERT_TRUE(last.idle);

  format::ReadStatus status;
  TraceCalls calls = read_calls(trace, &status);
  EXPECT_NE(status.state, format::ReadState::kCorrupt) << status.message;
  ASSERT_FALSE(calls.calls.empty());
  EXPECT_EQ(calls.calls.begin()->first, 0u) << "the main thread's first call";
  EXPECT_EQ(calls.missing(), std::vector<uint64_t>{});
  EXPECT_EQ(calls.calls.begin()->second.thread, 1u);
  // Thread 1 set GL up and released the context (its last call); thread 2 drew.
  EXPECT_EQ(calls.count(1, api::kFn_eglMakeCurrent), 2u);
  EXPECT_GE(calls.count(1, api::kFn_glTexSubImage2D), 32u);
  EXPECT_GE(calls.count(2, api::kFn_eglSwapBuffers), 10u);
  EXPECT_GE(calls.contexts, 1);

  ProcessResult info = run_process({build_bin("gltrace"), "info", trace}, clean_env(), 60);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("context 1:"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("missing"), std::string::npos) << info.out;

  uint64_t swaps = calls.count(2, api::kFn_eglSwapBuffers);
  ProcessResult headless =
      run_process({build_bin("glreplay"), "-n", "--compare", trace}, clean_env(), 120);
  EXPECT_EQ(headless.exit_code, 0) << headless.out << headless.err;
  CompareLine c = compare_line(headless.out);
  expect_all_identical(c, swaps, headless.out);

  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = clean_env();
  env["DISPLAY"] = xvfb.display();
  ProcessResult x11 =
      run_process({build_bin("glreplay"), "-n", "--x11", "--compare", trace}, env, 120);
  EXPECT_EQ(x11.exit_code, 0) << x11.out << x11.err;
  expect_all_identical(compare_line(x11.out), swaps, x11.out);
}

// Killed at ten random moments (from gltrace's start-up to ~1 s of frames):
// each trace replays to its end with every frame identical; its seqs have no
// gap other than the tail a thread lost; the worker lost at most its last
// few frames; and the main thread, idle for half a second or more when the
// kill came, lost nothing. (Frames take 10 ms; a thread's records reach the
// writer within 100 ms: the bounds are several times that, so that a busy
// machine does not make the test fail.)
TEST(IdleThreads, KilledAtRandomMomentsEachTraceReplaysToItsEnd) {
  unsigned seed = std::random_device{}();
  if (const char* fixed = getenv("GLTRACE_TEST_SEED")) seed = static_cast<unsigned>(atol(fixed));
  printf("seed %u (GLTRACE_TEST_SEED=%u repeats this run)\n", seed, seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(0, 1200);
  for (int run = 0; run < 10; ++run) {
    int delay = delay_ms(random);
    SCOPED_TRACE("run " + std::to_string(run) + ": killed after " + std::to_string(delay) + " ms");
    std::string dir = make_temp_dir();
    std::string trace = dir + "/killed.gltrace";
    TracedApp app(dir, trace);
    // The app's pid comes first: wait for it, then for the moment.
    for (int i = 0; i < 3000 && app.progress().pid == 0; ++i) usleep(10000);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    Progress last = app.kill_app();
    ASSERT_GT(last.pid, 0);

    format::ReadStatus status;
    TraceCalls calls = read_calls(trace, &status);
    ASSERT_NE(status.state, format::ReadState::kCorrupt) << status.message;
    if (calls.calls.empty()) continue;  // killed before a chunk was written
    std::vector<uint64_t> missing = calls.missing();
    uint64_t main_last = 0;
    for (const auto& [seq, entry] : calls.calls)
      if (entry.thread == 1) main_last = seq;
    // Lost calls are a thread's last ones: only the main thread's tail can be
    // missing below the worker's calls.
    for (uint64_t seq : missing) EXPECT_GT(seq, main_last) << "a gap inside the main thread";
    uint64_t swaps = calls.count(2, api::kFn_eglSwapBuffers);
    if (last.idle && last.frames >= 50) {
      EXPECT_EQ(calls.count(1, api::kFn_eglMakeCurrent), 2u) << "the idle main thread lost calls";
      EXPECT_TRUE(missing.empty());
    }
    EXPECT_LE(static_cast<uint64_t>(last.frames), swaps + 25) << "the worker lost too many frames";

    // A swap's image is written at the next frame's end: killed before its
    // second swap, the trace may hold no image to compare; its calls still replay.
    bool images = swaps >= 2;
    std::vector<std::string> replay_args = {build_bin("glreplay"), "-n", trace};
    if (images) replay_args.insert(replay_args.begin() + 2, "--compare");
    ProcessResult replay = run_process(replay_args, clean_env(), 120);
    if (images) expect_all_identical(compare_line(replay.out), swaps, replay.out + replay.err);
    EXPECT_EQ(replay.err.find("cannot replay"), std::string::npos) << replay.err;
    // Exit 0, or 1 for a file the kill cut inside a chunk (said so).
    if (status.state == format::ReadState::kCutShort)
      EXPECT_NE(replay.err.find("cut short"), std::string::npos) << replay.err;
    else
      EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  }
}

// A written trace: each chunk() holds whole records, in the order given.
class SyntheticTrace {
 public:
  explicit SyntheticTrace(const std::string& path) {
    std::string error;
    writer_ = format::TraceWriter::open_file(path, {}, &error);
    EXPECT_NE(writer_, nullptr) << error;
  }
  // Calls of one thread (glFlush), by seq.
  void calls(uint32_t thread, std::initializer_list<uint64_t> seqs) {
    for (uint64_t seq : seqs) {
      wire::Encoder call;
      schema::call::set_function(call, api::kFn_glFlush);
      schema::call::set_thread(call, thread);
      schema::call::set_seq(call, seq);
      schema::call::set_start_ns(call, seq * 1000);
      record(schema::record::begin_call, call);
    }
    flush();
  }
  void calls_complete(uint64_t below) {
    wire::Encoder body;
    schema::calls_complete::set_below_seq(body, below);
    record(schema::record::begin_calls_complete, body);
    flush();
  }
  void close() { EXPECT_TRUE(writer_->close()); }
  // Waits until the writer wrote what it was given (the file then reads as
  // a capture that was cut there: no index, no footer).
  void wait_written() {
    for (int i = 0; i < 10000 && writer_->stats().chunks < chunks_; ++i) usleep(1000);
    EXPECT_EQ(writer_->stats().chunks, chunks_);
  }

 private:
  // `kind` opens Record's field: a generated begin_<field> (schema::record::begin_call...).
  void record(size_t (*kind)(wire::Encoder&), const wire::Encoder& body) {
    size_t r = schema::chunk::begin_records(chunk_);
    size_t k = kind(chunk_);
    chunk_.raw(body.data(), body.size());
    chunk_.end_nested(k);
    chunk_.end_nested(r);
    ++records_;
  }
  void flush() {
    writer_->submit(format::Payload::from_encoder(chunk_));
    records_ = 0;
    ++chunks_;
  }
  std::unique_ptr<format::TraceWriter> writer_;
  wire::Encoder chunk_;
  uint32_t records_ = 0;
  uint64_t chunks_ = 0;
};

struct SourceRun {
  std::vector<uint64_t> seqs;
  std::vector<glreplay::SeqGap> gaps;
};
SourceRun run_source(const std::string& path) {
  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  std::string error;
  SourceRun run;
  EXPECT_TRUE(source.open(path, &error)) << error;
  replay::Increment increment;
  while (source.next(&increment, &error) == replay::SourceResult::kIncrement)
    run.seqs.push_back(increment.index);
  run.gaps = source.gaps();
  return run;
}

// Calls a CallsComplete record says are written and that are not there
// were lost while tracing, even in a capture that was cut (not closed):
// the calls after them need not wait for the end of the trace, and the gap
// is named as such. A gap above the last CallsComplete is the cut's.
// The trace layer copies a mapped range before the driver unmaps it, outside
// the call's recording window, while the sweeper takes records that have
// waited too long (the app idles between its maps): the copy holds the
// thread's payload, so the sweeper waits for it. Unguarded, the sweeper
// handed the payload to the writer mid-copy: the app crashed (here) or
// calls went missing (glmark2's buffer scene under load).
TEST(IdleThreads, MappedWritesWhileTheSweeperSweepsAreAllKept) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/mapped.gltrace";
  ProcessResult traced =
      run_process({build_bin("gltrace"), "trace", "-o", trace, "--",
                   build_bin("gltrace-mapped-writes"), "--megabytes", "48", "--maps", "12"},
                  clean_env(), 120);
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  format::ReadStatus status;
  TraceCalls calls = read_calls(trace, &status);
  EXPECT_EQ(status.state, format::ReadState::kEnd) << status.message;
  EXPECT_TRUE(calls.missing().empty()) << calls.missing().size() << " calls missing";
  EXPECT_EQ(calls.count(1, api::kFn_glUnmapBuffer), 12u);
}

TEST(IdleThreadsReplay, GapBelowCallsCompleteIsLostWhileTracing) {
  std::string path = make_temp_dir() + "/gap.gltrace";
  SyntheticTrace t(path);
  t.calls(1, {0, 1});
  t.calls(2, {5, 6});
  t.calls_complete(5);
  t.calls(1, {7});
  t.calls(2, {10});
  t.wait_written();
  SourceRun run = run_source(path);
  EXPECT_EQ(run.seqs, (std::vector<uint64_t>{0, 1, 5, 6, 7, 10}));
  ASSERT_EQ(run.gaps.size(), 2u);
  EXPECT_EQ(run.gaps[0].first, 2u);
  EXPECT_EQ(run.gaps[0].last, 4u);
  EXPECT_TRUE(run.gaps[0].while_recording);
  EXPECT_EQ(glreplay::describe_gap(run.gaps[0]),
            "calls 2-4 are missing from the trace (lost while tracing: see the capture's "
            "warnings)");
  EXPECT_EQ(run.gaps[1].first, 8u);
  EXPECT_EQ(run.gaps[1].last, 9u);
  EXPECT_FALSE(run.gaps[1].while_recording);
  EXPECT_EQ(glreplay::describe_gap(run.gaps[1]),
            "calls 8-9 are missing from the trace (lost before the capture was cut)");
  ProcessResult info = run_process({build_bin("gltrace"), "info", path}, clean_env(), 60);
  EXPECT_NE(info.out.find("warning:      calls 2-4 are missing from the trace (lost while "
                          "tracing)\nwarning:      calls 8-9 are missing from the trace (lost "
                          "before the capture was cut)"),
            std::string::npos)
      << info.out;
  t.close();
}

// A trace without its first calls: replay (at the end of the trace, as
// nothing says they are lost before) and info name them.
TEST(IdleThreadsReplay, MissingFirstCallsAreNamed) {
  std::string path = make_temp_dir() + "/late.gltrace";
  {
    SyntheticTrace t(path);
    t.calls(2, {700, 701});
    t.calls(2, {702});
    t.close();
  }
  SourceRun run = run_source(path);
  EXPECT_EQ(run.seqs, (std::vector<uint64_t>{700, 701, 702}));
  ASSERT_EQ(run.gaps.size(), 1u);
  EXPECT_EQ(run.gaps[0].first, 0u);
  EXPECT_EQ(run.gaps[0].last, 699u);
  ProcessResult info = run_process({build_bin("gltrace"), "info", path}, clean_env(), 60);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("warning:      calls 0-699 are missing from the trace (lost while "
                          "tracing)"),
            std::string::npos)
      << info.out;
}

}  // namespace
}  // namespace gltrace::test
