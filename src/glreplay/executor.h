// The replay engine's Executor for GL calls: runs each ReplayCall through its
// generated or hand-written replay function, reports calls that cannot be
// replayed ("call N: ..."), and reads the framebuffer back for --compare
// and --snapshot: at each frame's end (a swap, or the glFinish that ends an
// off-screen program's frame) and, when the trace holds images after draws,
// after each draw.
//
// prepare() is left to the engine's default (nothing): the source already
// copies each call into its owned form, and the conversions need the
// session's maps as they are when the call executes. Targets are recorded
// threads: each runs on a replay thread of its own (the first on the main
// thread), one call at a time in recorded order (kTargetThreadInOrder), so
// this class needs no lock either.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/progress.h"
#include "glreplay/args.h"
#include "glreplay/calls.h"
#include "glreplay/compare.h"
#include "glreplay/outcomes.h"
#include "glreplay/profiler.h"
#include "glreplay/session.h"
#include "replay/executor.h"

namespace gltrace::glreplay {

struct ExecutorOptions {
  bool compare = false;
  int threshold = 0;                   // largest channel difference still counted as equal
  std::optional<Tolerance> tolerance;  // --tolerance
  // --diff-images: where each image that is not identical is written, as
  // the replay's, the trace's and their difference.
  std::string diff_dir;
  // Frames to write as PNG files to snapshot_dir, first and last.
  std::optional<std::pair<uint64_t, uint64_t>> snapshot_frames;
  std::string snapshot_dir;
  // The progress line, counting calls and frames (none: nullptr).
  Progress* progress = nullptr;
  // --loop: each pass's frame times and peak memory, and with compare the
  // checksum of each pass's frames (the first pass's are compared with the
  // trace, the later ones with the first's).
  bool loop_stats = false;
  // --outcomes: what each call answered is written there (not owned).
  OutcomeWriter* outcomes = nullptr;
  // --profile: times the calls (not owned).
  Profiler* profiler = nullptr;
};

// One replay pass of a loop, as loop_stats records it.
struct PassRecord {
  std::vector<double> frame_ms;      // from the end of the snapshot to each frame's end
  std::vector<uint32_t> frame_crcs;  // of each frame's image at its swap (with compare)
  long peak_rss_kib = 0;             // the process's peak at the pass's end
};

class GlExecutor : public replay::Executor {
 public:
  GlExecutor(Session& session, ExecutorOptions options);

  bool execute(replay::Increment& increment, std::string* error) override;
  std::string describe(uint32_t target) override;
  bool snapshot(uint32_t target, const std::string& path, std::string* error) override;
  bool restart(std::string* error) override;
  void thread_exiting(uint32_t target) override;

  // After the replay: compares the images whose trace image came last.
  void finish();
  const FrameComparer& comparer() const { return comparer_; }
  uint64_t snapshots_written() const { return snapshots_; }
  uint64_t calls() const { return calls_; }
  // Calls of recorded threads without a context, run on another's thread.
  uint64_t borrowed_calls() const { return borrowed_calls_; }
  // Replay passes begun (loop mode makes several).
  uint64_t passes() const { return pass_; }
  // With loop_stats: every pass's record (finish() closes the last one).
  const std::vector<PassRecord>& pass_records() const { return pass_records_; }

 private:
  // --diff-images: one image's three PNG files.
  void write_difference(const ReplayedImage& replayed, const FrameImage& traced, Verdict verdict);
  void on_swap(uint64_t frame);
  // --outcomes: the call's answers (null: it was not run), the GL error it
  // raised, and why it could not be replayed ("" when it could).
  void record_outcome(const ReplayCall& call, const Args* args, const std::string& failure);
  // After a frame's end (a swap or glFinish).
  void frame_ended();
  // Reads `area` for the compare (an image of `origin` keyed by `key_seq`,
  // belonging to the running call) and, at a frame's end, the snapshot.
  void read_image(uint64_t frame, Session::ReadArea area, ImageOrigin origin, uint64_t key_seq);
  // The running call's image for the compare, without pixels.
  ReplayedImage image_of_call(uint64_t frame, ImageOrigin origin, uint64_t key_seq);
  void print_reports();
  // loop_stats: a frame ended now (and its image, if any).
  void record_frame(const std::vector<uint8_t>* pixels);
  void end_pass_record();

  Session& session_;
  ExecutorOptions options_;
  Arena arena_;
  Validation validation_;  // reused from call to call
  const std::span<const ReplayEntry> entries_ = replay_entries();
  FrameComparer comparer_;
  size_t reports_printed_ = 0;
  uint64_t pass_ = 1;
  uint64_t snapshots_ = 0;
  uint64_t calls_ = 0;
  uint64_t borrowed_calls_ = 0;
  uint64_t frames_ended_ = 0;
  uint64_t last_seq_ = 0;
  // Per recorded thread, its last call's seq: a swap's trace image is keyed
  // by the call before it on its thread.
  std::unordered_map<uint32_t, uint64_t> thread_last_seq_;
  // The entry of the thread of the call before (calls come in runs of one
  // thread; entries stay where they are while the map lives).
  uint32_t last_thread_ = 0;
  uint64_t* last_thread_seq_ = nullptr;
  uint64_t swap_image_key_ = 0;       // for the swap running now
  const ReplayCall* call_ = nullptr;  // the call running now
  // Calls that could not be replayed, for the reports of differing images:
  // the first few of the replay and of the frame in progress, how many in
  // all and in the frame.
  std::vector<std::string> first_unreplayed_, frame_unreplayed_;
  uint64_t unreplayed_count_ = 0, frame_unreplayed_count_ = 0;
  // loop_stats: the passes so far, and when the running one's last frame
  // ended (its frames start when its snapshot is done: nullopt before).
  std::vector<PassRecord> pass_records_;
  std::optional<std::chrono::steady_clock::time_point> last_frame_end_;
};

}  // namespace gltrace::glreplay
