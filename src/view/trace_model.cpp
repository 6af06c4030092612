#include "view/trace_model.h"

#include <re2/re2.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <list>
#include <unordered_map>

#include "consumers/context_api.h"
#include "consumers/frame_end.h"
#include "consumers/value_format.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"

namespace gltrace::view {
namespace {

enum class CallKind : uint8_t { kOther, kDraw, kPush, kPop };

// What the viewer needs to know of a function, from its name in the model.
// What the viewer counts and nests: draws, and debug groups' pushes and pops
// (their roles in spec/api.toml).
CallKind kind_of(uint32_t function) {
  if (api::has_role(function, api::kRoleDraw | api::kRoleOtherDraw)) return CallKind::kDraw;
  if (api::has_role(function, api::kRoleDebugPush)) return CallKind::kPush;
  if (api::has_role(function, api::kRoleDebugPop)) return CallKind::kPop;
  return CallKind::kOther;
}

// A push's label: glPushDebugGroup's message, glPushGroupMarkerEXT's marker.
std::string_view group_label(const format::Call& call) {
  for (auto it = call.args.rbegin(); it != call.args.rend(); ++it)
    if (it->kind == format::ValueKind::kText || it->kind == format::ValueKind::kData)
      return it->bytes();
  return {};
}

}  // namespace

std::vector<std::string_view> TraceModel::inexact_notes(std::string_view text) {
  std::vector<std::string_view> notes;
  while (!text.empty()) {
    size_t end = text.find("; ");
    if (end != 0) notes.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 2);
  }
  return notes;
}

namespace {

struct ChunkInfo {
  uint64_t offset = 0;
  uint64_t first_index = 0;  // file-order index of its first call
  uint64_t calls = 0;
  uint64_t frames_before = 0;  // frame records before it
  uint64_t min_seq = UINT64_MAX, max_seq = 0;
  uint64_t min_start_ns = UINT64_MAX, max_end_ns = 0;
};

// A context's debug-group depth at the start of a chunk (only non-zero ones).
struct DepthMark {
  uint32_t chunk, context, depth;
};

struct BlobLocation {
  uint64_t id;
  uint32_t chunk;
  uint32_t size;
};

using Payload = std::shared_ptr<const std::vector<uint8_t>>;

}  // namespace

struct TraceModel::Impl {
  ModelLimits limits;
  std::string path;
  uint64_t file_size = 0;

  // Tables, filled by the pass, read by queries (under `mutex`).
  mutable std::mutex mutex;
  // Deques: growing never copies (nor holds twice) what is there.
  std::deque<ChunkInfo> chunks;
  std::deque<FrameInfo> frames;
  size_t visible_frames = 0;  // those whose chunks are published
  std::vector<ImageInfo> images;
  // By id while blobs_sorted (kept so as the pass adds them; a trace whose
  // ids go far back is sorted once at the end, looked up in order till then).
  std::vector<BlobLocation> blobs;
  bool blobs_sorted = true;
  std::vector<DepthMark> depth_marks;  // by chunk
  // GPU-work calls in file order (so by frame), and whether their seqs grow
  // too (then a GpuTime finds its call by binary search).
  std::deque<GpuWork> gpu_work;
  bool gpu_work_by_seq = true;
  std::vector<format::GpuClock> gpu_clocks;  // in file order
  TraceSummary summary;
  bool indexed = false;
  std::condition_variable indexed_changed;

  std::thread pass;
  std::atomic<bool> stop{false};

  // A live trace (open_live), under `mutex`: the pass waits on
  // `live_changed` for `written` or the end of the stream.
  bool live = false;
  bool stream_ended = false;
  bool written = false;
  std::condition_variable live_changed;

  // Reading chunks for queries: one reader, one at a time.
  mutable std::mutex reader_mutex;
  mutable format::ChunkReader reader;

  // Decompressed chunks, least recently used first.
  mutable std::mutex cache_mutex;
  mutable std::list<std::pair<uint32_t, Payload>> cache;
  mutable std::unordered_map<uint32_t, std::list<std::pair<uint32_t, Payload>>::iterator>
      cache_index;
  mutable size_t cache_bytes = 0;

  struct FilterKey {
    uint64_t frame;
    std::string regex;
    std::optional<uint32_t> thread, context;
    bool operator==(const FilterKey&) const = default;
  };
  mutable std::mutex filter_mutex;
  mutable std::list<std::pair<FilterKey, std::shared_ptr<const std::vector<uint32_t>>>> filters;

  void warn(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (summary.warnings.size() < 100) summary.warnings.push_back(message);
  }

  void run_pass();
  // Whether more of the trace may come (a live capture that has not ended).
  bool may_grow() const {
    std::lock_guard<std::mutex> lock(mutex);
    return live && !stream_ended;
  }
  // Until more was written, the stream ended, the model is closing, or
  // kLivePollMs passed; then the file's size in the summary.
  void wait_for_more();
  Payload payload(uint32_t chunk) const;
  // Under mutex; null when the trace has no such blob.
  const BlobLocation* find_blob(uint64_t id) const;
  // Visits calls [lo, hi) of the trace (file order).
  void walk(uint64_t lo, uint64_t hi, const std::function<bool(const CallRef&)>& visit) const;
  uint32_t chunk_of_index(uint64_t index) const;  // under mutex
  // Under mutex: the GPU-work call with this seq (gpu_work.size(): none).
  // Out of seq order (threads writing at once), only the last
  // kGpuLookback calls are looked at: a GpuTime comes a few frames after
  // its call.
  size_t find_gpu_work(uint64_t seq) const;
  static constexpr size_t kGpuLookback = size_t{1} << 16;
  // Under mutex: the trace's time of a GPU clock value (the last clock
  // pair at or before it; nullopt when there is none).
  std::optional<uint64_t> gpu_to_trace_time(uint64_t gpu_ns) const;
};

namespace {

// The open pass: tables only, no calls kept.
class Indexer final : public format::Consumer {
 public:
  explicit Indexer(TraceModel::Impl& m) : m_(m) {}
  // The index keeps no call's values (the Walker reads them when asked).
  bool wants_values(uint32_t /*function*/) const override { return false; }

  void on_chunk(uint64_t offset, uint32_t /*record_count*/) override {
    publish();
    if (m_.stop) return request_stop();
    pending_chunk_ = ChunkInfo{};
    pending_chunk_.offset = offset;
    pending_chunk_.first_index = calls_;
    pending_chunk_.frames_before = frames_seen_;
    have_chunk_ = true;
    chunk_number_ = chunks_published_;
    for (auto& [context, depth] : depth_)
      if (depth != 0) pending_marks_.push_back({chunk_number_, context, depth});
  }

  void on_header(const format::Header& h) override {
    std::lock_guard<std::mutex> lock(m_.mutex);
    m_.summary.pid = h.pid;
    m_.summary.process_name = h.process_name;
    m_.summary.command_line = h.command_line;
  }
  void on_thread(const format::Thread& t) override {
    std::lock_guard<std::mutex> lock(m_.mutex);
    if (m_.summary.threads.size() < m_.limits.max_threads)
      m_.summary.threads.push_back({t.index, t.tid, std::string(t.name)});
  }
  void on_context(const format::Context& c) override {
    std::lock_guard<std::mutex> lock(m_.mutex);
    if (m_.summary.contexts.size() >= m_.limits.max_threads) return;
    consumers::ContextApi context_api = consumers::context_api(c);
    m_.summary.contexts.push_back({c.index, context_api.name, context_api.version, c.handle,
                                   c.share_context, std::string(c.gl_version),
                                   std::string(c.gl_renderer)});
  }

  void on_call(const format::Call& call) override {
    if (!have_chunk_) return;
    ChunkInfo& c = pending_chunk_;
    ++c.calls;
    c.min_seq = std::min(c.min_seq, call.seq);
    c.max_seq = std::max(c.max_seq, call.seq);
    c.min_start_ns = std::min(c.min_start_ns, call.start_ns);
    uint64_t end = call.start_ns + call.duration_ns;
    c.max_end_ns = std::max(c.max_end_ns, end);
    if (frame_.calls == 0) {
      frame_.first_index = calls_;
      frame_.first_seq = call.seq;
    }
    ++frame_.calls;
    frame_.last_seq = call.seq;
    frame_.call_ns += call.duration_ns;
    frame_.thread_ns += call.thread_time_ns;
    frame_.end_ns = std::max(frame_.end_ns, end);
    if (call.thread_time_ns != 0) has_thread_time_ = true;
    if (call.gl_error != 0) ++frame_.errors;
    switch (kind_of(call.function)) {
      case CallKind::kDraw:
        ++frame_.draws;
        break;
      case CallKind::kPush:
        ++depth_[call.context];
        break;
      case CallKind::kPop:
        if (depth_[call.context] != 0) --depth_[call.context];
        break;
      case CallKind::kOther:
        break;
    }
    if (api::has_role(call.function, api::kRoleGpuWork)) add_gpu_work(call);
    duration_ns_ = std::max(duration_ns_, end);
    if (in_snapshot_ && call.snapshot) {
      ++snapshot_calls_;
      snapshot_inexact_ += TraceModel::inexact_notes(call.snapshot_inexact).size();
    } else {
      in_snapshot_ = false;
    }
    ++calls_;
    if (consumers::ends_frame(call)) end_frame(call, end);
  }

  // Kept straight in the table (under the lock: GpuTime records update
  // entries of frames already published).
  void add_gpu_work(const format::Call& call) {
    std::unique_lock<std::mutex> lock(m_.mutex);
    if (m_.gpu_work.size() >= m_.limits.max_gpu_work) {
      if (gpu_work_full_) return;
      gpu_work_full_ = true;
      lock.unlock();
      m_.warn("more GPU-work calls than the viewer keeps: later ones have no GPU time here");
      return;
    }
    GpuWork w;
    w.seq = call.seq;
    w.start_ns = call.start_ns;
    w.dur_ns = static_cast<uint32_t>(std::min<uint64_t>(call.duration_ns, UINT32_MAX));
    w.frame = static_cast<uint32_t>(std::min<uint64_t>(frames_seen_, UINT32_MAX));
    w.function = static_cast<uint16_t>(std::min<uint32_t>(call.function, UINT16_MAX));
    if (!m_.gpu_work.empty() && call.seq <= m_.gpu_work.back().seq) m_.gpu_work_by_seq = false;
    m_.gpu_work.push_back(w);
  }

  void on_gpu_time(const format::GpuTime& t) override {
    std::lock_guard<std::mutex> lock(m_.mutex);
    size_t i = m_.find_gpu_work(t.seq);
    if (i == m_.gpu_work.size()) return;  // no GPU-work call of ours
    GpuWork& w = m_.gpu_work[i];
    FrameInfo* f = w.frame < m_.frames.size() ? &m_.frames[w.frame]
                   : w.frame == frames_seen_  ? &frame_
                                              : nullptr;
    if (w.has_gpu) {  // a second time for the call: the last one counts
      m_.summary.gpu_ns -= w.gpu_ns;
      --m_.summary.gpu_calls;
      if (f != nullptr) f->gpu_ns -= w.gpu_ns, --f->gpu_calls;
    }
    w.has_gpu = true;
    w.gpu_ns = t.duration_ns;
    w.gpu_start_ns = t.gpu_start_ns;
    w.disjoint = t.disjoint;
    m_.summary.gpu_ns += w.gpu_ns;
    ++m_.summary.gpu_calls;
    m_.summary.gpu_source = "capture";
    if (f != nullptr) f->gpu_ns += w.gpu_ns, ++f->gpu_calls;
  }

  void on_gpu_clock(const format::GpuClock& clock) override {
    std::lock_guard<std::mutex> lock(m_.mutex);
    if (m_.gpu_clocks.size() < m_.limits.max_gpu_clocks) m_.gpu_clocks.push_back(clock);
  }

  void on_blob(const format::Blob& blob) override {
    if (!have_chunk_) return;
    if (pending_blobs_.size() + blobs_published_ >= m_.limits.max_blobs) {
      if (!blobs_full_) m_.warn("more blobs than the viewer indexes: later ones are not shown");
      blobs_full_ = true;
      return;
    }
    pending_blobs_.push_back({blob.id, chunk_number_, static_cast<uint32_t>(blob.data.size())});
  }

  // A frame ends at its call, as every command counts it (its Frame record
  // may be cut off with the trace's end).
  void end_frame(const format::Call& call, uint64_t end_ns) {
    FrameInfo f = frame_;
    f.number = frames_seen_;
    f.thread = call.thread;
    f.context = call.context;
    f.start_ns = last_frame_end_;
    f.end_ns = std::max(end_ns, f.start_ns);
    last_frame_end_ = f.end_ns;
    ++frames_seen_;
    frame_ = {};
    // Straight into the table (a chunk may end a million frames: no second
    // copy of them), visible to queries once their chunk is published.
    std::unique_lock<std::mutex> lock(m_.mutex);
    if (m_.frames.size() < m_.limits.max_frames) {
      m_.frames.push_back(f);
    } else if (!frames_full_) {
      lock.unlock();
      frames_full_ = true;
      m_.warn("more frames than the viewer lists: frames from " +
              std::to_string(m_.limits.max_frames) + " on are not shown");
    }
  }

  void on_image(const format::Image& image) override {
    if (images_published_ + pending_images_.size() >= m_.limits.max_images) return;
    pending_images_.push_back(
        {image.frame, image.seq, image.blob, image.width, image.height, image.context});
  }

  // Makes the chunk just read, and the frames it ended, visible to queries.
  void publish() {
    if (!have_chunk_) return;
    std::lock_guard<std::mutex> lock(m_.mutex);
    if (m_.chunks.size() >= m_.limits.max_chunks) {
      if (!chunks_full_) {
        chunks_full_ = true;
        if (m_.summary.warnings.size() < 100)
          m_.summary.warnings.push_back(
              "more chunks than the viewer indexes: the rest is not shown");
      }
      request_stop();
      have_chunk_ = false;
      return;
    }
    m_.chunks.push_back(pending_chunk_);
    ++chunks_published_;
    for (const ImageInfo& image : pending_images_) {
      m_.images.push_back(image);
      // A swap's image is written before its frame's record, often in an
      // earlier chunk (large images fill chunks): placed once the frame is in.
      if (image.frame < m_.limits.max_frames && unplaced_images_.size() < kMaxUnplacedImages)
        unplaced_images_.push_back(m_.images.size() - 1);
    }
    images_published_ += pending_images_.size();
    pending_images_.clear();
    std::erase_if(unplaced_images_, [this](size_t i) {
      uint64_t frame = m_.images[i].frame;
      if (frame >= m_.frames.size()) return false;
      m_.frames[frame].image = static_cast<int64_t>(i);
      return true;
    });
    m_.visible_frames = m_.frames.size();
    // Ids grow through a session, but chunks of threads writing at once
    // interleave: the new ones are merged into the recent end where they
    // go, so that lookups binary-search while the pass (or a live trace)
    // runs. A merge further back (a hostile trace) is left to the end.
    auto by_id = [](const BlobLocation& a, const BlobLocation& b) { return a.id < b.id; };
    std::stable_sort(pending_blobs_.begin(), pending_blobs_.end(), by_id);
    size_t old_size = m_.blobs.size();
    m_.blobs.insert(m_.blobs.end(), pending_blobs_.begin(), pending_blobs_.end());
    if (m_.blobs_sorted && !pending_blobs_.empty() && old_size != 0 &&
        pending_blobs_.front().id < m_.blobs[old_size - 1].id) {
      auto middle = m_.blobs.begin() + static_cast<std::ptrdiff_t>(old_size);
      auto first = std::upper_bound(m_.blobs.begin(), middle, pending_blobs_.front(), by_id);
      if (middle - first <= kMaxBlobMerge)
        std::inplace_merge(first, middle, m_.blobs.end(), by_id);
      else
        m_.blobs_sorted = false;
    }
    blobs_published_ += pending_blobs_.size();
    pending_blobs_.clear();
    for (const DepthMark& mark : pending_marks_)
      if (m_.depth_marks.size() < m_.limits.max_depth_marks) m_.depth_marks.push_back(mark);
    pending_marks_.clear();
    m_.summary.calls = calls_;
    m_.summary.frames = frames_seen_;
    m_.summary.duration_ns = duration_ns_;
    m_.summary.has_thread_time = has_thread_time_;
    m_.summary.has_images = !m_.images.empty();
    m_.summary.snapshot_calls = snapshot_calls_;
    m_.summary.snapshot_inexact = snapshot_inexact_;
    m_.summary.gpu_work_calls = m_.gpu_work.size();
    have_chunk_ = false;
  }

  // After the last chunk: the calls after the last frame end are a frame too.
  void finish() {
    publish();
    std::lock_guard<std::mutex> lock(m_.mutex);
    if (frame_.calls != 0 && m_.frames.size() < m_.limits.max_frames) {
      FrameInfo f = frame_;
      f.number = m_.frames.size();
      f.start_ns = last_frame_end_;
      f.end_ns = std::max(f.end_ns, f.start_ns);
      f.complete = false;
      m_.frames.push_back(f);
    }
    m_.visible_frames = m_.frames.size();
    m_.summary.gpu_work_calls = m_.gpu_work.size();
  }

 private:
  TraceModel::Impl& m_;
  ChunkInfo pending_chunk_;
  bool have_chunk_ = false;
  uint32_t chunk_number_ = 0;
  uint64_t chunks_published_ = 0;
  std::vector<ImageInfo> pending_images_;
  std::vector<BlobLocation> pending_blobs_;
  std::vector<DepthMark> pending_marks_;
  uint64_t images_published_ = 0, blobs_published_ = 0;
  // Blobs a chunk's new ones may be merged past (see publish()).
  static constexpr std::ptrdiff_t kMaxBlobMerge = 1 << 16;
  // Images whose frame has not been read yet (indices into m_.images); a
  // real trace has one or two, a hostile one is cut off at the limit.
  static constexpr size_t kMaxUnplacedImages = 4096;
  std::vector<size_t> unplaced_images_;
  bool frames_full_ = false, blobs_full_ = false, chunks_full_ = false, gpu_work_full_ = false;
  FrameInfo frame_;
  uint64_t calls_ = 0, frames_seen_ = 0, last_frame_end_ = 0, duration_ns_ = 0;
  bool has_thread_time_ = false;
  bool in_snapshot_ = true;  // every call so far was a snapshot's
  uint64_t snapshot_calls_ = 0, snapshot_inexact_ = 0;
  std::map<uint32_t, uint32_t> depth_;
};

// Decodes one chunk's calls, numbering them and tracking debug groups.
class Walker final : public format::Consumer {
 public:
  Walker(const ChunkInfo& chunk, std::map<uint32_t, uint32_t> depths, uint64_t lo, uint64_t hi,
         const std::function<bool(const CallRef&)>& visit, const std::vector<FrameInfo>& frames)
      // frames: the frames from chunk.frames_before on that its calls can be in
      : chunk_(chunk),
        depth_(std::move(depths)),
        lo_(lo),
        hi_(hi),
        visit_(visit),
        frame_(chunk.frames_before),
        frames_(frames) {}

  void on_call(const format::Call& call) override {
    uint64_t index = chunk_.first_index + n_++;
    uint32_t& depth = depth_[call.context];
    CallKind kind = kind_of(call.function);
    if (kind == CallKind::kPop && depth != 0) --depth;
    if (index >= lo_ && index < hi_) {
      uint64_t at = frame_ - chunk_.frames_before;
      uint64_t first = at < frames_.size() ? frames_[at].first_index : index;
      CallRef ref{call,   index,
                  frame_, index >= first ? index - first : 0,
                  depth,  kind == CallKind::kPush ? group_label(call) : std::string_view()};
      if (!visit_(ref)) {
        stopped_ = true;
        return request_stop();
      }
    }
    if (kind == CallKind::kPush) ++depth;
    if (consumers::ends_frame(call)) ++frame_;
    if (index + 1 >= hi_) request_stop();
  }
  bool stopped() const { return stopped_; }

 private:
  const ChunkInfo& chunk_;
  std::map<uint32_t, uint32_t> depth_;
  uint64_t lo_, hi_;
  const std::function<bool(const CallRef&)>& visit_;
  uint64_t n_ = 0;
  uint64_t frame_;
  const std::vector<FrameInfo>& frames_;
  bool stopped_ = false;
};

}  // namespace

void TraceModel::Impl::wait_for_more() {
  std::unique_lock<std::mutex> lock(mutex);
  live_changed.wait_for(lock, std::chrono::milliseconds(kLivePollMs),
                        [this] { return written || stream_ended || stop; });
  written = false;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) summary.size = static_cast<uint64_t>(st.st_size);
}

namespace {

bool empty_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && st.st_size == 0;
}

}  // namespace

void TraceModel::Impl::run_pass() {
  format::ChunkReader scan;
  Indexer indexer(*this);
  format::ReadStatus status;
  bool ok = false;
  // A live trace is read once its file header is in. Each look decides
  // first whether it is the last: what the stream wrote before it ended is
  // all read by then.
  for (;;) {
    bool last_look = !may_grow();
    // Looked at before the read: the capture's first write may come between
    // a read that found nothing ("empty file") and a look after it, which
    // would take that for damage and end the pass with no frame.
    bool was_empty = empty_file(path);
    ok = scan.open(path);
    if (ok || last_look || stop ||
        (scan.status().state != format::ReadState::kCutShort && !was_empty))
      break;
    wait_for_more();
  }
  if (ok && live) {  // the queries' reader, before any chunk is published
    std::lock_guard<std::mutex> lock(reader_mutex);
    ok = reader.open(path);
    if (!ok) status = reader.status();
  }
  // Not read_trace_prefetched: its four slots of chunk copies could hold
  // 300 MB of a trace's largest chunks; the pass runs behind the first
  // answers anyway.
  while (ok) {
    bool last_look = !may_grow();
    ok = format::read_trace(scan, indexer, &status);
    if (!ok || last_look || stop || indexer.stop_requested() || status.closed_cleanly) break;
    // The end of what is written so far, between chunks or inside one:
    // what was read is shown, and read goes on from there once there is more.
    indexer.publish();
    wait_for_more();
    if (!scan.seek(status.offset)) break;
  }
  if (!scan.status().ok() && scan.status().state != format::ReadState::kReading && !ok &&
      status.message.empty())
    status = scan.status();
  indexer.finish();
  if (!ok && live && empty_file(path))
    warn("the capture wrote nothing");
  else if (!ok && !stop)
    warn("the trace is damaged: " + status.message + " (what comes before is shown)");
  else if (status.state == format::ReadState::kCutShort)
    warn(status.message);
  std::lock_guard<std::mutex> lock(mutex);
  if (!blobs_sorted) {
    std::stable_sort(blobs.begin(), blobs.end(),
                     [](const BlobLocation& a, const BlobLocation& b) { return a.id < b.id; });
    blobs_sorted = true;
  }
  indexed = true;
  summary.indexing = false;
  // The footer is the capture's last write: the session's end_of_stream()
  // may come later, but nothing is being written any more.
  if (status.closed_cleanly) summary.live = false;
  if (live) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) summary.size = static_cast<uint64_t>(st.st_size);
  }
  indexed_changed.notify_all();
}

Payload TraceModel::Impl::payload(uint32_t chunk) const {
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = cache_index.find(chunk);
    if (it != cache_index.end()) {
      cache.splice(cache.end(), cache, it->second);
      return it->second->second;
    }
  }
  uint64_t offset;
  {
    std::lock_guard<std::mutex> lock(mutex);
    offset = chunks.at(chunk).offset;
  }
  Payload data;
  {
    std::lock_guard<std::mutex> lock(reader_mutex);
    format::ChunkView view;
    if (!reader.seek(offset) || !reader.next(&view) || view.offset != offset)
      throw QueryError{500, "cannot read the chunk at offset " + std::to_string(offset) + ": " +
                                reader.status().message};
    data = std::make_shared<const std::vector<uint8_t>>(view.payload.begin(), view.payload.end());
  }
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (cache_index.count(chunk) == 0) {
    cache.emplace_back(chunk, data);
    cache_index[chunk] = std::prev(cache.end());
    cache_bytes += data->size();
    while (cache_bytes > limits.chunk_cache_bytes && cache.size() > 1) {
      cache_bytes -= cache.front().second->size();
      cache_index.erase(cache.front().first);
      cache.pop_front();
    }
  }
  return data;
}

uint32_t TraceModel::Impl::chunk_of_index(uint64_t index) const {
  auto it = std::upper_bound(chunks.begin(), chunks.end(), index,
                             [](uint64_t i, const ChunkInfo& c) { return i < c.first_index; });
  return static_cast<uint32_t>(it == chunks.begin() ? 0 : (it - chunks.begin()) - 1);
}

void TraceModel::Impl::walk(uint64_t lo, uint64_t hi,
                            const std::function<bool(const CallRef&)>& visit) const {
  if (lo >= hi) return;
  uint32_t first;
  size_t count;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (chunks.empty()) return;
    first = chunk_of_index(lo);
    count = chunks.size();
  }
  for (uint32_t c = first; c < count; ++c) {
    ChunkInfo chunk;
    std::map<uint32_t, uint32_t> depths;
    std::vector<FrameInfo> frame_window;
    {
      std::lock_guard<std::mutex> lock(mutex);
      chunk = chunks[c];
      auto mark = std::lower_bound(depth_marks.begin(), depth_marks.end(), c,
                                   [](const DepthMark& m, uint32_t ch) { return m.chunk < ch; });
      for (; mark != depth_marks.end() && mark->chunk == c; ++mark)
        depths[mark->context] = mark->depth;
      // The frames this chunk's calls can be in (positions are counted from them).
      uint64_t end_frame = chunk.frames_before;
      while (end_frame < frames.size() &&
             frames[end_frame].first_index < chunk.first_index + chunk.calls)
        ++end_frame;
      frame_window.assign(frames.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(
                                               chunk.frames_before, frames.size())),
                          frames.begin() + static_cast<std::ptrdiff_t>(
                                               std::min<uint64_t>(end_frame + 1, frames.size())));
    }
    if (chunk.first_index >= hi) return;
    if (chunk.first_index + chunk.calls <= lo) continue;
    Payload data = payload(c);
    Walker walker(chunk, std::move(depths), lo, hi, visit, frame_window);
    format::RecordDecoder decoder;
    if (!decoder.decode_chunk(*data, walker) && !walker.stop_requested())
      throw QueryError{500, "chunk at offset " + std::to_string(chunk.offset) +
                                " does not decode: " + decoder.error()};
    if (walker.stopped()) return;
  }
}

TraceModel::TraceModel(ModelLimits limits) : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
}

TraceModel::~TraceModel() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
    impl_->live_changed.notify_all();
  }
  if (impl_->pass.joinable()) impl_->pass.join();
}

bool TraceModel::open(const std::string& path, std::string* error) {
  Impl& d = *impl_;
  if (!d.reader.open(path)) {
    *error = d.reader.status().message;
    return false;
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) d.file_size = static_cast<uint64_t>(st.st_size);
  if (!d.reader.index_error().empty())
    d.summary.warnings.push_back("the trace's index is damaged (" + d.reader.index_error() +
                                 "): read without it");
  d.path = path;
  d.summary.path = path;
  d.summary.size = d.file_size;
  d.pass = std::thread([&d] { d.run_pass(); });
  return true;
}

void TraceModel::open_live(const std::string& path) {
  Impl& d = *impl_;
  d.path = path;
  d.summary.path = path;
  d.live = true;
  d.summary.live = true;
  d.pass = std::thread([&d] { d.run_pass(); });
}

void TraceModel::notify_written() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->written = true;
  impl_->live_changed.notify_all();
}

void TraceModel::end_of_stream() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->stream_ended = true;
  impl_->summary.live = false;
  impl_->live_changed.notify_all();
}

void TraceModel::wait_indexed() {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->indexed_changed.wait(lock, [this] { return impl_->indexed; });
}

TraceSummary TraceModel::summary() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->summary;
}

bool TraceModel::has_thread_time() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->summary.has_thread_time;
}

std::vector<FrameInfo> TraceModel::frames(uint64_t from, uint64_t count, uint64_t* total) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const auto& frames = impl_->frames;
  size_t visible = impl_->visible_frames;
  *total = visible;
  if (from >= visible) return {};
  uint64_t end = from + std::min<uint64_t>(count, visible - from);
  return {frames.begin() + static_cast<std::ptrdiff_t>(from),
          frames.begin() + static_cast<std::ptrdiff_t>(end)};
}

FrameInfo TraceModel::frame(uint64_t number) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (number >= impl_->visible_frames)
    throw QueryError{404, "no frame " + std::to_string(number) + " (the trace has " +
                              std::to_string(impl_->visible_frames) +
                              (impl_->indexed ? "" : " so far") + ")"};
  return impl_->frames[number];
}

std::optional<ImageInfo> TraceModel::image_of_frame(uint64_t number) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (number >= impl_->visible_frames || impl_->frames[number].image < 0) return std::nullopt;
  return impl_->images[static_cast<size_t>(impl_->frames[number].image)];
}

std::optional<ImageInfo> TraceModel::image_after_call(uint64_t seq) const {
  std::vector<ImageInfo> found = images_after_call(seq);
  if (found.empty()) return std::nullopt;
  return found.back();
}

std::vector<ImageInfo> TraceModel::images_after_call(uint64_t seq) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<ImageInfo> found;
  for (const ImageInfo& image : impl_->images)
    if (image.seq == seq && found.size() < 16) found.push_back(image);
  return found;
}

const BlobLocation* TraceModel::Impl::find_blob(uint64_t id) const {
  if (!blobs_sorted) {
    auto it = std::find_if(blobs.begin(), blobs.end(),
                           [id](const BlobLocation& b) { return b.id == id; });
    return it != blobs.end() ? &*it : nullptr;
  }
  auto it = std::lower_bound(blobs.begin(), blobs.end(), id,
                             [](const BlobLocation& b, uint64_t i) { return b.id < i; });
  return it != blobs.end() && it->id == id ? &*it : nullptr;
}

uint64_t TraceModel::blob_size(uint64_t id) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const BlobLocation* found = impl_->find_blob(id);
  return found != nullptr ? found->size : 0;
}

void TraceModel::blob_sizes_of(const format::Call& call,
                               std::unordered_map<uint64_t, uint64_t>* out) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto add = [&](uint64_t id) {
    const BlobLocation* found = impl_->find_blob(id);
    if (found != nullptr && found->size != 0) (*out)[id] = found->size;
  };
  for (const format::Value& v : call.args)
    if (v.kind == format::ValueKind::kBlob) add(v.blob);
  if (call.ret != nullptr && call.ret->kind == format::ValueKind::kBlob) add(call.ret->blob);
}

std::string TraceModel::blob(uint64_t id, uint64_t offset, uint64_t size, uint64_t* total) const {
  uint32_t chunk = 0;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const BlobLocation* found = impl_->find_blob(id);
    if (found == nullptr) throw QueryError{404, "no blob " + std::to_string(id) + " in the trace"};
    chunk = found->chunk;
  }
  Payload data = impl_->payload(chunk);
  struct Finder final : format::Consumer {
    uint64_t id;
    std::string bytes;
    bool found = false;
    uint64_t offset, size, total = 0;
    void on_blob(const format::Blob& blob) override {
      if (blob.id != id) return;
      found = true;
      total = blob.data.size();
      if (offset < blob.data.size()) bytes = std::string(blob.data.substr(offset, size));
      request_stop();
    }
  } finder;
  finder.id = id;
  finder.offset = offset;
  finder.size = size;
  format::RecordDecoder decoder;
  decoder.decode_chunk(*data, finder);
  if (!finder.found) throw QueryError{404, "blob " + std::to_string(id) + " not found"};
  *total = finder.total;
  return std::move(finder.bytes);
}

void TraceModel::for_frame_calls(uint64_t number, uint64_t first, uint64_t count,
                                 const std::function<void(const CallRef&)>& visit) const {
  FrameInfo f = frame(number);
  if (first >= f.calls) return;
  uint64_t lo = f.first_index + first;
  uint64_t hi = f.first_index + std::min(f.calls, first + count);
  impl_->walk(lo, hi, [&](const CallRef& ref) {
    visit(ref);
    return true;
  });
}

void TraceModel::for_frame_positions(uint64_t number, std::span<const uint32_t> positions,
                                     const std::function<void(const CallRef&)>& visit) const {
  FrameInfo f = frame(number);
  size_t i = 0;
  while (i < positions.size()) {
    uint64_t first = f.first_index + positions[i];
    uint64_t chunk_end;
    {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      const ChunkInfo& c = impl_->chunks[impl_->chunk_of_index(first)];
      chunk_end = c.first_index + c.calls;
    }
    size_t j = i;
    while (j < positions.size() && f.first_index + positions[j] < chunk_end) ++j;
    if (j == i) ++j;  // a position past the chunks: walked alone (nothing there)
    std::span<const uint32_t> run = positions.subspan(i, j - i);
    impl_->walk(first, f.first_index + run.back() + 1, [&](const CallRef& ref) {
      if (std::binary_search(run.begin(), run.end(), static_cast<uint32_t>(ref.pos))) visit(ref);
      return true;
    });
    i = j;
  }
}

Regex TraceModel::compile_regex(const std::string& text) {
  if (text.size() > kMaxRegex)
    throw QueryError{400,
                     "regular expression longer than " + std::to_string(kMaxRegex) + " characters"};
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(text, options);
  if (!re->ok()) throw QueryError{400, "bad regular expression '" + text + "': " + re->error()};
  return re;
}

bool TraceModel::regex_matches(const Regex& re, const std::string& text) {
  return re2::RE2::PartialMatch(text, *re);
}

std::string TraceModel::match_text(const format::Call& call,
                                   const std::function<uint64_t(uint64_t)>& blob_size) {
  consumers::BlobSizes sizes;
  for (const format::Value& v : call.args)
    if (v.kind == format::ValueKind::kBlob) {
      uint64_t size = blob_size(v.blob);
      if (size != 0) sizes[v.blob] = size;
    }
  std::string text;
  consumers::format_call(text, call, sizes);
  if (text.size() > kMaxMatchText) text.resize(kMaxMatchText);
  return text;
}

std::shared_ptr<const std::vector<uint32_t>> TraceModel::filtered_positions(
    uint64_t number, const CallFilter& filter) const {
  Impl& d = *impl_;
  Impl::FilterKey key{number, filter.regex, filter.thread, filter.context};
  {
    std::lock_guard<std::mutex> lock(d.filter_mutex);
    for (auto it = d.filters.begin(); it != d.filters.end(); ++it)
      if (it->first == key) {
        d.filters.splice(d.filters.end(), d.filters, it);
        return d.filters.back().second;
      }
  }
  Regex re;
  if (!filter.regex.empty()) re = compile_regex(filter.regex);
  FrameInfo f = frame(number);
  auto positions = std::make_shared<std::vector<uint32_t>>();
  auto size_of = [this](uint64_t id) { return blob_size(id); };
  d.walk(f.first_index, f.first_index + f.calls, [&](const CallRef& ref) {
    if (filter.thread && ref.call.thread != *filter.thread) return true;
    if (filter.context && ref.call.context != *filter.context) return true;
    if (re && !regex_matches(re, match_text(ref.call, size_of))) return true;
    positions->push_back(static_cast<uint32_t>(ref.pos));
    return true;
  });
  positions->shrink_to_fit();
  std::lock_guard<std::mutex> lock(d.filter_mutex);
  d.filters.emplace_back(key, positions);
  size_t bytes = 0;
  for (const auto& entry : d.filters) bytes += entry.second->size() * sizeof(uint32_t);
  while (bytes > d.limits.filter_cache_bytes && d.filters.size() > 1) {
    bytes -= d.filters.front().second->size() * sizeof(uint32_t);
    d.filters.pop_front();
  }
  return positions;
}

void TraceModel::find_call(uint64_t seq, const std::function<void(const CallRef&)>& visit) const {
  Impl& d = *impl_;
  // Seqs grow in file order but for threads writing at once: a call is in
  // one of the few chunks whose seq range holds it.
  std::vector<uint32_t> candidates;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    for (uint32_t c = 0; c < d.chunks.size(); ++c)
      if (d.chunks[c].calls != 0 && d.chunks[c].min_seq <= seq && seq <= d.chunks[c].max_seq)
        candidates.push_back(c);
  }
  for (uint32_t c : candidates) {
    ChunkInfo chunk;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      chunk = d.chunks[c];
    }
    bool found = false;
    d.walk(chunk.first_index, chunk.first_index + chunk.calls, [&](const CallRef& ref) {
      if (ref.call.seq != seq) return true;
      found = true;
      visit(ref);
      return false;
    });
    if (found) return;
  }
  throw QueryError{404, "no call " + std::to_string(seq) + " in the trace"};
}

TraceModel::CallMatch TraceModel::text_matches(const std::string& regex) const {
  auto re = std::make_shared<Regex>(compile_regex(regex));
  return [this, re](const CallRef& ref) {
    return regex_matches(*re, match_text(ref.call, [this](uint64_t id) { return blob_size(id); }));
  };
}

std::optional<std::pair<uint64_t, uint64_t>> TraceModel::find_next(const CallMatch& matches,
                                                                   uint64_t after,
                                                                   bool backward) const {
  Impl& d = *impl_;
  uint64_t start_index = backward ? UINT64_MAX : 0;  // exclusive bound
  uint64_t total;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    total = d.chunks.empty() ? 0 : d.chunks.back().first_index + d.chunks.back().calls;
  }
  if (after != UINT64_MAX) {
    bool known = false;
    try {
      find_call(after, [&](const CallRef& ref) {
        start_index = ref.index;
        known = true;
      });
    } catch (const QueryError&) {
    }
    if (!known) throw QueryError{404, "no call " + std::to_string(after) + " in the trace"};
  }
  std::optional<std::pair<uint64_t, uint64_t>> found;
  if (!backward) {
    uint64_t lo = after == UINT64_MAX ? 0 : start_index + 1;
    d.walk(lo, total, [&](const CallRef& ref) {
      if (!matches(ref)) return true;
      found.emplace(ref.call.seq, ref.frame);
      return false;
    });
    return found;
  }
  // Backward: chunk by chunk from the end, the last match in each (whole
  // chunks: a window inside one would decode the chunk from its start
  // again for every window).
  uint64_t hi = std::min(start_index, total);
  while (hi > 0 && !found) {
    uint64_t lo;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      lo = d.chunks[d.chunk_of_index(hi - 1)].first_index;
    }
    d.walk(lo, hi, [&](const CallRef& ref) {
      if (matches(ref)) found.emplace(ref.call.seq, ref.frame);
      return true;
    });
    hi = lo;
  }
  return found;
}

void TraceModel::for_time_range(uint64_t start_ns, uint64_t end_ns, uint64_t max_calls,
                                bool* truncated,
                                const std::function<void(const CallRef&)>& visit) const {
  Impl& d = *impl_;
  *truncated = false;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    for (const ChunkInfo& c : d.chunks)
      if (c.calls != 0 && c.min_start_ns < end_ns && c.max_end_ns >= start_ns)
        ranges.emplace_back(c.first_index, c.first_index + c.calls);
  }
  uint64_t visited = 0;
  for (auto [lo, hi] : ranges) {
    d.walk(lo, hi, [&](const CallRef& ref) {
      const format::Call& call = ref.call;
      if (call.start_ns >= end_ns || call.start_ns + call.duration_ns < start_ns) return true;
      if (visited == max_calls) {
        *truncated = true;
        return false;
      }
      ++visited;
      visit(ref);
      return true;
    });
    if (*truncated) return;
  }
}

size_t TraceModel::Impl::find_gpu_work(uint64_t seq) const {
  if (gpu_work_by_seq) {
    auto it = std::lower_bound(gpu_work.begin(), gpu_work.end(), seq,
                               [](const GpuWork& w, uint64_t s) { return w.seq < s; });
    return it != gpu_work.end() && it->seq == seq ? static_cast<size_t>(it - gpu_work.begin())
                                                  : gpu_work.size();
  }
  size_t stop = gpu_work.size() > kGpuLookback ? gpu_work.size() - kGpuLookback : 0;
  for (size_t i = gpu_work.size(); i > stop; --i)
    if (gpu_work[i - 1].seq == seq) return i - 1;
  return gpu_work.size();
}

std::optional<uint64_t> TraceModel::Impl::gpu_to_trace_time(uint64_t gpu_ns) const {
  if (gpu_clocks.empty()) return std::nullopt;
  // The pairs come in time order: the last one at or before gpu_ns (else the first).
  auto it = std::upper_bound(gpu_clocks.begin(), gpu_clocks.end(), gpu_ns,
                             [](uint64_t g, const format::GpuClock& c) { return g < c.gpu_ns; });
  const format::GpuClock& c = it == gpu_clocks.begin() ? *it : *std::prev(it);
  int64_t t = static_cast<int64_t>(c.time_ns) +
              (static_cast<int64_t>(gpu_ns) - static_cast<int64_t>(c.gpu_ns));
  return t < 0 ? 0 : static_cast<uint64_t>(t);
}

namespace {

// [lo, hi) of a frame's GPU-work calls (the table is in file order).
std::pair<size_t, size_t> gpu_range_of_frame(const std::deque<GpuWork>& work, uint64_t frame) {
  auto lo = std::lower_bound(work.begin(), work.end(), frame,
                             [](const GpuWork& w, uint64_t f) { return w.frame < f; });
  auto hi = std::upper_bound(lo, work.end(), frame,
                             [](uint64_t f, const GpuWork& w) { return f < w.frame; });
  return {static_cast<size_t>(lo - work.begin()), static_cast<size_t>(hi - work.begin())};
}

std::string_view gpu_function_name(uint16_t function) {
  if (function < api::kFunctionIdLimit && api::kFunctionInfo[function].name != nullptr)
    return api::kFunctionInfo[function].name;
  return {};
}

}  // namespace

std::vector<GpuWork> TraceModel::gpu_work_of_frame(uint64_t number) const {
  frame(number);  // 404 when unknown
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto [lo, hi] = gpu_range_of_frame(impl_->gpu_work, number);
  return {impl_->gpu_work.begin() + static_cast<std::ptrdiff_t>(lo),
          impl_->gpu_work.begin() + static_cast<std::ptrdiff_t>(hi)};
}

GpuTopPage TraceModel::gpu_top(std::optional<uint64_t> frame_number, const std::string& key,
                               bool descending, uint64_t from, uint64_t count) const {
  using Less = bool (*)(const GpuWork&, const GpuWork&);
  Less less = nullptr;
  if (key == "gpu")
    less = [](const GpuWork& a, const GpuWork& b) {
      return a.gpu_ns != b.gpu_ns ? a.gpu_ns < b.gpu_ns : a.seq > b.seq;
    };
  else if (key == "cpu")
    less = [](const GpuWork& a, const GpuWork& b) {
      return a.dur_ns != b.dur_ns ? a.dur_ns < b.dur_ns : a.seq > b.seq;
    };
  else if (key == "function")
    less = [](const GpuWork& a, const GpuWork& b) {
      std::string_view x = gpu_function_name(a.function), y = gpu_function_name(b.function);
      return x != y ? x < y : a.gpu_ns < b.gpu_ns;
    };
  else if (key == "frame")
    less = [](const GpuWork& a, const GpuWork& b) {
      return a.frame != b.frame ? a.frame < b.frame : a.gpu_ns < b.gpu_ns;
    };
  else if (key == "call")
    less = [](const GpuWork& a, const GpuWork& b) { return a.seq < b.seq; };
  else
    throw QueryError{
        400, "sort must be gpu, cpu, function, frame or call, not '" + key.substr(0, 40) + "'"};
  if (frame_number) frame(*frame_number);  // 404 when unknown
  GpuTopPage page;
  std::vector<GpuWork> rows;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const auto& work = impl_->gpu_work;
    auto [lo, hi] = frame_number ? gpu_range_of_frame(work, *frame_number)
                                 : std::pair<size_t, size_t>{0, work.size()};
    for (size_t i = lo; i < hi; ++i)
      if (work[i].has_gpu && work[i].frame < impl_->visible_frames) rows.push_back(work[i]);
  }
  page.total = rows.size();
  for (const GpuWork& w : rows) page.gpu_ns += w.gpu_ns;
  if (from >= rows.size()) return page;
  auto order = [less, descending](const GpuWork& a, const GpuWork& b) {
    return descending ? less(b, a) : less(a, b);
  };
  uint64_t end = std::min<uint64_t>(rows.size(), from + count);
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(end), rows.end(),
                    order);
  page.rows.assign(rows.begin() + static_cast<std::ptrdiff_t>(from),
                   rows.begin() + static_cast<std::ptrdiff_t>(end));
  return page;
}

std::vector<GpuSpan> TraceModel::gpu_spans(uint64_t start_ns, uint64_t end_ns, uint64_t max,
                                           bool* truncated) const {
  const Impl& d = *impl_;
  *truncated = false;
  std::vector<GpuSpan> spans;
  std::lock_guard<std::mutex> lock(d.mutex);
  size_t visible = d.visible_frames;
  if (visible == 0 || d.gpu_work.empty()) return spans;
  // The frames overlapping the window, and the one before (its GPU work may
  // run into the window); frames follow each other in time.
  auto first =
      std::lower_bound(d.frames.begin(), d.frames.begin() + static_cast<std::ptrdiff_t>(visible),
                       start_ns, [](const FrameInfo& f, uint64_t t) { return f.end_ns < t; });
  uint64_t f0 = static_cast<uint64_t>(first - d.frames.begin());
  if (f0 > 0) --f0;
  size_t lo = gpu_range_of_frame(d.gpu_work, f0).first;
  for (size_t i = lo; i < d.gpu_work.size(); ++i) {
    const GpuWork& w = d.gpu_work[i];
    if (w.frame >= visible) break;
    if (w.frame > f0 + 1 && d.frames[w.frame].start_ns >= end_ns) break;
    if (!w.has_gpu) continue;
    std::optional<uint64_t> at;
    if (w.gpu_start_ns != 0) at = d.gpu_to_trace_time(w.gpu_start_ns);
    uint64_t s = at.value_or(w.start_ns);
    if (s >= end_ns || s + w.gpu_ns < start_ns) continue;
    if (spans.size() == max) {
      *truncated = true;
      break;
    }
    spans.push_back({w.seq, s, w.gpu_ns, w.function, at.has_value()});
  }
  return spans;
}

uint64_t TraceModel::merge_gpu_times(const std::vector<std::pair<uint64_t, uint64_t>>& times) {
  Impl& d = *impl_;
  std::lock_guard<std::mutex> lock(d.mutex);
  for (GpuWork& w : d.gpu_work) w.has_gpu = false, w.gpu_ns = 0, w.gpu_start_ns = 0;
  for (FrameInfo& f : d.frames) f.gpu_ns = 0, f.gpu_calls = 0;
  d.summary.gpu_ns = 0;
  d.summary.gpu_calls = 0;
  std::unordered_map<uint64_t, size_t> by_seq;
  if (!d.gpu_work_by_seq) {
    by_seq.reserve(d.gpu_work.size());
    for (size_t i = 0; i < d.gpu_work.size(); ++i) by_seq.emplace(d.gpu_work[i].seq, i);
  }
  uint64_t matched = 0;
  for (auto [seq, ns] : times) {
    size_t i = d.gpu_work.size();
    if (d.gpu_work_by_seq) {
      i = d.find_gpu_work(seq);
    } else if (auto it = by_seq.find(seq); it != by_seq.end()) {
      i = it->second;
    }
    if (i == d.gpu_work.size() || d.gpu_work[i].has_gpu) continue;
    GpuWork& w = d.gpu_work[i];
    w.has_gpu = true;
    w.gpu_ns = ns;
    if (w.frame < d.frames.size()) d.frames[w.frame].gpu_ns += ns, ++d.frames[w.frame].gpu_calls;
    d.summary.gpu_ns += ns;
    ++d.summary.gpu_calls;
    ++matched;
  }
  d.summary.gpu_source = matched != 0 ? "replay" : "";
  return matched;
}

size_t TraceModel::gpu_clock_pairs() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->gpu_clocks.size();
}

}  // namespace gltrace::view
