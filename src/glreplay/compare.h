// Comparing the replay's framebuffers with the images the trace captured
// (RGBA8, bottom row first): at swaps, after draws, and at the glFinish that
// ends an off-screen program's frame. A trace image may be read later than
// the call it belongs to (ES 3 captures asynchronously), so replayed images
// wait until theirs is there, matched by a key: the seq of the call it was
// read after (Image.seq: for a swap, its thread's last call before it) and
// its origin.
//
// A frame end whose call could not be replayed has no replayed image: it is
// added with the reason, and the trace's image is counted as not replayed.
//
// Each differing image is reported with what a user can act on: the call it
// belongs to, the sizes when they differ, where the differing pixels are
// and by how much, the calls before it that could not be replayed (when
// more did since the last report), and at a frame's end the first draw of
// the frame whose image differs (where the frame went wrong) or that all
// its draws matched.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glreplay/call.h"
#include "glreplay/image_tolerance.h"

namespace gltrace::glreplay {

// Image.origin: in the order the images of one call are read (a draw's
// image before the swap's, which has the same seq).
enum class ImageOrigin : uint8_t { kDraw, kSwap, kFinish };
inline constexpr size_t kImageOrigins = 3;
const char* origin_name(ImageOrigin origin);
// Null for an origin this replay does not know (a newer trace's).
std::optional<ImageOrigin> parse_origin(std::string_view name);

struct ImageKey {
  uint64_t seq = 0;
  ImageOrigin origin = ImageOrigin::kSwap;
  // clang-tidy 14 takes the 0 its synthesized comparison compares with for a null pointer.
  auto operator<=>(const ImageKey&) const = default;  // NOLINT(modernize-use-nullptr)
};

struct ImageDiff {
  bool size_differs = false;
  uint64_t pixels = 0;             // pixels with a channel differing by more than the threshold
  int max_channel_difference = 0;  // over those pixels
  // Bounding box of those pixels (rows counted from the bottom), when any.
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Pure: compares two RGBA8 images of the given sizes.
ImageDiff compare_images(const uint8_t* a, uint32_t a_width, uint32_t a_height, const uint8_t* b,
                         uint32_t b_width, uint32_t b_height, int threshold);

// An image the replay read, waiting for the trace's.
struct ReplayedImage {
  uint64_t frame = 0;
  uint32_t thread = 0;   // the recorded thread that made the call
  ImageKey key;          // its trace image
  uint64_t call = 0;     // the call it belongs to (the swap, the draw, the glFinish)
  std::string function;  // that call's name
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;
  // Calls before it that could not be replayed ("call N: why"): the first
  // few of its frame, or of the replay when its frame has none; how many in
  // all, and in its frame.
  std::vector<std::string> unreplayed;
  uint64_t unreplayed_count = 0;
  uint64_t unreplayed_in_frame = 0;
  // Why the replay has no image here ("call N: cannot replay ..."); empty
  // when it has one (pixels).
  std::string not_replayed;
};

// How a compared image came out: the same (within --compare's threshold),
// within the tolerance, or different.
enum class Verdict : uint8_t { kIdentical, kWithinTolerance, kDiffers };
const char* verdict_name(Verdict verdict);

// One compared image, for a machine-readable report.
struct ImageResult {
  uint64_t frame = 0, call = 0;
  ImageOrigin origin = ImageOrigin::kSwap;
  Verdict verdict = Verdict::kIdentical;
  bool size_differs = false;
  ImageMetrics metrics;
};

class FrameComparer {
 public:
  // Takes the trace's image with a key (null when not there yet).
  using Lookup = std::function<std::optional<FrameImage>(const ImageKey& key)>;
  // Whether the trace has been read far enough that an image of this frame
  // and recorded thread that is not there yet never will be.
  using Settled = std::function<bool(uint64_t frame, uint32_t thread)>;
  FrameComparer(int threshold, Lookup lookup, Settled settled = nullptr)
      : threshold_(threshold), lookup_(std::move(lookup)), settled_(std::move(settled)) {
    measured_by_.channel = threshold;
  }

  // Images that are not identical pass when within `tolerance`.
  void set_tolerance(const Tolerance& tolerance) { tolerance_ = measured_by_ = tolerance; }
  const std::optional<Tolerance>& tolerance() const { return tolerance_; }
  // What images that are not identical are measured by: the tolerance, or
  // without one the threshold as the channel delta.
  const Tolerance& measured_by() const { return measured_by_; }
  // Called with each image that is not identical (both of one size), as
  // compared: where a difference image is written.
  using Differs =
      std::function<void(const ReplayedImage& replayed, const FrameImage& traced, Verdict verdict)>;
  void on_differs(Differs differs) { differs_ = std::move(differs); }

  // Compared now, or once its trace image is there (images are compared in
  // the order they were added).
  void add(ReplayedImage image);
  // Compares every waiting image whose trace image is there now.
  void poll();
  // At the end: compares what can be, and counts the rest as without a
  // trace image.
  void finish();

  uint64_t identical(ImageOrigin origin) const { return identical_[index(origin)]; }
  uint64_t identical() const;
  uint64_t differing() const { return differing_; }
  uint64_t within_tolerance() const { return within_; }
  uint64_t frames_within_tolerance() const { return frames_within_; }
  // Every compared image, in the order compared.
  const std::vector<ImageResult>& results() const { return results_; }
  uint64_t without_image() const { return without_image_; }
  // Trace images whose call could not be replayed.
  uint64_t not_replayed() const { return not_replayed_; }
  // Frames with at least one trace image: all compared identical; any
  // differing; else any not replayed. And frames whose images the trace had
  // none of (a frame neither side has an image of counts nowhere).
  uint64_t frames_identical() const { return frames_identical_; }
  uint64_t frames_differing() const { return frames_differing_; }
  uint64_t frames_not_replayed() const { return frames_not_replayed_; }
  uint64_t frames_without_image() const { return frames_without_image_; }
  // One report per differing image (several lines), in the order compared.
  const std::vector<std::string>& reports() const { return reports_; }

 private:
  struct FrameTally {
    uint64_t waiting = 0, compared = 0, differing = 0, within = 0, not_replayed = 0,
             without_image = 0;
    uint64_t draws_compared = 0;
    bool draw_differs = false;
    uint64_t first_differing_draw = 0;  // its call, when draw_differs
    std::string first_differing_function;
  };
  static size_t index(ImageOrigin origin) { return static_cast<size_t>(origin); }
  // Compares the waiting images whose trace image is there, in order, up
  // to the first that is not (at the end: all, the rest without one).
  void resolve(bool at_end);
  void compare(const ReplayedImage& replayed, const FrameImage& traced);
  void resolved(const ReplayedImage& image);
  void count_frame(const FrameTally& tally);

  int threshold_;
  std::optional<Tolerance> tolerance_;
  Tolerance measured_by_;
  Lookup lookup_;
  Settled settled_;
  Differs differs_;
  std::vector<ImageResult> results_;
  uint64_t within_ = 0, frames_within_ = 0;
  std::map<uint64_t, ReplayedImage> pending_;  // by the order added
  uint64_t added_ = 0;
  std::map<uint64_t, FrameTally> frames_;  // frames with images still waiting
  uint64_t identical_[kImageOrigins] = {};
  uint64_t differing_ = 0, without_image_ = 0, not_replayed_ = 0;
  uint64_t frames_identical_ = 0, frames_differing_ = 0, frames_not_replayed_ = 0,
           frames_without_image_ = 0;
  std::vector<std::string> reports_;
  // Calls not replayed that a report has named so far: each report names
  // those only when more have failed since (one failed upload spoils every
  // later image).
  uint64_t unreplayed_reported_ = 0;
};

}  // namespace gltrace::glreplay
