#include "glreplay/trim.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "consumers/frame_end.h"
#include "format/reader.h"
#include "format/record_encoder.h"
#include "format/writer.h"
#include "glreplay/executor.h"
#include "glreplay/session.h"
#include "glreplay/snapshot.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/roles.h"
#include "replay/controller.h"

namespace gltrace::glreplay {
namespace {

using format::Value;
using format::ValueKind;

// Where each frame ends, as every reader counts frames
// (consumers/frame_end.h): its last call's seq, in seq order. The numbers
// the tracer wrote in Frame and Image records follow the order the swaps
// returned, which with threads swapping at once is not always seq order:
// a cut counts by seq, and numbers what it keeps so.
class FrameEnds {
 public:
  struct End {
    uint64_t seq = 0;
    uint32_t thread = 0;
    bool operator<(const End& other) const { return seq < other.seq; }
  };
  // The frame an image shows: its number (all().size(): a frame that never
  // ended) and, for a swap's or a finish's, the call that ended it.
  struct ImageFrame {
    uint64_t number = 0;
    std::optional<End> end;
  };

  void add(const format::Call& call) {
    all_.push_back(call.seq);
    by_context_[call.context].push_back({call.seq, call.thread});
  }
  void sort() {
    std::sort(all_.begin(), all_.end());
    for (auto& [context, ends] : by_context_) std::sort(ends.begin(), ends.end());
  }
  const std::vector<uint64_t>& all() const { return all_; }
  // The frame whose last call is `end_seq` (or the first ending after it).
  uint64_t frame_ending_at(uint64_t end_seq) const {
    return static_cast<uint64_t>(std::lower_bound(all_.begin(), all_.end(), end_seq) -
                                 all_.begin());
  }
  // Docs/trace-format.md, "Framebuffer images": a swap's image is ended by
  // its context's next frame end after the call it was read after, a
  // finish's by that glFinish, a draw's by the next frame end.
  ImageFrame frame_of(const format::Image& image) const {
    if (image.origin != "swap" && image.origin != "finish") return {frame_ending_at(image.seq), {}};
    auto it = by_context_.find(image.context);
    if (it == by_context_.end()) return {all_.size(), {}};
    const std::vector<End>& ends = it->second;
    auto end = std::lower_bound(ends.begin(), ends.end(),
                                End{image.seq + (image.origin == "swap" ? 1 : 0), 0});
    if (end == ends.end()) return {all_.size(), {}};
    return {frame_ending_at(end->seq), *end};
  }

 private:
  std::vector<uint64_t> all_;
  std::unordered_map<uint32_t, std::vector<End>> by_context_;
};

// What the cut keeps of the original: calls first_seq to last_seq, and the
// frames that end among them, first_frame up to (not with) end_frame.
struct Cut {
  uint64_t first_seq = 0;
  uint64_t last_seq = 0;
  uint64_t first_frame = 0;
  uint64_t end_frame = 0;
  std::string what;                 // "frames 3-7", "calls 100-900"
  const FrameEnds* ends = nullptr;  // the original's
};

// Pass 1: the trace's calls and where its frames end.
class FrameScan final : public format::Consumer {
 public:
  void on_call(const format::Call& call) override {
    first_seq_ = std::min(first_seq_, call.seq);
    last_seq_ = std::max(last_seq_, call.seq);
    if (consumers::ends_frame(call)) ends_.add(call);
    time_unit_ = std::gcd(time_unit_, std::gcd(call.start_ns, call.duration_ns));
  }
  void on_frame(const format::Frame& frame) override {
    time_unit_ = std::gcd(time_unit_, frame.time_ns);
  }
  bool wants_values(uint32_t /*function*/) const override { return false; }
  FrameEnds& frame_ends() {
    ends_.sort();
    return ends_;
  }
  uint64_t first_seq() const { return first_seq_; }
  uint64_t last_seq() const { return last_seq_; }
  // The largest unit every time is a multiple of: the capture's (the times
  // column's, format 3), so the cut keeps its times exactly in as few bytes.
  uint64_t time_unit_ns() const { return time_unit_ == 0 ? 1 : time_unit_; }

 private:
  FrameEnds ends_;
  uint64_t time_unit_ = 0;
  uint64_t first_seq_ = UINT64_MAX;
  uint64_t last_seq_ = 0;
};

// The handle a value holds (EGL handles are pointers or integers).
uint64_t handle_of(const Value& v) {
  return v.kind == ValueKind::kPointer || v.kind == ValueKind::kUint ? v.uint
         : v.kind == ValueKind::kSint                                ? static_cast<uint64_t>(v.sint)
                                                                     : 0;
}

// The blob ids a call refers to.
template <typename F>
void for_each_blob(const format::Call& call, F&& f) {
  for (const Value& v : call.args)
    if (v.kind == ValueKind::kBlob) f(v.blob);
  if (call.ret != nullptr && call.ret->kind == ValueKind::kBlob) f(call.ret->blob);
  for (const format::ClientArray& a : call.client_arrays)
    if (a.blob != 0) f(a.blob);
  for (const format::BufferWrite& w : call.buffer_writes)
    if (w.blob != 0) f(w.blob);
  if (call.image_source != nullptr && call.image_source->blob != 0) f(call.image_source->blob);
}

// The frame of the original an image the cut keeps shows: those of its
// frames. A swap's image is read after the swapping thread's previous call,
// which, when another thread's swap began the cut, may lie before the cut.
std::optional<FrameEnds::ImageFrame> kept_image_frame(const format::Image& image, const Cut& cut) {
  FrameEnds::ImageFrame frame = cut.ends->frame_of(image);
  if (frame.number < cut.first_frame || frame.number >= cut.end_frame || image.seq > cut.last_seq ||
      (image.seq < cut.first_seq && image.origin != "swap"))
    return std::nullopt;
  return frame;
}

// Pass 2: what the trimmed trace keeps from before the cut (the EGL setup
// of what still lives), the blobs the kept calls need, the contexts.
class Plan final : public format::Consumer {
 public:
  explicit Plan(const Cut& cut) : cut_(cut) {}

  void on_blob(const format::Blob& blob) override { max_blob_ = std::max(max_blob_, blob.id); }
  void on_image(const format::Image& image) override {
    if (kept_image_frame(image, cut_)) blobs_.insert(image.blob);
  }
  void on_call(const format::Call& call) override {
    if (call.seq >= cut_.first_seq) {
      if (call.seq == cut_.first_seq) first_start_ns_ = call.start_ns;
      if (call.seq <= cut_.last_seq) for_each_blob(call, [&](uint64_t id) { blobs_.insert(id); });
      return;
    }
    uint32_t f = call.function;
    if (f >= api::kFunctionIdLimit) return;
    const api::FunctionRoles& roles = api::kFunctionRoles[f];
    if ((roles.flags & api::kRoleDeletes) != 0 && api::kFunctionInfo[f].api != api::Api::kGles) {
      // The handle of the deleted class's parameter.
      const api::FunctionInfo& info = api::kFunctionInfo[f];
      for (uint32_t i = 0; i < info.param_count && i < call.args.size(); ++i)
        if (std::string_view(info.params[i].cls) == roles.object_class)
          destroyed_.insert(handle_of(call.args[i]));
    }
    if (!api::has_role(f, api::kRoleEglSetup)) return;
    uint64_t made =
        (roles.flags & api::kRoleCreates) != 0 && call.ret != nullptr ? handle_of(*call.ret) : 0;
    setup_.push_back({call.seq, made});
    for_each_blob(call, [&](uint64_t id) { blobs_.insert(id); });
  }

  // The EGL setup calls kept, by seq: those whose object was not destroyed.
  std::set<uint64_t> kept_setup() const {
    std::set<uint64_t> kept;
    for (const auto& [seq, made] : setup_)
      if (made == 0 || destroyed_.count(made) == 0) kept.insert(seq);
    return kept;
  }
  const std::unordered_set<uint64_t>& blobs() const { return blobs_; }
  uint64_t max_blob() const { return max_blob_; }
  uint64_t first_start_ns() const { return first_start_ns_; }

 private:
  const Cut& cut_;
  std::vector<std::pair<uint64_t, uint64_t>> setup_;  // (seq, handle made or 0)
  std::unordered_set<uint64_t> destroyed_;
  std::unordered_set<uint64_t> blobs_;
  uint64_t max_blob_ = 0;
  uint64_t first_start_ns_ = 0;
};

// A snapshot's calls and blobs, kept (their values point into memory of
// their own) until the trimmed trace is written.
class SnapshotCalls final : public SnapshotOut {
 public:
  struct Kept {
    format::Call call;
    std::vector<Value> args;
    Value ret;
    bool has_ret = false;
  };

  explicit SnapshotCalls(uint64_t first_blob) : next_blob_(first_blob) {}

  void begin_thread(uint32_t thread, uint32_t context) override {
    thread_ = thread;
    context_ = context;
  }

  void call(uint32_t function, std::span<const Value> args, const Value* ret) override {
    Kept& k = calls_.emplace_back();
    k.call.function = function;
    k.call.thread = thread_;
    k.call.context = context_;
    k.call.snapshot = true;
    if (!pending_inexact_.empty()) {
      k.call.snapshot_inexact = memory_.emplace_back(std::move(pending_inexact_));
      pending_inexact_.clear();
    }
    for (const Value& v : args) k.args.push_back(keep(v));
    if (ret != nullptr) {
      k.ret = keep(*ret);
      k.has_ret = true;
    }
  }
  uint64_t blob(std::string_view bytes) override {
    blobs_.push_back({next_blob_, std::string(bytes)});
    return next_blob_++;
  }
  void inexact(const std::string& why) override {
    inexact_.push_back(why);
    pending_inexact_ += (pending_inexact_.empty() ? "" : "; ") + why;
  }
  void surface_size(uint32_t width, uint32_t height) override {
    if (calls_.empty()) return;
    calls_.back().call.surface_width = width;
    calls_.back().call.surface_height = height;
  }

  std::deque<Kept>& calls() { return calls_; }
  const std::vector<std::pair<uint64_t, std::string>>& blobs() const { return blobs_; }
  const std::vector<std::string>& inexact_objects() const { return inexact_; }

 private:
  // A copy of v whose bytes, elements or strings are the keeper's.
  Value keep(const Value& v) {
    Value out = v;
    switch (v.kind) {
      case ValueKind::kData:
      case ValueKind::kText:
      case ValueKind::kUnknown: {
        const std::string& bytes = memory_.emplace_back(v.bytes());
        out.data = bytes.data();
        break;
      }
      case ValueKind::kArray: {
        const std::string& bytes =
            memory_.emplace_back(static_cast<const char*>(v.data), v.element_bytes());
        out.data = bytes.data();
        break;
      }
      case ValueKind::kStrings: {
        auto& views = views_.emplace_back();
        for (std::string_view s : v.strings()) views.emplace_back(memory_.emplace_back(s));
        out.data = views.data();
        break;
      }
      default:
        break;
    }
    return out;
  }

  uint32_t thread_ = 0;
  uint32_t context_ = 0;
  uint64_t next_blob_;
  std::deque<Kept> calls_;
  std::deque<std::string> memory_;
  std::deque<std::vector<std::string_view>> views_;
  std::vector<std::pair<uint64_t, std::string>> blobs_;
  std::vector<std::string> inexact_;
  std::string pending_inexact_;  // said of the next call
};

// Pass 3 and 4: the trimmed trace.
class TrimWriter final : public format::Consumer {
 public:
  enum class Part { kBeforeCut, kFrames };

  TrimWriter(format::RecordSink& sink, const TrimOptions& options, const Cut& cut, const Plan& plan,
             SnapshotCalls& snapshot)
      : sink_(sink),
        options_(options),
        cut_(cut),
        plan_(plan),
        snapshot_(snapshot),
        kept_setup_(plan.kept_setup()) {
    // The kept frames' calls follow the setup and the snapshot.
    seq_offset_ = kept_setup_.size() + snapshot.calls().size();
  }

  void set_part(Part part) { part_ = part; }
  // The EGL setup calls copied from before the cut (the snapshot's too).
  size_t setup_calls() const { return kept_setup_.size(); }

  void on_header(const format::Header& header) override {
    if (part_ != Part::kBeforeCut) return;
    format::Header h = header;
    cut_from_ = cut_.what + " of " + options_.trace;
    h.cut_from = cut_from_;
    h.mid_run = !snapshot_.calls().empty() || header.mid_run;
    sink_.add(h);
  }
  void on_thread(const format::Thread& thread) override {
    if (part_ == Part::kBeforeCut) sink_.add(thread);
  }
  void on_context(const format::Context& context) override {
    if (part_ == Part::kBeforeCut) sink_.add(context);
  }
  void on_blob(const format::Blob& blob) override {
    if (part_ == Part::kBeforeCut && plan_.blobs().count(blob.id) != 0) sink_.add(blob);
  }
  void on_desktop_gl(const format::DesktopGl& desktop_gl) override {
    if (part_ == Part::kBeforeCut) sink_.add(desktop_gl);
  }
  void on_call(const format::Call& call) override {
    if (part_ == Part::kBeforeCut) {
      auto it = kept_setup_.find(call.seq);
      if (it == kept_setup_.end()) return;
      format::Call c = call;
      c.seq = static_cast<uint64_t>(std::distance(kept_setup_.begin(), it));
      c.snapshot = true;
      at_cut_time(c);
      note_before_frames(c);
      sink_.add(c);
      return;
    }
    if (call.seq < cut_.first_seq || call.seq > cut_.last_seq) return;
    format::Call c = call;
    c.seq = call.seq - cut_.first_seq + seq_offset_;
    sink_.add(c);
  }
  void on_frame(const format::Frame& frame) override {
    uint64_t number = cut_.ends->frame_ending_at(frame.seq);
    if (part_ != Part::kFrames || number < cut_.first_frame || number >= cut_.end_frame) return;
    format::Frame f = frame;
    f.number = number - cut_.first_frame;
    f.seq = frame.seq - cut_.first_seq + seq_offset_;
    sink_.add(f);
  }
  void on_image(const format::Image& image) override {
    std::optional<FrameEnds::ImageFrame> frame = kept_image_frame(image, cut_);
    if (part_ != Part::kFrames || !frame) return;
    format::Image i = image;
    i.frame = frame->number - cut_.first_frame;
    if (image.seq >= cut_.first_seq) {
      i.seq = image.seq - cut_.first_seq + seq_offset_;
    } else {
      // Read after the swapping thread's last call before the swap: in the
      // cut, its last setup or snapshot call (0: none, as replay keys it).
      auto last = last_seq_before_frames_.find(frame->end->thread);
      i.seq = last == last_seq_before_frames_.end() ? 0 : last->second;
    }
    sink_.add(i);
  }

  // The snapshot, between the two parts.
  void write_snapshot() {
    for (const auto& [id, bytes] : snapshot_.blobs()) sink_.add(format::Blob{id, bytes});
    uint64_t seq = kept_setup_.size();
    for (SnapshotCalls::Kept& k : snapshot_.calls()) {
      k.call.seq = seq++;
      note_before_frames(k.call);
      k.call.args = k.args;
      k.call.ret = k.has_ret ? &k.ret : nullptr;
      at_cut_time(k.call);
      sink_.add(k.call);
    }
  }

 private:
  // What comes before the cut runs at its time: a timed replay does not
  // wait for the time the app ran before it.
  void at_cut_time(format::Call& c) const {
    c.start_ns = plan_.first_start_ns();
    c.duration_ns = 0;
    c.thread_time_ns = 0;
  }
  void note_before_frames(const format::Call& c) {
    uint64_t& last = last_seq_before_frames_[c.thread];
    last = std::max(last, c.seq);
  }

  format::RecordSink& sink_;
  const TrimOptions& options_;
  Cut cut_;
  const Plan& plan_;
  SnapshotCalls& snapshot_;
  std::set<uint64_t> kept_setup_;
  uint64_t seq_offset_ = 0;
  // By thread: the last setup or snapshot call in the cut.
  std::unordered_map<uint32_t, uint64_t> last_seq_before_frames_;
  Part part_ = Part::kBeforeCut;
  std::string cut_from_;
};

bool read_all(const std::string& path, format::Consumer& consumer, const std::string& program) {
  std::string error, warning;
  if (!format::read_trace_file(path, consumer, &error, &warning)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return false;
  }
  if (!warning.empty())
    fprintf(stderr, "%s: warning: %s: %s\n", program.c_str(), path.c_str(), warning.c_str());
  return true;
}

// Where the cut options ask for lies in the trace; false (and a message)
// when it is not there.
bool find_cut(const TrimOptions& options, FrameScan& scan, Cut* cut) {
  const std::string& program = options.program;
  cut->ends = &scan.frame_ends();
  const std::vector<uint64_t>& ends = cut->ends->all();
  if (options.calls) {
    auto [first, last] = *options.calls;
    if (scan.first_seq() == UINT64_MAX || last > scan.last_seq() || first < scan.first_seq()) {
      fprintf(stderr, "%s: %s holds calls %llu-%llu: calls %llu-%llu are not all there\n",
              program.c_str(), options.trace.c_str(),
              static_cast<unsigned long long>(scan.first_seq()),
              static_cast<unsigned long long>(scan.last_seq()),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last));
      return false;
    }
    cut->first_seq = first;
    cut->last_seq = last;
    cut->first_frame =
        static_cast<uint64_t>(std::lower_bound(ends.begin(), ends.end(), first) - ends.begin());
    cut->end_frame =
        static_cast<uint64_t>(std::upper_bound(ends.begin(), ends.end(), last) - ends.begin());
    cut->what = "calls " + std::to_string(first) + "-" + std::to_string(last);
    return true;
  }
  if (ends.size() <= options.last_frame) {
    fprintf(stderr, "%s: %s has %zu frames: frame %llu is past its end\n", program.c_str(),
            options.trace.c_str(), ends.size(),
            static_cast<unsigned long long>(options.last_frame));
    return false;
  }
  cut->first_seq = options.first_frame == 0 ? scan.first_seq() : ends[options.first_frame - 1] + 1;
  cut->last_seq = ends[options.last_frame];
  cut->first_frame = options.first_frame;
  cut->end_frame = options.last_frame + 1;
  cut->what =
      "frames " + std::to_string(options.first_frame) + "-" + std::to_string(options.last_frame);
  return true;
}

}  // namespace

int run_trim(const TrimOptions& options) {
  const std::string& program = options.program;
  auto [first, last] =
      options.calls.value_or(std::make_pair(options.first_frame, options.last_frame));
  if (last < first) {
    fprintf(stderr, "%s: the %s %llu-%llu are no range\n", program.c_str(),
            options.calls ? "calls" : "frames", static_cast<unsigned long long>(first),
            static_cast<unsigned long long>(last));
    return 2;
  }
  FrameScan scan;
  if (!read_all(options.trace, scan, program)) return 1;
  Cut cut;
  if (!find_cut(options, scan, &cut)) return 1;

  Plan plan(cut);
  if (!read_all(options.trace, plan, program)) return 1;

  SnapshotCalls snapshot(plan.max_blob() + 1);
  std::string error;
  if (cut.first_seq > scan.first_seq() &&
      !snapshot_after_call(options.trace, cut.first_seq - 1, program, options.driver_dir, snapshot,
                           &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 1;
  }
  for (const std::string& why : snapshot.inexact_objects())
    fprintf(stderr, "%s: warning: not exact in the snapshot: %s\n", program.c_str(), why.c_str());

  format::WriterOptions writer_options;
  writer_options.time_unit_ns = scan.time_unit_ns();
  std::unique_ptr<format::TraceWriter> writer =
      format::TraceWriter::open_file(options.output, writer_options, &error);
  if (writer == nullptr) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 1;
  }
  format::RecordSink sink(*writer);
  TrimWriter trim(sink, options, cut, plan, snapshot);
  if (!read_all(options.trace, trim, program)) return 1;
  trim.write_snapshot();
  trim.set_part(TrimWriter::Part::kFrames);
  if (!read_all(options.trace, trim, program)) return 1;
  if (!sink.finish(&error)) {
    fprintf(stderr, "%s: %s: %s\n", program.c_str(), options.output.c_str(), error.c_str());
    return 1;
  }
  if (!options.quiet)
    fprintf(stderr, "%s: wrote %s: %s, a snapshot of %zu calls (%zu not exact)\n", program.c_str(),
            options.output.c_str(), cut.what.c_str(), trim.setup_calls() + snapshot.calls().size(),
            snapshot.inexact_objects().size());
  return 0;
}

}  // namespace gltrace::glreplay
