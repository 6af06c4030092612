#include "glreplay/executor.h"

#include <sys/resource.h>

#include <cinttypes>
#include <cstdio>
#include <typeinfo>

#include "consumers/png.h"
#include "format/crc32.h"
#include "glreplay/calls.h"
#include "glreplay/glreplay.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/roles.h"

namespace gltrace::glreplay {

namespace {

// Calls that could not be replayed, listed in a differing image's report
// (the rest are counted).
constexpr size_t kUnreplayedListed = 3;

}  // namespace

GlExecutor::GlExecutor(Session& session, ExecutorOptions options)
    : session_(session),
      options_(std::move(options)),
      comparer_(
          options_.threshold,
          [&session](const ImageKey& key) { return session.info().take_image(key); },
          [&session](uint64_t frame, uint32_t thread) {
            return session.info().frame_settled(frame, thread);
          }) {
  session_.set_swap_hook([this](uint64_t frame) { on_swap(frame); });
  if (options_.tolerance) comparer_.set_tolerance(*options_.tolerance);
  if (!options_.diff_dir.empty())
    comparer_.on_differs([this](const ReplayedImage& replayed, const FrameImage& traced,
                                Verdict verdict) { write_difference(replayed, traced, verdict); });
}

void GlExecutor::write_difference(const ReplayedImage& replayed, const FrameImage& traced,
                                  Verdict verdict) {
  char name[160];
  snprintf(name, sizeof name, "/frame-%06" PRIu64 "-call-%" PRIu64 "-%s-%s-", replayed.frame,
           replayed.call, origin_name(replayed.key.origin),
           verdict == Verdict::kDiffers ? "differs" : "within");
  std::string base = options_.diff_dir + name;
  const auto* trace_pixels = reinterpret_cast<const uint8_t*>(traced.pixels->data());
  std::vector<uint8_t> difference =
      difference_image(replayed.pixels.data(), trace_pixels, replayed.width, replayed.height,
                       comparer_.measured_by());
  std::string error;
  if (!consumers::write_png(base + "replayed.png", replayed.width, replayed.height,
                            replayed.pixels.data(), &error) ||
      !consumers::write_png(base + "traced.png", traced.width, traced.height, trace_pixels,
                            &error) ||
      !consumers::write_png(base + "difference.png", replayed.width, replayed.height,
                            difference.data(), &error))
    session_.warn("--diff-images: " + error);
}

bool GlExecutor::execute(replay::Increment& increment, std::string* error) {
  // ReplayCall is final: comparing type_infos is all a dynamic_cast would do, slower.
  if (increment.payload == nullptr || typeid(*increment.payload) != typeid(ReplayCall)) {
    *error = "not a GL call";
    return false;
  }
  auto* call = static_cast<ReplayCall*>(increment.payload.get());
  ++calls_;
  if (options_.progress != nullptr) options_.progress->add_call();
  last_seq_ = call->seq;
  const bool borrowed = increment.target != call->thread;
  if (!borrowed) {
    if (last_thread_seq_ == nullptr || call->thread != last_thread_) {
      last_thread_ = call->thread;
      last_thread_seq_ = &thread_last_seq_[call->thread];
    }
    swap_image_key_ = *last_thread_seq_;
    *last_thread_seq_ = call->seq;
  } else {
    ++borrowed_calls_;
    swap_image_key_ = 0;  // its swap is skipped: no image of it
  }
  call_ = call;
  session_.set_call(call, borrowed);
  // A pass's frames begin after its snapshot (a trimmed trace's setup).
  if (options_.loop_stats && !last_frame_end_ && !call->snapshot) [[unlikely]] {
    if (pass_records_.size() < pass_) pass_records_.resize(pass_);
    last_frame_end_ = std::chrono::steady_clock::now();
  }
  // A capture that begins with a snapshot has what the app made before.
  if (calls_ == 1 && session_.info().mid_run() && !call->snapshot)
    fprintf(stderr,
            "%s: warning: the capture began while the app ran: what it made before is not "
            "in the trace, so frames may differ\n",
            session_.options().program.c_str());
  const ReplayEntry& entry =
      call->function < entries_.size() ? entries_[call->function] : replay_entry(call->function);
  const char* name =
      call->function < api::kFunctionIdLimit ? api::kFunctionInfo[call->function].name : nullptr;
  uint64_t frame = session_.frame();
  std::string message;
  // A call of a thread without a context of its own (a borrowed call,
  // Session::set_call) must not do what uses or changes the calling thread's
  // state on the thread it borrows: GL calls (the app's had no context, so
  // did nothing) and the thread-bound EGL calls. Such a call's recorded
  // thread had nothing current and the OpenGL ES API bound, so skipping them
  // loses nothing.
  const bool skip = borrowed && api::has_role(call->function, api::kRoleThreadBound);
  // --outcomes reads the error after every call: the app's glGetError (not
  // replayed) gets the first since its last from there.
  if (options_.outcomes != nullptr && call->function == api::kFn_glGetError && !skip) [[unlikely]]
    options_.outcomes->record_get_error(*call);
  switch (skip ? ReplayKind::kSkip : entry.kind) {
    case ReplayKind::kSkip:
      break;
    case ReplayKind::kNone:
      message = "unknown function id " + std::to_string(call->function);
      break;
    case ReplayKind::kUnsupported:
      message = std::string("cannot replay ") + name + ": " + entry.reason;
      break;
    case ReplayKind::kGeneric:
    case ReplayKind::kCustom: {
      // A draw that found the app's window resized: the replay's is resized
      // before it (EGL calls handle their own sizes).
      if (call->surface_width != 0 && entry.kind == ReplayKind::kGeneric)
        session_.fit_draw_surface(call->surface_width, call->surface_height);
      arena_.reset();
      if (entry.kind == ReplayKind::kGeneric) {
        DriverState state(session_);
        validate_call(*call, state, &validation_);
        if (!validation_.ok()) {
          message = std::string("cannot replay ") + name + ": " + validation_.error;
          break;
        }
      }
      Args args(session_, *call, arena_,
                entry.kind == ReplayKind::kGeneric ? &validation_ : nullptr);
      if (options_.profiler != nullptr) [[unlikely]]
        options_.profiler->before_call(*call);
      bool ok = entry.fn(session_, args);
      if (options_.profiler != nullptr) [[unlikely]]
        options_.profiler->after_call(*call);
      if (!ok || !args.ok())
        message = std::string("cannot replay ") + name + ": " +
                  (args.error().empty() ? "failed" : args.error());
      if (options_.outcomes != nullptr) [[unlikely]]
        record_outcome(*call, &args, message);
      break;
    }
  }
  if (options_.outcomes != nullptr && !message.empty() &&
      (entry.kind == ReplayKind::kUnsupported || entry.kind == ReplayKind::kNone)) [[unlikely]]
    record_outcome(*call, nullptr, message);
  if (!message.empty()) {
    if (session_.options().stop_on_error) {
      *error = message;  // the engine names the call
      return false;
    }
    session_.report(message);
    std::string listed = "call " + std::to_string(call->seq) + ": " + message;
    if (first_unreplayed_.size() < kUnreplayedListed) first_unreplayed_.push_back(listed);
    if (frame_unreplayed_.size() < kUnreplayedListed) frame_unreplayed_.push_back(listed);
    ++unreplayed_count_;
    ++frame_unreplayed_count_;
  }
  // A swap that failed before it read the framebuffer (its surface could not
  // be made): the trace's image there is counted as not replayed, and the
  // frame ends all the same, so later frames keep their numbers.
  if (increment.ends_frame && api::has_role(call->function, api::kRoleSwap) &&
      session_.frame() == frame) {
    if (options_.compare && pass_ == 1 && session_.info().frame_images()) {
      ReplayedImage image = image_of_call(frame, ImageOrigin::kSwap, swap_image_key_);
      image.not_replayed = "call " + std::to_string(call->seq) + ": " +
                           (message.empty() ? std::string("not replayed") : message);
      comparer_.add(std::move(image));
      print_reports();
    }
    session_.next_frame();
    frame_ended();
  }
  // The draws after which the trace layer reads the framebuffer
  // (--framebuffer draw).
  // (Only --compare reads them: the test here spares every draw a call.)
  if (options_.compare && api::has_role(call->function, api::kRoleCapturesDraw))
    read_image(session_.frame(), Session::ReadArea::kViewport, ImageOrigin::kDraw, call->seq);
  // A glFinish or glReadPixels the trace layer marked as the end of an
  // off-screen frame.
  if (increment.ends_frame && api::has_role(call->function, api::kRoleEndsFrame)) {
    read_image(session_.frame(), Session::ReadArea::kFinish, ImageOrigin::kFinish, call->seq);
    if (options_.loop_stats) [[unlikely]]
      record_frame(nullptr);
    session_.next_frame();  // a swap counts its own in the session
    frame_ended();
  }
  if (options_.profiler != nullptr && session_.frame() != frame) [[unlikely]]
    options_.profiler->frame_ended();
  return true;
}

void GlExecutor::record_outcome(const ReplayCall& call, const Args* args,
                                const std::string& failure) {
  uint32_t error = 0;
  if (args != nullptr && api::kFunctionInfo[call.function].api == api::Api::kGles) {
    auto get_error = GL_CALL(session_.gl(), glGetError);
    if (get_error != nullptr) error = get_error();
  }
  options_.outcomes->record(call, args, error, failure);
}

void GlExecutor::on_swap(uint64_t frame) {
  // The swap's trace image is keyed by its thread's call before it.
  read_image(frame, Session::ReadArea::kSurface, ImageOrigin::kSwap, swap_image_key_);
  if (options_.loop_stats) [[unlikely]] {
    std::vector<uint8_t> pixels;
    uint32_t width = 0, height = 0;
    std::string error;
    bool read = options_.compare && session_.read_framebuffer(&pixels, &width, &height, &error,
                                                              Session::ReadArea::kSurface);
    record_frame(read ? &pixels : nullptr);
  }
  frame_ended();
}

void GlExecutor::record_frame(const std::vector<uint8_t>* pixels) {
  auto now = std::chrono::steady_clock::now();
  if (!last_frame_end_) return;  // a frame of the snapshot's setup
  PassRecord& pass = pass_records_[pass_ - 1];
  pass.frame_ms.push_back(
      std::chrono::duration<double, std::milli>(now - *last_frame_end_).count());
  if (pixels != nullptr) pass.frame_crcs.push_back(format::crc32(pixels->data(), pixels->size()));
  // The time to read the image back is not the frame's.
  last_frame_end_ = std::chrono::steady_clock::now();
}

void GlExecutor::end_pass_record() {
  if (!options_.loop_stats || pass_records_.size() < pass_) return;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  pass_records_[pass_ - 1].peak_rss_kib = usage.ru_maxrss;
  last_frame_end_.reset();
}

void GlExecutor::frame_ended() {
  if (options_.progress != nullptr) {
    options_.progress->at(++frames_ended_);
    options_.progress->add_frame();
  }
  frame_unreplayed_.clear();
  frame_unreplayed_count_ = 0;
}

void GlExecutor::read_image(uint64_t frame, Session::ReadArea area, ImageOrigin origin,
                            uint64_t key_seq) {
  // Only what the trace holds images of (snapshots are of frames).
  TraceInfo& info = session_.info();
  bool compare = options_.compare && pass_ == 1 &&
                 (origin == ImageOrigin::kDraw ? info.draw_images() : info.frame_images());
  bool snap = origin != ImageOrigin::kDraw && options_.snapshot_frames.has_value() && pass_ == 1 &&
              frame >= options_.snapshot_frames->first && frame <= options_.snapshot_frames->second;
  if (!compare && !snap) return;
  std::vector<uint8_t> pixels;
  uint32_t width = 0, height = 0;
  std::string error;
  if (!session_.read_framebuffer(&pixels, &width, &height, &error, area)) {
    // After a draw or at a glFinish the app may have bound what RGBA8
    // cannot read (a depth-only FBO): the trace layer skipped those too. A
    // trace image left unread is counted at the end.
    if (origin == ImageOrigin::kSwap)
      session_.report("frame " + std::to_string(frame) + ": cannot read the framebuffer: " + error);
    return;
  }
  if (snap) {
    if (consumers::write_png(snapshot_png(options_.snapshot_dir, frame), width, height,
                             pixels.data(), &error))
      ++snapshots_;
    else
      session_.report(error);
  }
  if (compare) {
    ReplayedImage image = image_of_call(frame, origin, key_seq);
    image.width = width;
    image.height = height;
    image.pixels = std::move(pixels);
    image.unreplayed = frame_unreplayed_.empty() ? first_unreplayed_ : frame_unreplayed_;
    image.unreplayed_count = unreplayed_count_;
    image.unreplayed_in_frame = frame_unreplayed_count_;
    comparer_.add(std::move(image));
    print_reports();
  }
}

ReplayedImage GlExecutor::image_of_call(uint64_t frame, ImageOrigin origin, uint64_t key_seq) {
  ReplayedImage image;
  image.frame = frame;
  image.thread = call_->thread;
  image.key = {key_seq, origin};
  image.call = call_->seq;
  image.function = call_->function < api::kFunctionIdLimit
                       ? api::kFunctionInfo[call_->function].name
                       : "function " + std::to_string(call_->function);
  return image;
}

void GlExecutor::print_reports() {
  const auto& reports = comparer_.reports();
  for (; reports_printed_ < reports.size(); ++reports_printed_)
    printf("%s\n", reports[reports_printed_].c_str());
}

void GlExecutor::finish() {
  end_pass_record();
  if (options_.profiler != nullptr) options_.profiler->finish();
  if (!options_.compare) return;
  comparer_.finish();
  print_reports();
}

std::string GlExecutor::describe(uint32_t target) {
  session_.set_thread(target);
  auto it = thread_last_seq_.find(target);
  char line[200];
  snprintf(line, sizeof line, "trace thread %u; frame %" PRIu64 "; its last call %" PRIu64, target,
           session_.frame(), it != thread_last_seq_.end() ? it->second : 0);
  std::string text = line;
  if (!session_.has_current()) return text + "; no context is current";
  snprintf(line, sizeof line, "; current context 0x%" PRIx64, session_.current_context());
  return text + line;
}

bool GlExecutor::snapshot(uint32_t target, const std::string& path, std::string* error) {
  session_.set_thread(target);
  std::vector<uint8_t> pixels;
  uint32_t width = 0, height = 0;
  if (!session_.read_framebuffer(&pixels, &width, &height, error)) return false;
  return consumers::write_png(path, width, height, pixels.data(), error);
}

bool GlExecutor::restart(std::string* /*error*/) {
  end_pass_record();
  // Everything the pass created goes; the next pass makes it again.
  session_.reset();
  thread_last_seq_.clear();
  last_thread_seq_ = nullptr;
  ++pass_;
  return true;
}

void GlExecutor::thread_exiting(uint32_t target) {
  // The thread's context goes with it: its GPU times are read first.
  if (options_.profiler != nullptr) options_.profiler->thread_exiting(target);
  session_.release_thread();
}

}  // namespace gltrace::glreplay
