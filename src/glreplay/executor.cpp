#include "glreplay/executor.h"

#include <cinttypes>
#include <cstdio>
#include <typeinfo>

#include "consumers/png.h"
#include "glreplay/calls.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

GlExecutor::GlExecutor(Session& session, ExecutorOptions options)
    : session_(session),
      options_(std::move(options)),
      comparer_(options_.threshold,
                [&session](uint64_t seq) { return session.info().take_image(seq); }) {
  session_.set_swap_hook([this](uint64_t frame) { on_swap(frame); });
}

bool GlExecutor::execute(replay::Increment& increment, std::string* error) {
  // Call is final: comparing type_infos is all a dynamic_cast would do, slower.
  if (increment.payload == nullptr || typeid(*increment.payload) != typeid(Call)) {
    *error = "not a GL call";
    return false;
  }
  auto* call = static_cast<Call*>(increment.payload.get());
  ++calls_;
  last_seq_ = call->seq;
  if (last_thread_seq_ == nullptr || call->thread != last_thread_) {
    last_thread_ = call->thread;
    last_thread_seq_ = &thread_last_seq_[call->thread];
  }
  swap_image_key_ = *last_thread_seq_;
  *last_thread_seq_ = call->seq;
  session_.set_call(call);
  if (calls_ == 1 && session_.info().mid_run())
    fprintf(stderr,
            "%s: warning: the capture began while the app ran: what it made before is not "
            "in the trace, so frames may differ\n",
            session_.options().program.c_str());
  const ReplayEntry& entry = replay_entry(call->function);
  const char* name =
      call->function < api::kFunctionIdLimit ? api::kFunctionInfo[call->function].name : nullptr;
  std::string message;
  switch (entry.kind) {
    case ReplayKind::kSkip:
      return true;
    case ReplayKind::kNone:
      message = "unknown function id " + std::to_string(call->function);
      break;
    case ReplayKind::kUnsupported:
      message = std::string("cannot replay ") + name + ": " + entry.reason;
      break;
    case ReplayKind::kGeneric:
    case ReplayKind::kCustom: {
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
      bool ok = entry.fn(session_, args);
      if (!ok || !args.ok())
        message = std::string("cannot replay ") + name + ": " +
                  (args.error().empty() ? "failed" : args.error());
      break;
    }
  }
  if (message.empty()) return true;
  if (session_.options().stop_on_error) {
    *error = message;  // the engine names the call
    return false;
  }
  session_.report(message);
  return true;
}

void GlExecutor::on_swap(uint64_t frame) {
  bool compare = options_.compare && pass_ == 1;
  bool snap = options_.snapshot_frames.has_value() && pass_ == 1 &&
              frame >= options_.snapshot_frames->first && frame <= options_.snapshot_frames->second;
  if (!compare && !snap) return;
  std::vector<uint8_t> pixels;
  uint32_t width = 0, height = 0;
  std::string error;
  if (!session_.read_framebuffer(&pixels, &width, &height, &error)) {
    session_.report("frame " + std::to_string(frame) + ": cannot read the framebuffer: " + error);
    return;
  }
  if (snap) {
    char name[48];
    snprintf(name, sizeof name, "/frame-%06" PRIu64 ".png", frame);
    if (consumers::write_png(options_.snapshot_dir + name, width, height, pixels.data(), &error))
      ++snapshots_;
    else
      session_.report(error);
  }
  if (compare) {
    comparer_.add(frame, swap_image_key_, width, height, std::move(pixels));
    print_reports();
  }
}

void GlExecutor::print_reports() {
  const auto& reports = comparer_.reports();
  for (; reports_printed_ < reports.size(); ++reports_printed_)
    printf("%s\n", reports[reports_printed_].c_str());
}

void GlExecutor::finish() {
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
  // Everything the pass created goes; the next pass makes it again.
  session_.reset();
  thread_last_seq_.clear();
  last_thread_seq_ = nullptr;
  ++pass_;
  return true;
}

void GlExecutor::thread_exiting(uint32_t /*target*/) { session_.release_thread(); }

}  // namespace gltrace::glreplay
