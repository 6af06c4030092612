// A GpuTime record (trace --gpu-time) comes frames after its call: what a
// reader needs of the call is kept from the call until its time arrives.
// Bounded: a trace whose GpuTime records never come (cut) keeps at most
// kMaxAwaiting calls waiting.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "format/records.h"
#include "gltrace/api/roles.h"

namespace gltrace::consumers {

struct TimedCall {
  uint32_t function = 0;
  uint32_t context = 0;
  uint64_t frame = 0;  // the reader's frame count at the call
};

class GpuTimeJoin {
 public:
  static constexpr size_t kMaxAwaiting = size_t{1} << 20;

  // A call read in frame `frame`: kept when it is GPU work.
  void on_call(const format::Call& call, uint64_t frame) {
    if (api::has_role(call.function, api::kRoleGpuWork) && awaiting_.size() < kMaxAwaiting)
      awaiting_[call.seq] = {call.function, call.context, frame};
  }
  // The call a GpuTime is of, no longer kept; nullopt when none is (damage).
  std::optional<TimedCall> take(uint64_t seq) {
    auto it = awaiting_.find(seq);
    if (it == awaiting_.end()) return std::nullopt;
    TimedCall call = it->second;
    awaiting_.erase(it);
    return call;
  }

 private:
  std::unordered_map<uint64_t, TimedCall> awaiting_;
};

}  // namespace gltrace::consumers
