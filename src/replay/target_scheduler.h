// The seed's BufferQueueScheduler, for any target: at most one increment of a
// target is in flight; the next one of that target is released only when the
// previous one has executed, so two increments of one target never overlap,
// never run out of order, and never both hold a per-target resource.
// Thread-safe: the main thread admits, executing threads finish.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace gltrace::replay {

template <typename T>
class TargetScheduler {
 public:
  // True: the item may start now. False: it waits behind the target's item
  // in flight and comes back from finish().
  bool admit(uint32_t target, T item) {
    std::lock_guard<std::mutex> lock(mutex_);
    Queue& queue = targets_[target];
    if (!queue.busy) {
      queue.busy = true;
      return true;
    }
    queue.waiting.push_back(std::move(item));
    return false;
  }

  // The target's item in flight has executed: the next one of the target,
  // which is now in flight, or nothing.
  std::optional<T> finish(uint32_t target) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = targets_.find(target);
    if (it == targets_.end()) return std::nullopt;
    Queue& queue = it->second;
    if (queue.waiting.empty()) {
      queue.busy = false;
      return std::nullopt;
    }
    T next = std::move(queue.waiting.front());
    queue.waiting.pop_front();
    return next;
  }

  size_t waiting() const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t count = 0;
    for (const auto& entry : targets_) count += entry.second.waiting.size();
    return count;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    targets_.clear();
  }

 private:
  struct Queue {
    bool busy = false;
    std::deque<T> waiting;
  };
  mutable std::mutex mutex_;
  std::unordered_map<uint32_t, Queue> targets_;
};

}  // namespace gltrace::replay
