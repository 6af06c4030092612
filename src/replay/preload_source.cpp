#include "replay/preload_source.h"

#include <utility>

namespace gltrace::replay {

PreloadSource::PreloadSource(IncrementSource& inner, uint64_t budget)
    : inner_(inner), budget_(budget) {}

PreloadSource::~PreloadSource() {
  // Kept payloads are this source's to end: the engine's pointers left them.
  for (Increment& increment : kept_)
    if (IncrementPayload* payload = increment.payload.release()) payload->destroy();
}

void PreloadSource::preload() {
  if (preloaded_) return;
  preloaded_ = true;
  for (;;) {
    Increment increment;
    std::string error;
    SourceResult result = inner_.next_caught(&increment, &error);
    if (result != SourceResult::kIncrement) {
      end_ = result;
      end_error_ = std::move(error);
      break;
    }
    uint64_t size = sizeof(Increment);
    if (increment.payload != nullptr) size += increment.payload->memory_bytes();
    if (bytes_ + size > budget_) {
      streaming_ = true;
      carry_ = std::move(increment);
      break;
    }
    bytes_ += size;
    if (increment.payload != nullptr) increment.payload->kept = true;
    kept_.push_back(std::move(increment));
  }
}

SourceResult PreloadSource::next(Increment* out, std::string* error) {
  if (position_ < kept_.size()) [[likely]] {
    const Increment& kept = kept_[position_++];
    out->index = kept.index;
    out->timestamp_ns = kept.timestamp_ns;
    out->target = kept.target;
    out->ends_frame = kept.ends_frame;
    out->payload.reset(kept.payload.get());  // kept: the engine does not end it
    return SourceResult::kIncrement;
  }
  if (!preloaded_) {
    preload();
    return next(out, error);
  }
  if (streaming_) {
    if (carry_) {
      *out = std::move(*carry_);
      carry_.reset();
      return SourceResult::kIncrement;
    }
    return inner_.next(out, error);
  }
  if (end_ == SourceResult::kError) *error = end_error_;
  return end_;
}

bool PreloadSource::rewind(std::string* error) {
  if (!preloaded_) return inner_.rewind(error);
  position_ = 0;
  if (!streaming_) return true;  // all in memory: the inner source is not read again
  // The inner source from the start, past what is kept (read, not replayed).
  carry_.reset();
  if (!inner_.rewind(error)) return false;
  for (size_t i = 0; i < kept_.size(); ++i) {
    Increment skipped;
    SourceResult result = inner_.next(&skipped, error);
    if (result == SourceResult::kError) return false;
    if (result == SourceResult::kEnd) {
      *error = "the trace has fewer calls than when it was preloaded";
      return false;
    }
  }
  return true;
}

}  // namespace gltrace::replay
