// Reads another IncrementSource into memory before the replay starts, then
// serves its increments with no reading or decoding: a replay's time is then
// the executor's alone (`gltrace replay --preload`), and every loop pass
// serves the same payloads again (IncrementPayload::kept). Memory is
// bounded: past `budget` bytes (each payload's memory_bytes() and its
// Increment) the preload stops, and what follows the preloaded increments is
// streamed from the inner source, on every pass (a rewind reads the inner
// source again past the preloaded ones). Order, the end and errors come
// through unchanged: an error met while preloading comes after the
// increments before it, as when streaming.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/increment.h"

namespace gltrace::replay {

class PreloadSource : public IncrementSource {
 public:
  // The engine may hold served payloads until it stops: the source must
  // outlive the Replayer it feeds.
  PreloadSource(IncrementSource& inner, uint64_t budget);
  ~PreloadSource() override;
  PreloadSource(const PreloadSource&) = delete;
  PreloadSource& operator=(const PreloadSource&) = delete;

  // Reads up to the budget, once; the first next() does it if no one did
  // (call it before timing starts). An exception from the inner source is
  // kept as its error.
  void preload();
  // After preload(): increments kept, their bytes as counted, and whether
  // the budget stopped the preload before the inner source's end.
  size_t preloaded() const { return kept_.size(); }
  uint64_t preloaded_bytes() const { return bytes_; }
  bool over_budget() const { return streaming_; }

  SourceResult next(Increment* out, std::string* error) override;
  bool rewind(std::string* error) override;

 private:
  IncrementSource& inner_;
  const uint64_t budget_;
  bool preloaded_ = false;
  std::vector<Increment> kept_;  // payloads marked kept; ended by the destructor
  uint64_t bytes_ = 0;
  size_t position_ = 0;  // next of kept_ to serve
  // Past the budget: the increment that did not fit, served once after the
  // kept ones (a rewound inner source reads it again), then the inner source.
  bool streaming_ = false;
  std::optional<Increment> carry_;
  // Otherwise what the inner source ended with, after the kept increments.
  SourceResult end_ = SourceResult::kEnd;
  std::string end_error_;
};

}  // namespace gltrace::replay
