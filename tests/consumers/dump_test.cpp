// The dumper's own text around each call (the call's number, the frame
// lines), as printf wrote it before it was written by hand: numbers counted
// up across digit boundaries and jumps, frame times rounded as "%.3f" does.
#include "consumers/dump.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gltrace/api/functions.h"
#include "support/values.h"

namespace gltrace {
namespace {

// What the dumper wrote for `feed` (given the dumper), via a memory stream.
template <typename Feed>
std::string dumped(Feed feed) {
  char* data = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&data, &size);
  {
    consumers::Dumper dumper(out, {});
    feed(dumper);
    dumper.finish();
  }
  fclose(out);
  std::string text(data, size);
  free(data);
  return text;
}

TEST(Dumper, CallNumbersAsPrintfWroteThem) {
  std::vector<uint64_t> seqs;
  for (uint64_t s = 0; s < 1200; ++s) seqs.push_back(s);
  for (uint64_t s = 999990; s < 1000010; ++s) seqs.push_back(s);  // a jump, then a new digit
  seqs.push_back(5);                                              // backwards
  seqs.push_back(6);
  seqs.push_back(UINT64_MAX - 1);
  seqs.push_back(UINT64_MAX);
  seqs.push_back(0);
  std::vector<format::Value> args = {test::uint(0x0BE2)};
  std::string expected;
  for (uint64_t s : seqs) {
    char line[64];
    snprintf(line, sizeof line, "%" PRIu64 " glEnable(cap = GL_BLEND)\n", s);
    expected += line;
  }
  EXPECT_EQ(dumped([&](consumers::Dumper& dumper) {
              for (uint64_t s : seqs) {
                format::Call call;
                call.function = api::kFn_glEnable;
                call.seq = s;
                call.args = args;
                dumper.on_call(call);
              }
            }),
            expected);
}

TEST(Dumper, FrameTimesAsPrintfRoundedThem) {
  // Ties at the third decimal (0.0625 s, 1.0625 s...: exact in binary, to
  // even), values just around them, whole seconds, the largest time.
  std::vector<uint64_t> times = {0,          1,           499999,         500000,     500001,
                                 62500000,   187500000,   1062500000,     1937500000, 999999999,
                                 1000000000, 12345678901, UINT64_MAX - 1, UINT64_MAX};
  std::mt19937_64 random(7);
  for (int i = 0; i < 2000; ++i) times.push_back(random() >> (random() % 64));
  std::string expected;
  uint64_t number = 0;
  for (uint64_t t : times) {
    char line[128];
    bool app = number % 3 == 1;
    if (app)
      snprintf(line, sizeof line,
               "%" PRIu64
               " eglSwapBuffers(dpy = NULL, surface = NULL)\n"
               "// end of frame %" PRIu64 " (app frame %" PRIu64 ", %.3f s)\n",
               number, number, number * 7, static_cast<double>(t) / 1e9);
    else
      snprintf(line, sizeof line,
               "%" PRIu64
               " eglSwapBuffers(dpy = NULL, surface = NULL)\n"
               "// end of frame %" PRIu64 " (%.3f s)\n",
               number, number, static_cast<double>(t) / 1e9);
    expected += line;
    ++number;
  }
  std::vector<format::Value> args = {test::pointer(0), test::pointer(0)};
  EXPECT_EQ(dumped([&](consumers::Dumper& dumper) {
              uint64_t n = 0;
              for (uint64_t t : times) {
                format::Call call;
                call.function = api::kFn_eglSwapBuffers;
                call.seq = n;
                call.args = args;
                dumper.on_call(call);
                format::Frame frame;
                frame.number = n;
                frame.time_ns = t;
                frame.has_app_frame = n % 3 == 1;
                frame.app_frame = n * 7;
                dumper.on_frame(frame);
                ++n;
              }
            }),
            expected);
}

}  // namespace
}  // namespace gltrace
