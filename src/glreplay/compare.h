// Comparing the replay's frames with the framebuffers the trace captured
// (RGBA8, bottom row first). A trace image may be read later than the swap
// it belongs to (ES 3 captures asynchronously), so replayed frames wait
// until their image is there, matched by a key (the seq of the swapping
// thread's last call before the swap: see TraceInfo::add_image).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "glreplay/call.h"

namespace gltrace::glreplay {

struct ImageDiff {
  bool size_differs = false;
  uint64_t pixels = 0;             // pixels with a channel differing by more than the threshold
  int max_channel_difference = 0;  // over all pixels
};

// Pure: compares two RGBA8 images of the given sizes.
ImageDiff compare_images(const uint8_t* a, uint32_t a_width, uint32_t a_height, const uint8_t* b,
                         uint32_t b_width, uint32_t b_height, int threshold);

class FrameComparer {
 public:
  // `lookup` takes the trace's image with a key (null when not there yet).
  using Lookup = std::function<std::optional<FrameImage>(uint64_t key)>;
  FrameComparer(int threshold, Lookup lookup) : threshold_(threshold), lookup_(std::move(lookup)) {}

  // A replayed frame (numbered for the reports) and its image's key;
  // compared now or once its trace image has been read.
  void add(uint64_t frame, uint64_t key, uint32_t width, uint32_t height,
           std::vector<uint8_t> pixels);
  // Compares every waiting frame whose image is there now.
  void poll();
  // At the end: compares what can be, and counts the frames the trace has
  // no image of.
  void finish();

  uint64_t identical() const { return identical_; }
  uint64_t differing() const { return differing_; }
  uint64_t without_image() const { return without_image_; }
  // One line per differing frame, in frame order.
  const std::vector<std::string>& reports() const { return reports_; }

 private:
  struct Pending {
    uint64_t key;
    uint32_t width, height;
    std::vector<uint8_t> pixels;
  };
  void compare(uint64_t frame, const Pending& replayed, const FrameImage& traced);

  int threshold_;
  Lookup lookup_;
  std::map<uint64_t, Pending> pending_;
  uint64_t identical_ = 0, differing_ = 0, without_image_ = 0;
  std::vector<std::string> reports_;
};

}  // namespace gltrace::glreplay
