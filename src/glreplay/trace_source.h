// The replay's source: reads a .gltrace front to back and makes one
// Increment per Call (index = seq, timestamp = start_ns, target = the
// recorded thread, ends_frame = eglSwapBuffers*, or a glFinish the trace
// layer marked as a frame's end), whose payload is a
// glreplay::ReplayCall, in seq order: each thread's calls reach the file in its own
// chunks, so calls of several threads are merged back into recorded order.
// What the executor needs besides calls (contexts' surface sizes, the
// framebuffer images to compare with) goes to a shared TraceInfo.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/reader.h"
#include "glreplay/call.h"
#include "glreplay/compare.h"
#include "replay/increment.h"

namespace gltrace::glreplay {

// What the replay knows of the trace besides its calls: filled by the source
// as it reads (on the read-ahead thread), read by the executor. Thread-safe.
class TraceInfo {
 public:
  void add_context(ContextInfo context);
  std::optional<ContextInfo> context(uint32_t index) const;
  // The latest context record (in file order) with a surface size.
  std::optional<ContextInfo> last_sized_context() const;
  // The driver the first context that was made current ran on (its
  // renderer and version; no vendor: the trace has none).
  std::optional<DriverStrings> capture_driver() const;

  // A trace image, by the seq of the call it was read after (Image.seq;
  // for a swap, the last call its thread made before it: unique, unlike
  // frame numbers, which threads swapping at the same time may both read)
  // and its origin.
  void add_image(const ImageKey& key, FrameImage image);
  // That image, which the TraceInfo then forgets (it is big).
  std::optional<FrameImage> take_image(const ImageKey& key);
  // Whether the trace had any image (taken or not).
  bool has_images() const;
  // Images read and not taken (yet).
  size_t images_left() const;
  // Whether the trace holds images at frame ends (--framebuffer swap) and
  // after draws (--framebuffer draw): the replay reads only those back.
  void set_frame_images() { frame_images_ = true; }
  bool frame_images() const { return frame_images_; }
  void set_draw_images() { draw_images_ = true; }
  bool draw_images() const { return draw_images_; }

  // A Frame record was read: that thread's images of frames before
  // `number` - 1 are all in (a frame's images are written by the end of the
  // thread's next frame).
  void add_frame(uint32_t thread, uint64_t number);
  // Whether an image of this frame and thread not there yet never will be.
  bool frame_settled(uint64_t frame, uint32_t thread) const;

  // The capture began after the app's first frame (Header.mid_run).
  void set_mid_run(bool mid_run) { mid_run_ = mid_run; }
  bool mid_run() const { return mid_run_; }

  // What the trace's snapshot says it could not make exact
  // (Call.snapshot_inexact), in call order: a replay that differs names them
  // apart from its own faults. The first kInexactKept notes are kept, each
  // cut at kInexactText bytes, whatever a trace claims; the count is all.
  static constexpr size_t kInexactKept = 100;
  static constexpr size_t kInexactText = 400;
  void add_snapshot_inexact(uint64_t seq, std::string what);
  std::vector<std::string> snapshot_inexact() const;
  uint64_t snapshot_inexact_count() const;

 private:
  mutable std::mutex mutex_;
  std::map<uint32_t, ContextInfo> contexts_;
  std::optional<ContextInfo> last_sized_;
  std::optional<DriverStrings> capture_driver_;
  std::map<ImageKey, FrameImage> images_;
  bool ever_had_images_ = false;
  std::unordered_map<uint32_t, uint64_t> frames_read_;  // per thread: 1 + the last Frame.number
  std::atomic<bool> frame_images_{false};
  std::atomic<bool> draw_images_{false};
  std::atomic<bool> mid_run_{false};
  std::map<uint64_t, std::string> snapshot_inexact_;  // by seq (a loop reads them again)
  uint64_t inexact_count_ = 0;
  std::optional<uint64_t> last_inexact_seq_;  // counted up to (a loop's second pass is not)
};

// Calls [first, last] (seqs) that are not in the trace.
struct SeqGap {
  uint64_t first = 0;
  uint64_t last = 0;
  // Known lost while the capture ran (below a CallsComplete record, or in a
  // trace closed cleanly), not just the end of a capture that was cut.
  bool while_recording = false;
};

// Gaps past the first kMaxGapsListed, counted.
inline constexpr size_t kMaxGapsListed = 100;
struct MoreGaps {
  uint64_t gaps = 0;
  uint64_t calls = 0;
  bool while_recording = false;  // any of them
};

// "calls 0-699 are missing from the trace (lost before the capture was cut)"
std::string describe_gap(const SeqGap& gap);

// Recorded threads with a context a trace may have: each is replayed on a
// thread of its own, so a trace with more is refused (a hostile one named
// 20 000). Threads that never have a context current start none.
inline constexpr size_t kMaxReplayThreads = 256;
// Calls a source decodes at a time (a chunk holds many more): what is read
// ahead of the replay is its ReadAheadSource's.
inline constexpr size_t kDecodeBatch = 64;
// Calls held back waiting for an earlier seq of another thread: past this
// many the missing calls are taken as lost (a gap in the seqs must not make
// a replay hold the rest of the trace).
inline constexpr size_t kMaxHeldCalls = size_t{1} << 20;

struct SourceOptions {
  // Keep the trace's images (for --compare); otherwise they are dropped.
  bool keep_images = false;
  // Blob bytes kept in memory for the calls still to come: past this, the
  // least recently used are dropped and read again from the file when a
  // later call refers to them (a long trace's textures need not all fit).
  uint64_t blob_memory = uint64_t{1} << 30;
  // The file may still be growing (a live capture's, the state worker's
  // --follow): at the end of what is written, when the trace was not closed
  // there, next() says kEnd without taking it as the end (calls waiting for
  // another thread's earlier ones keep waiting), and the next next() reads
  // on from there.
  bool follow = false;
};

class TraceSource : public replay::IncrementSource {
 public:
  TraceSource(std::shared_ptr<TraceInfo> info, SourceOptions options);
  ~TraceSource() override;
  TraceSource(const TraceSource&) = delete;
  TraceSource& operator=(const TraceSource&) = delete;

  // False with *error when the file is no readable trace.
  bool open(const std::string& path, std::string* error);

  replay::SourceResult next(replay::Increment* out, std::string* error) override;
  bool rewind(std::string* error) override;

  // With SourceOptions::follow: the last next() stopped at the end of what
  // is written so far, which may not be the trace's end.
  bool at_written_end() const { return at_written_end_; }

  // Calls read so far (in this pass).
  uint64_t calls() const { return calls_; }
  // Calls decoded and routed that next() has not handed out yet.
  size_t calls_pending() const { return pending_.size(); }
  // Recorded threads that have a replay thread of their own so far: those
  // that had a context current (see Collector::send). Read it once the
  // source's reading thread is done.
  size_t replay_threads() const;
  // Blobs dropped for SourceOptions::blob_memory and read again (all passes).
  uint64_t blobs_read_again() const { return blobs_read_again_.load(); }
  // The seqs missing from the trace, as found so far in this pass (each is
  // also printed to stderr when found, ahead of the calls after it). Read it
  // once the source's reading thread is done.
  const std::vector<SeqGap>& gaps() const { return gaps_; }
  // The gaps after the first kMaxGapsListed (only counted).
  const MoreGaps& more_gaps() const { return more_gaps_; }

 private:
  class Collector;
  class BlobStore;
  bool fill();

  std::shared_ptr<TraceInfo> info_;
  SourceOptions options_;
  std::string path_;
  std::unique_ptr<format::ChunkReader> reader_;
  std::unique_ptr<format::RecordDecoder> decoder_;
  std::unique_ptr<BlobStore> blobs_;
  std::unique_ptr<Collector> collector_;
  // The chunk being decoded, and where in its payload decoding goes on
  // (kNoChunk: none, read the next).
  static constexpr size_t kNoChunk = SIZE_MAX;
  format::ChunkView chunk_;
  size_t resume_ = kNoChunk;
  // Calls decoded and not taken yet: a batch (kDecodeBatch), or the calls
  // held for a late one released with it, in seq order.
  std::deque<replay::Increment> pending_;
  // A problem met while decoding: reported once what came before it is out.
  std::optional<std::string> deferred_error_;
  bool ended_ = false;
  bool at_written_end_ = false;
  uint64_t resume_offset_ = 0;  // where reading goes on after the written end
  uint64_t calls_ = 0;
  std::vector<SeqGap> gaps_;
  MoreGaps more_gaps_;
  std::atomic<uint64_t> blobs_read_again_{0};
};

}  // namespace gltrace::glreplay
