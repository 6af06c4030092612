#include "glreplay/compare.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gltrace::glreplay {

namespace {
constexpr const char* kOriginNames[kImageOrigins] = {"draw", "swap", "finish"};
}  // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kIdentical:
      return "identical";
    case Verdict::kWithinTolerance:
      return "within tolerance";
    case Verdict::kDiffers:
      break;
  }
  return "differs";
}

const char* origin_name(ImageOrigin origin) { return kOriginNames[static_cast<size_t>(origin)]; }

std::optional<ImageOrigin> parse_origin(std::string_view name) {
  for (size_t i = 0; i < kImageOrigins; ++i)
    if (name == kOriginNames[i]) return static_cast<ImageOrigin>(i);
  return std::nullopt;
}

ImageDiff compare_images(const uint8_t* a, uint32_t a_width, uint32_t a_height, const uint8_t* b,
                         uint32_t b_width, uint32_t b_height, int threshold) {
  ImageDiff diff;
  if (a_width != b_width || a_height != b_height) {
    diff.size_differs = true;
    return diff;
  }
  for (uint32_t y = 0; y < a_height; ++y) {
    for (uint32_t x = 0; x < a_width; ++x) {
      size_t p = (static_cast<size_t>(y) * a_width + x) * 4;
      int worst = 0;
      for (size_t c = 0; c < 4; ++c) {
        int d = std::abs(static_cast<int>(a[p + c]) - static_cast<int>(b[p + c]));
        if (d > worst) worst = d;
      }
      if (worst <= threshold) continue;
      if (diff.pixels == 0) {
        diff.x0 = diff.x1 = x;
        diff.y0 = diff.y1 = y;
      } else {
        diff.x0 = std::min(diff.x0, x);
        diff.x1 = std::max(diff.x1, x);
        diff.y1 = y;  // rows come in order
      }
      if (worst > diff.max_channel_difference) diff.max_channel_difference = worst;
      ++diff.pixels;
    }
  }
  return diff;
}

uint64_t FrameComparer::identical() const {
  uint64_t n = 0;
  for (uint64_t count : identical_) n += count;
  return n;
}

void FrameComparer::add(ReplayedImage image) {
  ++frames_[image.frame].waiting;
  pending_.emplace(added_++, std::move(image));
  poll();
}

void FrameComparer::poll() { resolve(false); }

void FrameComparer::resolve(bool at_end) {
  // In the order added: a frame's draws are judged before its end.
  for (auto it = pending_.begin(); it != pending_.end(); it = pending_.erase(it)) {
    const ReplayedImage& image = it->second;
    std::optional<FrameImage> traced = lookup_(image.key);
    if (traced.has_value()) {
      compare(image, *traced);
    } else if (at_end || (settled_ != nullptr && settled_(image.frame, image.thread))) {
      // Nothing to count where neither side has an image.
      if (image.not_replayed.empty()) {
        ++without_image_;
        ++frames_[image.frame].without_image;
      }
    } else {
      return;
    }
    resolved(image);
  }
}

void FrameComparer::finish() {
  resolve(true);
  for (const auto& [frame, tally] : frames_) count_frame(tally);
  frames_.clear();
}

void FrameComparer::count_frame(const FrameTally& tally) {
  if (tally.differing != 0)
    ++frames_differing_;
  else if (tally.not_replayed != 0)
    ++frames_not_replayed_;
  else if (tally.within != 0)
    ++frames_within_;
  else if (tally.compared != 0)
    ++frames_identical_;
  else if (tally.without_image != 0)
    ++frames_without_image_;
}

void FrameComparer::resolved(const ReplayedImage& image) {
  --frames_[image.frame].waiting;
  // Frames come in order: no image of an earlier frame is still to come.
  for (auto it = frames_.begin(); it != frames_.end() && it->first < image.frame;
       it = frames_.erase(it))
    count_frame(it->second);
}

void FrameComparer::compare(const ReplayedImage& replayed, const FrameImage& traced) {
  if (!replayed.not_replayed.empty()) {
    ++not_replayed_;
    ++frames_[replayed.frame].not_replayed;
    reports_.push_back("frame " + std::to_string(replayed.frame) + ", image " +
                       (replayed.key.origin == ImageOrigin::kSwap ? "at" : "after") + " call " +
                       std::to_string(replayed.call) + " (" + replayed.function + ", origin " +
                       origin_name(replayed.key.origin) +
                       "): not replayed: " + replayed.not_replayed);
    return;
  }
  ImageDiff diff = compare_images(replayed.pixels.data(), replayed.width, replayed.height,
                                  reinterpret_cast<const uint8_t*>(traced.pixels->data()),
                                  traced.width, traced.height, threshold_);
  FrameTally& tally = frames_[replayed.frame];
  ++tally.compared;
  bool draw = replayed.key.origin == ImageOrigin::kDraw;
  if (draw) ++tally.draws_compared;
  ImageResult result{replayed.frame,    replayed.call,     replayed.key.origin,
                     Verdict::kDiffers, diff.size_differs, {}};
  if (!diff.size_differs && diff.pixels == 0) {
    ++identical_[index(replayed.key.origin)];
    result.verdict = Verdict::kIdentical;  // not measured further
    results_.push_back(result);
    return;
  }
  if (!diff.size_differs) {
    result.metrics = measure_images(replayed.pixels.data(),
                                    reinterpret_cast<const uint8_t*>(traced.pixels->data()),
                                    replayed.width, replayed.height, measured_by_);
    if (tolerance_ && glreplay::within_tolerance(result.metrics, *tolerance_,
                                                 uint64_t{replayed.width} * replayed.height))
      result.verdict = Verdict::kWithinTolerance;
  }
  results_.push_back(result);
  if (differs_ && !diff.size_differs) differs_(replayed, traced, result.verdict);
  if (result.verdict == Verdict::kWithinTolerance) {
    ++within_;
    ++tally.within;
    return;
  }
  ++differing_;
  ++tally.differing;
  char line[320];
  int n = snprintf(line, sizeof line,
                   "frame %" PRIu64 ", image %s call %" PRIu64 " (%s, origin %s): ", replayed.frame,
                   replayed.key.origin == ImageOrigin::kSwap ? "at" : "after", replayed.call,
                   replayed.function.c_str(), origin_name(replayed.key.origin));
  std::string report(line, static_cast<size_t>(std::max(n, 0)));
  if (diff.size_differs) {
    snprintf(line, sizeof line, "replayed %ux%u, traced %ux%u", replayed.width, replayed.height,
             traced.width, traced.height);
  } else {
    snprintf(line, sizeof line,
             "%" PRIu64 " of %" PRIu64
             " pixels differ (max channel difference %d) within x %u-%u, y %u-%u",
             diff.pixels, uint64_t{replayed.width} * replayed.height, diff.max_channel_difference,
             diff.x0, diff.x1, diff.y0, diff.y1);
  }
  report += line;
  if (tolerance_ && !diff.size_differs) {
    const ImageMetrics& m = result.metrics;
    snprintf(line, sizeof line,
             "\n  beyond the tolerance (%s): %" PRIu64 " pixels beyond channel %d (%" PRIu64
             " excused on edges), PSNR %.2f dB, SSIM %.4f",
             tolerance_text(*tolerance_).c_str(), m.pixels, tolerance_->channel, m.edge_pixels,
             m.psnr, m.ssim);
    report += line;
  }
  if (replayed.unreplayed_count > unreplayed_reported_) {
    unreplayed_reported_ = replayed.unreplayed_count;
    snprintf(line, sizeof line,
             "\n  %" PRIu64 " call%s before it could not be replayed (%" PRIu64
             " in this frame), among them:",
             replayed.unreplayed_count, replayed.unreplayed_count == 1 ? "" : "s",
             replayed.unreplayed_in_frame);
    report += line;
    for (const std::string& call : replayed.unreplayed) report += "\n    " + call;
  }
  if (draw) {
    if (!tally.draw_differs) {
      tally.draw_differs = true;
      tally.first_differing_draw = replayed.call;
      tally.first_differing_function = replayed.function;
    }
  } else if (tally.draw_differs) {
    snprintf(line, sizeof line,
             "\n  the first draw of this frame whose image differs: call %" PRIu64 " (%s)",
             tally.first_differing_draw, tally.first_differing_function.c_str());
    report += line;
  } else if (tally.draws_compared != 0) {
    snprintf(line, sizeof line,
             "\n  the images after its %" PRIu64
             " draws match: what differs comes from a call that is not a draw",
             tally.draws_compared);
    report += line;
  }
  reports_.push_back(std::move(report));
}

}  // namespace gltrace::glreplay
