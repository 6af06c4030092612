#include "common/progress.h"

#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace gltrace {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

// "12.3 M", "4.56 k", "789": counts and rates stay short on one line.
std::string short_count(double v) {
  char text[32];
  if (v >= 1e9)
    snprintf(text, sizeof text, "%.2f G", v / 1e9);
  else if (v >= 1e6)
    snprintf(text, sizeof text, "%.2f M", v / 1e6);
  else if (v >= 1e4)
    snprintf(text, sizeof text, "%.1f k", v / 1e3);
  else
    snprintf(text, sizeof text, "%.0f", v);
  return text;
}

}  // namespace

Progress::Progress(std::string what, uint64_t total)
    : what_(std::move(what)),
      total_(total),
      active_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      next_draw_(start_) {}  // the first check draws: short work shows a line too

std::string Progress::format_line(const std::string& what, uint64_t calls, uint64_t frames,
                                  double seconds, uint64_t done, uint64_t total) {
  std::string line = what + ": " + short_count(static_cast<double>(calls)) + " calls, " +
                     short_count(static_cast<double>(frames)) + " frames";
  if (seconds > 0) line += ", " + short_count(static_cast<double>(calls) / seconds) + " calls/s";
  // Past the total (a replay's later loops) no share is known.
  if (total != 0 && done <= total) {
    double share = static_cast<double>(done) / static_cast<double>(total);
    char text[64];
    snprintf(text, sizeof text, ", %.0f%%", share * 100);
    line += text;
    if (share > 0 && seconds > 0) {
      auto left = static_cast<uint64_t>(std::llround(seconds * (1 - share) / share));
      snprintf(text, sizeof text, ", %" PRIu64 ":%02" PRIu64 " left", left / 60, left % 60);
      line += text;
    }
  }
  return line;
}

void Progress::check() {
  until_check_ = kCallsPerCheck;
  auto now = std::chrono::steady_clock::now();
  if (now < next_draw_) return;
  next_draw_ = now + kRedrawInterval;
  double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = format_line(what_, calls_, frames_, seconds, done_, total_);
  // Back to the line's start, the new text, the rest of the old one erased.
  fprintf(stderr, "\r%s\x1b[K", line.c_str());
  fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) {
    fputs("\r\x1b[K", stderr);
    fflush(stderr);
  }
  drawn_ = false;
  active_ = false;
}

}  // namespace gltrace
