#include "glreplay/image_tolerance.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace gltrace::glreplay {

namespace {

constexpr int kDefaultEdgeThreshold = 64;

bool parse_int(std::string_view text, int low, int high, int* out) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
    return false;
  *out = value;
  return true;
}

bool parse_double(std::string_view text, double low, double high, double* out) {
  std::string copy(text);
  char* end = nullptr;
  double value = strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value < low ||
      value > high)
    return false;
  *out = value;
  return true;
}

int luma(const uint8_t* p) { return (77 * p[0] + 150 * p[1] + 29 * p[2]) >> 8; }

// The Sobel magnitude of the luma at (x, y), borders repeated, scaled so a
// full step from black to white is 255.
int sobel(const uint8_t* image, uint32_t width, uint32_t height, uint32_t x, uint32_t y) {
  auto at = [&](int dx, int dy) {
    int64_t xx = std::clamp<int64_t>(int64_t{x} + dx, 0, int64_t{width} - 1);
    int64_t yy = std::clamp<int64_t>(int64_t{y} + dy, 0, int64_t{height} - 1);
    return luma(image + (static_cast<size_t>(yy) * width + static_cast<size_t>(xx)) * 4);
  };
  int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
  int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
  return std::min(255, static_cast<int>(std::sqrt(double(gx) * gx + double(gy) * gy) / 4));
}

int worst_channel(const uint8_t* a, const uint8_t* b) {
  int worst = 0;
  for (int c = 0; c < 4; ++c) worst = std::max(worst, std::abs(int{a[c]} - int{b[c]}));
  return worst;
}

// Mean SSIM of the luma over 8x8 windows (clipped at the borders).
double mean_ssim(const uint8_t* a, const uint8_t* b, uint32_t width, uint32_t height) {
  constexpr double kC1 = (0.01 * 255) * (0.01 * 255), kC2 = (0.03 * 255) * (0.03 * 255);
  double sum = 0;
  uint64_t windows = 0;
  for (uint32_t y0 = 0; y0 < height; y0 += 8)
    for (uint32_t x0 = 0; x0 < width; x0 += 8) {
      double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      uint32_t n = 0;
      for (uint32_t y = y0; y < std::min(height, y0 + 8); ++y)
        for (uint32_t x = x0; x < std::min(width, x0 + 8); ++x) {
          size_t p = (static_cast<size_t>(y) * width + x) * 4;
          double la = luma(a + p), lb = luma(b + p);
          sa += la;
          sb += lb;
          saa += la * la;
          sbb += lb * lb;
          sab += la * lb;
          ++n;
        }
      double ma = sa / n, mb = sb / n;
      double va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb;
      sum +=
          ((2 * ma * mb + kC1) * (2 * cov + kC2)) / ((ma * ma + mb * mb + kC1) * (va + vb + kC2));
      ++windows;
    }
  return windows == 0 ? 1 : sum / static_cast<double>(windows);
}

}  // namespace

bool parse_tolerance(std::string_view text, Tolerance* out, std::string* error) {
  Tolerance t;
  if (text == kExactTolerance) {
    *out = t;  // every pixel counted, none may differ
    return true;
  }
  t.count_pixels = false;
  if (text.empty()) {
    *error = "an empty tolerance";
    return false;
  }
  for (bool more = true; more;) {
    size_t comma = text.find(',');
    std::string_view term = text.substr(0, comma);
    more = comma != std::string_view::npos;
    if (more) text = text.substr(comma + 1);
    size_t eq = term.find('=');
    std::string_view key = term.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : term.substr(eq + 1);
    bool ok = false;
    if (key == "channel" || key == "pixels" || key == "edges") t.count_pixels = true;
    if (key == "channel") {
      ok = parse_int(value, 0, 255, &t.channel);
    } else if (key == "pixels") {
      if (!value.empty() && value.back() == '%') {
        ok = parse_double(value.substr(0, value.size() - 1), 0, 100, &t.pixel_percent);
      } else {
        int64_t n = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        ok = !value.empty() && ec == std::errc() && end == value.data() + value.size() && n >= 0;
        t.pixels = static_cast<uint64_t>(n);
      }
    } else if (key == "edges") {
      t.edge_threshold = kDefaultEdgeThreshold;
      ok = eq == std::string_view::npos || parse_int(value, 0, 255, &t.edge_threshold);
    } else if (key == "psnr") {
      ok = parse_double(value, 0, 1000, &t.psnr);
    } else if (key == "ssim") {
      ok = parse_double(value, 0, 1, &t.ssim);
    }
    if (!ok) {
      *error = "'" + std::string(term) +
               "' is not a tolerance term (channel=N, pixels=N or P%, edges[=T], psnr=DB, "
               "ssim=S)";
      return false;
    }
  }
  *out = t;
  return true;
}

std::string tolerance_text(const Tolerance& t) {
  if (t.count_pixels && t.channel == 0 && t.pixels == 0 && t.pixel_percent < 0 &&
      t.edge_threshold < 0 && t.psnr == 0 && t.ssim == 0)
    return kExactTolerance;
  std::string text;
  char term[64];
  auto add = [&](int n) { text.append(term, static_cast<size_t>(std::max(0, n))).push_back(','); };
  if (t.count_pixels) {
    add(snprintf(term, sizeof term, "channel=%d", t.channel));
    if (t.pixel_percent >= 0)
      add(snprintf(term, sizeof term, "pixels=%g%%", t.pixel_percent));
    else
      add(snprintf(term, sizeof term, "pixels=%llu", static_cast<unsigned long long>(t.pixels)));
    if (t.edge_threshold >= 0) add(snprintf(term, sizeof term, "edges=%d", t.edge_threshold));
  }
  if (t.psnr > 0) add(snprintf(term, sizeof term, "psnr=%g", t.psnr));
  if (t.ssim > 0) add(snprintf(term, sizeof term, "ssim=%g", t.ssim));
  if (!text.empty()) text.pop_back();
  return text;
}

ImageMetrics measure_images(const uint8_t* replayed, const uint8_t* traced, uint32_t width,
                            uint32_t height, const Tolerance& t) {
  ImageMetrics m;
  double squares = 0;
  size_t count = static_cast<size_t>(width) * height;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* a = replayed + i * 4;
    const uint8_t* b = traced + i * 4;
    int worst = worst_channel(a, b);
    if (worst == 0) continue;
    m.max_channel_difference = std::max(m.max_channel_difference, worst);
    for (int c = 0; c < 3; ++c) squares += double(int{a[c]} - int{b[c]}) * (int{a[c]} - int{b[c]});
    if (worst <= t.channel) continue;
    ++m.pixels;
    if (t.edge_threshold >= 0 && sobel(traced, width, height, static_cast<uint32_t>(i % width),
                                       static_cast<uint32_t>(i / width)) >= t.edge_threshold)
      ++m.edge_pixels;
  }
  if (m.max_channel_difference == 0) {
    m.psnr = std::numeric_limits<double>::infinity();
    return m;
  }
  double mse = squares / (3.0 * static_cast<double>(count));
  m.psnr =
      mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(255.0 * 255.0 / mse);
  m.ssim = mean_ssim(replayed, traced, width, height);
  return m;
}

bool within_tolerance(const ImageMetrics& m, const Tolerance& t, uint64_t image_pixels) {
  uint64_t allowed =
      t.pixel_percent >= 0
          ? static_cast<uint64_t>(t.pixel_percent / 100 * static_cast<double>(image_pixels))
          : t.pixels;
  uint64_t counted = t.edge_threshold >= 0 ? m.pixels - m.edge_pixels : m.pixels;
  if (t.count_pixels && counted > allowed) return false;
  if (t.psnr > 0 && m.psnr < t.psnr) return false;
  if (t.ssim > 0 && m.ssim < t.ssim) return false;
  return true;
}

std::vector<uint8_t> difference_image(const uint8_t* replayed, const uint8_t* traced,
                                      uint32_t width, uint32_t height, const Tolerance& t) {
  size_t count = static_cast<size_t>(width) * height;
  std::vector<uint8_t> out(count * 4);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* a = replayed + i * 4;
    const uint8_t* b = traced + i * 4;
    uint8_t* o = out.data() + i * 4;
    int worst = worst_channel(a, b);
    auto grey = static_cast<uint8_t>(luma(b) / 4);
    o[0] = o[1] = o[2] = grey;
    o[3] = 255;
    if (worst == 0) continue;
    auto strength = static_cast<uint8_t>(std::min(255, 128 + worst / 2));
    if (worst <= t.channel) {
      o[0] = o[1] = strength;  // yellow: within the channel delta
    } else if (t.edge_threshold >= 0 &&
               sobel(traced, width, height, static_cast<uint32_t>(i % width),
                     static_cast<uint32_t>(i / width)) >= t.edge_threshold) {
      o[2] = strength;  // blue: on an edge, excused
    } else {
      o[0] = strength;  // red: differs
      o[1] = o[2] = 0;
    }
  }
  return out;
}

}  // namespace gltrace::glreplay
