// How far a replayed image may be from the traced one and still pass: the
// forms rendering CIs use (Mesa's trace checksums are exact; ANGLE's and
// Chromium's gold images allow a count of pixels beyond a per-channel delta,
// discount Sobel edges, or want a PSNR or SSIM floor). Pure: measured on
// two RGBA8 images of one size, rows in either order (the same in both).
//
// A tolerance is written as comma-separated terms, all of which must hold:
//   channel=N      a pixel differs when a channel differs by more than N
//                  (0-255; default 0)
//   pixels=N|P%    at most N differing pixels, or P percent of the image
//                  (default 0)
//   edges[=T]      pixels on the traced image's edges (Sobel magnitude of
//                  its luma at least T, 0-255; default 64) may differ by any
//                  amount: rasterizers disagree most on edges
//   psnr=DB        PSNR of the RGB channels at least DB decibels
//   ssim=S         mean SSIM of the luma (8x8 windows) at least S (0-1)
//   exact          (alone) no pixel may differ: channel=0,pixels=0
// A tolerance of psnr and ssim terms only counts no pixels.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gltrace::glreplay {

struct Tolerance {
  // The pixel terms hold (channel, pixels, edges): a tolerance of only
  // psnr and ssim counts no pixels.
  bool count_pixels = true;
  int channel = 0;
  uint64_t pixels = 0;
  double pixel_percent = -1;  // >= 0: pixels as a share of the image instead
  int edge_threshold = -1;    // >= 0: Sobel edges excused
  double psnr = 0;            // 0: no floor
  double ssim = 0;            // 0: no floor
};

// What `gltrace check` and `gltrace diverge` allow unless told otherwise: a
// rasterizer's rounding (channel), a few pixels anywhere, any on edges.
inline constexpr char kDefaultCiTolerance[] = "channel=16,pixels=0.5%,edges";
inline constexpr char kExactTolerance[] = "exact";

// False with *error for a term this grammar does not know.
bool parse_tolerance(std::string_view text, Tolerance* out, std::string* error);
// The tolerance as parse_tolerance reads it (its terms in one order).
std::string tolerance_text(const Tolerance& t);

struct ImageMetrics {
  uint64_t pixels = 0;             // pixels with a channel differing by more than `channel`
  uint64_t edge_pixels = 0;        // of those, on edges and excused (edges only)
  int max_channel_difference = 0;  // over every pixel
  double psnr = std::numeric_limits<double>::infinity();  // dB
  double ssim = 1;
};

// The metrics of `replayed` against `traced` (width x height RGBA8 each).
ImageMetrics measure_images(const uint8_t* replayed, const uint8_t* traced, uint32_t width,
                            uint32_t height, const Tolerance& t);
// Whether they pass `t` (`m` measured with `t`'s channel and edges).
bool within_tolerance(const ImageMetrics& m, const Tolerance& t, uint64_t image_pixels);

// An image of where they differ (RGBA8, the same rows): the traced image
// dimmed to grey, pixels differing beyond `channel` in red (brighter the
// larger the difference), excused edge pixels in blue, smaller differences
// in yellow.
std::vector<uint8_t> difference_image(const uint8_t* replayed, const uint8_t* traced,
                                      uint32_t width, uint32_t height, const Tolerance& t);

}  // namespace gltrace::glreplay
