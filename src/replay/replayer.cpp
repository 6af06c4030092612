#include "replay/replayer.h"

#include <utility>

#include "replay/console.h"
#include "replay/control_core.h"

namespace gltrace::replay {

// The controller's Core outlives replay(): interrupt() and stop() may come
// before it.
struct Replayer::Impl {
  Impl(IncrementSource& source, Executor& executor, ReplayOptions options)
      : core(source, executor, std::move(options)) {}
  ControlCore core;
};

Replayer::Replayer(IncrementSource& source, Executor& executor, bool replay_manually,
                   int num_threads, bool wait, uint64_t stop_here_ns, bool loop) {
  ReplayOptions options;
  options.manual = replay_manually;
  options.threads = num_threads;
  options.wait = wait;
  if (stop_here_ns != 0) options.stop_at = TimeSpec{static_cast<int64_t>(stop_here_ns), false};
  options.loops = loop ? 0 : 1;
  impl_ = std::make_unique<Impl>(source, executor, std::move(options));
}

Replayer::Replayer(IncrementSource& source, Executor& executor, const ReplayOptions& options)
    : impl_(std::make_unique<Impl>(source, executor, options)) {}

Replayer::~Replayer() = default;

ReplayStatus Replayer::replay() {
  if (impl_->core.used) return {ReplayResult::kBadOptions, "replay() runs once per Replayer", {}};
  impl_->core.used = true;
  ReplayController controller(impl_->core);
  ReplayStatus status = run_console(controller);
  controller.close();  // the threads end and the stats are complete
  return status;
}

const ReplayStats& Replayer::stats() const { return impl_->core.stats; }

void Replayer::interrupt() {
  impl_->core.interrupts.fetch_add(1);
  impl_->core.wake();
}

void Replayer::stop() {
  impl_->core.stop_requested = true;
  impl_->core.wake();
}

}  // namespace gltrace::replay
