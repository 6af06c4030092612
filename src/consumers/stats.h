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

  // Keeps the figures of the first max_frames frames (what print() shows):
  // memory does not grow with the frames a trace claims.
  explicit StatsCollector(size_t max_frames)
      : functions_(api::kFunctionIdLimit), max_frames_(max_frames) {}
  void on_call(const format::Call& call) override;
  void on_frame(const format::Frame& frame) override;

  // Writes the per-function table (sorted by total time) and the per-frame one.
  void print(FILE* out) const;

  const std::vector<FunctionStats>& functions() const { return functions_; }
  const std::vector<FrameStats>& frames() const { return frames_; }
  uint64_t frame_count() const { return frame_count_; }

 private:
  std::vector<FunctionStats> functions_;
  // Ids past the model's (a newer writer, or damage), counted together.
  FunctionStats unknown_functions_;
  std::vector<FrameStats> frames_;
  size_t max_frames_;
  uint64_t frame_count_ = 0;
  FrameStats current_;
  uint64_t calls_ = 0;
};

}  // namespace gltrace::consumers
