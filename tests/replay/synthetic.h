// A synthetic trace for the replay engine's tests: a source of timestamped
// increments and an executor that records what ran where, checks the
// engine's promises (prepared before executed, per-target order, one in
// flight per target when asked) and fails or throws on request.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "replay/executor.h"
#include "replay/increment.h"

namespace gltrace::replay::test {

struct Spec {
  uint64_t timestamp_ns = 0;
  uint32_t target = 0;
  bool ends_frame = false;
  uint32_t prepare_us = 0;
  uint32_t execute_us = 0;
  bool fail_prepare = false;
  bool fail_execute = false;
  bool throw_prepare = false;
  bool throw_execute = false;
  bool hang_execute = false;  // sleeps until the process ends
};

// count increments interval_ns apart from start_ns; every frame_every-th ends
// a frame; targets take turns.
std::vector<Spec> uniform_trace(size_t count, uint64_t interval_ns, size_t frame_every = 1,
                                uint32_t targets = 1, uint64_t start_ns = 1'000'000'000);

struct SyntheticPayload : IncrementPayload {
  Spec spec;
  std::atomic<bool> prepared{false};
};

class SyntheticSource : public IncrementSource {
 public:
  // error_after: after that many increments, next() reports a damaged trace.
  explicit SyntheticSource(std::vector<Spec> specs,
                           std::optional<size_t> error_after = std::nullopt);
  SourceResult next(Increment* out, std::string* error) override;
  bool rewind(std::string* error) override;

  bool can_rewind = true;
  int rewinds = 0;

 private:
  std::vector<Spec> specs_;
  std::optional<size_t> error_after_;
  size_t position_ = 0;
};

struct Executed {
  uint64_t index;
  uint32_t target;
  std::thread::id thread;
  std::chrono::steady_clock::time_point at;
};

class SyntheticExecutor : public Executor {
 public:
  // Fail when a target's next increment is prepared before its previous one
  // executed (the per-target scheduler's promise).
  bool expect_one_per_target = false;

  bool prepare(Increment& increment, std::string* error) override;
  bool execute(Increment& increment, std::string* error) override;
  std::string describe(uint32_t target) override;
  bool snapshot(uint32_t target, const std::string& path, std::string* error) override;
  bool restart(std::string* error) override;
  void thread_exiting(uint32_t target) override;

  std::vector<Executed> executed() const;
  std::vector<uint64_t> executed_indices() const;
  int max_concurrent_prepares() const { return max_concurrent_prepares_.load(); }
  // The most execute() calls that ran at the same time.
  int max_concurrent_executes() const { return max_concurrent_executes_.load(); }
  int restarts() const { return restarts_.load(); }
  // Threads the hooks ran on, and the thread_exiting() calls.
  std::vector<std::thread::id> hook_threads() const;
  std::vector<uint32_t> exited_targets() const;
  std::vector<std::string> snapshots() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Executed> executed_;
  std::map<uint32_t, uint64_t> last_index_;  // per target
  std::map<uint32_t, int> in_flight_;        // prepared or preparing, not yet executed
  std::vector<std::thread::id> hook_threads_;
  std::vector<uint32_t> exited_;
  std::vector<std::string> snapshots_;
  std::atomic<int> concurrent_prepares_{0};
  std::atomic<int> max_concurrent_prepares_{0};
  std::atomic<int> concurrent_executes_{0};
  std::atomic<int> max_concurrent_executes_{0};
  std::atomic<int> restarts_{0};
};

}  // namespace gltrace::replay::test
