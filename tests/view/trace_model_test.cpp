// The viewer's trace model on hostile input: every hostile trace kind of the
// format tests and thousands of mutated traces open, index and answer every
// kind of query with errors, never a crash (the ASan build checks the
// memory); its caps hold.
#include "view/trace_model.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

#include "hostile.h"
#include "support/subprocess.h"
#include "test_trace.h"

namespace gltrace::view {
namespace {

// Everything a request can ask of the model, whatever the answers.
void query_everything(TraceModel& model) {
  model.wait_indexed();
  TraceSummary summary = model.summary();
  uint64_t total = 0;
  // A few frames: a hostile trace's chunk of a million tiny frames is
  // decoded anew for each (one request's cost, not a test's worth).
  std::vector<FrameInfo> frames = model.frames(0, 8, &total);
  EXPECT_LE(frames.size(), total);
  auto ignore = [](auto&& f) {
    try {
      f();
    } catch (const QueryError& e) {
      EXPECT_GE(e.status, 400) << e.message;
      EXPECT_FALSE(e.message.empty());
    }
  };
  for (const FrameInfo& f : frames) {
    ignore([&] {
      uint64_t seen = 0;
      model.for_frame_calls(f.number, 0, f.calls, [&](const CallRef& ref) {
        EXPECT_EQ(ref.frame, f.number);
        ++seen;
      });
      EXPECT_EQ(seen, f.calls);
    });
    ignore([&] { model.filtered_positions(f.number, {"gl.*Draw|eglSwap", std::nullopt, 1}); });
    ignore([&] {
      if (auto image = model.image_of_frame(f.number)) {
        uint64_t size = 0;
        model.blob(image->blob, 0, 64, &size);
      }
    });
  }
  ignore([&] { model.find_next("Swap", UINT64_MAX, false); });
  ignore([&] { model.find_next("Swap", UINT64_MAX, true); });
  ignore([&] { model.find_call(3, [](const CallRef&) {}); });
  bool truncated = false;
  ignore([&] { model.for_time_range(0, UINT64_MAX, 100000, &truncated, [](const CallRef&) {}); });
  ignore([&] { model.frame(summary.frames + 5); });
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMeasureMemory = false;  // sanitizers' shadow memory
#else
constexpr bool kMeasureMemory = true;
#endif

TEST(ViewTraceModel, HostileTracesWithinTheMemoryBound) {
  // The files are made in a child (making some takes hundreds of MB), so
  // this process's peak RSS is the model's.
  std::string dir = test::make_temp_dir();
  std::vector<std::string> kinds;
  for (const test::HostileTrace& hostile : test::hostile_traces()) kinds.push_back(hostile.kind);
  pid_t child = fork();
  if (child == 0) {
    for (const test::HostileTrace& hostile : test::hostile_traces())
      test::write_bytes(dir + "/" + hostile.kind + ".gltrace", hostile.make());
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (const std::string& kind : kinds) {
    SCOPED_TRACE(kind);
    TraceModel model;
    std::string error;
    if (!model.open(dir + "/" + kind + ".gltrace", &error)) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    query_everything(model);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  if (kMeasureMemory) {
    EXPECT_LT(usage.ru_maxrss / 1024, 300) << "MB at the peak";
  }
}

TEST(ViewTraceModel, MutatedTraces) {
  std::string dir = test::make_temp_dir();
  std::string seed_path = dir + "/seed.gltrace";
  test::write_small_trace(seed_path, 4, 5);
  std::vector<uint8_t> seed = test::read_bytes(seed_path);
  std::mt19937_64 rng(20261123);
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> bytes = seed;
    for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e)
      bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    if (i % 2 == 0) test::fix_chunk_crcs(bytes);  // past the CRCs, into the records
    std::string path = dir + "/mutated.gltrace";
    test::write_bytes(path, bytes);
    TraceModel model;
    std::string error;
    if (model.open(path, &error)) query_everything(model);
  }
}

TEST(ViewTraceModel, CapsHoldAndSaySo) {
  std::string path = test::make_temp_dir() + "/small.gltrace";
  test::write_small_trace(path, 10, 4);
  ModelLimits limits;
  limits.max_frames = 3;
  TraceModel model(limits);
  std::string error;
  ASSERT_TRUE(model.open(path, &error)) << error;
  model.wait_indexed();
  uint64_t total = 0;
  model.frames(0, 100, &total);
  EXPECT_EQ(total, 3u);
  TraceSummary summary = model.summary();
  ASSERT_FALSE(summary.warnings.empty());
  EXPECT_NE(summary.warnings[0].find("more frames"), std::string::npos) << summary.warnings[0];
  // The calls of a listed frame are still served; a frame past the cap is a 404.
  uint64_t calls = 0;
  model.for_frame_calls(2, 0, 1000, [&](const CallRef&) { ++calls; });
  EXPECT_GT(calls, 0u);
  try {
    model.frame(5);
    ADD_FAILURE() << "frame 5 past the cap";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.status, 404);
  }
}

TEST(ViewTraceModel, BadRegexIs400) {
  try {
    TraceModel::compile_regex("(unclosed");
    ADD_FAILURE() << "compiled";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_NE(e.message.find("(unclosed"), std::string::npos);
  }
}

}  // namespace
}  // namespace gltrace::view
