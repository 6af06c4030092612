// The viewer's trace model on hostile input: every hostile trace kind of the
// format tests and thousands of mutated traces open, index and answer every
// kind of query with errors, never a crash (the ASan build checks the
// memory); its caps hold.
#include "view/trace_model.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "format/record_encoder.h"
#include "gltrace/api/functions.h"
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
  ignore([&] { model.find_next(model.text_matches("Swap"), UINT64_MAX, false); });
  ignore([&] { model.find_next(model.text_matches("Swap"), UINT64_MAX, true); });
  ignore([&] { model.find_call(3, [](const CallRef&) {}); });
  bool truncated = false;
  ignore([&] { model.for_time_range(0, UINT64_MAX, 100000, &truncated, [](const CallRef&) {}); });
  ignore([&] { model.frame(summary.frames + 5); });
  for (const char* key : {"gpu", "cpu", "function", "frame", "call"}) {
    ignore([&] { model.gpu_top(std::nullopt, key, true, 0, 100); });
    ignore([&] { model.gpu_top(0, key, false, 0, 100); });
  }
  ignore([&] { model.gpu_spans(0, UINT64_MAX, 100000, &truncated); });
  for (const FrameInfo& f : frames) ignore([&] { model.gpu_work_of_frame(f.number); });
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

// Polls the model until `done` holds; false after a minute (a generous
// bound: what is tested is that it comes at all).
template <typename Done>
bool wait_until(const TraceModel& model, Done done) {
  for (int i = 0; i < 6000; ++i) {
    if (done(model.summary())) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void append_bytes(const std::string& path, const std::vector<uint8_t>& bytes, size_t from,
                  size_t to) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out.write(reinterpret_cast<const char*>(bytes.data() + from),
            static_cast<std::streamsize>(to - from));
}

// A trace a capture is still writing (gltrace view --attach): the model
// waits for its header, indexes chunks as they come, takes a chunk written
// in part as not there yet, answers about what it has meanwhile, and once
// the stream ends reads the rest, reporting a cut tail as for any trace.
TEST(ViewTraceModel, LiveTraceIsFollowedAsItGrows) {
  std::string dir = test::make_temp_dir();
  test::write_small_trace(dir + "/whole.gltrace", 10, 4);
  std::vector<uint8_t> bytes = test::read_bytes(dir + "/whole.gltrace");
  std::vector<uint64_t> chunks;
  {
    format::ChunkReader reader;
    ASSERT_TRUE(reader.open_memory(bytes));
    format::ChunkView chunk;
    while (reader.next(&chunk)) chunks.push_back(chunk.offset);
    ASSERT_EQ(chunks.size(), 10u);
  }
  TraceModel whole;
  std::string error;
  ASSERT_TRUE(whole.open(dir + "/whole.gltrace", &error)) << error;
  whole.wait_indexed();
  uint64_t whole_frames = 0;
  std::vector<FrameInfo> expected = whole.frames(0, 100, &whole_frames);

  std::string path = dir + "/live.gltrace";
  test::write_bytes(path, {});
  TraceModel model;
  model.open_live(path);
  TraceSummary s = model.summary();
  EXPECT_TRUE(s.live && s.indexing);
  append_bytes(path, bytes, 0, 10);  // a part of the file header
  model.notify_written();
  append_bytes(path, bytes, 10, chunks[3] + 30);  // three chunks and a part of the fourth
  model.notify_written();
  ASSERT_TRUE(wait_until(model, [](const TraceSummary& t) { return t.calls == 12; }));
  s = model.summary();
  EXPECT_TRUE(s.live && s.indexing);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  uint64_t total = 0;
  std::vector<FrameInfo> frames = model.frames(0, 100, &total);
  ASSERT_GE(total, 2u);
  uint64_t calls = 0;
  model.for_frame_calls(1, 0, 100, [&](const CallRef& ref) {
    EXPECT_EQ(ref.frame, 1u);
    ++calls;
  });
  EXPECT_EQ(calls, expected[1].calls);
  // The rest, but for the footer's last bytes.
  append_bytes(path, bytes, chunks[3] + 30, bytes.size() - 5);
  model.notify_written();
  ASSERT_TRUE(wait_until(model, [](const TraceSummary& t) { return t.calls == 40; }));
  s = model.summary();
  EXPECT_TRUE(s.live && s.indexing);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  model.end_of_stream();
  model.wait_indexed();
  s = model.summary();
  EXPECT_FALSE(s.live || s.indexing);
  EXPECT_EQ(s.size, bytes.size() - 5);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("cut short"), std::string::npos) << s.warnings[0];
  frames = model.frames(0, 100, &total);
  ASSERT_EQ(total, whole_frames);
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].first_index, expected[i].first_index) << i;
    EXPECT_EQ(frames[i].calls, expected[i].calls) << i;
  }
}

// A capture that ends before writing anything: one clear warning.
TEST(ViewTraceModel, LiveTraceThatNeverCame) {
  std::string path = test::make_temp_dir() + "/nothing.gltrace";
  test::write_bytes(path, {});
  TraceModel model;
  model.open_live(path);
  model.end_of_stream();
  model.wait_indexed();
  TraceSummary s = model.summary();
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "the capture wrote nothing");
}

// Blob ids out of order across chunks (threads writing at once; a hostile
// trace's far back): every blob is found, while the pass runs and after.
TEST(ViewTraceModel, BlobsOutOfOrderAreFound) {
  std::string path = test::make_temp_dir() + "/blobs.gltrace";
  // Chunk ids: 100-199, then 50-99 (merged into the recent end), then
  // 70000 more above, then 1-49 (further back than a merge goes).
  std::vector<std::pair<uint64_t, uint64_t>> chunks = {
      {100, 200}, {50, 100}, {200, 70200}, {1, 50}};
  {
    std::string error;
    auto writer = format::TraceWriter::open_file(path, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    wire::Encoder e;
    uint64_t seq = 0;
    for (auto [first, end] : chunks) {
      uint32_t records = 0;
      if (seq == 0) {
        test::encode_header(e, 42, "blobs");
        test::encode_thread(e, 0, 4242, "main");
        records += 2;
      }
      for (uint64_t id = end; id-- > first; ++records)
        test::encode_blob(e, id, std::string(1 + id % 7, 'x'));
      test::encode_call(e, 0, seq++, 10);
      ++records;
      writer->submit(format::Payload::from_encoder(e), {});
      writer->acquire_buffer().give_to(e);
    }
    ASSERT_TRUE(writer->close(&error)) << error;
  }
  std::vector<uint8_t> bytes = test::read_bytes(path);
  std::vector<uint64_t> offsets;
  {
    format::ChunkReader reader;
    ASSERT_TRUE(reader.open_memory(bytes));
    format::ChunkView chunk;
    while (reader.next(&chunk)) offsets.push_back(chunk.offset);
  }
  std::string live = path + ".live";
  test::write_bytes(live, std::vector<uint8_t>(bytes.begin(), bytes.begin() + offsets[2]));
  TraceModel model;
  model.open_live(live);
  model.notify_written();
  ASSERT_TRUE(wait_until(model, [](const TraceSummary& t) { return t.calls == 2; }));
  for (uint64_t id = 50; id < 200; ++id) ASSERT_EQ(model.blob_size(id), 1 + id % 7) << id;
  EXPECT_EQ(model.blob_size(200), 0u);
  append_bytes(live, bytes, offsets[2], bytes.size());
  model.notify_written();
  ASSERT_TRUE(wait_until(model, [](const TraceSummary& t) { return t.calls == 4; }));
  for (uint64_t id = 1; id < 70200; ++id) ASSERT_EQ(model.blob_size(id), 1 + id % 7) << id;
  model.end_of_stream();
  model.wait_indexed();
  for (uint64_t id = 1; id < 70200; ++id) ASSERT_EQ(model.blob_size(id), 1 + id % 7) << id;
  EXPECT_EQ(model.blob_size(0), 0u);
  EXPECT_EQ(model.blob_size(70200), 0u);
  uint64_t total = 0;
  EXPECT_EQ(model.blob(42, 0, 100, &total), std::string(1 + 42 % 7, 'x'));
}

TEST(ViewTraceModel, LeadingSnapshotIsCounted) {
  std::string path = test::make_temp_dir() + "/snapshot.gltrace";
  {
    std::string error;
    auto writer = format::TraceWriter::open_file(path, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    wire::Encoder e;
    test::encode_header(e, 42, "snapshot");
    test::encode_thread(e, 0, 4242, "main");
    uint32_t records = 2;
    // Three snapshot calls (three notes on the last), an ordinary call, and
    // a snapshot call of a thread that joined later (not the trace's start).
    for (uint64_t seq = 0; seq < 5; ++seq, ++records) {
      format::Call call;
      call.seq = seq;
      call.snapshot = seq != 3;
      call.synthetic = call.snapshot;
      if (seq == 2)
        call.snapshot_inexact = "texture 1: its format; renderbuffer 2: multisampled; x";
      if (seq == 4) call.snapshot_inexact = "buffer 3: mapped";
      format::encode_record(e, call);
    }
    writer->submit(format::Payload::from_encoder(e), {});
    ASSERT_TRUE(writer->close(&error)) << error;
  }
  TraceModel model;
  std::string error;
  ASSERT_TRUE(model.open(path, &error)) << error;
  model.wait_indexed();
  TraceSummary summary = model.summary();
  EXPECT_EQ(summary.calls, 5u);
  EXPECT_EQ(summary.snapshot_calls, 3u);
  EXPECT_EQ(summary.snapshot_inexact, 3u);
  EXPECT_EQ(TraceModel::inexact_notes("a: b; c: d"),
            (std::vector<std::string_view>{"a: b", "c: d"}));
  EXPECT_TRUE(TraceModel::inexact_notes("").empty());
}

// GPU times (trace --gpu-time): the GpuTime records that come frames after
// their calls are kept per GPU-work call and summed per frame; the most
// expensive work sorts and pages; the timeline's spans are placed by the
// GPU clock pairs; a replay's measures replace them.
TEST(ViewTraceModel, GpuTimesAreKeptSummedAndMerged) {
  std::string path = test::make_temp_dir() + "/gpu.gltrace";
  {
    std::string error;
    auto writer = format::TraceWriter::open_file(path, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    wire::Encoder e;
    test::encode_header(e, 42, "gpu");
    test::encode_thread(e, 0, 4242, "main");
    uint32_t records = 2;
    // 3 frames of: glClear, 3 glDrawArrays, eglSwapBuffers (seq 5f .. 5f+4).
    for (uint64_t seq = 0; seq < 15; ++seq, ++records) {
      format::Call call;
      call.seq = seq;
      call.start_ns = 1000 * seq;
      call.duration_ns = 10 + seq;
      uint64_t at = seq % 5;
      call.function = at == 0   ? api::kFn_glClear
                      : at == 4 ? api::kFn_eglSwapBuffers
                                : api::kFn_glDrawArrays;
      format::encode_record(e, call);
      if (seq == 4) {  // the clock pair: GPU ns 1'000'000 is trace ns 500
        format::encode_record(e, format::GpuClock{500, 1000000});
        ++records;
      }
      // Frame f's times come after frame f+1's first call; call 5f+2 is heavy.
      if (at == 0 && seq >= 5) {
        for (uint64_t w = seq - 5; w < seq - 1; ++w, ++records) {
          uint64_t ns = w % 5 == 2 ? 9000 : 100 + w;
          format::encode_record(e, format::GpuTime{w, 1000000 + 1000 * w, ns, false});
        }
      }
    }
    // The last frame's, a time for a call that is no GPU work, one for no call.
    for (uint64_t w : {10, 11, 12, 13, 4, 999}) {
      format::encode_record(
          e, format::GpuTime{w, 1000000 + 1000 * w, w == 12 ? 9000 : 100 + w, w == 13});
      ++records;
    }
    writer->submit(format::Payload::from_encoder(e), {});
    ASSERT_TRUE(writer->close(&error)) << error;
  }
  TraceModel model;
  std::string error;
  ASSERT_TRUE(model.open(path, &error)) << error;
  model.wait_indexed();
  TraceSummary summary = model.summary();
  EXPECT_EQ(summary.frames, 3u);
  EXPECT_EQ(summary.gpu_work_calls, 12u);
  EXPECT_EQ(summary.gpu_calls, 12u);
  EXPECT_EQ(summary.gpu_source, "capture");
  EXPECT_EQ(model.gpu_clock_pairs(), 1u);
  uint64_t total = 0;
  std::vector<FrameInfo> frames = model.frames(0, 10, &total);
  ASSERT_EQ(frames.size(), 3u);
  for (const FrameInfo& f : frames) {
    uint64_t s = 5 * f.number;
    EXPECT_EQ(f.gpu_calls, 4u) << f.number;
    EXPECT_EQ(f.gpu_ns, (100 + s) + 9000 + (100 + s + 1) + (100 + s + 3)) << f.number;
  }
  GpuTopPage top = model.gpu_top(std::nullopt, "gpu", true, 0, 3);
  EXPECT_EQ(top.total, 12u);
  ASSERT_EQ(top.rows.size(), 3u);
  EXPECT_EQ(top.rows[0].seq, 2u);  // ties: the earlier call first
  EXPECT_EQ(top.rows[1].seq, 7u);
  EXPECT_EQ(top.rows[2].seq, 12u);
  EXPECT_EQ(top.gpu_ns, frames[0].gpu_ns + frames[1].gpu_ns + frames[2].gpu_ns);
  top = model.gpu_top(1, "call", false, 1, 2);
  ASSERT_EQ(top.rows.size(), 2u);
  EXPECT_EQ(top.total, 4u);
  EXPECT_EQ(top.rows[0].seq, 6u);
  EXPECT_EQ(top.rows[1].seq, 7u);
  top = model.gpu_top(2, "gpu", false, 0, 10);
  ASSERT_EQ(top.rows.size(), 4u);
  EXPECT_TRUE(top.rows[0].disjoint == false && top.rows.back().seq == 12u);
  EXPECT_TRUE(std::any_of(top.rows.begin(), top.rows.end(),
                          [](const GpuWork& w) { return w.seq == 13 && w.disjoint; }));
  EXPECT_THROW(model.gpu_top(std::nullopt, "nonsense", true, 0, 10), QueryError);
  EXPECT_THROW(model.gpu_top(7, "gpu", true, 0, 10), QueryError);
  // Spans on the trace's clock: GPU ns 1'000'000 + 1000 w is trace ns 500 + 1000 w.
  bool truncated = false;
  std::vector<GpuSpan> spans = model.gpu_spans(0, UINT64_MAX, 100, &truncated);
  ASSERT_EQ(spans.size(), 12u);
  for (const GpuSpan& s : spans) {
    EXPECT_TRUE(s.on_gpu_clock);
    EXPECT_EQ(s.start_ns, 500 + 1000 * s.seq);
  }
  spans = model.gpu_spans(0, UINT64_MAX, 5, &truncated);
  EXPECT_TRUE(truncated);
  EXPECT_EQ(spans.size(), 5u);
  // A replay's measures replace them: per call, summed again, no GPU clock.
  EXPECT_EQ(model.merge_gpu_times({{1, 50}, {6, 60}, {4, 70}, {500, 1}}), 2u);
  summary = model.summary();
  EXPECT_EQ(summary.gpu_source, "replay");
  EXPECT_EQ(summary.gpu_calls, 2u);
  EXPECT_EQ(summary.gpu_ns, 110u);
  frames = model.frames(0, 10, &total);
  EXPECT_EQ(frames[0].gpu_ns, 50u);
  EXPECT_EQ(frames[1].gpu_ns, 60u);
  EXPECT_EQ(frames[2].gpu_calls, 0u);
  spans = model.gpu_spans(0, UINT64_MAX, 100, &truncated);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_FALSE(spans[0].on_gpu_clock);
  EXPECT_EQ(spans[0].start_ns, 1000u);  // its call's start
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
