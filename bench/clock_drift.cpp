// The trace clock beside CLOCK_MONOTONIC over a long run.
//
//   gltrace-bench-clock [--seconds N] [--frame-ms M]
//
// Calibrates as a traced app does (a session start, then a refinement due at
// each frame end, every M ms, 16 by default) and reads the trace clock between
// two CLOCK_MONOTONIC readings every millisecond for N seconds (60 by
// default). Prints per minute, and for the whole run, the trace clock's
// largest distance outside the two readings (error; the readings' own span
// cannot make it larger) and its largest offset from their middle when they
// were less than 1 us apart. Exits 1 when the error passed 10 us.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "trace/tsc_clock.h"

namespace {

using gltrace::trace::monotonic_ns;
using gltrace::trace::now_ns;

struct Figures {
  double max_error_ns = 0;
  double max_offset_ns = 0;
  long readings = 0;

  void add(uint64_t before, uint64_t now, uint64_t after) {
    double error = 0;
    if (now < before) error = static_cast<double>(before - now);
    if (now > after) error = static_cast<double>(now - after);
    max_error_ns = std::max(max_error_ns, error);
    if (after - before < 1000) {
      double middle = static_cast<double>(before) + static_cast<double>(after - before) / 2;
      max_offset_ns = std::max(max_offset_ns, std::fabs(static_cast<double>(now) - middle));
    }
    ++readings;
  }
};

}  // namespace

int main(int argc, char** argv) {
  long seconds = 60;
  long frame_ms = 16;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atol(argv[++i]);
    } else if (strcmp(argv[i], "--frame-ms") == 0 && i + 1 < argc) {
      frame_ms = atol(argv[++i]);
    } else {
      fprintf(stderr, "usage: gltrace-bench-clock [--seconds N] [--frame-ms M]\n");
      return 2;
    }
  }
  if (seconds <= 0 || frame_ms <= 0) {
    fprintf(stderr, "gltrace-bench-clock: --seconds and --frame-ms take positive numbers\n");
    return 2;
  }
  gltrace::trace::start_tsc_calibration();
  uint64_t start = monotonic_ns();
  uint64_t end = start + static_cast<uint64_t>(seconds) * 1000000000u;
  uint64_t next_frame = start;
  uint64_t next_report = start + 60000000000u;
  Figures total, minute;
  printf("trace clock against CLOCK_MONOTONIC, %ld s, a frame every %ld ms:\n", seconds, frame_ms);
  for (uint64_t t = start; t < end; t = monotonic_ns()) {
    if (t >= next_frame) {
      gltrace::trace::continue_tsc_calibration();
      next_frame += static_cast<uint64_t>(frame_ms) * 1000000u;
    }
    uint64_t before = monotonic_ns();
    uint64_t now = now_ns();
    uint64_t after = monotonic_ns();
    total.add(before, now, after);
    minute.add(before, now, after);
    if (after >= next_report) {
      printf("  minute %3.0f: error %6.0f ns, offset %6.0f ns\n",
             static_cast<double>(after - start) / 60e9, minute.max_error_ns, minute.max_offset_ns);
      fflush(stdout);
      minute = Figures();
      next_report += 60000000000u;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  bool tsc = gltrace::trace::g_tsc_clock.generation.load() != 0;
  printf("  %s, %ld readings: largest error %.0f ns, largest offset %.0f ns\n",
         tsc ? "TSC" : "clock_gettime (the TSC is not the kernel's clock here)", total.readings,
         total.max_error_ns, total.max_offset_ns);
  return total.max_error_ns > 10000 ? 1 : 0;
}
