// Per-function and per-frame statistics of a trace.
#pragma once

#include <cstdio>
#include <vector>

#include "format/records.h"
#include "gltrace/api/functions.h"

namespace gltrace::consumers {

class StatsCollector : public format::Consumer {
 public:
  struct FunctionStats {
    uint64_t count = 0, total_ns = 0, max_ns = 0, thread_ns = 0;
  };
  struct FrameStats {
    uint64_t calls = 0, call_ns = 0, end_time_ns = 0;
  };

  StatsCollector() : functions_(api::kFunctionIdLimit) {}
  void on_call(const format::Call& call) override;
  void on_frame(const format::Frame& frame) override;

  // Writes the per-function table (sorted by total time) and the per-frame one.
  void print(FILE* out, size_t max_frames) const;

  const std::vector<FunctionStats>& functions() const { return functions_; }
  const std::vector<FrameStats>& frames() const { return frames_; }

 private:
  std::vector<FunctionStats> functions_;
  std::vector<FrameStats> frames_;
  FrameStats current_;
  uint64_t calls_ = 0;
};

}  // namespace gltrace::consumers
