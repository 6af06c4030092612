// Per-function and per-frame statistics of a trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "consumers/gpu_time_join.h"
#include "format/records.h"
#include "gltrace/api/functions.h"

namespace gltrace::consumers {

// Durations in ns, for percentiles in bounded memory: exact below 64 ns,
// above that 64 log-linear buckets per power of two, so a percentile is
// reported within 1/128 (0.8 %) of the true value; 30 KiB whatever the count.
class DurationHistogram {
 public:
  void add(uint64_t ns);
  // The q-quantile (0 < q <= 1) by nearest rank; 0 when empty.
  uint64_t quantile(double q) const;
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }

  static constexpr size_t kBuckets = 64 + 58 * 64;

 private:
  std::vector<uint64_t> buckets_;  // allocated on the first add
  uint64_t count_ = 0, min_ = 0, max_ = 0;
};

class StatsCollector : public format::Consumer {
 public:
  struct Durations {
    uint64_t total_ns = 0;
    DurationHistogram histogram;
  };
  struct FunctionStats {
    uint64_t count = 0;
    Durations wall, thread;
    Durations gpu;  // trace --gpu-time: its calls' GPU time (gpu.histogram.count() of them)
  };
  struct FrameStats {
    uint64_t calls = 0, call_ns = 0, end_time_ns = 0;
    uint64_t gpu_ns = 0;  // the sum of its calls' GPU times
  };

  // Keeps the figures of the first max_frames frames (what print() shows):
  // memory does not grow with the frames a trace claims.
  explicit StatsCollector(size_t max_frames)
      : functions_(api::kFunctionIdLimit), max_frames_(max_frames) {}
  void on_header(const format::Header& header) override;
  void on_call(const format::Call& call) override;
  void on_gpu_time(const format::GpuTime& gpu_time) override;

  enum class Format { kText, kCsv, kJson };
  // The per-function table (sorted by total time) and the per-frame one; CSV
  // is one table per output: `frames` picks the per-frame one.
  void print(FILE* out, Format format = Format::kText, bool frames = false) const;

  // Whether the trace recorded each call's thread time (trace --thread-time).
  bool thread_time_recorded() const;
  // Whether it recorded GPU times (trace --gpu-time).
  bool gpu_time_recorded() const { return gpu_times_ != 0; }
  const FunctionStats* function(uint32_t id) const {
    return id < functions_.size() ? functions_[id].get() : nullptr;
  }
  const std::vector<FrameStats>& frames() const { return frames_; }
  uint64_t frame_count() const { return frame_count_; }

 private:
  struct Row {
    std::string name;
    const FunctionStats* stats;
  };
  std::vector<Row> rows() const;  // by total wall time, largest first
  void print_text(FILE* out) const;
  void print_csv(FILE* out, bool frames) const;
  void print_json(FILE* out) const;
  // At a call that ends a frame (consumers::ends_frame), at its end.
  void end_frame(uint64_t end_ns);

  // Allocated for the functions a trace calls: a few hundred of the model's.
  std::vector<std::unique_ptr<FunctionStats>> functions_;
  // Ids past the model's (a newer writer, or damage), counted together.
  FunctionStats unknown_functions_;
  std::vector<FrameStats> frames_;
  DurationHistogram frame_times_;  // of every frame, not only those kept
  uint64_t previous_frame_end_ = 0;
  size_t max_frames_;
  uint64_t frame_count_ = 0;
  FrameStats current_;
  uint64_t calls_ = 0;
  // From the header's capture options; unknown (-1) in traces without them.
  int thread_time_option_ = -1;
  bool any_thread_time_ = false;
  GpuTimeJoin gpu_time_join_;  // the calls whose GPU time is still to come
  bool gpu_time_option_ = false;
  uint64_t gpu_times_ = 0;
};

}  // namespace gltrace::consumers
