// "Measure GPU time (replay)": for a trace without GPU times, the viewer runs
// `gltrace replay --profile=draws --profile-top 0 --profile-format json
// --profile-output TMP TRACE` as a child process in the background and
// merges its per-call GPU times into the model, marked "replay"
// (TraceModel::merge_gpu_times). One run at a time; its state is polled.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace gltrace::view {

class TraceModel;

class GpuMeasure {
 public:
  // `replay_command`: gltrace's replay argv without the profile options and
  // the trace ({gltrace, "replay", ["--driver", D]}).
  GpuMeasure(std::vector<std::string> replay_command, std::string trace, TraceModel& model);
  ~GpuMeasure();  // ends a run under way (SIGKILL) and waits for it
  GpuMeasure(const GpuMeasure&) = delete;
  GpuMeasure& operator=(const GpuMeasure&) = delete;

  // Starts a run; throws QueryError 409 when one is under way, or when the
  // trace cannot be measured (still indexed, a live capture).
  void start();
  // {state: "idle"|"running"|"done"|"failed", elapsed_ms, message,
  // matched (calls given a time), measured (calls the replay timed)}
  nlohmann::json status() const;

 private:
  void run(std::vector<std::string> argv, const std::string& output);
  void finish(const char* state, std::string message);

  std::vector<std::string> command_;
  std::string trace_;
  TraceModel& model_;
  mutable std::mutex mutex_;
  std::string state_ = "idle";
  std::string message_;
  uint64_t matched_ = 0, measured_ = 0;
  std::chrono::steady_clock::time_point started_, ended_;
  pid_t pid_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace gltrace::view
