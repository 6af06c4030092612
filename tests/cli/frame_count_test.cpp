// One frame count (docs/trace-format.md, "Frames"): info, stats, dump,
// frames, view and replay agree on the frames of a real trace cut at any
// byte. An off-screen program (frames end at glFinish) is traced with its
// framebuffer read at each frame end: a 320x240 image is written between the
// glFinish and its Frame record and fills the thread's buffer, so the record
// goes to the next chunk, and a cut between the two is common.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "format/container.h"
#include "glreplay/trace_source.h"
#include "support/subprocess.h"
#include "support/tools.h"
#include "view/trace_model.h"

namespace gltrace {
namespace {

using test::build_bin;
using test::gltrace;
using test::ProcessResult;

constexpr size_t kCuts = 200;
constexpr uint32_t kSeed = 23;

// The number after `key` in text, or -1.
int64_t number_after(const std::string& text, const std::string& key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::strtoll(text.c_str() + at + key.size(), nullptr, 10);
}

// Runs job(0..count-1) on a few threads (the commands are processes).
void in_parallel(size_t count, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < count;) job(i);
    });
  for (std::thread& t : threads) t.join();
}

// Where each chunk of a trace ends (the file header's end first).
std::vector<size_t> chunk_ends(const std::string& bytes) {
  std::vector<size_t> ends = {format::kFileHeaderSize};
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  format::ChunkHeader header;
  for (size_t at = format::kFileHeaderSize; at + format::kChunkHeaderSize <= bytes.size() &&
                                            format::decode_chunk_header(data + at, &header);) {
    at += format::kChunkHeaderSize + header.stored_size;
    ends.push_back(at);
  }
  return ends;
}

// What the replay counts: the increments that end frames, as its engine does.
int64_t replay_source_frames(const std::string& path) {
  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  std::string error;
  if (!source.open(path, &error)) return -1;
  replay::Increment increment;
  int64_t frames = 0;
  while (source.next(&increment, &error) == replay::SourceResult::kIncrement)
    if (increment.ends_frame) ++frames;
  return frames;
}

int64_t view_frames(const std::string& path) {
  view::TraceModel model;
  std::string error;
  if (!model.open(path, &error)) return -1;
  model.wait_indexed();
  return static_cast<int64_t>(model.summary().frames);
}

struct Counts {
  int64_t info = -1, stats = -1, dump = -1, frames = -1, view = -1, replay_source = -1;
  int64_t replay = -2;  // -2: not run for this cut
};

TEST(FrameCount, EveryCommandCountsTheSameFramesOfATraceCutAnywhere) {
  std::string dir = test::make_temp_dir();
  std::string trace = dir + "/offscreen.gltrace";
  ProcessResult traced =
      gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
               build_bin("gltrace-offscreen-app"), "--frames", "12", "--size", "320x240"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  std::string bytes = test::read_text_file(trace);
  ASSERT_GT(bytes.size(), 4096u);

  std::mt19937_64 random(kSeed);
  std::vector<size_t> cuts;
  for (size_t i = 0; i < kCuts; ++i) cuts.push_back(16 + random() % (bytes.size() - 16));
  cuts.push_back(bytes.size());  // and the whole trace
  // A reader reads a cut trace up to its last whole chunk and tells a cut
  // between chunks from one inside a chunk (or the footer): cuts alike in
  // that read alike, so the commands (processes, ~40 ms of CPU each) run on
  // the first cut of each such class, view and the replay's source (in this
  // process) on every cut.
  std::vector<size_t> ends = chunk_ends(bytes);
  std::map<std::tuple<size_t, bool, bool>, size_t> first_of_class;
  std::vector<size_t> representative(cuts.size());
  for (size_t i = 0; i < cuts.size(); ++i) {
    size_t whole = std::upper_bound(ends.begin(), ends.end(), cuts[i]) - ends.begin();
    auto key = std::make_tuple(whole, cuts[i] == ends[whole - 1], cuts[i] == bytes.size());
    representative[i] = first_of_class.emplace(key, i).first->second;
  }
  printf("%zu cuts of %zu bytes, %zu ways of ending\n", cuts.size(), bytes.size(),
         first_of_class.size());
  std::vector<Counts> counts(cuts.size());
  in_parallel(cuts.size(), [&](size_t i) {
    std::string path = dir + "/cut-" + std::to_string(i) + ".gltrace";
    test::write_text_file(path, bytes.substr(0, cuts[i]));
    Counts& c = counts[i];
    c.view = view_frames(path);
    c.replay_source = replay_source_frames(path);
    if (representative[i] != i) return;
    c.info = number_after(gltrace({"info", "--json", path}).out, "\"frames\": ");
    c.stats =
        number_after(gltrace({"stats", "--format", "json", path}).out, "\"frames\": {\"count\": ");
    ProcessResult dump = gltrace({"dump", path});
    if (dump.exit_code == 0)
      c.dump = static_cast<int64_t>(test::count_occurrences(dump.out, "// end of frame"));
    ProcessResult frames = gltrace({"frames", "-o", path + ".png", path});
    c.frames = frames.exit_code == 0 ? number_after(frames.out, "of the trace's ")
                                     : number_after(frames.err, "images in its ");
    // The replay itself on llvmpipe for every 40th cut (its summary line).
    if (i % 4 == 0 || i == cuts.size() - 1)
      c.replay = number_after(gltrace({"replay", "-n", path}).out, " calls, ");
  });

  size_t frames_seen = 0;
  for (size_t i = 0; i < cuts.size(); ++i) {
    Counts c = counts[i];
    const Counts& first = counts[representative[i]];
    c.info = first.info, c.stats = first.stats, c.dump = first.dump, c.frames = first.frames;
    c.replay = first.replay;
    SCOPED_TRACE("cut at byte " + std::to_string(cuts[i]) + " of " + std::to_string(bytes.size()));
    EXPECT_GE(c.info, 0);
    EXPECT_EQ(c.stats, c.info);
    EXPECT_EQ(c.dump, c.info);
    EXPECT_EQ(c.frames, c.info);
    EXPECT_EQ(c.view, c.info);
    EXPECT_EQ(c.replay_source, c.info);
    if (c.replay != -2) {
      EXPECT_EQ(c.replay, c.info);
    }
    if (c.info > 0) ++frames_seen;
  }
  EXPECT_EQ(counts.back().info, 12);
  // Most cuts fall after the first frames: the counts compared are not all 0.
  EXPECT_GT(frames_seen, kCuts / 2);
}

}  // namespace
}  // namespace gltrace
