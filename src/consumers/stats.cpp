#include "consumers/stats.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <string>

namespace gltrace::consumers {

void StatsCollector::on_call(const format::Call& call) {
  ++calls_;
  FunctionStats& f =
      call.function < functions_.size() ? functions_[call.function] : unknown_functions_;
  ++f.count;
  f.total_ns += call.duration_ns;
  f.max_ns = std::max(f.max_ns, call.duration_ns);
  f.thread_ns += call.thread_time_ns;
  ++current_.calls;
  current_.call_ns += call.duration_ns;
}

void StatsCollector::on_frame(const format::Frame& frame) {
  current_.end_time_ns = frame.time_ns;
  if (frames_.size() < max_frames_) frames_.push_back(current_);
  ++frame_count_;
  current_ = {};
}

void StatsCollector::print(FILE* out) const {
  // Rows: function ids, and kUnknown for the ids past the model's.
  constexpr uint32_t kUnknown = UINT32_MAX;
  auto stats = [this](uint32_t id) -> const FunctionStats& {
    return id == kUnknown ? unknown_functions_ : functions_[id];
  };
  std::vector<uint32_t> ids;
  uint64_t total_ns = 0;
  for (uint32_t id = 0; id < functions_.size(); ++id) {
    if (functions_[id].count == 0) continue;
    ids.push_back(id);
    total_ns += functions_[id].total_ns;
  }
  if (unknown_functions_.count != 0) {
    ids.push_back(kUnknown);
    total_ns += unknown_functions_.total_ns;
  }
  std::sort(ids.begin(), ids.end(),
            [&](uint32_t a, uint32_t b) { return stats(a).total_ns > stats(b).total_ns; });
  fprintf(out, "%-40s %10s %12s %6s %10s %10s %12s\n", "function", "calls", "total ms", "%",
          "mean us", "max us", "thread ms");
  for (uint32_t id : ids) {
    const FunctionStats& f = stats(id);
    std::string name;
    if (id == kUnknown)
      name = "(functions unknown to this gltrace)";
    else if (api::kFunctionInfo[id].name != nullptr)
      name = api::kFunctionInfo[id].name;
    else
      name = "function#" + std::to_string(id);
    fprintf(out, "%-40s %10" PRIu64 " %12.3f %6.2f %10.3f %10.3f %12.3f\n", name.c_str(), f.count,
            static_cast<double>(f.total_ns) / 1e6,
            total_ns != 0 ? 100.0 * static_cast<double>(f.total_ns) / static_cast<double>(total_ns)
                          : 0.0,
            static_cast<double>(f.total_ns) / static_cast<double>(f.count) / 1e3,
            static_cast<double>(f.max_ns) / 1e3, static_cast<double>(f.thread_ns) / 1e6);
  }
  fprintf(out, "%-40s %10" PRIu64 " %12.3f\n\n", "all", calls_,
          static_cast<double>(total_ns) / 1e6);
  fprintf(out, "%-8s %10s %14s %14s\n", "frame", "calls", "in calls ms", "frame ms");
  uint64_t previous_end = 0;
  for (size_t i = 0; i < frames_.size(); ++i) {
    const FrameStats& f = frames_[i];
    fprintf(out, "%-8zu %10" PRIu64 " %14.3f %14.3f\n", i, f.calls,
            static_cast<double>(f.call_ns) / 1e6,
            static_cast<double>(f.end_time_ns - previous_end) / 1e6);
    previous_end = f.end_time_ns;
  }
  if (frame_count_ > frames_.size())
    fprintf(out, "... %" PRIu64 " more frames (--frames-max to show more)\n",
            frame_count_ - frames_.size());
}

}  // namespace gltrace::consumers
