// surfacereplayer on the replay engine: the source makes one engine increment
// per trace increment; the executor prepares buffers on the workers and
// applies increments to the Scene, in trace order, when the main thread
// completes them; each VSync hands its display's frame to the Compositor.
#include "replay/replayer.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "gltrace/surface_replayer.h"
#include "surface/compositor.h"
#include "surface/scene.h"
#include "surface/trace_io.h"

namespace gltrace::surface {
namespace {

// What a worker prepared for an increment of the trace.
struct Payload : replay::IncrementPayload {
  const Increment* increment = nullptr;  // in the trace, which outlives the replay
  uint64_t update = 0;                   // the surface's buffer update number in this pass
  BufferPtr buffer;                      // a buffer update's prepared buffer
};

Payload& payload_of(replay::Increment& increment) {
  return static_cast<Payload&>(*increment.payload);
}

// Target 0: everything but buffer updates, in order; each surface's buffer
// updates get a target of their own, so the engine's per-target scheduler
// (the seed's BufferQueueScheduler) prepares a surface's next buffer only
// once its previous one was posted, while other surfaces' buffers are
// prepared side by side.
class TraceSource : public replay::IncrementSource {
 public:
  explicit TraceSource(const Trace& trace) : trace_(trace) {}

  replay::SourceResult next(replay::Increment* out, std::string*) override {
    if (position_ >= static_cast<size_t>(trace_.increment_size()))
      return replay::SourceResult::kEnd;
    const Increment& increment = trace_.increment(static_cast<int>(position_));
    auto* payload = new Payload();
    payload->increment = &increment;
    out->index = position_++;
    out->timestamp_ns = static_cast<uint64_t>(increment.time_stamp());
    out->target = 0;
    out->ends_frame = increment.has_vsync_event();
    if (increment.has_buffer_update()) {
      const int32_t id = increment.buffer_update().id();
      auto [it, added] = targets_.emplace(id, static_cast<uint32_t>(targets_.size() + 1));
      out->target = it->second;
      payload->update = updates_[id]++;
    }
    out->payload.reset(payload);
    return replay::SourceResult::kIncrement;
  }

  bool rewind(std::string*) override {
    position_ = 0;
    updates_.clear();
    return true;
  }

 private:
  const Trace& trace_;
  size_t position_ = 0;
  std::map<int32_t, uint32_t> targets_;
  std::map<int32_t, uint64_t> updates_;
};

constexpr uint32_t fourcc(char a, char b, char c, char d) {
  return static_cast<uint32_t>(a) | (static_cast<uint32_t>(b) << 8) |
         (static_cast<uint32_t>(c) << 16) | (static_cast<uint32_t>(d) << 24);
}

class SurfaceExecutor : public replay::Executor {
 public:
  SurfaceExecutor(Compositor& compositor, const ReplayerSettings& settings)
      : compositor_(compositor),
        settings_(settings),
        budget_(std::make_shared<std::atomic<uint64_t>>(0)) {}

  bool prepare(replay::Increment& increment, std::string* error) override {
    Payload& payload = payload_of(increment);
    if (!payload.increment->has_buffer_update()) return true;
    return make_buffer(payload.increment->buffer_update(), payload.update, &payload.buffer, error);
  }

  bool execute(replay::Increment& increment, std::string* error) override {
    // Completed by the main thread in trace order, but executed by the
    // workers: an increment waits until the one before it has finished, so
    // a VSync shows every change before it and none after.
    std::unique_lock<std::mutex> order(order_mutex_);
    order_cv_.wait(order, [&] { return next_index_ == increment.index; });
    order.unlock();
    bool ok = apply(payload_of(increment), error);
    order.lock();
    ++next_index_;
    order_cv_.notify_all();
    return ok;
  }

  std::string describe(uint32_t) override {
    std::lock_guard<std::mutex> lock(scene_mutex_);
    return scene_.describe();
  }

  bool snapshot(uint32_t, const std::string& path, std::string* error) override {
    DisplayFrame frame;
    {
      std::lock_guard<std::mutex> lock(scene_mutex_);
      if (scene_.vsync_display(0) == nullptr) {
        *error = "no display to snap";
        return false;
      }
      // The display of the last VSync, unless it was deleted since.
      const bool last_exists = last_display_ && scene_.vsync_display(*last_display_) != nullptr;
      frame = scene_.frame(last_exists ? *last_display_ : 0);
    }
    return compositor_.submit(std::move(frame), path, error, /*counted=*/false) &&
           compositor_.finish(error);
  }

  bool restart(std::string*) override {
    std::lock_guard<std::mutex> lock(scene_mutex_);
    scene_.clear();
    vsync_counts_.clear();
    last_display_.reset();
    std::lock_guard<std::mutex> order(order_mutex_);
    next_index_ = 0;
    return true;
  }

  uint64_t vsyncs() const { return vsyncs_.load(); }
  uint64_t vsyncs_without_display() const { return vsyncs_without_display_.load(); }

 private:
  bool apply(Payload& payload, std::string* error) {
    const Increment& increment = *payload.increment;
    std::unique_lock<std::mutex> lock(scene_mutex_);
    if (increment.has_buffer_update()) {
      return scene_.post_buffer(increment.buffer_update().id(), std::move(payload.buffer), error);
    }
    if (!increment.has_vsync_event()) return scene_.apply(increment, error);
    ++vsyncs_;
    const int32_t wanted = increment.vsync_event().display_id();
    const DisplayState* display = scene_.vsync_display(wanted);
    if (display == nullptr) {
      if (wanted != 0) {
        *error = "a VSync of display " + std::to_string(wanted) + ", which does not exist";
        return false;
      }
      ++vsyncs_without_display_;
      return true;
    }
    last_display_ = display->id;
    const uint64_t number = vsync_counts_[display->id]++;
    std::string path;
    if (!settings_.output_dir.empty()) {
      char name[64];
      std::snprintf(name, sizeof name, "/display-%d-vsync-%06llu.png", display->id,
                    static_cast<unsigned long long>(number));
      path = settings_.output_dir + name;
    }
    DisplayFrame frame = scene_.frame(display->id);
    lock.unlock();
    // The VSync ends when its image is drawn (and written): what a stop in
    // manual mode shows is on screen and on disk, and the next increment
    // changes nothing this frame still needs.
    return compositor_.submit(std::move(frame), std::move(path), error) &&
           compositor_.finish(error);
  }

  // A surface's next buffer: its recorded contents, or its colour for this
  // update. Counted against the buffer memory budget while it lives.
  bool make_buffer(const BufferUpdate& update, uint64_t number, BufferPtr* out,
                   std::string* error) {
    const std::string what = "buffer update of surface " + std::to_string(update.id());
    if (update.w() == 0 || update.h() == 0 || update.w() > kMaxBufferSide ||
        update.h() > kMaxBufferSide) {
      *error = what + ": " + std::to_string(update.w()) + "x" + std::to_string(update.h()) +
               " is not a buffer size surfacereplayer supports (sides 1 to " +
               std::to_string(kMaxBufferSide) + ")";
      return false;
    }
    const uint64_t bytes = uint64_t{update.w()} * update.h() * 4;
    const std::string& contents = update.contents();
    if (!contents.empty() && contents.size() != bytes) {
      *error = what + ": its contents hold " + std::to_string(contents.size()) + " bytes, a " +
               std::to_string(update.w()) + "x" + std::to_string(update.h()) + " buffer has " +
               std::to_string(bytes);
      return false;
    }
    bool swap_red_blue = false, has_alpha = true;
    if (!contents.empty()) {
      switch (update.format()) {
        case 0:
        case fourcc('A', 'R', '2', '4'):
          swap_red_blue = true;
          break;
        case fourcc('X', 'R', '2', '4'):
          swap_red_blue = true;
          has_alpha = false;
          break;
        case fourcc('A', 'B', '2', '4'):
          break;
        case fourcc('X', 'B', '2', '4'):
          has_alpha = false;
          break;
        default: {
          char text[96];
          std::snprintf(text, sizeof text,
                        ": contents in format 0x%08x, not ARGB8888, XRGB8888, ABGR8888 or "
                        "XBGR8888",
                        update.format());
          *error = what + text;
          return false;
        }
      }
    }
    uint64_t used = budget_->load();
    do {
      if (used + bytes > settings_.buffer_memory_bytes) {
        *error = what + ": the buffers alive at once would take more than " +
                 std::to_string(settings_.buffer_memory_bytes >> 20) + " MiB";
        return false;
      }
    } while (!budget_->compare_exchange_weak(used, used + bytes));
    auto budget = budget_;
    auto* image = new BufferImage();
    BufferPtr buffer(image, [budget, bytes](const BufferImage* done) {
      budget->fetch_sub(bytes);
      delete done;
    });
    image->w = update.w();
    image->h = update.h();
    image->has_alpha = has_alpha && !contents.empty();
    image->rgba.resize(bytes);
    uint8_t* pixels = image->rgba.data();
    if (contents.empty()) {
      const auto colour = surface_colour(update.id(), number);
      const uint8_t pixel[4] = {colour[0], colour[1], colour[2], 255};
      for (uint64_t i = 0; i < bytes; i += 4) std::memcpy(pixels + i, pixel, 4);
    } else {
      const auto* in = reinterpret_cast<const uint8_t*>(contents.data());
      for (uint64_t i = 0; i < bytes; i += 4) {
        pixels[i + 0] = in[i + (swap_red_blue ? 2 : 0)];
        pixels[i + 1] = in[i + 1];
        pixels[i + 2] = in[i + (swap_red_blue ? 0 : 2)];
        pixels[i + 3] = has_alpha ? in[i + 3] : 255;
      }
    }
    *out = std::move(buffer);
    return true;
  }

  Compositor& compositor_;
  const ReplayerSettings& settings_;
  std::shared_ptr<std::atomic<uint64_t>> budget_;

  std::mutex order_mutex_;
  std::condition_variable order_cv_;
  uint64_t next_index_ = 0;

  std::mutex scene_mutex_;
  Scene scene_;
  std::map<int32_t, uint64_t> vsync_counts_;
  std::optional<int32_t> last_display_;
  std::atomic<uint64_t> vsyncs_{0};
  std::atomic<uint64_t> vsyncs_without_display_{0};
};

}  // namespace

struct Replayer::Impl {
  std::string filename;
  const Trace* trace = nullptr;
  bool manual = false;
  int threads = 3;
  bool wait = true;
  int64_t stop_here = -1;
  ReplayerSettings settings;

  std::mutex mutex;
  replay::Replayer* running = nullptr;
  uint64_t early_interrupts = 0;
  bool early_stop = false;
  bool used = false;
};

Replayer::Replayer(const std::string& filename, bool replay_manually, int num_threads, bool wait,
                   int64_t stop_here, ReplayerSettings settings)
    : impl_(std::make_unique<Impl>()) {
  impl_->filename = filename;
  impl_->manual = replay_manually;
  impl_->threads = num_threads;
  impl_->wait = wait;
  impl_->stop_here = stop_here;
  impl_->settings = std::move(settings);
}

Replayer::Replayer(const Trace& trace, bool replay_manually, int num_threads, bool wait,
                   int64_t stop_here, ReplayerSettings settings)
    : Replayer(std::string(), replay_manually, num_threads, wait, stop_here, std::move(settings)) {
  impl_->trace = &trace;
}

Replayer::~Replayer() = default;

void Replayer::interrupt() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->running != nullptr)
    impl_->running->interrupt();
  else
    ++impl_->early_interrupts;
}

void Replayer::stop() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->running != nullptr)
    impl_->running->stop();
  else
    impl_->early_stop = true;
}

ReplayResult Replayer::replay() {
  ReplayResult result;
  if (impl_->used) {
    result.message = "replay() runs once per Replayer";
    return result;
  }
  impl_->used = true;
  if (impl_->threads < 1) {
    result.message = "surfacereplayer needs at least one worker thread (-t 1)";
    return result;
  }
  Trace loaded;
  const Trace* trace = impl_->trace;
  if (trace == nullptr) {
    std::string error, warning;
    if (!read_trace(impl_->filename, loaded, error, &warning)) {
      result.message = error;
      return result;
    }
    if (!warning.empty()) result.message = "warning: " + warning + "\n";
    trace = &loaded;
  }
  const ReplayerSettings& settings = impl_->settings;
  if (!settings.output_dir.empty() && mkdir(settings.output_dir.c_str(), 0777) != 0 &&
      errno != EEXIST) {
    result.message += settings.output_dir + ": " + std::strerror(errno);
    return result;
  }
  Compositor compositor(settings.x11);
  std::string error;
  if (!compositor.start(&error)) {
    result.message += error;
    return result;
  }
  TraceSource source(*trace);
  SurfaceExecutor executor(compositor, settings);
  replay::ReplayOptions options;
  options.manual = impl_->manual;
  options.threads = impl_->threads;
  options.wait = impl_->wait;
  if (impl_->stop_here >= 0)
    options.stop_at = replay::TimeSpec{impl_->stop_here, settings.stop_from_start};
  options.loops = settings.loop ? 0 : 1;
  options.execute_on = replay::ExecuteOn::kWorker;
  options.console_in = settings.console_in;
  options.console_out = settings.console_out;
  options.handle_sigint = settings.handle_sigint;
  replay::Replayer engine(source, executor, options);
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->running = &engine;
    for (; impl_->early_interrupts > 0; --impl_->early_interrupts) engine.interrupt();
    if (impl_->early_stop) engine.stop();
  }
  replay::ReplayStatus status = engine.replay();
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->running = nullptr;
  }
  const bool drawn = compositor.finish(&error);
  const replay::ReplayStats& stats = engine.stats();
  result.increments = stats.increments;
  result.vsyncs = executor.vsyncs();
  result.vsyncs_without_display = executor.vsyncs_without_display();
  result.images = compositor.images_written();
  result.seconds = stats.seconds;
  result.recorded_seconds = stats.recorded_seconds;
  result.timed_vsyncs = stats.timed_frames;
  result.max_lateness_ns = stats.max_lateness_ns;
  result.mean_lateness_ns = stats.mean_lateness_ns;
  result.ok = status.ok() && drawn;
  if (!status.ok()) {
    // The engine says "call N": here an increment, numbered from 0.
    std::string message = status.message;
    for (size_t at = message.find("call "); at != std::string::npos;
         at = message.find("call ", at + 10))
      message.replace(at, 5, "increment ");
    result.message += message;
  } else if (!drawn) {
    result.message += "compositing failed: " + error;
  } else {
    char line[256];
    std::snprintf(line, sizeof line,
                  "replayed %llu increments, %llu VSyncs (%llu images) in %.3f s (recorded: "
                  "%.3f s)",
                  static_cast<unsigned long long>(result.increments),
                  static_cast<unsigned long long>(result.vsyncs),
                  static_cast<unsigned long long>(result.images), result.seconds,
                  result.recorded_seconds);
    result.message += line;
    if (status.result == replay::ReplayResult::kQuit) result.message += "; " + status.message;
  }
  return result;
}

}  // namespace gltrace::surface
