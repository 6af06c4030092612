#include "glreplay/trace_source.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <new>
#include <unordered_set>
#include <utility>

#include "consumers/frame_end.h"
#include "gltrace/api/functions.h"

#ifndef EGL_EGL_PROTOTYPES
#define EGL_EGL_PROTOTYPES 0
#endif
#include <EGL/egl.h>

namespace gltrace::glreplay {

using format::ValueKind;

// --- TraceInfo -----------------------------------------------------------------

void TraceInfo::add_context(ContextInfo context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!capture_driver_ && !context.gl_renderer.empty())
    capture_driver_ = DriverStrings{"", context.gl_renderer, context.gl_version};
  if (context.surface_width != 0 && context.surface_height != 0) last_sized_ = context;
  contexts_[context.index] = std::move(context);
}

std::optional<ContextInfo> TraceInfo::context(uint32_t index) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(index);
  if (it == contexts_.end()) return std::nullopt;
  return it->second;
}

std::optional<ContextInfo> TraceInfo::last_sized_context() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_sized_;
}

std::optional<DriverStrings> TraceInfo::capture_driver() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return capture_driver_;
}

void TraceInfo::add_image(const ImageKey& key, FrameImage image) {
  std::lock_guard<std::mutex> lock(mutex_);
  images_[key] = std::move(image);
  ever_had_images_ = true;
}

std::optional<FrameImage> TraceInfo::take_image(const ImageKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = images_.find(key);
  if (it == images_.end()) return std::nullopt;
  FrameImage image = std::move(it->second);
  images_.erase(it);
  return image;
}

void TraceInfo::add_snapshot_inexact(uint64_t seq, std::string what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!last_inexact_seq_ || seq > *last_inexact_seq_) {
    ++inexact_count_;
    last_inexact_seq_ = seq;
  }
  if (snapshot_inexact_.size() >= kInexactKept && snapshot_inexact_.count(seq) == 0) return;
  if (what.size() > kInexactText) {
    what.resize(kInexactText);
    what += "...";
  }
  snapshot_inexact_[seq] = std::move(what);
}

uint64_t TraceInfo::snapshot_inexact_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return inexact_count_;
}

std::vector<std::string> TraceInfo::snapshot_inexact() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> list;
  for (const auto& [seq, what] : snapshot_inexact_) list.push_back(what);
  return list;
}

bool TraceInfo::has_images() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ever_had_images_;
}

size_t TraceInfo::images_left() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return images_.size();
}

void TraceInfo::add_frame(uint32_t thread, uint64_t number) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t& read = frames_read_[thread];
  read = std::max(read, number + 1);
}

bool TraceInfo::frame_settled(uint64_t frame, uint32_t thread) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = frames_read_.find(thread);
  // A swap image is completed at the thread's next frame end: with the
  // Frame record of the one after that read, its images are all in.
  return it != frames_read_.end() && it->second > frame + 2;
}

// --- blobs -----------------------------------------------------------------------

// Every blob met so far, by id: a call may refer to any earlier one. Memory
// follows use: a blob no call has referred to yet is kept only while it is
// among the last kUnreferencedBytes of such blobs (its first call follows
// it, often in its thread's next chunk); the blobs calls referred to are
// kept up to blob_memory bytes (shared with the calls using them, so a blob
// lives as long as either needs it). Past either, the least recently met or
// used are dropped, and read again from their chunk when a call needs them.
class TraceSource::BlobStore {
 public:
  // What blobs no call referred to yet may hold: two chunks' worth.
  static constexpr uint64_t kUnreferencedBytes = uint64_t{128} << 20;

  BlobStore(std::string path, uint64_t budget, std::atomic<uint64_t>& read_again)
      : path_(std::move(path)), budget_(budget), read_again_(read_again) {}

  void add(uint64_t id, std::string_view data, uint64_t chunk_offset) {
    Entry& e = entries_[id];
    unlist(e);
    e.chunk_offset = chunk_offset;
    keep(id, e, std::make_shared<const std::string>(data));
  }

  // The blob's bytes; null when the trace never had it, or reading it again failed.
  Bytes get(uint64_t id) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return nullptr;
    Entry& e = it->second;
    if (e.data != nullptr && e.referenced) {
      used_.splice(used_.end(), used_, e.use);  // now the most recently used
      return e.data;
    }
    Bytes data = e.data;  // kept unreferenced: moves to the used ones
    if (data != nullptr) {
      unlist(e);
    } else {
      data = read_again(id, e.chunk_offset);
      if (data == nullptr) return nullptr;
      ++read_again_;
    }
    e.referenced = true;
    keep(id, e, data);
    return data;
  }

  bool has(uint64_t id) const { return entries_.count(id) != 0; }

 private:
  struct Entry {
    Bytes data;  // null while dropped
    uint64_t chunk_offset = 0;
    bool referenced = false;            // a call has referred to it
    std::list<uint64_t>::iterator use;  // in used_ or unreferenced_, while data is kept
  };

  // Its list, and the bytes kept in it.
  std::list<uint64_t>& list_of(const Entry& e) { return e.referenced ? used_ : unreferenced_; }
  uint64_t& resident_of(const Entry& e) {
    return e.referenced ? resident_ : unreferenced_resident_;
  }

  // Drops what is kept of the blob.
  void unlist(Entry& e) {
    if (e.data == nullptr) return;
    list_of(e).erase(e.use);
    resident_of(e) -= e.data->size();
    e.data.reset();
  }

  // Keeps the bytes of a blob that has none kept.
  void keep(uint64_t id, Entry& e, Bytes data) {
    e.data = std::move(data);
    std::list<uint64_t>& list = list_of(e);
    uint64_t& resident = resident_of(e);
    uint64_t budget = e.referenced ? budget_ : kUnreferencedBytes;
    e.use = list.insert(list.end(), id);
    resident += e.data->size();
    // The blob just kept stays, however big: its call needs it, or comes next.
    while (resident > budget && list.front() != id) {
      Entry& old = entries_[list.front()];
      resident -= old.data->size();
      old.data.reset();
      list.pop_front();
    }
  }
  // Decodes the blob's chunk again, with a reader and decoder of its own.
  Bytes read_again(uint64_t id, uint64_t chunk_offset) {
    struct Finder : format::Consumer {
      uint64_t id = 0;
      Bytes found;
      void on_blob(const format::Blob& blob) override {
        if (blob.id != id) return;
        found = std::make_shared<const std::string>(blob.data);
        request_stop();
      }
    } finder;
    finder.id = id;
    if (reader_ == nullptr) {
      reader_ = std::make_unique<format::ChunkReader>();
      if (!reader_->open(path_)) return nullptr;
    }
    format::ChunkView chunk;
    if (!reader_->seek(chunk_offset) || !reader_->next(&chunk)) return nullptr;
    decoder_.decode_chunk(chunk.payload, finder);
    return finder.found;
  }

  std::string path_;
  uint64_t budget_;
  std::atomic<uint64_t>& read_again_;
  std::unordered_map<uint64_t, Entry> entries_;
  std::list<uint64_t> used_;  // ids of the kept blobs calls referred to, least recently used first
  uint64_t resident_ = 0;
  std::list<uint64_t> unreferenced_;  // ids of the other kept blobs, oldest first
  uint64_t unreferenced_resident_ = 0;
  std::unique_ptr<format::ChunkReader> reader_;
  format::RecordDecoder decoder_;
};

// --- the decoder's consumer ------------------------------------------------------

// Copies each decoded record out of the chunk buffer into what outlives it.
class TraceSource::Collector : public format::Consumer {
 public:
  Collector(TraceInfo& info, const SourceOptions& options, BlobStore& blobs,
            std::deque<replay::Increment>& out, std::vector<SeqGap>& gaps, MoreGaps& more_gaps)
      : info_(info),
        options_(options),
        blobs_(blobs),
        out_(out),
        gaps_(gaps),
        more_gaps_(more_gaps) {}
  ~Collector() override {
    if (memory_ != nullptr) memory_->seal();
  }
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  void on_header(const format::Header& header) override {
    info_.set_mid_run(header.mid_run);
    flight_recorder_ = header.flight_recorder;
    // "framebuffer=swap", "framebuffer=draw" or "framebuffer=swap,draw".
    std::string_view options = header.capture_options;
    size_t framebuffer = options.find("framebuffer=");
    if (framebuffer != std::string_view::npos) {
      std::string_view when = options.substr(framebuffer + 12);
      when = when.substr(0, when.find(' '));
      if (when.find("swap") != std::string_view::npos) info_.set_frame_images();
      if (when.find("draw") != std::string_view::npos) info_.set_draw_images();
    }
  }

  void on_frame(const format::Frame& frame) override {
    info_.add_frame(frame.thread, frame.number);
  }

  // The offset of the chunk being decoded (where its blobs can be read again).
  void set_chunk_offset(uint64_t offset) { chunk_offset_ = offset; }

  void on_blob(const format::Blob& blob) override { blobs_.add(blob.id, blob.data, chunk_offset_); }

  void on_context(const format::Context& c) override {
    ContextInfo info;
    info.index = c.index;
    info.handle = c.handle;
    info.client_version = c.client_version;
    info.config_attribs = c.config_attribs;
    info.surface_width = c.surface_width;
    info.surface_height = c.surface_height;
    info.gl_renderer = c.gl_renderer.substr(0, kDriverText);
    info.gl_version = c.gl_version.substr(0, kDriverText);
    info_.add_context(std::move(info));
  }

  void on_image(const format::Image& image) override {
    if (!options_.keep_images) return;
    std::optional<ImageOrigin> origin = parse_origin(image.origin);
    if (!origin.has_value()) return;
    // Live tracing may switch captures on mid-run.
    if (*origin == ImageOrigin::kDraw)
      info_.set_draw_images();
    else
      info_.set_frame_images();
    Bytes pixels = blobs_.get(image.blob);
    if (pixels != nullptr && pixels->size() == uint64_t{image.width} * image.height * 4)
      info_.add_image({image.seq, *origin},
                      FrameImage{image.width, image.height, std::move(pixels)});
  }

  // Before decoding on, once the calls sent have all been taken.
  void next_batch() {
    sent_ = 0;
    clear_stop_request();
  }

  // Recorded threads given a replay thread of their own so far (the main one included).
  size_t replay_threads() const { return main_thread_ ? lanes_.size() + 1 : 0; }

  // Why the trace cannot be replayed, when the decoder was stopped for it.
  const std::optional<std::string>& refused() const { return refused_; }

  void on_call(const format::Call& c) override {
    // The call and its values in one piece of CallMemory, sized first. The
    // decoder's values are the call's: copied whole, then what they point to
    // in the chunk or the decoder's memory (few do) is copied after them.
    size_t size = round16(sizeof(ReplayCall)) + round16(sizeof(Value) * c.args.size());
    size_t blobs = 0;     // kBlob values, each holding its blob's bytes once resolved
    bool points = false;  // any value points out
    auto add_extra = [&](const Value& v) {
      if (!points_out(v)) return;
      points = true;
      size += extra_size(v);
      if (v.kind == ValueKind::kBlob) ++blobs;
    };
    for (const Value& v : c.args) add_extra(v);
    if (c.ret != nullptr) add_extra(*c.ret);
    const bool rare = !c.client_arrays.empty() || !c.buffer_writes.empty() ||
                      c.config_attribs != nullptr || c.image_source != nullptr;
    size_t config_attribs = c.config_attribs != nullptr ? c.config_attribs->size() : 0;
    if (rare) [[unlikely]]
      size += round16(sizeof(ClientArray) * c.client_arrays.size()) +
              round16(sizeof(BufferWrite) * c.buffer_writes.size()) +
              round16(sizeof(int64_t) * config_attribs) +
              (c.image_source != nullptr ? round16(sizeof(ImageSource)) : 0);
    size += round16(sizeof(Bytes) * blobs);
    Carver carve{static_cast<std::byte*>(place(size))};
    replay::PayloadPtr payload(new (carve.take(sizeof(ReplayCall))) ReplayCall);
    ReplayCall* call = static_cast<ReplayCall*>(payload.get());
    call->memory = memory_;
    call->placed_bytes = size;
    call->function = c.function;
    call->thread = c.thread;
    call->context = c.context;
    call->seq = c.seq;
    call->snapshot = c.snapshot;
    if (!c.snapshot_inexact.empty()) [[unlikely]]
      info_.add_snapshot_inexact(c.seq, std::string(c.snapshot_inexact));
    call->surface_width = c.surface_width;
    call->surface_height = c.surface_height;
    auto* args = static_cast<Value*>(carve.take(sizeof(Value) * c.args.size()));
    // Most calls have a value or two: copied here, not by a libc memcpy
    // through the PLT, which costs more than the copy.
    for (size_t i = 0; i < c.args.size(); ++i) new (&args[i]) Value(c.args[i]);
    if (c.ret != nullptr) {
      call->ret = *c.ret;
      call->has_ret = true;
    }
    call->args = {args, c.args.size()};
    if (points) [[unlikely]] {
      auto* blob_bytes = static_cast<Bytes*>(carve.take(sizeof(Bytes) * blobs));
      for (size_t i = 0; i < c.args.size(); ++i)
        if (points_out(args[i])) own(args[i], carve, *call, blob_bytes);
      if (call->has_ret && points_out(call->ret)) own(call->ret, carve, *call, blob_bytes);
    }
    if (!rare) [[likely]] {
      push(make_increment(c, std::move(payload)));
      return;
    }
    auto* arrays =
        static_cast<ClientArray*>(carve.take(sizeof(ClientArray) * c.client_arrays.size()));
    for (size_t i = 0; i < c.client_arrays.size(); ++i) {
      const format::ClientArray& a = c.client_arrays[i];
      new (&arrays[i]) ClientArray{a.index, a.first, a.stride, bytes(a.data, a.blob), a.array};
      call->client_arrays = {arrays, i + 1};
    }
    auto* writes =
        static_cast<BufferWrite*>(carve.take(sizeof(BufferWrite) * c.buffer_writes.size()));
    for (size_t i = 0; i < c.buffer_writes.size(); ++i) {
      const format::BufferWrite& w = c.buffer_writes[i];
      new (&writes[i]) BufferWrite{w.target, w.offset, bytes(w.data, w.blob), w.buffer};
      call->buffer_writes = {writes, i + 1};
    }
    if (config_attribs != 0) {
      auto* attribs = static_cast<int64_t*>(carve.take(sizeof(int64_t) * config_attribs));
      memcpy(attribs, c.config_attribs->data(), sizeof(int64_t) * config_attribs);
      call->config_attribs = {attribs, config_attribs};
    }
    if (const format::ImageSource* source = c.image_source; source != nullptr) {
      auto* image = new (carve.take(sizeof(ImageSource))) ImageSource;
      call->image_source = image;
      image->width = source->width;
      image->height = source->height;
      if (source->blob != 0) {
        image->pixels = bytes({}, source->blob);
        if (image->pixels == nullptr) image->not_captured = "its pixels are missing from the trace";
      } else {
        image->not_captured =
            source->not_captured.empty() ? "no reason recorded" : std::string(source->not_captured);
      }
    }
    push(make_increment(c, std::move(payload)));
  }

  static replay::Increment make_increment(const format::Call& c, replay::PayloadPtr payload) {
    replay::Increment increment;
    increment.index = c.seq;
    increment.timestamp_ns = c.start_ns;
    increment.target = c.thread;  // routed when it leaves, in seq order
    // The frames every command counts (consumers::ends_frame).
    increment.ends_frame = consumers::ends_frame(c);
    increment.payload = std::move(payload);
    return increment;
  }

  // Every seq below this is in the chunks read so far: a call still
  // missing there was lost, and the calls after it need not wait.
  void on_calls_complete(const format::CallsComplete& complete) override {
    if (complete.below_seq <= complete_below_) return;
    complete_below_ = complete.below_seq;
    release(false);
    if (held_.empty() && expected_ < complete_below_) {
      // Nothing came after the lost calls yet: the gap ends at the watermark at least.
      note_gap(expected_, complete_below_ - 1, true);
      expected_ = complete_below_;
    }
  }

  // Every call held back, in seq order (at the end of the trace, or at its
  // damage: what is missing will not come). closed_cleanly: the capture
  // ended normally, so nothing missing was cut off.
  void release_all(bool closed_cleanly) {
    closed_cleanly_ = closed_cleanly;
    release(true);
  }

 private:
  // Calls leave in seq order. Seqs count every call of every thread from 0,
  // and each thread's calls reach the file in order, in chunks of their own:
  // a call whose predecessors have all come out goes out at once (always so
  // with one thread); the others wait, per thread, for the calls before them.
  void push(replay::Increment&& increment) {
    if (held_.empty() && increment.index == expected_) [[likely]] {
      ++expected_;
      send(std::move(increment));
      return;
    }
    hold(std::move(increment));
  }

  // Out of line: most calls go straight through push().
  [[gnu::noinline]] void hold(replay::Increment&& increment) {
    // Equal seqs (a damaged trace) keep their file order.
    held_.emplace(increment.index, std::move(increment));
    release(false);
  }

  void release(bool all) {
    while (!held_.empty() && !refused_) {
      auto first = held_.begin();
      // A gap in the seqs (a call of a thread whose chunk comes later) holds
      // everything after it back, unless the trace said those calls are lost
      // or too many calls wait for them.
      uint64_t index = first->first;
      if (index > expected_) {
        if (!all && index >= complete_below_ && held_.size() <= kMaxHeldCalls) return;
        note_gap(expected_, index - 1, index <= complete_below_ || closed_cleanly_);
      }
      expected_ = std::max(expected_, index + 1);
      send(std::move(first->second));
      held_.erase(first);
    }
  }

  // Routes a call that leaves in seq order to its replay thread (the
  // increment's target). A recorded thread gets a replay thread of its own
  // once it has a context current (it makes one current, or was recorded
  // with one: a capture that began mid-run), or binds an API other than
  // OpenGL ES, which its contexts are then made with. Until then its calls
  // run on the first recorded thread's (the main thread), which
  // GlExecutor::execute knows by the target not being the call's thread:
  // they cannot touch that thread's EGL state. So a trace of many threads
  // that never draw starts no threads, and only kMaxReplayThreads threads
  // with contexts are replayed.
  void send(replay::Increment&& increment) {
    if (refused_) return;
    const auto& call = static_cast<const ReplayCall&>(*increment.payload);
    if (!main_thread_) main_thread_ = call.thread;
    bool own = call.thread == *main_thread_ || lanes_.count(call.thread) != 0;
    if (!own && takes_thread(call)) {
      if (lanes_.size() + 1 >= kMaxReplayThreads) {
        refused_ = "call " + std::to_string(call.seq) + ": recorded thread " +
                   std::to_string(call.thread) +
                   " has a context and would need a replay thread of its own, the " +
                   std::to_string(kMaxReplayThreads + 1) + "th: replay runs at most " +
                   std::to_string(kMaxReplayThreads) + " threads";
        request_stop();
        return;
      }
      lanes_.insert(call.thread);
      own = true;
    }
    increment.target = own ? call.thread : *main_thread_;
    out_.push_back(std::move(increment));
    // Decoding goes on when these calls are taken: reading ahead is the
    // replay's ReadAheadSource's alone, so calls are not held a chunk's
    // worth here and a ring's worth there. A batch, not a call: stopping and
    // resuming the decoder per call cost ~45 instructions a call. Counted
    // here: a deque's size() is a dozen instructions.
    if (++sent_ >= kDecodeBatch) request_stop();
  }

  static bool takes_thread(const ReplayCall& call) {
    if (call.context != 0) return true;
    // Handles are recorded as integers or pointers; union members alike.
    auto handle = [&call](size_t i) -> uint64_t {
      if (call.args.size() <= i) return 0;
      const Value& v = call.args[i];
      return v.kind == ValueKind::kUint || v.kind == ValueKind::kSint ||
                     v.kind == ValueKind::kPointer
                 ? v.uint
                 : 0;
    };
    if (call.function == api::kFn_eglMakeCurrent) return handle(3) != 0;
    if (call.function == api::kFn_eglBindAPI) return handle(0) != EGL_OPENGL_ES_API;
    return false;
  }

  // Lists the first kMaxGapsListed gaps; the others are only counted (a
  // trace of calls 0, 2, 4... must not make a list as long as itself).
  void note_gap(uint64_t first, uint64_t last, bool while_recording) {
    if (flight_recorder_) return;  // its gaps are the rounds it did not keep
    SeqGap gap{first, last, while_recording};
    if (gaps_.size() < kMaxGapsListed) {
      gaps_.push_back(gap);
      fprintf(stderr, "glreplay: warning: %s\n", describe_gap(gap).c_str());
      return;
    }
    ++more_gaps_.gaps;
    more_gaps_.calls += last - first + 1;
    more_gaps_.while_recording = more_gaps_.while_recording || while_recording;
  }

  // Inline bytes or a blob's; null when the blob is not in the trace.
  Bytes bytes(std::string_view data, uint64_t blob) {
    if (blob == 0) return std::make_shared<const std::string>(data);
    return blobs_.get(blob);
  }

  static constexpr size_t round16(size_t n) { return (n + 15) & ~size_t{15}; }
  static constexpr size_t kMissingBlobReason = 64;

  // Hands out consecutive 16-byte aligned pieces of memory already sized.
  struct Carver {
    std::byte* next;
    void* take(size_t size) {
      void* at = next;
      next += round16(size);
      return at;
    }
  };

  // Memory for one call and its values, in memory_ (a new one if it is full).
  void* place(size_t size) {
    void* at = memory_ != nullptr ? memory_->place(size, 16) : nullptr;
    if (at == nullptr) {
      if (memory_ != nullptr) memory_->seal();
      memory_ = CallMemory::create(std::max(kMemoryBlock, size));
      at = memory_->place(size, 16);
    }
    return at;
  }

  // Whether v's data is outside it (bytes, text, elements; a blob to resolve).
  static bool points_out(const Value& v) { return v.kind >= ValueKind::kData; }
  static_assert(ValueKind::kData < ValueKind::kBlob && ValueKind::kBlob < ValueKind::kText &&
                ValueKind::kText < ValueKind::kUnknown &&
                ValueKind::kUnknown < ValueKind::kStrings &&
                ValueKind::kStrings < ValueKind::kArray);

  // What own() takes from the carver for v.
  size_t extra_size(const Value& v) const {
    switch (v.kind) {
      case ValueKind::kData:
      case ValueKind::kText:
      case ValueKind::kUnknown:
        return round16(v.size + 1);
      case ValueKind::kStrings: {
        size_t size = round16(sizeof(std::string_view) * v.size);
        for (std::string_view text : v.strings()) size += round16(text.size() + 1);
        return size;
      }
      case ValueKind::kArray:
        return round16(v.element_bytes());
      case ValueKind::kBlob:
        return blobs_.has(v.blob) ? 0 : kMissingBlobReason;
      default:
        return 0;
    }
  }

  // Bytes followed by a NUL (text is used as a C string).
  static void text_copy(std::string_view text, Carver& carve, Value& out) {
    auto* chars = static_cast<char*>(carve.take(text.size() + 1));
    if (!text.empty()) memcpy(chars, text.data(), text.size());
    chars[text.size()] = '\0';
    out.data = chars;
    out.size = text.size();
  }

  // Makes v's data the call's: copies it into the call's memory, or
  // resolves its blob, whose bytes the call then holds (in blob_bytes, after
  // those it holds already).
  void own(Value& v, Carver& carve, ReplayCall& call, Bytes* blob_bytes) {
    switch (v.kind) {
      case ValueKind::kData:
      case ValueKind::kText:
      case ValueKind::kUnknown:
        text_copy(v.bytes(), carve, v);
        break;
      case ValueKind::kBlob: {
        uint64_t id = v.blob;
        if (Bytes data = blobs_.get(id)) {
          v.kind = ValueKind::kData;
          // std::string: NUL-terminated, malloc-aligned
          v.data = data->data();
          v.size = data->size();
          new (&blob_bytes[call.blobs.size()]) Bytes(std::move(data));
          call.blobs = {blob_bytes, call.blobs.size() + 1};
        } else {
          char reason[kMissingBlobReason];
          snprintf(reason, sizeof reason, "blob %016" PRIx64 " %s", id,
                   blobs_.has(id) ? "could not be read again" : "is missing from the trace");
          v.kind = ValueKind::kUnknown;
          v.pointer = 0;
          text_copy(reason, carve, v);
        }
        break;
      }
      case ValueKind::kStrings: {
        std::span<const std::string_view> from = v.strings();
        auto* strings =
            static_cast<std::string_view*>(carve.take(sizeof(std::string_view) * from.size()));
        Value text;
        for (size_t k = 0; k < from.size(); ++k) {
          text_copy(from[k], carve, text);
          new (&strings[k]) std::string_view(static_cast<const char*>(text.data), text.size);
        }
        v.data = strings;
        break;
      }
      case ValueKind::kArray: {
        size_t bytes = v.element_bytes();
        void* elements = carve.take(bytes);
        if (bytes != 0) memcpy(elements, v.data, bytes);
        v.data = elements;
        break;
      }
      default:
        break;
    }
  }

  static constexpr size_t kMemoryBlock = size_t{256} << 10;

  TraceInfo& info_;
  const SourceOptions& options_;
  BlobStore& blobs_;
  std::deque<replay::Increment>& out_;
  size_t sent_ = 0;  // to out_ since next_batch()
  uint64_t chunk_offset_ = 0;
  CallMemory* memory_ = nullptr;  // the calls go here; sealed when full or at the end
  // Calls waiting for earlier ones of other threads, by seq.
  std::multimap<uint64_t, replay::Increment> held_;
  uint64_t expected_ = 0;         // the seq that goes out next
  bool flight_recorder_ = false;  // Header.flight_recorder
  std::vector<SeqGap>& gaps_;
  MoreGaps& more_gaps_;
  uint64_t complete_below_ = 0;  // the last CallsComplete record's
  bool closed_cleanly_ = false;
  std::optional<uint32_t> main_thread_;  // the first call's recorded thread
  std::unordered_set<uint32_t> lanes_;   // the others with a replay thread
  std::optional<std::string> refused_;
};

// --- TraceSource -----------------------------------------------------------------

std::string describe_gap(const SeqGap& gap) {
  std::string calls = gap.first == gap.last ? "call " + std::to_string(gap.first) + " is"
                                            : "calls " + std::to_string(gap.first) + "-" +
                                                  std::to_string(gap.last) + " are";
  return calls + " missing from the trace" +
         (gap.while_recording ? " (lost while tracing: see the capture's warnings)"
                              : " (lost before the capture was cut)");
}

TraceSource::TraceSource(std::shared_ptr<TraceInfo> info, SourceOptions options)
    : info_(std::move(info)), options_(options) {}

TraceSource::~TraceSource() = default;

bool TraceSource::open(const std::string& path, std::string* error) {
  path_ = path;
  reader_ = std::make_unique<format::ChunkReader>();
  decoder_ = std::make_unique<format::RecordDecoder>();
  pending_.clear();
  gaps_.clear();
  deferred_error_.reset();
  resume_ = kNoChunk;
  ended_ = false;
  at_written_end_ = false;
  calls_ = 0;
  // A fresh consumer: one that met an error has asked the decoder to stop.
  collector_.reset();  // it refers to the old store
  blobs_ = std::make_unique<BlobStore>(path, options_.blob_memory, blobs_read_again_);
  more_gaps_ = {};
  collector_ = std::make_unique<Collector>(*info_, options_, *blobs_, pending_, gaps_, more_gaps_);
  if (!reader_->open(path)) {
    *error = path + ": " + reader_->status().message;
    return false;
  }
  return true;
}

// Decodes until an increment is pending, the trace ends or fails: the
// collector stops the decoder once kDecodeBatch calls are pending, and
// decoding goes on from there when they have been taken.
bool TraceSource::fill() {
  if (at_written_end_) {  // the file may have grown since
    at_written_end_ = false;
    if (!reader_->seek(resume_offset_)) {
      deferred_error_ = "cannot read on at offset " + std::to_string(resume_offset_) + ": " +
                        reader_->status().message;
      return false;
    }
  }
  while (pending_.empty() && !ended_ && !deferred_error_.has_value()) {
    if (resume_ == kNoChunk) {
      if (!reader_->next(&chunk_)) {
        const format::ReadStatus& status = reader_->status();
        if (options_.follow && !status.closed_cleanly &&
            (status.state == format::ReadState::kEnd ||
             status.state == format::ReadState::kCutShort)) {
          at_written_end_ = true;
          resume_offset_ = status.offset;
          break;
        }
        ended_ = true;
        // A cut-short trace replays up to its damage and then stops, as a
        // corrupt one does: the replay is not the whole recording.
        if (status.state != format::ReadState::kEnd) deferred_error_ = status.message;
        collector_->release_all(status.closed_cleanly);
        break;
      }
      collector_->set_chunk_offset(chunk_.offset);
      resume_ = 0;
    }
    collector_->next_batch();
    bool decoded = decoder_->decode_chunk(chunk_.payload, *collector_, &resume_);
    if (collector_->refused().has_value()) {
      char where[64];
      snprintf(where, sizeof where, "chunk at offset %" PRIu64 ": ", chunk_.offset);
      deferred_error_ = where + *collector_->refused();
      collector_->release_all(false);
    } else if (!decoded) {
      char where[96];
      snprintf(where, sizeof where, "chunk at offset %" PRIu64 ", byte %zu: ", chunk_.offset,
               decoder_->error_offset());
      deferred_error_ = where + decoder_->error();
      collector_->release_all(false);
    } else if (!collector_->stop_requested()) {
      resume_ = kNoChunk;  // the chunk is done
    }
  }
  return !pending_.empty();
}

replay::SourceResult TraceSource::next(replay::Increment* out, std::string* error) {
  if (reader_ == nullptr) {
    *error = "no trace is open";
    return replay::SourceResult::kError;
  }
  if (!pending_.empty() || fill()) {
    *out = std::move(pending_.front());
    pending_.pop_front();
    ++calls_;
    return replay::SourceResult::kIncrement;
  }
  if (deferred_error_.has_value()) {
    *error = path_ + ": " + *deferred_error_;
    return replay::SourceResult::kError;
  }
  return replay::SourceResult::kEnd;
}

bool TraceSource::rewind(std::string* error) { return open(path_, error); }

size_t TraceSource::replay_threads() const {
  return collector_ != nullptr ? collector_->replay_threads() : 0;
}

}  // namespace gltrace::glreplay
