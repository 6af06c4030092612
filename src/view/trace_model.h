// The viewer's model of a trace: one pass at open builds compact tables (per
// chunk, per frame, blob and image locations; no calls are kept), and every
// question about calls decodes only the chunks that hold them, through an
// LRU of decompressed chunks bounded in bytes. Memory stays bounded whatever
// the trace claims: each table has a cap, past which it says so in warnings().
// Thread-safe: the server asks from several threads while the pass runs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "format/reader.h"
#include "format/records.h"

namespace re2 {
class RE2;
}

namespace gltrace::view {

// A compiled filter: RE2, linear in the text whatever the pattern (no
// catastrophic backtracking), its program size bounded.
using Regex = std::shared_ptr<const re2::RE2>;

// Caps on what the open pass keeps, and on the caches: together under
// 300 MB whatever the trace (a frame is ~100 bytes, a chunk ~60, a blob 16,
// an image 40; the decoders bound a chunk to 64 MiB).
struct ModelLimits {
  size_t max_frames = size_t{1} << 20;
  size_t max_chunks = size_t{512} << 10;
  size_t max_blobs = size_t{1} << 20;
  size_t max_images = size_t{256} << 10;
  size_t max_threads = 4096;  // threads and contexts listed
  size_t max_depth_marks = size_t{256} << 10;
  size_t max_gpu_work = size_t{1} << 20;  // GPU-work calls kept (48 bytes each)
  size_t max_gpu_clocks = size_t{64} << 10;
  size_t chunk_cache_bytes = size_t{96} << 20;
  size_t filter_cache_bytes = size_t{32} << 20;
};

struct FrameInfo {
  uint64_t number = 0;
  uint64_t first_index = 0;  // file-order index of its first call in the trace
  uint64_t calls = 0;
  uint64_t first_seq = 0, last_seq = 0;  // its first and last calls in file order
  uint64_t start_ns = 0;                 // the previous frame's end (0: the trace's start)
  uint64_t end_ns = 0;                   // eglSwapBuffers returned (or the last call's end)
  uint64_t call_ns = 0;                  // its calls' durations, summed
  uint64_t thread_ns = 0;                // their thread CPU time, summed
  uint32_t thread = 0, context = 0;      // of the call that ended it
  uint32_t draws = 0, errors = 0;
  uint64_t gpu_ns = 0;     // its GPU work's GPU times, summed
  uint32_t gpu_calls = 0;  // its calls with a GPU time (0: gpu_ns means none)
  int64_t image = -1;      // into images(), the frame's last image
  bool complete = true;    // false: calls after the last frame end
};

struct ImageInfo {
  uint64_t frame = 0, seq = 0, blob = 0;
  uint32_t width = 0, height = 0, context = 0;
};

struct TraceSummary {
  std::string path;
  uint64_t size = 0;
  uint64_t calls = 0;
  uint64_t frames = 0;  // complete frames
  uint64_t duration_ns = 0;
  bool indexing = true;  // the open pass is still running
  bool live = false;     // a capture is still writing the trace (open_live)
  bool has_thread_time = false;
  bool has_images = false;
  // The state snapshot the trace starts with (a trim, a capture started
  // mid-run): its calls, the first ones of frame 0, and its "not exact"
  // notes (Call::snapshot_inexact, each "; "-separated part one note).
  uint64_t snapshot_calls = 0;
  uint64_t snapshot_inexact = 0;
  // GPU time: the GPU-work calls (draws, clears, blits, dispatches) the
  // model keeps, how many have a GPU time, their sum, and where the times
  // come from: "capture" (the trace's GpuTime records, gltrace trace
  // --gpu-time), "replay" (measured by a replay, merge_gpu_times) or "".
  uint64_t gpu_work_calls = 0;
  uint64_t gpu_calls = 0;
  uint64_t gpu_ns = 0;
  std::string gpu_source;
  struct Thread {
    uint32_t index;
    uint64_t tid;
    std::string name;
  };
  struct Context {
    uint32_t index;
    std::string api, api_version;  // consumers::ContextApi's name and version
    uint64_t handle, share_context;
    std::string version, renderer;
  };
  std::vector<Thread> threads;
  std::vector<Context> contexts;
  uint32_t pid = 0;
  std::string process_name, command_line;
  std::vector<std::string> warnings;
};

// A GPU-work call (api::kRoleGpuWork) as the model keeps it, in file order
// (so a frame's are contiguous), whatever its GPU time: the place a replay's
// measured times are merged into.
struct GpuWork {
  uint64_t seq = 0;
  uint64_t start_ns = 0;      // the call's start (the trace's clock)
  uint64_t gpu_start_ns = 0;  // on the GPU's clock (a capture's time; 0: not known)
  uint64_t gpu_ns = 0;        // its GPU time (has_gpu)
  uint32_t dur_ns = 0;        // its CPU duration (saturated at 4.29 s)
  uint32_t frame = 0;         // FrameInfo::number
  uint16_t function = 0;
  bool has_gpu = false;
  bool disjoint = false;  // the GPU's timer said its measure may be wrong
};

// A page of the most expensive GPU work (gpu_top).
struct GpuTopPage {
  std::vector<GpuWork> rows;
  uint64_t total = 0;   // GPU-work calls with a GPU time in the scope
  uint64_t gpu_ns = 0;  // their GPU times, summed
};

// A GPU span on the timeline: where the GPU ran a call's work, on the
// trace's clock.
struct GpuSpan {
  uint64_t seq, start_ns, dur_ns;
  uint16_t function;
  bool on_gpu_clock;  // placed by the trace's GPU clock pairs (else at its call's start)
};

// One call as a request needs it: the decoded record (valid during the
// callback) and where it is.
struct CallRef {
  const format::Call& call;
  uint64_t index;          // file order, in the trace
  uint64_t frame;          // FrameInfo::number of the frame holding it
  uint64_t pos;            // in that frame
  uint32_t depth;          // debug-group nesting it is in (a push is at the outer depth)
  std::string_view group;  // a push's label
};

// Thrown by queries: an HTTP status and the message for {"error": ...}.
struct QueryError {
  int status;
  std::string message;
};

class TraceModel {
 public:
  explicit TraceModel(ModelLimits limits = {});
  ~TraceModel();
  TraceModel(const TraceModel&) = delete;
  TraceModel& operator=(const TraceModel&) = delete;

  // Opens the trace and starts the pass on a thread; false with *error when
  // it is no readable trace.
  bool open(const std::string& path, std::string* error);
  // Opens a trace that a capture is still writing (gltrace view --attach):
  // the pass waits at the end of what is written for more, a chunk written
  // in part being not there yet rather than damage, until end_of_stream();
  // it then reads the rest and ends as for any trace. The file may still be
  // empty: it is read once its header is in.
  void open_live(const std::string& path);
  // More of the live trace was written: the pass looks at once (it also
  // looks every kLivePollMs by itself).
  void notify_written();
  // The capture ended: nothing more will be written.
  void end_of_stream();
  static constexpr int kLivePollMs = 250;
  // Waits for the pass (tests, the benchmark's figures).
  void wait_indexed();

  TraceSummary summary() const;
  bool has_thread_time() const;  // the summary's, without copying it
  // Frames [from, from+count) of those indexed so far; *total: how many.
  std::vector<FrameInfo> frames(uint64_t from, uint64_t count, uint64_t* total) const;
  // Throws QueryError 404 when the frame is not (yet) known.
  FrameInfo frame(uint64_t number) const;
  std::optional<ImageInfo> image_of_frame(uint64_t number) const;
  std::optional<ImageInfo> image_after_call(uint64_t seq) const;
  std::vector<ImageInfo> images_after_call(uint64_t seq) const;
  // Blob bytes [offset, offset+size); throws QueryError 404.
  std::string blob(uint64_t id, uint64_t offset, uint64_t size, uint64_t* total) const;
  uint64_t blob_size(uint64_t id) const;  // 0 if unknown

  // Calls number [first, first+count) of a frame, in file order.
  void for_frame_calls(uint64_t frame, uint64_t first, uint64_t count,
                       const std::function<void(const CallRef&)>& visit) const;
  // The calls at these positions of a frame (sorted): each chunk that holds
  // some is decoded once.
  void for_frame_positions(uint64_t frame, std::span<const uint32_t> positions,
                           const std::function<void(const CallRef&)>& visit) const;
  // Positions in a frame of the calls that pass a filter (regex over "name(args)",
  // thread, context); cached. Throws QueryError 400 for a bad regex.
  struct CallFilter {
    std::string regex;
    std::optional<uint32_t> thread, context;
    bool empty() const { return regex.empty() && !thread && !context; }
  };
  std::shared_ptr<const std::vector<uint32_t>> filtered_positions(uint64_t frame,
                                                                  const CallFilter& filter) const;
  // The call with this seq; throws QueryError 404.
  void find_call(uint64_t seq, const std::function<void(const CallRef&)>& visit) const;
  // The next (or previous) call after (before) the one with seq `after`
  // that `matches`; nullopt if none. `after` past every call (UINT64_MAX)
  // searches from the end backward or from the start forward.
  using CallMatch = std::function<bool(const CallRef&)>;
  std::optional<std::pair<uint64_t, uint64_t>> find_next(const CallMatch& matches, uint64_t after,
                                                         bool backward) const;
  // Whether a call's "name(args)" matches the regex (throws QueryError 400
  // for a pattern RE2 refuses).
  CallMatch text_matches(const std::string& regex) const;
  // Calls whose time overlaps [start, end); at most max_calls are visited
  // (*truncated says when more would have been).
  void for_time_range(uint64_t start_ns, uint64_t end_ns, uint64_t max_calls, bool* truncated,
                      const std::function<void(const CallRef&)>& visit) const;

  // The "name(args)" text a filter is matched against, as dump prints it
  // (bounded: a regex never sees more than kMaxMatchText characters).
  static std::string match_text(const format::Call& call,
                                const std::function<uint64_t(uint64_t)>& blob_size);
  static constexpr size_t kMaxMatchText = 1000;
  static constexpr size_t kMaxRegex = 1000;
  // Throws QueryError 400 with the library's message.
  static Regex compile_regex(const std::string& text);
  static bool regex_matches(const Regex& re, const std::string& text);

  // A snapshot call's "not exact" notes: the parts of Call::snapshot_inexact
  // (the writers join the notes of one call with "; ").
  static std::vector<std::string_view> inexact_notes(std::string_view text);

  // --- GPU time --------------------------------------------------------------
  // The GPU-work calls of a frame (file order); throws QueryError 404.
  std::vector<GpuWork> gpu_work_of_frame(uint64_t frame) const;
  // The GPU-work calls with a GPU time, of one frame or (nullopt) of the
  // whole trace, sorted by `key` ("gpu", "cpu", "function", "frame", "call";
  // ties by call number) and paged; throws QueryError 400/404.
  GpuTopPage gpu_top(std::optional<uint64_t> frame, const std::string& key, bool descending,
                     uint64_t from, uint64_t count) const;
  // The GPU spans that overlap [start, end), at most max (*truncated).
  std::vector<GpuSpan> gpu_spans(uint64_t start_ns, uint64_t end_ns, uint64_t max,
                                 bool* truncated) const;
  // Replaces the GPU times by a replay's measures ({call, gpu ns}), marked
  // "replay"; returns how many calls it matched.
  uint64_t merge_gpu_times(const std::vector<std::pair<uint64_t, uint64_t>>& times);
  // The trace's GPU clock pairs (trace ns, GPU ns), for tests.
  size_t gpu_clock_pairs() const;

  // Blob sizes for the values a call refers to (dump's "<blob X, N bytes>").
  void blob_sizes_of(const format::Call& call, std::unordered_map<uint64_t, uint64_t>* out) const;

  struct Impl;  // public for the pass's consumers in the .cpp; opaque here

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gltrace::view
