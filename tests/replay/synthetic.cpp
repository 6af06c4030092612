#include "synthetic.h"

#include <fstream>
#include <stdexcept>

namespace gltrace::replay::test {

std::vector<Spec> uniform_trace(size_t count, uint64_t interval_ns, size_t frame_every,
                                uint32_t targets, uint64_t start_ns) {
  std::vector<Spec> specs(count);
  for (size_t i = 0; i < count; ++i) {
    specs[i].timestamp_ns = start_ns + i * interval_ns;
    specs[i].target = static_cast<uint32_t>(i % targets);
    specs[i].ends_frame = frame_every > 0 && (i + 1) % frame_every == 0;
  }
  return specs;
}

SyntheticSource::SyntheticSource(std::vector<Spec> specs, std::optional<size_t> error_after)
    : specs_(std::move(specs)), error_after_(error_after) {}

SourceResult SyntheticSource::next(Increment* out, std::string* error) {
  if (error_after_ && position_ == *error_after_) {
    *error = "truncated record at offset " + std::to_string(position_ * 16);
    return SourceResult::kError;
  }
  if (position_ >= specs_.size()) return SourceResult::kEnd;
  const Spec& spec = specs_[position_];
  out->index = position_;
  out->timestamp_ns = spec.timestamp_ns;
  out->target = spec.target;
  out->ends_frame = spec.ends_frame;
  auto* payload = new SyntheticPayload;
  payload->spec = spec;
  out->payload.reset(payload);
  ++position_;
  return SourceResult::kIncrement;
}

bool SyntheticSource::rewind(std::string* error) {
  if (!can_rewind) {
    *error = "synthetic source cannot rewind";
    return false;
  }
  ++rewinds;
  position_ = 0;
  return true;
}

bool SyntheticExecutor::prepare(Increment& increment, std::string* error) {
  auto& payload = static_cast<SyntheticPayload&>(*increment.payload);
  int now = concurrent_prepares_.fetch_add(1) + 1;
  int seen = max_concurrent_prepares_.load();
  while (now > seen && !max_concurrent_prepares_.compare_exchange_weak(seen, now)) {
  }
  bool second_in_flight = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    second_in_flight = ++in_flight_[increment.target] > 1;
  }
  if (payload.spec.prepare_us > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(payload.spec.prepare_us));
  concurrent_prepares_.fetch_sub(1);
  if (expect_one_per_target && second_in_flight) {
    *error = "two increments of target " + std::to_string(increment.target) + " in flight";
    return false;
  }
  if (payload.spec.throw_prepare) throw std::runtime_error("synthetic prepare exception");
  if (payload.spec.fail_prepare) {
    *error = "synthetic prepare failure";
    return false;
  }
  payload.prepared = true;
  return true;
}

bool SyntheticExecutor::execute(Increment& increment, std::string* error) {
  auto& payload = static_cast<SyntheticPayload&>(*increment.payload);
  if (!payload.prepared) {
    *error = "executed before it was prepared";
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto last = last_index_.find(increment.target);
    if (last != last_index_.end() && last->second >= increment.index) {
      *error = "out of order on target " + std::to_string(increment.target);
      return false;
    }
  }
  int now = concurrent_executes_.fetch_add(1) + 1;
  int seen = max_concurrent_executes_.load();
  while (now > seen && !max_concurrent_executes_.compare_exchange_weak(seen, now)) {
  }
  if (payload.spec.execute_us > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(payload.spec.execute_us));
  concurrent_executes_.fetch_sub(1);
  while (payload.spec.hang_execute) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (payload.spec.throw_execute) throw std::runtime_error("synthetic execute exception");
  if (payload.spec.fail_execute) {
    *error = "synthetic execute failure";
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  last_index_[increment.target] = increment.index;
  --in_flight_[increment.target];
  executed_.push_back({increment.index, increment.target, std::this_thread::get_id(),
                       std::chrono::steady_clock::now()});
  return true;
}

std::string SyntheticExecutor::describe(uint32_t target) {
  std::lock_guard<std::mutex> lock(mutex_);
  hook_threads_.push_back(std::this_thread::get_id());
  return "synthetic target " + std::to_string(target);
}

bool SyntheticExecutor::snapshot(uint32_t target, const std::string& path, std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    hook_threads_.push_back(std::this_thread::get_id());
    snapshots_.push_back(path);
  }
  std::ofstream out(path);
  out << "snapshot of target " << target << "\n";
  if (!out.good()) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

bool SyntheticExecutor::restart(std::string* /*error*/) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++restarts_;
  last_index_.clear();  // indices start again
  return true;
}

void SyntheticExecutor::thread_exiting(uint32_t target) {
  std::lock_guard<std::mutex> lock(mutex_);
  exited_.push_back(target);
}

std::vector<Executed> SyntheticExecutor::executed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return executed_;
}

std::vector<uint64_t> SyntheticExecutor::executed_indices() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<uint64_t> indices;
  for (const Executed& e : executed_) indices.push_back(e.index);
  return indices;
}

std::vector<std::thread::id> SyntheticExecutor::hook_threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hook_threads_;
}

std::vector<uint32_t> SyntheticExecutor::exited_targets() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exited_;
}

std::vector<std::string> SyntheticExecutor::snapshots() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshots_;
}

}  // namespace gltrace::replay::test
