#include "glreplay/compare.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace gltrace::glreplay {

ImageDiff compare_images(const uint8_t* a, uint32_t a_width, uint32_t a_height, const uint8_t* b,
                         uint32_t b_width, uint32_t b_height, int threshold) {
  ImageDiff diff;
  if (a_width != b_width || a_height != b_height) {
    diff.size_differs = true;
    return diff;
  }
  size_t pixels = static_cast<size_t>(a_width) * a_height;
  for (size_t p = 0; p < pixels; ++p) {
    int worst = 0;
    for (size_t c = 0; c < 4; ++c) {
      int d = std::abs(static_cast<int>(a[p * 4 + c]) - static_cast<int>(b[p * 4 + c]));
      if (d > worst) worst = d;
    }
    if (worst > diff.max_channel_difference) diff.max_channel_difference = worst;
    if (worst > threshold) ++diff.pixels;
  }
  return diff;
}

void FrameComparer::add(uint64_t frame, uint64_t key, uint32_t width, uint32_t height,
                        std::vector<uint8_t> pixels) {
  pending_[frame] = Pending{key, width, height, std::move(pixels)};
  poll();
}

void FrameComparer::poll() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::optional<FrameImage> traced = lookup_(it->second.key);
    if (!traced.has_value()) {
      ++it;
      continue;
    }
    compare(it->first, it->second, *traced);
    it = pending_.erase(it);
  }
}

void FrameComparer::finish() {
  poll();
  without_image_ += pending_.size();
  pending_.clear();
}

void FrameComparer::compare(uint64_t frame, const Pending& replayed, const FrameImage& traced) {
  ImageDiff diff = compare_images(replayed.pixels.data(), replayed.width, replayed.height,
                                  reinterpret_cast<const uint8_t*>(traced.pixels->data()),
                                  traced.width, traced.height, threshold_);
  char line[160];
  if (diff.size_differs) {
    snprintf(line, sizeof line, "frame %" PRIu64 ": replayed %ux%u, traced %ux%u", frame,
             replayed.width, replayed.height, traced.width, traced.height);
  } else if (diff.pixels != 0) {
    snprintf(line, sizeof line,
             "frame %" PRIu64 ": %" PRIu64 " of %" PRIu64
             " pixels differ (max channel difference %d)",
             frame, diff.pixels, uint64_t{replayed.width} * replayed.height,
             diff.max_channel_difference);
  } else {
    ++identical_;
    return;
  }
  ++differing_;
  reports_.emplace_back(line);
}

}  // namespace gltrace::glreplay
