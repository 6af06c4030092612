// glreplay: its pure parts (image comparison, the trace source) and real
// replays on Mesa, headless: traces of the bundled demo, of a small app using
// client memory and mapped buffers, and of glmark2 (under Xvfb) are replayed
// and every frame compared with the framebuffer the trace captured.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "format/encoders.h"
#include "format/reader.h"
#include "format/schema.h"
#include "format/writer.h"
#include "glreplay/compare.h"
#include "glreplay/session.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/functions.h"
#include "protowire/wire.h"
#include "support/apps.h"
#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"
#include "test_trace.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;
using glreplay::FrameImage;

// What Mesa's drivers here differ by on the demo (measured in the closing
// note of issue 26): rounding within a few steps, edges rasterized apart.
constexpr char kCrossDriverTolerance[] = "channel=16,pixels=0.5%,edges";

// One demo trace with framebuffer images, made once for the tests that need it.
const std::string& demo_trace() {
  static const std::string path = [] {
    std::string p = make_temp_dir() + "/demo.gltrace";
    ProcessResult r = gltrace({"trace", "--framebuffer", "swap", "-o", p, "--",
                               build_bin("gltrace-demo"), "--frames", "10"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

// --- pure parts ----------------------------------------------------------------------

TEST(GlreplayCompare, CountsPixelsBeyondTheThreshold) {
  std::vector<uint8_t> a(4 * 4 * 4, 10), b = a;
  glreplay::ImageDiff same = glreplay::compare_images(a.data(), 4, 4, b.data(), 4, 4, 0);
  EXPECT_FALSE(same.size_differs);
  EXPECT_EQ(same.pixels, 0u);
  EXPECT_EQ(same.max_channel_difference, 0);
  b[0] = 13;           // pixel 0, red: 3
  b[4 * 5 + 3] = 110;  // pixel 5, alpha: 100
  glreplay::ImageDiff exact = glreplay::compare_images(a.data(), 4, 4, b.data(), 4, 4, 0);
  EXPECT_EQ(exact.pixels, 2u);
  EXPECT_EQ(exact.max_channel_difference, 100);
  EXPECT_EQ(glreplay::compare_images(a.data(), 4, 4, b.data(), 4, 4, 3).pixels, 1u);
  EXPECT_TRUE(glreplay::compare_images(a.data(), 4, 4, b.data(), 2, 8, 0).size_differs);
}

glreplay::ReplayedImage replayed(uint64_t frame, uint64_t seq, glreplay::ImageOrigin origin,
                                 uint8_t value, const char* function = "eglSwapBuffers") {
  glreplay::ReplayedImage image;
  image.frame = frame;
  image.key = {seq, origin};
  image.call = origin == glreplay::ImageOrigin::kSwap ? seq + 1 : seq;
  image.function = function;
  image.width = image.height = 2;
  image.pixels.assign(16, value);
  return image;
}

// The tolerance's grammar: each term, and what it refuses.
TEST(GlreplayTolerance, TermsParseAndBadOnesAreNamed) {
  glreplay::Tolerance t;
  std::string error;
  ASSERT_TRUE(
      glreplay::parse_tolerance("channel=16,pixels=0.5%,edges,psnr=30,ssim=0.95", &t, &error))
      << error;
  EXPECT_EQ(t.channel, 16);
  EXPECT_DOUBLE_EQ(t.pixel_percent, 0.5);
  EXPECT_EQ(t.edge_threshold, 64);
  EXPECT_DOUBLE_EQ(t.psnr, 30);
  EXPECT_DOUBLE_EQ(t.ssim, 0.95);
  EXPECT_EQ(glreplay::tolerance_text(t), "channel=16,pixels=0.5%,edges=64,psnr=30,ssim=0.95");
  ASSERT_TRUE(glreplay::parse_tolerance("pixels=12,edges=10", &t, &error)) << error;
  EXPECT_EQ(t.pixels, 12u);
  EXPECT_EQ(t.edge_threshold, 10);
  // Only the image measures: no pixel is counted.
  ASSERT_TRUE(glreplay::parse_tolerance("psnr=40,ssim=0.99", &t, &error)) << error;
  EXPECT_FALSE(t.count_pixels);
  EXPECT_EQ(glreplay::tolerance_text(t), "psnr=40,ssim=0.99");
  glreplay::ImageMetrics far;
  far.pixels = 1000;
  far.psnr = 41;
  far.ssim = 0.995;
  EXPECT_TRUE(glreplay::within_tolerance(far, t, 2000));
  for (const char* bad :
       {"", "channel=256", "pixels=-1", "pixels=5%%", "ssim=2", "psnr=x", "blur=3", "channel=4,"}) {
    error.clear();
    EXPECT_FALSE(glreplay::parse_tolerance(bad, &t, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

// A 16x16 image, black left half and white right half: its edge is the two
// middle columns. The other image differs by 100 on that edge only, then
// also by 3 everywhere.
TEST(GlreplayTolerance, EdgesChannelPixelsPsnrAndSsimDecide) {
  const uint32_t w = 16, h = 16;
  std::vector<uint8_t> traced(w * h * 4), replayed;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) traced[(y * w + x) * 4 + c] = c == 3 || x >= 8 ? 255 : 0;
  replayed = traced;
  for (uint32_t y = 0; y < h; ++y) {
    replayed[(y * w + 7) * 4] = 100;      // black edge column, red raised
    replayed[(y * w + 8) * 4 + 1] = 155;  // white edge column, green lowered
  }
  glreplay::Tolerance exact;
  glreplay::ImageMetrics m = glreplay::measure_images(replayed.data(), traced.data(), w, h, exact);
  EXPECT_EQ(m.pixels, 32u);
  EXPECT_EQ(m.edge_pixels, 0u);
  EXPECT_EQ(m.max_channel_difference, 100);
  // Two columns of 16 differ by 100 in one channel of three.
  double mse = 32.0 * 100 * 100 / (3.0 * w * h);
  EXPECT_NEAR(m.psnr, 10 * std::log10(255.0 * 255.0 / mse), 1e-9);
  EXPECT_LT(m.ssim, 1.0);
  EXPECT_FALSE(glreplay::within_tolerance(m, exact, w * h));

  glreplay::Tolerance edges;
  edges.edge_threshold = 64;
  m = glreplay::measure_images(replayed.data(), traced.data(), w, h, edges);
  EXPECT_EQ(m.edge_pixels, 32u);
  EXPECT_TRUE(glreplay::within_tolerance(m, edges, w * h));
  glreplay::Tolerance some_pixels;
  some_pixels.pixels = 31;
  EXPECT_FALSE(glreplay::within_tolerance(m, some_pixels, w * h));
  some_pixels.pixel_percent = 12.5;  // 32 of 256
  EXPECT_TRUE(glreplay::within_tolerance(m, some_pixels, w * h));
  glreplay::Tolerance psnr;
  psnr.edge_threshold = 64;
  psnr.psnr = m.psnr + 0.1;
  EXPECT_FALSE(glreplay::within_tolerance(m, psnr, w * h));
  psnr.psnr = m.psnr - 0.1;
  EXPECT_TRUE(glreplay::within_tolerance(m, psnr, w * h));

  // Off the edge: a difference of 3 everywhere is beyond channel 0 on every
  // pixel, within channel 3; edges excuse only the edge.
  for (uint32_t i = 0; i < w * h; ++i)
    if (i % w != 7 && i % w != 8) replayed[i * 4 + 2] = static_cast<uint8_t>(traced[i * 4 + 2] ^ 3);
  m = glreplay::measure_images(replayed.data(), traced.data(), w, h, edges);
  EXPECT_EQ(m.pixels, w * h);
  EXPECT_FALSE(glreplay::within_tolerance(m, edges, w * h));
  edges.channel = 3;
  m = glreplay::measure_images(replayed.data(), traced.data(), w, h, edges);
  EXPECT_EQ(m.pixels, 32u);
  EXPECT_TRUE(glreplay::within_tolerance(m, edges, w * h));
  glreplay::Tolerance ssim;
  ssim.channel = 255;
  ssim.ssim = 0.999;
  EXPECT_FALSE(glreplay::within_tolerance(m, ssim, w * h)) << m.ssim;

  // The difference image: red beyond the delta, blue on an excused edge,
  // yellow within the delta, grey where equal.
  std::vector<uint8_t> d = glreplay::difference_image(replayed.data(), traced.data(), w, h, edges);
  EXPECT_EQ(d[7 * 4 + 2] > 0 && d[7 * 4] == d[7 * 4 + 1], true);  // blue on the edge
  EXPECT_GT(d[0], 100);                                           // yellow: red and green
  EXPECT_EQ(d[0], d[1]);
  glreplay::Tolerance strict;
  d = glreplay::difference_image(replayed.data(), traced.data(), w, h, strict);
  EXPECT_GT(d[7 * 4], 100);  // red
  EXPECT_EQ(d[7 * 4 + 1], 0);
}

// With a tolerance the comparer counts images (and frames) it lets pass
// apart from identical and differing ones.
TEST(GlreplayTolerance, TheComparerCountsImagesWithinTheTolerance) {
  using glreplay::ImageKey;
  using glreplay::ImageOrigin;
  std::map<ImageKey, FrameImage> trace;
  glreplay::FrameComparer comparer(0, [&](const ImageKey& key) -> std::optional<FrameImage> {
    auto it = trace.find(key);
    if (it == trace.end()) return std::nullopt;
    return it->second;
  });
  glreplay::Tolerance t;
  t.channel = 4;
  comparer.set_tolerance(t);
  std::vector<glreplay::Verdict> seen;
  comparer.on_differs([&](const glreplay::ReplayedImage&, const FrameImage&,
                          glreplay::Verdict verdict) { seen.push_back(verdict); });
  auto image = [](uint8_t value) {
    return FrameImage{2, 2, std::make_shared<const std::string>(16, static_cast<char>(value))};
  };
  trace[{10, ImageOrigin::kSwap}] = image(50);
  trace[{20, ImageOrigin::kSwap}] = image(50);
  trace[{30, ImageOrigin::kSwap}] = image(50);
  comparer.add(replayed(0, 10, ImageOrigin::kSwap, 50));
  comparer.add(replayed(1, 20, ImageOrigin::kSwap, 53));
  comparer.add(replayed(2, 30, ImageOrigin::kSwap, 60));
  comparer.finish();
  EXPECT_EQ(comparer.frames_identical(), 1u);
  EXPECT_EQ(comparer.frames_within_tolerance(), 1u);
  EXPECT_EQ(comparer.frames_differing(), 1u);
  EXPECT_EQ(comparer.within_tolerance(), 1u);
  EXPECT_EQ(comparer.differing(), 1u);
  ASSERT_EQ(comparer.results().size(), 3u);
  EXPECT_EQ(comparer.results()[1].verdict, glreplay::Verdict::kWithinTolerance);
  EXPECT_EQ(comparer.results()[2].metrics.max_channel_difference, 10);
  EXPECT_EQ(seen, (std::vector<glreplay::Verdict>{glreplay::Verdict::kWithinTolerance,
                                                  glreplay::Verdict::kDiffers}));
  ASSERT_EQ(comparer.reports().size(), 1u);
  EXPECT_NE(comparer.reports()[0].find("beyond the tolerance (channel=4,pixels=0): 4 pixels"),
            std::string::npos)
      << comparer.reports()[0];
}

TEST(GlreplayCompare, ImagesReadAfterTheirSwapAreMatchedByKey) {
  using glreplay::ImageKey;
  using glreplay::ImageOrigin;
  std::map<ImageKey, FrameImage> trace;
  glreplay::FrameComparer comparer(0, [&](const ImageKey& key) -> std::optional<FrameImage> {
    auto it = trace.find(key);
    if (it == trace.end()) return std::nullopt;
    FrameImage image = it->second;
    trace.erase(it);
    return image;
  });
  auto image = [](uint8_t value) {
    return FrameImage{2, 2, std::make_shared<const std::string>(16, static_cast<char>(value))};
  };
  comparer.add(replayed(0, 40, ImageOrigin::kSwap, 1));  // its image comes later
  EXPECT_EQ(comparer.identical() + comparer.differing(), 0u);
  trace[{40, ImageOrigin::kSwap}] = image(1);
  trace[{31, ImageOrigin::kSwap}] =
      image(7);  // frame 1's, made by a thread that swapped at the same time
  trace[{31, ImageOrigin::kDraw}] = image(1);            // a draw's: same seq, another image
  comparer.add(replayed(1, 31, ImageOrigin::kSwap, 1));  // compared with 0's on the way
  EXPECT_EQ(comparer.identical(), 1u);
  EXPECT_EQ(comparer.differing(), 1u);
  ASSERT_EQ(comparer.reports().size(), 1u);
  EXPECT_EQ(comparer.reports()[0],
            "frame 1, image at call 32 (eglSwapBuffers, origin swap): 4 of 4 pixels differ (max "
            "channel difference 6) within x 0-1, y 0-1");
  comparer.add(replayed(2, 50, ImageOrigin::kSwap, 1));  // never in the trace
  comparer.finish();
  EXPECT_EQ(comparer.without_image(), 1u);
  EXPECT_EQ(comparer.frames_identical(), 1u);
  EXPECT_EQ(comparer.frames_differing(), 1u);
  EXPECT_EQ(comparer.frames_without_image(), 1u);
}

// A frame end that was not replayed counts its trace image as not replayed
// (with the reason), its frame too; one the trace has no image of counts
// nowhere (neither side has an image).
TEST(GlreplayCompare, ATraceImageAtACallNotReplayedIsCountedWithTheReason) {
  using glreplay::ImageKey;
  using glreplay::ImageOrigin;
  std::map<ImageKey, FrameImage> trace;
  glreplay::FrameComparer comparer(0, [&](const ImageKey& key) -> std::optional<FrameImage> {
    auto it = trace.find(key);
    if (it == trace.end()) return std::nullopt;
    FrameImage image = it->second;
    trace.erase(it);
    return image;
  });
  auto image = [] { return FrameImage{2, 2, std::make_shared<const std::string>(16, '\1')}; };
  trace[{10, ImageOrigin::kSwap}] = image();
  trace[{20, ImageOrigin::kSwap}] = image();
  comparer.add(replayed(0, 10, ImageOrigin::kSwap, 1));
  glreplay::ReplayedImage failed = replayed(1, 20, ImageOrigin::kSwap, 1);
  failed.pixels.clear();
  failed.not_replayed = "call 21: cannot replay eglSwapBuffers: no surface";
  comparer.add(std::move(failed));
  glreplay::ReplayedImage untraced = replayed(2, 30, ImageOrigin::kSwap, 1);
  untraced.not_replayed = "call 31: cannot replay eglSwapBuffers: no surface";
  comparer.add(std::move(untraced));
  comparer.finish();
  EXPECT_EQ(comparer.identical(), 1u);
  EXPECT_EQ(comparer.not_replayed(), 1u);
  EXPECT_EQ(comparer.differing() + comparer.without_image(), 0u);
  EXPECT_EQ(comparer.frames_identical(), 1u);
  EXPECT_EQ(comparer.frames_not_replayed(), 1u);
  EXPECT_EQ(comparer.frames_differing() + comparer.frames_without_image(), 0u);
  ASSERT_EQ(comparer.reports().size(), 1u);
  EXPECT_EQ(comparer.reports()[0],
            "frame 1, image at call 21 (eglSwapBuffers, origin swap): not replayed: call 21: "
            "cannot replay eglSwapBuffers: no surface");
}

// A differing frame's report says where it went wrong: the first draw whose
// image differs, the calls that could not be replayed, the differing area.
TEST(GlreplayCompare, AFrameEndReportNamesItsFirstDifferingDraw) {
  using glreplay::ImageKey;
  using glreplay::ImageOrigin;
  std::map<ImageKey, FrameImage> trace;
  auto image = [](uint8_t value, size_t changed_pixel) {
    std::string pixels(16, 1);
    if (changed_pixel < 4) pixels[changed_pixel * 4 + 2] = static_cast<char>(value);
    return FrameImage{2, 2, std::make_shared<const std::string>(std::move(pixels))};
  };
  trace[{10, ImageOrigin::kDraw}] = image(1, 9);  // identical
  trace[{12, ImageOrigin::kDraw}] = image(9, 3);  // pixel (1, 1) differs
  trace[{14, ImageOrigin::kDraw}] = image(9, 3);
  trace[{15, ImageOrigin::kFinish}] = image(9, 3);
  bool settled = false;
  glreplay::FrameComparer comparer(
      0,
      [&](const ImageKey& key) -> std::optional<FrameImage> {
        auto it = trace.find(key);
        if (it == trace.end()) return std::nullopt;
        FrameImage found = it->second;
        trace.erase(it);
        return found;
      },
      [&](uint64_t, uint32_t) { return settled; });
  comparer.add(replayed(0, 10, ImageOrigin::kDraw, 1, "glDrawArrays"));
  glreplay::ReplayedImage second = replayed(0, 12, ImageOrigin::kDraw, 1, "glDrawElements");
  second.unreplayed = {"call 11: cannot replay glTexImage2D: argument pixels was not captured"};
  second.unreplayed_count = second.unreplayed_in_frame = 1;
  comparer.add(second);
  glreplay::ReplayedImage third = replayed(0, 14, ImageOrigin::kDraw, 1, "glDrawArrays");
  third.unreplayed = second.unreplayed;
  third.unreplayed_count = third.unreplayed_in_frame = 1;
  comparer.add(third);
  comparer.add(replayed(0, 15, ImageOrigin::kFinish, 1, "glFinish"));
  ASSERT_EQ(comparer.reports().size(), 3u);
  EXPECT_EQ(comparer.reports()[0],
            "frame 0, image after call 12 (glDrawElements, origin draw): 1 of 4 pixels differ "
            "(max channel difference 8) within x 1-1, y 1-1\n"
            "  1 call before it could not be replayed (1 in this frame), among them:\n"
            "    call 11: cannot replay glTexImage2D: argument pixels was not captured");
  // The same failure is named once.
  EXPECT_EQ(comparer.reports()[1],
            "frame 0, image after call 14 (glDrawArrays, origin draw): 1 of 4 pixels differ "
            "(max channel difference 8) within x 1-1, y 1-1");
  EXPECT_EQ(comparer.reports()[2],
            "frame 0, image after call 15 (glFinish, origin finish): 1 of 4 pixels differ (max "
            "channel difference 8) within x 1-1, y 1-1\n"
            "  the first draw of this frame whose image differs: call 12 (glDrawElements)");
  // An image the trace lacks waits (in order) until the trace is read far
  // enough, then counts as without one.
  comparer.add(replayed(1, 20, ImageOrigin::kDraw, 1, "glDrawArrays"));
  trace[{21, ImageOrigin::kFinish}] = image(1, 9);
  comparer.add(replayed(1, 21, ImageOrigin::kFinish, 1, "glFinish"));
  EXPECT_EQ(comparer.identical(ImageOrigin::kFinish), 0u);
  settled = true;
  comparer.poll();
  EXPECT_EQ(comparer.without_image(), 1u);
  EXPECT_EQ(comparer.identical(ImageOrigin::kFinish), 1u);
  EXPECT_EQ(comparer.identical(ImageOrigin::kDraw), 1u);
  comparer.finish();
  EXPECT_EQ(comparer.frames_differing(), 1u);
  EXPECT_EQ(comparer.frames_identical(), 1u);
}

std::vector<replay::Increment> read_all(glreplay::TraceSource& source, std::string* error,
                                        replay::SourceResult* last) {
  std::vector<replay::Increment> out;
  replay::Increment increment;
  while ((*last = source.next(&increment, error)) == replay::SourceResult::kIncrement)
    out.push_back(std::move(increment));
  return out;
}

// GL names go through a vector, EGL handles (large) through a map: both map
// what was defined, and anything else to itself.
TEST(GlreplayNames, DenseAndSparseNamesMapAndForget) {
  glreplay::NameMap names;
  names.set(3, 70);
  names.set(1000, 0);  // glCreateShader may fail: 0 is a real answer
  names.set(0x7f00deadbeef, 5);
  EXPECT_EQ(names.get(3), 70u);
  EXPECT_EQ(names.get(1000), 0u);
  EXPECT_EQ(names.get(0x7f00deadbeef), 5u);
  EXPECT_EQ(names.get(4), 4u);
  EXPECT_EQ(names.get(65535), 65535u);
  EXPECT_EQ(names.get(0x7f00deadbeee), 0x7f00deadbeeeu);
  EXPECT_EQ(names.get(0), 0u);
  EXPECT_TRUE(names.contains(1000));
  EXPECT_FALSE(names.contains(999));
  names.erase(3);
  names.erase(0x7f00deadbeef);
  EXPECT_EQ(names.get(3), 3u);
  EXPECT_FALSE(names.contains(0x7f00deadbeef));
}

// Block and resource indices are per program and per interface; a deleted
// program's go with it.
TEST(GlreplayNames, ResourceIndicesPerProgramAndInterface) {
  glreplay::Session session(glreplay::SessionOptions{}, std::make_shared<glreplay::TraceInfo>());
  constexpr uint32_t kUniformBlock = 0x92E2, kStorageBlock = 0x92E6;
  session.define_resource_index(7, kUniformBlock, 0, 2);
  session.define_resource_index(7, kStorageBlock, 0, 1);
  session.define_resource_index(8, kUniformBlock, 0, 3);
  EXPECT_EQ(session.resource_index(7, kUniformBlock, 0), 2u);
  EXPECT_EQ(session.resource_index(7, kStorageBlock, 0), 1u);
  EXPECT_EQ(session.resource_index(8, kUniformBlock, 0), 3u);
  EXPECT_EQ(session.resource_index(7, kUniformBlock, 1), 1u) << "never asked: itself";
  session.forget_program(7);
  EXPECT_EQ(session.resource_index(7, kUniformBlock, 0), 0u);
  EXPECT_EQ(session.resource_index(8, kUniformBlock, 0), 3u);
}

TEST(GlreplaySource, OneIncrementPerCallInOrderAndAgainAfterRewind) {
  std::string path = make_temp_dir() + "/small.gltrace";
  write_small_trace(path, 3, 5);
  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  std::string error;
  ASSERT_TRUE(source.open(path, &error)) << error;
  replay::SourceResult last;
  std::vector<replay::Increment> increments = read_all(source, &error, &last);
  EXPECT_EQ(last, replay::SourceResult::kEnd) << error;
  ASSERT_EQ(increments.size(), 15u);
  for (size_t i = 0; i < increments.size(); ++i) {
    EXPECT_EQ(increments[i].index, i);
    auto* call = dynamic_cast<glreplay::ReplayCall*>(increments[i].payload.get());
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->seq, i);
    EXPECT_EQ(call->args.size(), 3u);  // sint, uint, text: owned copies
    EXPECT_EQ(call->args[2].kind, format::ValueKind::kText);
    EXPECT_EQ(call->args[2].bytes(), "t0");
  }
  ASSERT_TRUE(source.rewind(&error)) << error;
  EXPECT_EQ(read_all(source, &error, &last).size(), 15u);
}

// The source decodes a chunk a small batch at a time, as the replay takes
// the calls: reading ahead is the replay's ReadAheadSource's alone (a
// chunk's calls decoded ahead here were a second read-ahead, their memory
// held twice over).
TEST(GlreplaySource, DecodesAChunkABatchAtATime) {
  std::string path = make_temp_dir() + "/one_chunk.gltrace";
  write_small_trace(path, 1, 1000);
  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  std::string error;
  ASSERT_TRUE(source.open(path, &error)) << error;
  for (uint64_t i = 0; i < 1000; ++i) {
    replay::Increment increment;
    ASSERT_EQ(source.next(&increment, &error), replay::SourceResult::kIncrement) << error;
    EXPECT_EQ(increment.index, i);
    EXPECT_LT(source.calls_pending(), glreplay::kDecodeBatch) << "after call " << i;
  }
  replay::Increment end;
  EXPECT_EQ(source.next(&end, &error), replay::SourceResult::kEnd) << error;
}

// Each thread's calls reach the file in chunks of their own, so calls of
// several threads come out of order; the source puts them back in seq order,
// a call waiting for earlier ones however late their chunk comes.
TEST(GlreplaySource, CallsOfSeveralThreadsComeOutInRecordedOrder) {
  std::string path = make_temp_dir() + "/threads.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  auto chunk = [&](uint32_t thread, const std::vector<uint64_t>& seqs, bool header = false) {
    wire::Encoder e;
    if (header) encode_header(e, 1, "threads");
    for (uint64_t seq : seqs) encode_call(e, thread, seq, 10, /*context=*/thread);
    writer->submit(format::Payload::from_encoder(e), {});
    writer->acquire_buffer().give_to(e);
  };
  chunk(1, {0, 1, 2, 4, 5}, true);
  chunk(2, {3, 6, 9});
  chunk(3, {10, 11});  // 7 and 8 are thread 1's, later in the file
  chunk(1, {7, 8, 12});
  ASSERT_TRUE(writer->close(&error)) << error;

  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  ASSERT_TRUE(source.open(path, &error)) << error;
  replay::SourceResult last;
  std::vector<replay::Increment> increments = read_all(source, &error, &last);
  EXPECT_EQ(last, replay::SourceResult::kEnd) << error;
  ASSERT_EQ(increments.size(), 13u);
  const uint32_t kThreads[] = {1, 1, 1, 2, 1, 1, 2, 1, 1, 2, 3, 3, 1};
  for (size_t i = 0; i < increments.size(); ++i) {
    EXPECT_EQ(increments[i].index, i);
    EXPECT_EQ(increments[i].target, kThreads[i]) << "call " << i;  // a replay thread each
    auto* call = dynamic_cast<glreplay::ReplayCall*>(increments[i].payload.get());
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->thread, kThreads[i]);
  }
}

// A call of `thread` with a context current (or none: 0) and handle
// arguments.
void encode_egl_call(wire::Encoder& e, uint32_t thread, uint64_t seq, uint32_t function,
                     uint32_t context, const std::vector<uint64_t>& handles) {
  namespace s = schema;
  size_t record = s::chunk::begin_records(e);
  size_t call = s::record::begin_call(e);
  s::call::set_function(e, function);
  s::call::set_thread(e, thread);
  s::call::set_seq(e, seq);
  if (context != 0) s::call::set_context(e, context);
  for (uint64_t handle : handles) {
    size_t arg = s::call::begin_args(e);
    s::value::set_uint(e, handle);
    e.end_nested(arg);
  }
  e.end_nested(call);
  e.end_nested(record);
}

// A recorded thread gets a replay thread of its own (the increment's target
// is its own) only from the call where it has a context: it makes one
// current, was recorded with one current, or binds an API other than
// OpenGL ES. Before that its calls run on the first call's thread.
TEST(GlreplaySource, OnlyThreadsWithAContextGetAThreadOfTheirOwn) {
  std::string path = make_temp_dir() + "/lanes.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  wire::Encoder e;
  encode_header(e, 1, "lanes");
  const uint64_t kDisplay = 0x10, kSurface = 0x20, kContext = 0x30;
  // thread 1: the main thread, no context yet.
  encode_egl_call(e, 1, 0, api::kFn_eglGetDisplay, 0, {0});
  // thread 2: never a context (queries, releases nothing, releases itself).
  encode_egl_call(e, 2, 1, api::kFn_eglQueryString, 0, {kDisplay, EGL_VENDOR});
  encode_egl_call(e, 2, 2, api::kFn_eglMakeCurrent, 0, {kDisplay, 0, 0, 0});
  encode_egl_call(e, 2, 3, api::kFn_eglReleaseThread, 0, {});
  // thread 3: makes a context current at seq 5.
  encode_egl_call(e, 3, 4, api::kFn_eglBindAPI, 0, {EGL_OPENGL_ES_API});
  encode_egl_call(e, 3, 5, api::kFn_eglMakeCurrent, 0, {kDisplay, kSurface, kSurface, kContext});
  encode_egl_call(e, 3, 6, api::kFn_glClear, 1, {0x4000 /* GL_COLOR_BUFFER_BIT */});
  // thread 4: recorded with a context current (a capture begun mid-run).
  encode_egl_call(e, 4, 7, api::kFn_glFlush, 2, {});
  // thread 5: binds desktop OpenGL, so its contexts are made on its own thread.
  encode_egl_call(e, 5, 8, api::kFn_eglBindAPI, 0, {EGL_OPENGL_API});
  // thread 1 again, and thread 3 after releasing its context: still its own.
  encode_egl_call(e, 1, 9, api::kFn_eglInitialize, 0, {kDisplay, 0, 0});
  encode_egl_call(e, 3, 10, api::kFn_eglMakeCurrent, 0, {kDisplay, 0, 0, 0});
  writer->submit(format::Payload::from_encoder(e), {});
  writer->acquire_buffer().give_to(e);
  ASSERT_TRUE(writer->close(&error)) << error;

  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  ASSERT_TRUE(source.open(path, &error)) << error;
  replay::SourceResult last;
  std::vector<replay::Increment> increments = read_all(source, &error, &last);
  EXPECT_EQ(last, replay::SourceResult::kEnd) << error;
  ASSERT_EQ(increments.size(), 11u);
  const uint32_t kTargets[] = {1, 1, 1, 1, 1, 3, 3, 4, 5, 1, 3};
  for (size_t i = 0; i < increments.size(); ++i)
    EXPECT_EQ(increments[i].target, kTargets[i]) << "call " << i;
  EXPECT_EQ(source.replay_threads(), 4u);
}

// Past kMaxReplayThreads threads with a context the trace is refused, at the
// call that would start one more; threads without one are not counted.
TEST(GlreplaySource, TooManyThreadsWithAContextAreRefused) {
  std::string path = make_temp_dir() + "/many.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  wire::Encoder e;
  encode_header(e, 1, "many");
  uint64_t seq = 0;
  for (uint32_t t = 1; t <= glreplay::kMaxReplayThreads; ++t)  // the first is the main thread
    encode_egl_call(e, 5000 + t, seq++, api::kFn_glFlush, 1, {});
  for (uint32_t t = 1; t <= 1000; ++t)  // no context: counted nowhere
    encode_egl_call(e, t, seq++, api::kFn_eglQueryString, 0, {0x10, EGL_VENDOR});
  encode_egl_call(e, 5000 + glreplay::kMaxReplayThreads + 1, seq++, api::kFn_glFlush, 1, {});
  writer->submit(format::Payload::from_encoder(e), {});
  writer->acquire_buffer().give_to(e);
  ASSERT_TRUE(writer->close(&error)) << error;

  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  ASSERT_TRUE(source.open(path, &error)) << error;
  replay::SourceResult last;
  std::vector<replay::Increment> increments = read_all(source, &error, &last);
  EXPECT_EQ(last, replay::SourceResult::kError);
  EXPECT_NE(error.find("call " + std::to_string(seq - 1) + ": recorded thread " +
                       std::to_string(5000 + glreplay::kMaxReplayThreads + 1)),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("replay runs at most 256 threads"), std::string::npos) << error;
  EXPECT_EQ(increments.size(), seq - 1);  // every call before it
}

TEST(GlreplaySource, ACutShortTraceEndsWithTheReadersMessage) {
  std::string dir = make_temp_dir();
  write_small_trace(dir + "/whole.gltrace", 4, 20);
  std::vector<uint8_t> bytes = read_bytes(dir + "/whole.gltrace");
  bytes.resize(bytes.size() * 2 / 3);
  write_bytes(dir + "/cut.gltrace", bytes);
  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  std::string error;
  ASSERT_TRUE(source.open(dir + "/cut.gltrace", &error)) << error;
  replay::SourceResult last;
  size_t calls = read_all(source, &error, &last).size();
  EXPECT_GT(calls, 0u);
  EXPECT_LT(calls, 80u);
  EXPECT_EQ(last, replay::SourceResult::kError);
  EXPECT_NE(error.find("trace cut short at offset"), std::string::npos) << error;
}

TEST(GlreplayCli, BadUsageExitsTwo) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"--bogus", "t.gltrace"},
                                             {"--compare=300", "t.gltrace"},
                                             {"--snapshot", "1-2", "t.gltrace"},
                                             {"--snapshot", "x", "-o", "d", "t.gltrace"},
                                             {"--benchmark", "--compare", "t.gltrace"},
                                             {"--blob-memory", "lots", "t.gltrace"},
                                             {"-t", "x", "t.gltrace"},
                                             {"a.gltrace", "b.gltrace"}}) {
    ProcessResult r = glreplay(args);
    EXPECT_EQ(r.exit_code, 2) << args.size() << " " << r.err;
    // One line of error and where the help is, not the help itself.
    EXPECT_NE(r.err.find("\nsee 'glreplay --help'\n"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("usage:"), std::string::npos) << r.err;
  }
  ProcessResult help = gltrace({"help", "replay"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: gltrace replay [--compare[=T]]"), std::string::npos) << help.out;
  ProcessResult missing = glreplay({"/nonexistent/t.gltrace"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/t.gltrace"), std::string::npos) << missing.err;
}

// --- real replays ---------------------------------------------------------------------

TEST(GlreplayDemo, EveryFrameIsPixelIdentical) {
  ProcessResult r = gltrace({"replay", "-n", "--compare", demo_trace()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  CompareLine c = compare_line(r.out);
  ASSERT_TRUE(c.found) << r.out;
  EXPECT_EQ(c.identical, 10u);
  EXPECT_EQ(c.differ, 0u);
  EXPECT_EQ(c.without, 0u);
  EXPECT_NE(r.out.find("replayed "), std::string::npos);
  EXPECT_EQ(r.err.find("gltrace replay:"), std::string::npos) << r.err;  // no call failed
  // At the recorded times, through the glreplay executable: the same pixels.
  ProcessResult timed = glreplay({"--compare", demo_trace()});
  EXPECT_EQ(timed.exit_code, 0) << timed.out << timed.err;
  EXPECT_EQ(compare_line(timed.out).identical, 10u) << timed.out;
  EXPECT_NE(timed.out.find("timing: frames were"), std::string::npos) << timed.out;
  // --benchmark: no checks, rates.
  ProcessResult bench = glreplay({"--benchmark", "-t", "2", demo_trace()});
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_TRUE(std::regex_search(bench.out,
                                std::regex(R"(10 frames, \d+ calls in .* frames/s, \d+ calls/s)")))
      << bench.out;
}

// --driver: Mesa's three GLES drivers by name, GLVND's vendor file and
// library by path; each replay says the driver it ran on, and that the
// trace was captured on another (llvmpipe). Softpipe rasterizes edges
// otherwise: its frames pass only with a tolerance, and the report, the
// difference images and the verdicts say so.
TEST(GlreplayDrivers, EachDriverReplaysAndSaysWhichItIs) {
  std::string dir = make_temp_dir();
  ProcessResult same = gltrace({"replay", "-n", "--driver", "llvmpipe", "--compare", demo_trace()});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(compare_line(same.out).identical, 10u) << same.out;
  EXPECT_TRUE(std::regex_search(same.out, std::regex("\ndriver: llvmpipe \\(LLVM [^;]*; OpenGL ES "
                                                     "3\\.2 Mesa [^;]*; Mesa[^\n]*\n")))
      << same.out;
  EXPECT_EQ(same.out.find("captured on another"), std::string::npos) << same.out;

  ProcessResult exact = gltrace({"replay", "-n", "--driver", "softpipe", "--compare",
                                 "--compare-report", dir + "/exact.json", demo_trace()});
  EXPECT_EQ(exact.exit_code, 1) << exact.out << exact.err;
  EXPECT_NE(exact.out.find("\ndriver: softpipe; "), std::string::npos) << exact.out;
  EXPECT_NE(exact.out.find("driver: the trace was captured on another: llvmpipe"),
            std::string::npos)
      << exact.out;
  EXPECT_GT(compare_line(exact.out).differ, 0u) << exact.out;
  EXPECT_NE(exact.out.find("compare: worst PSNR "), std::string::npos) << exact.out;
  std::string report = read_text_file(dir + "/exact.json");
  EXPECT_NE(report.find("\"tolerance\": \"exact\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"verdict\": \"differs\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"renderer\": \"softpipe\""), std::string::npos) << report;

  ProcessResult tolerant =
      gltrace({"replay", "-n", "--driver", "softpipe", "--tolerance", kCrossDriverTolerance,
               "--diff-images", dir + "/diff", demo_trace()});
  EXPECT_EQ(tolerant.exit_code, 0) << tolerant.out << tolerant.err;
  EXPECT_TRUE(std::regex_search(
      tolerant.out,
      std::regex("compare: \\d+ frames identical, \\d+ within the tolerance \\(channel="
                 "[^)]*\\), 0 differ")))
      << tolerant.out;
  size_t pngs = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/diff"))
    pngs += entry.path().extension() == ".png";
  EXPECT_GT(pngs, 0u);
  EXPECT_EQ(pngs % 3, 0u);  // the replay's, the trace's and the difference

  // GLVND's own ways of naming a vendor: its file and its library.
  for (const char* vendor : {"/usr/share/glvnd/egl_vendor.d/50_mesa.json",
                             "/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0"}) {
    if (!fs::exists(vendor)) continue;
    ProcessResult r = gltrace({"replay", "-n", "--driver", vendor, "--compare", demo_trace()});
    EXPECT_EQ(r.exit_code, 0) << vendor << r.out << r.err;
    EXPECT_EQ(compare_line(r.out).identical, 10u) << vendor << r.out;
  }
  ProcessResult unknown = gltrace({"replay", "--driver", "radeon", demo_trace()});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("--driver radeon: no such driver (llvmpipe, softpipe, zink"),
            std::string::npos)
      << unknown.err;
  ProcessResult empty_dir = gltrace({"replay", "--driver", dir, demo_trace()});
  EXPECT_EQ(empty_dir.exit_code, 1);
  EXPECT_NE(empty_dir.err.find(dir), std::string::npos) << empty_dir.err;
}

// Shaders of GLSL ES 3.20, as mpv's (gltrace-glsl-320): softpipe (GLSL ES
// 3.10) compiles none of them, and no call fails; the replay says where its
// driver answered otherwise than the trace recorded, with the driver's log.
// On llvmpipe it says nothing.
TEST(GlreplayDrivers, AnswersThatDifferFromTheTracesAreNamed) {
  std::string trace = make_temp_dir() + "/glsl320.gltrace";
  ProcessResult t =
      gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--", build_bin("gltrace-glsl-320")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ProcessResult same = gltrace({"replay", "-n", "--driver", "llvmpipe", "--compare", trace});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(same.err.find("answered"), std::string::npos) << same.err;
  ProcessResult other = gltrace({"replay", "-n", "--driver", "softpipe", "--compare", trace});
  EXPECT_EQ(other.exit_code, 1) << other.out << other.err;  // its frames are empty
  EXPECT_NE(other.err.find("(glGetShaderiv): warning: this driver answered 0, the trace "
                           "recorded 1: the app went on as the recorded answer told it; the "
                           "driver says: "),
            std::string::npos)
      << other.err;
  EXPECT_NE(other.err.find("GLSL ES 3.20 is not supported"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("(glGetProgramiv): warning: this driver answered 0"), std::string::npos)
      << other.err;
  EXPECT_NE(other.err.find(": 3 calls whose answer the app acted on were answered otherwise"),
            std::string::npos)
      << other.err;
}

// zink (GL on Vulkan) on lavapipe: the issue's third driver.
TEST(GlreplayDrivers, ZinkOnLavapipeReplaysTheDemo) {
  ProcessResult r = gltrace(
      {"replay", "-n", "--driver", "zink", "--tolerance", kCrossDriverTolerance, demo_trace()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\ndriver: zink \\(llvmpipe"))) << r.out;
  EXPECT_NE(r.out.find(" 0 differ"), std::string::npos) << r.out;
}

// With no memory for blobs, every blob a later call refers to again is read
// back from its chunk: the frames must still match (a wrong chunk or blob
// would upload the wrong data), and the replay says it happened.
TEST(GlreplayDemo, BlobsBeyondTheMemoryBudgetAreReadAgain) {
  ProcessResult r = glreplay({"-n", "--compare", "--blob-memory", "0", demo_trace()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(compare_line(r.out).identical, 10u) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"((\d+) blobs read again from the trace)")))
      << r.out;
  EXPECT_GT(std::stoul(m[1]), 0u);
  ProcessResult in_memory = glreplay({"-n", "--compare", demo_trace()});
  EXPECT_EQ(in_memory.out.find("read again"), std::string::npos) << in_memory.out;
}

// --preload: the calls read into memory before the replay starts replay the
// frames streaming replays, and --loop replays them again (each iteration's
// frames checked against the first's); a budget they do not fit says so and
// streams the rest, with the same frames; a damaged trace replays up to the
// damage and stops with the reader's message, as streaming does.
TEST(GlreplayDemo, PreloadedCallsReplayAsStreamedOnes) {
  auto replayed = [](const std::string& out) {
    std::smatch m;
    return std::regex_search(out, m, std::regex(R"(replayed \d+ calls, \d+ frames)")) ? m[0].str()
                                                                                      : "none";
  };
  ProcessResult streamed = glreplay({"-n", "--compare", demo_trace()});
  ASSERT_EQ(streamed.exit_code, 0) << streamed.out << streamed.err;
  for (const char* preload : {"--preload", "--preload=0"}) {
    const bool all = std::string(preload) == "--preload";
    ProcessResult r = glreplay({"-n", "--compare", preload, demo_trace()});
    EXPECT_EQ(r.exit_code, 0) << preload << r.out << r.err;
    EXPECT_EQ(compare_line(r.out).identical, 10u) << preload << r.out;
    EXPECT_EQ(replayed(r.out), replayed(streamed.out)) << preload << r.out;
    EXPECT_EQ(r.err.find("--preload stopped at ") == std::string::npos, all) << r.err;
    if (!all) {
      EXPECT_NE(r.err.find("--preload stopped at 0 calls (0.0 MiB), its budget of 0 MiB: the rest "
                           "is read while replaying\n"),
                std::string::npos)
          << r.err;
    }
    ProcessResult looped = glreplay({"--loop", "3", "--compare", preload, demo_trace()});
    EXPECT_EQ(looped.exit_code, 0) << preload << looped.out << looped.err;
    EXPECT_NE(looped.out.find("loop: 3 iterations of 10 frames"), std::string::npos) << looped.out;
    EXPECT_NE(looped.out.find("loop: every iteration's 10 frames identical to the first's"),
              std::string::npos)
        << looped.out;
  }
  // --benchmark's rates are of the replay alone: the same calls and frames.
  ProcessResult bench = glreplay({"--benchmark", demo_trace()});
  ProcessResult preloaded_bench = glreplay({"--benchmark", "--preload=64", demo_trace()});
  EXPECT_EQ(preloaded_bench.exit_code, 0) << preloaded_bench.err;
  std::regex rates(R"(\d+ frames, \d+ calls)");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(bench.out, a, rates)) << bench.out;
  ASSERT_TRUE(std::regex_search(preloaded_bench.out, b, rates)) << preloaded_bench.out;
  EXPECT_EQ(a[0].str(), b[0].str());
  EXPECT_EQ(a[0].str().rfind("10 frames, ", 0), 0u) << a[0].str();

  std::string cut = make_temp_dir() + "/cut.gltrace";
  std::string bytes = read_text_file(demo_trace());
  write_text_file(cut, bytes.substr(0, bytes.size() * 2 / 3));
  ProcessResult cut_streamed = glreplay({"-n", "--compare", cut});
  ProcessResult cut_preloaded = glreplay({"-n", "--compare", "--preload", cut});
  EXPECT_EQ(cut_preloaded.exit_code, 1) << cut_preloaded.err;
  std::regex stop("trace error after call \\d+: [^\n]*trace cut short at offset \\d+");
  ASSERT_TRUE(std::regex_search(cut_streamed.err, a, stop)) << cut_streamed.err;
  ASSERT_TRUE(std::regex_search(cut_preloaded.err, b, stop)) << cut_preloaded.err;
  EXPECT_EQ(a[0].str(), b[0].str());
  EXPECT_EQ(compare_line(cut_preloaded.out).identical, compare_line(cut_streamed.out).identical);
  EXPECT_GT(compare_line(cut_preloaded.out).identical, 0u) << cut_preloaded.out;

  EXPECT_EQ(glreplay({"--preload=lots", demo_trace()}).exit_code, 2);
  EXPECT_EQ(glreplay({"--preload", "--check", demo_trace()}).exit_code, 2);
}

// The demo animated by the wall clock: the trace holds what it drew, so any
// replay speed gives the recorded frames.
TEST(GlreplayDemo, RealtimeAnimationReplaysTheRecordedFramesAtAnySpeed) {
  std::string trace = make_temp_dir() + "/realtime.gltrace";
  ASSERT_EQ(gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--", build_bin("gltrace-demo"),
                     "--frames", "4", "--realtime"})
                .exit_code,
            0);
  for (const char* speed : {"-n", "-t1"}) {
    ProcessResult r = glreplay({speed, "--compare", trace});
    EXPECT_EQ(r.exit_code, 0) << speed << r.out << r.err;
    EXPECT_EQ(compare_line(r.out).identical, 4u) << speed << r.out;
  }
}

TEST(GlreplayDemo, DamagedCopiesReplayUpToTheDamageAndStop) {
  std::string dir = make_temp_dir();
  std::string bytes = read_text_file(demo_trace());
  write_text_file(dir + "/cut.gltrace", bytes.substr(0, bytes.size() * 2 / 3));
  std::string corrupt = bytes;
  corrupt[corrupt.size() / 2] ^= 0x5a;
  write_text_file(dir + "/corrupt.gltrace", corrupt);
  for (const char* name : {"cut", "corrupt"}) {
    ProcessResult r = glreplay({"-n", "--compare", dir + "/" + name + ".gltrace"}, clean_env(), 60);
    ASSERT_FALSE(r.timed_out) << name;
    EXPECT_EQ(r.exit_code, 1) << name << r.err;
    EXPECT_NE(r.err.find("trace error after call "), std::string::npos) << name << r.err;
    EXPECT_NE(r.err.find(name == std::string("cut") ? "trace cut short at offset"
                                                    : "CRC mismatch in chunk at offset"),
              std::string::npos)
        << r.err;
    // The frames before the damage were replayed, and they are right.
    CompareLine c = compare_line(r.out);
    EXPECT_GT(c.identical, 0u) << name << r.out;
    EXPECT_LT(c.identical, 10u) << name << r.out;
    EXPECT_EQ(c.differ, 0u) << name << r.out;
  }
}

bool is_png(const std::string& path) {
  std::string bytes = read_text_file(path);
  return bytes.size() > 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

TEST(GlreplayDemo, SnapshotsArePngFiles) {
  std::string dir = make_temp_dir() + "/snaps";
  ProcessResult r = glreplay({"-n", "--snapshot", "2-4", "-o", dir, demo_trace()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 snapshots written to " + dir), std::string::npos) << r.out;
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_TRUE(is_png(entry.path())) << entry.path();
  }
  EXPECT_EQ(files, 3u);
  EXPECT_TRUE(fs::exists(dir + "/frame-000003.png"));
  // The manual console's `snap`, on the way through two frames.
  std::string snap = dir + "/manual.png";
  ProcessResult manual = run_process(
      {"/bin/sh", "-c", "printf 'n 2\\ninfo\\nsnap " + snap + "\\nq\\n' | \"$0\" -m \"$1\"",
       build_bin("glreplay"), demo_trace()},
      clean_env(), 60);
  EXPECT_EQ(manual.exit_code, 0) << manual.out << manual.err;
  EXPECT_NE(manual.out.find("trace thread 1; frame 2"), std::string::npos) << manual.out;
  EXPECT_TRUE(is_png(snap)) << manual.out;
}

TEST(GlreplayDemo, UncapturedDataIsReportedAndTheFramesDiffer) {
  std::string trace = make_temp_dir() + "/notex.gltrace";
  ASSERT_EQ(gltrace({"trace", "--framebuffer", "swap", "--no-texture-data", "-o", trace, "--",
                     build_bin("gltrace-demo"), "--frames", "3"})
                .exit_code,
            0);
  ProcessResult r = glreplay({"-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(glreplay: call \d+: cannot replay glTexImage2D: argument pixels was )"
                        R"(not captured \(texture data not captured \(capture option\)\))")))
      << r.err;
  EXPECT_NE(r.err.find("1 calls could not be replayed"), std::string::npos) << r.err;
  CompareLine c = compare_line(r.out);
  EXPECT_EQ(c.differ, 3u) << r.out;  // the texture is missing from every frame
  // The report names the image's call and the call that could not be replayed.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(frame 0, image at call \d+ \(eglSwapBuffers, origin swap\): \d+ of )"
                        R"(76800 pixels differ \(max channel difference \d+\) within x \d+-\d+, y )"
                        R"(\d+-\d+\n  1 call before it could not be replayed \(1 in this frame\), )"
                        R"(among them:\n    call \d+: cannot replay glTexImage2D)")))
      << r.out;
  // --stop-on-error: the replay ends at that call.
  ProcessResult stop = glreplay({"-n", "--stop-on-error", trace});
  EXPECT_EQ(stop.exit_code, 1);
  EXPECT_TRUE(std::regex_search(
      stop.err, std::regex(R"(call \d+: execute failed: cannot replay glTexImage2D)")))
      << stop.err;
  EXPECT_NE(stop.out.find(", 0 frames in"), std::string::npos) << stop.out;
}

// The shape of a multi-threaded trace: which thread made each call, contexts
// and their share contexts, swap images.
class ThreadsCounter : public format::Consumer {
 public:
  void on_thread(const format::Thread& thread) override { threads.insert(thread.index); }
  void on_call(const format::Call& call) override {
    thread_of[call.seq] = call.thread;
    // eglCreateContext(dpy, config, share_context, attrib_list) = context
    if (call.function == api::kFn_eglCreateContext && call.args.size() == 4 &&
        call.ret != nullptr) {
      contexts.insert(call.ret->uint);
      if (call.args[2].uint != 0) shared_with.insert(call.args[2].uint);
    }
  }
  void on_image(const format::Image& image) override { images += image.origin == "swap"; }
  std::set<uint32_t> threads;
  std::set<uint64_t> contexts, shared_with;
  std::map<uint64_t, uint32_t> thread_of;  // seq -> thread
  size_t images = 0;
};

// Two threads, two contexts in one share group: thread 1 re-uploads a
// texture and a buffer every frame, thread 2 draws with them; both swap.
// Each recorded thread replays on its own thread in recorded order, with the
// share group's names remapped across both contexts: every frame of both
// threads is pixel-identical, at full speed and at the recorded times.
TEST(GlreplayTwoThreads, TwoContextsSharingObjectsReplayPixelIdentical) {
  std::string trace = make_temp_dir() + "/two.gltrace";
  ProcessResult traced = gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
                                  build_bin("gltrace-two-threads"), "--frames", "20"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  EXPECT_NE(traced.out.find("two-threads: 20 frames, crc A 0x"), std::string::npos) << traced.out;

  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(trace));
  ThreadsCounter counter;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, counter, &status)) << status.message;
  EXPECT_EQ(counter.threads, (std::set<uint32_t>{1, 2}));
  EXPECT_EQ(counter.contexts.size(), 2u);
  ASSERT_EQ(counter.shared_with.size(), 1u);  // B shares A's objects
  EXPECT_EQ(counter.contexts.count(*counter.shared_with.begin()), 1u);
  EXPECT_EQ(counter.images, 40u);
  // The threads really interleave in recorded order (not one after the other).
  size_t switches = 0;
  uint32_t previous = 0;
  for (const auto& [seq, thread] : counter.thread_of) {
    switches += previous != 0 && thread != previous;
    previous = thread;
  }
  EXPECT_GE(switches, 40u);
  ProcessResult info = gltrace({"info", trace});
  EXPECT_NE(info.out.find("thread 2:"), std::string::npos) << info.out;

  ProcessResult fast = glreplay({"-n", "--compare", trace});
  EXPECT_EQ(fast.exit_code, 0) << fast.out << fast.err;
  CompareLine c = compare_line(fast.out);
  ASSERT_TRUE(c.found) << fast.out;
  EXPECT_EQ(c.identical, 40u) << fast.out;
  EXPECT_EQ(c.differ, 0u);
  EXPECT_EQ(c.without, 0u);
  EXPECT_NE(
      fast.out.find("replayed " + std::to_string(counter.thread_of.size()) + " calls, 40 frames"),
      std::string::npos)
      << fast.out;
  EXPECT_EQ(fast.err.find("glreplay:"), std::string::npos) << fast.err;  // no call failed
  ProcessResult timed = gltrace({"replay", "--compare", trace});
  EXPECT_EQ(timed.exit_code, 0) << timed.out << timed.err;
  EXPECT_EQ(compare_line(timed.out).identical, 40u) << timed.out;
}

// Four more threads use EGL without ever making a context current, one of
// them releasing "its" context and thread while thread 1 is mid-run: replay
// starts threads only for the two that had a context, runs the idle ones'
// calls on the main thread, and skips what would have released thread 1's
// context there (every frame identical; with those calls run, most differ).
TEST(GlreplayTwoThreads, ThreadsWithoutAContextStartNoReplayThread) {
  std::string trace = make_temp_dir() + "/idle.gltrace";
  ProcessResult traced =
      gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
               build_bin("gltrace-two-threads"), "--frames", "8", "--idle-threads", "4"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;

  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(trace));
  ThreadsCounter counter;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, counter, &status)) << status.message;
  EXPECT_EQ(counter.threads.size(), 6u);

  ProcessResult replayed = glreplay({"-n", "--compare", trace});
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  CompareLine c = compare_line(replayed.out);
  ASSERT_TRUE(c.found) << replayed.out;
  EXPECT_EQ(c.identical, 16u) << replayed.out;
  EXPECT_EQ(c.differ, 0u);
  // Each idle thread's 8 (bind, query, glGetError, create + destroy, release
  // nothing, eglGetError, release the thread), and thread 2's two before it
  // makes its context current (create it and its pbuffer).
  EXPECT_NE(replayed.out.find("threads: 2 replay threads for the recorded threads that had a "
                              "context; 34 calls of threads without one ran on the main thread"),
            std::string::npos)
      << replayed.out;
  EXPECT_EQ(replayed.err.find("glreplay:"), std::string::npos) << replayed.err;
}

// What the client app's trace holds that the demo's does not.
class MemoryCounter : public format::Consumer {
 public:
  void on_call(const format::Call& call) override {
    client_arrays += call.client_arrays.size();
    buffer_writes += call.buffer_writes.size();
  }
  size_t client_arrays = 0, buffer_writes = 0;
};

TEST(GlreplayClientMemory, ClientArraysMappedBuffersAndSyncsReplayExactly) {
  std::string trace = make_temp_dir() + "/app.gltrace";
  ProcessResult traced = gltrace(
      {"trace", "--framebuffer", "swap", "-o", trace, "--", build_bin("glreplay_client_app"), "4"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(trace));
  MemoryCounter counter;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, counter, &status)) << status.message;
  EXPECT_EQ(counter.client_arrays, 4u * 4u);  // 2 attributes, 2 draws, 4 frames
  EXPECT_EQ(counter.buffer_writes, 4u * 3u);  // 2 flushes and 1 unmap per frame

  ProcessResult r = glreplay({"-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  CompareLine c = compare_line(r.out);
  EXPECT_EQ(c.identical, 4u) << r.out;
  EXPECT_EQ(c.differ, 0u) << r.out;
}

// What the EGL image app's trace holds: its image calls, and its swap images.
class ImageCounter : public format::Consumer {
 public:
  void on_blob(const format::Blob& blob) override { blobs[blob.id] = std::string(blob.data); }
  void on_call(const format::Call& call) override {
    const char* name = api::kFunctionInfo[call.function].name;
    if (name != nullptr && std::string_view(name).starts_with("eglCreateImage")) {
      ++creates;
      targets.insert(call.args.size() > 2 ? call.args[2].uint : 0);
      if (call.image_source != nullptr) {
        const format::ImageSource& source = *call.image_source;
        sources.push_back(
            {source.width, source.height, blobs[source.blob], std::string(source.not_captured)});
      }
    }
  }
  void on_image(const format::Image& image) override { frames.push_back(blobs[image.blob]); }
  std::map<uint64_t, std::string> blobs;
  std::vector<std::string> frames;  // RGBA8
  std::set<uint64_t> targets;
  size_t creates = 0;
  struct Source {
    uint32_t width, height;
    std::string pixels, not_captured;
  };
  std::vector<Source> sources;
};

// Part of the frames' colors: a replay that drew without the images (black),
// with a stale copy of them or with the wrong one could not match them.
size_t distinct_colors(const std::string& rgba) {
  std::set<uint32_t> colors;
  for (size_t p = 0; p + 4 <= rgba.size(); p += 4) {
    uint32_t c = 0;
    memcpy(&c, rgba.data() + p, 4);
    colors.insert(c);
  }
  return colors.size();
}

// EGL images of GL objects (2D textures by eglCreateImage and
// eglCreateImageKHR, a cube-map face, a renderbuffer) made in one context and
// used in another that shares nothing with it: the replay remaps the context
// and the object names and each image handle, and every frame matches.
TEST(GlreplayEglImages, ImagesOfGlObjectsReplayExactlyAcrossShareGroups) {
  std::string trace = make_temp_dir() + "/images.gltrace";
  ProcessResult traced = gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
                                  build_bin("glreplay_egl_image_app"), "3"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;  // the app checks its pixels too
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(trace));
  ImageCounter counter;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, counter, &status)) << status.message;
  EXPECT_EQ(counter.creates, 4u);
  EXPECT_EQ(counter.targets, (std::set<uint64_t>{0x30B1, 0x30B3, 0x30B9}));  // 2D, +X face, RB
  EXPECT_TRUE(counter.sources.empty());  // GL objects: no pixels needed
  ASSERT_EQ(counter.frames.size(), 3u);
  for (const std::string& frame : counter.frames) {
    EXPECT_EQ(frame.size(), 64u * 64u * 4u);
    EXPECT_GE(distinct_colors(frame), 16u);
  }
  // A rewrites its texture every frame; B's frames show it through the image.
  EXPECT_NE(counter.frames[0], counter.frames[1]);
  EXPECT_NE(counter.frames[1], counter.frames[2]);

  ProcessResult r = glreplay({"-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  CompareLine c = compare_line(r.out);
  EXPECT_EQ(c.identical, 3u) << r.out;
  EXPECT_EQ(c.differ, 0u) << r.out;
  EXPECT_EQ(c.without, 0u) << r.out;
  EXPECT_EQ(r.err.find("glreplay:"), std::string::npos) << r.err;  // no call failed

  ProcessResult dump = gltrace({"dump", "--function", "Image", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_TRUE(std::regex_search(
      dump.out,
      std::regex(R"(eglCreateImage\(dpy = 0x[0-9a-f]+, ctx = 0x[0-9a-f]+, target = )"
                 R"(EGL_GL_TEXTURE_2D, buffer = 1, attrib_list = \{EGL_GL_TEXTURE_LEVEL, )"
                 R"(0, EGL_IMAGE_PRESERVED, 1, EGL_NONE\}\) = (0x[0-9a-f]+))")))
      << dump.out;
  EXPECT_NE(dump.out.find("target = EGL_GL_RENDERBUFFER, buffer = 1, attrib_list = NULL)"),
            std::string::npos)
      << dump.out;
  // The image a texture is targeted at reads as the handle eglCreateImage returned.
  std::smatch created;
  ASSERT_TRUE(
      std::regex_search(dump.out, created, std::regex(R"(eglCreateImage\(.*\) = (0x[0-9a-f]+))")));
  EXPECT_NE(dump.out.find("glEGLImageTargetTexture2DOES(target = GL_TEXTURE_2D, image = " +
                          created[1].str() + ")"),
            std::string::npos)
      << dump.out;
}

// GLTRACE_IMAGE_PIXELS=all reads the pixels of images of GL objects too:
// the read-back that keeps an image from outside GL (none can be made here)
// at work on real images. It leaves the app's state alone (the app checks
// what it draws; the replay matches every frame).
TEST(GlreplayEglImages, PixelsOfImagesOfGlObjectsOnRequest) {
  std::string trace = make_temp_dir() + "/pixels.gltrace";
  EnvChanges env = clean_env();
  env["GLTRACE_IMAGE_PIXELS"] = "all";
  ProcessResult traced = gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
                                  build_bin("glreplay_egl_image_app"), "3"},
                                 env);
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(trace));
  ImageCounter counter;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, counter, &status)) << status.message;
  ASSERT_EQ(counter.sources.size(), 4u);
  // The first 2D texture as the app made it (egl_image_app.cpp, texel_2d of frame 0).
  std::string texture;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      texture += {static_cast<char>(x * 32), static_cast<char>(y * 32),
                  static_cast<char>(x < 4 && y < 4 ? 0 : 200), static_cast<char>(255)};
  EXPECT_EQ(counter.sources[0].width, 8u);
  EXPECT_EQ(counter.sources[0].height, 8u);
  EXPECT_EQ(counter.sources[0].pixels, texture);
  EXPECT_EQ(counter.sources[1].pixels.size(), 8u * 8u * 4u);
  // Mesa binds no GL_TEXTURE_2D to a cube face: said, not guessed.
  EXPECT_TRUE(counter.sources[2].pixels.empty());
  EXPECT_FALSE(counter.sources[2].not_captured.empty());
  // The renderbuffer: its left half cleared green, its right half orange.
  const ImageCounter::Source& rb = counter.sources[3];
  ASSERT_EQ(rb.pixels.size(), 16u * 16u * 4u);
  EXPECT_EQ(rb.pixels.substr(0, 4), std::string("\x33\xcc\x66\xff"));
  EXPECT_EQ(rb.pixels.substr(15 * 4, 4), std::string("\xff\x99\x00\xff", 4));

  ProcessResult r = glreplay({"-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(compare_line(r.out).identical, 3u) << r.out;
}

// An image whose source is not a GL object (a dma-buf here) replays from the
// pixels the trace read when it was made. This machine's Mesa (llvmpipe, no
// DRM device) makes no dma-buf or pixmap images, so the trace is written call
// by call: an ES 3 context on a 4x4 pbuffer, eglCreateImageKHR of a dma-buf
// with its ImageSource, a texture targeted at the image and blitted to the
// window, a swap with the expected frame.
class ImageSourceTrace {
 public:
  // `source`: the ImageSource pixels (empty: not captured); `frame`: the
  // swap image the trace holds; `stray_origin`: also an image of that
  // origin after the blit, where the replay reads none; `swapped_surface`:
  // the surface the swap names (another than the one made: the swap cannot
  // be replayed).
  static void write(const std::string& path, const std::string& source, const std::string& frame,
                    const char* stray_origin = nullptr, uint64_t swapped_surface = 0x5f) {
    ImageSourceTrace t;
    encode_header(t.e_, 1, "dmabuf");
    encode_thread(t.e_, 1, 1, "main");
    if (!source.empty()) encode_blob(t.e_, 0x50c, source);
    encode_blob(t.e_, 0xf4a, frame);
    const uint64_t dpy = 0xd15, config = 0xc0f, surface = 0x5f, context = 0xc1, image = 0x1a6e;
    t.call(api::kFn_eglInitialize, {u(dpy), ints({}), ints({})}, u(1));
    t.call(
        api::kFn_eglChooseConfig,
        {u(dpy),
         ints({EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
               EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE}),
         uints({config}), s(1), ints({1})},
        u(1));
    t.call(api::kFn_eglCreatePbufferSurface,
           {u(dpy), u(config), ints({EGL_WIDTH, 4, EGL_HEIGHT, 4, EGL_NONE})}, u(surface));
    t.call(api::kFn_eglCreateContext,
           {u(dpy), u(config), u(0), ints({EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE})}, u(context));
    t.call(api::kFn_eglMakeCurrent, {u(dpy), u(surface), u(surface), u(context)}, u(1));
    t.context_ = 1;
    t.call(api::kFn_eglCreateImageKHR,
           {u(dpy), u(0), u(EGL_LINUX_DMA_BUF_EXT), u(0),
            ints({EGL_WIDTH, 4, EGL_HEIGHT, 4, EGL_LINUX_DRM_FOURCC_EXT, 0x34324241,
                  EGL_DMA_BUF_PLANE0_FD_EXT, 9, EGL_DMA_BUF_PLANE0_OFFSET_EXT, 0,
                  EGL_DMA_BUF_PLANE0_PITCH_EXT, 16, EGL_NONE})},
           u(image), [&](wire::Encoder& e) {
             size_t m = schema::call::begin_image_source(e);
             if (!source.empty()) {
               schema::image_source::set_width(e, 4);
               schema::image_source::set_height(e, 4);
               schema::image_source::set_blob(e, 0x50c);
             } else {
               schema::image_source::set_not_captured(e, "no context was current");
             }
             e.end_nested(m);
           });
    t.call(api::kFn_glGenTextures, {s(1), uints({1})});
    t.call(api::kFn_glBindTexture, {u(0x0DE1), u(1)});  // GL_TEXTURE_2D
    t.call(api::kFn_glEGLImageTargetTexture2DOES, {u(0x0DE1), u(image)});
    t.call(api::kFn_glGenFramebuffers, {s(1), uints({1})});
    t.call(api::kFn_glBindFramebuffer, {u(0x8CA8), u(1)});  // GL_READ_FRAMEBUFFER
    t.call(api::kFn_glFramebufferTexture2D, {u(0x8CA8), u(0x8CE0), u(0x0DE1), u(1), s(0)});
    t.call(api::kFn_glBlitFramebuffer,
           {s(0), s(0), s(4), s(4), s(0), s(0), s(4), s(4), u(0x4000), u(0x2600)});
    uint64_t last = t.seq_ - 1;
    t.call(api::kFn_eglSwapBuffers, {u(dpy), u(swapped_surface)}, u(1));
    t.record(schema::record::begin_frame, [&](wire::Encoder& e) {
      schema::frame::set_number(e, 0);
      schema::frame::set_seq(e, t.seq_ - 1);
      schema::frame::set_thread(e, 1);
    });
    // The frame's image, read back at the swap.
    auto frame_image = [&](const char* origin) {
      t.record(schema::record::begin_image, [&](wire::Encoder& e) {
        schema::image::set_frame(e, 0);
        schema::image::set_seq(e, last);
        schema::image::set_width(e, 4);
        schema::image::set_height(e, 4);
        schema::image::set_blob(e, 0xf4a);
        schema::image::set_origin(e, origin);
        schema::image::set_context(e, 1);
      });
    };
    frame_image("swap");
    if (stray_origin != nullptr) frame_image(stray_origin);
    t.call(api::kFn_eglDestroyImageKHR, {u(dpy), u(image)}, u(1));
    std::string error;
    auto writer = format::TraceWriter::open_file(path, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    writer->submit(format::Payload::from_encoder(t.e_), {});
    ASSERT_TRUE(writer->close(&error)) << error;
  }

 private:
  using Arg = std::function<void(wire::Encoder&)>;
  static Arg u(uint64_t v) {
    return [v](wire::Encoder& e) { schema::value::set_uint(e, v); };
  }
  static Arg s(int64_t v) {
    return [v](wire::Encoder& e) { schema::value::set_sint(e, v); };
  }
  static Arg ints(const std::vector<int64_t>& v) {
    return [v](wire::Encoder& e) {
      size_t a = schema::value::begin_array(e);
      size_t p = schema::array::begin_sints(e);
      for (int64_t x : v) schema::array::pack_sints(e, x);
      e.end_nested(p);
      e.end_nested(a);
    };
  }
  static Arg uints(const std::vector<uint64_t>& v) {
    return [v](wire::Encoder& e) {
      size_t a = schema::value::begin_array(e);
      size_t p = schema::array::begin_uints(e);
      for (uint64_t x : v) schema::array::pack_uints(e, x);
      e.end_nested(p);
      e.end_nested(a);
    };
  }
  // `kind` opens Record's field: a generated begin_<field> (schema::record::begin_call...).
  template <typename Body>
  void record(size_t (*kind)(wire::Encoder&), Body body) {
    size_t r = schema::chunk::begin_records(e_);
    size_t m = kind(e_);
    body(e_);
    e_.end_nested(m);
    e_.end_nested(r);
    ++records_;
  }
  void call(uint32_t function, std::vector<Arg> args, Arg ret = {}, Arg extra = {}) {
    record(schema::record::begin_call, [&](wire::Encoder& e) {
      schema::call::set_function(e, function);
      schema::call::set_thread(e, 1);
      schema::call::set_context(e, context_);
      schema::call::set_seq(e, seq_);
      schema::call::set_start_ns(e, seq_ * 1000);
      for (const Arg& arg : args) {
        size_t m = schema::call::begin_args(e);
        arg(e);
        e.end_nested(m);
      }
      if (ret) {
        size_t m = schema::call::begin_ret(e);
        ret(e);
        e.end_nested(m);
      }
      if (extra) extra(e);
    });
    ++seq_;
  }

  wire::Encoder e_;
  uint64_t seq_ = 0;
  uint32_t context_ = 0;
  size_t records_ = 4;  // header, thread, blobs: counted roughly (a producer's hint)
};

std::string rgba_pattern(int seed) {
  std::string p(4 * 4 * 4, '\0');
  for (size_t i = 0; i < p.size(); ++i)
    p[i] = static_cast<char>(i % 4 == 3 ? 255 : (i * 37 + static_cast<size_t>(seed)) % 256);
  return p;
}

// A trace image the replay read nothing for (here: a glFinish image after a
// call that is no glFinish) is not silently dropped: the compare fails.
TEST(GlreplayCompareEnd, ATraceImageWithoutAReplayedOneFailsTheCompare) {
  std::string dir = make_temp_dir();
  std::string pixels = rgba_pattern(1);
  ImageSourceTrace::write(dir + "/stray.gltrace", pixels, pixels, "finish");
  ProcessResult r = glreplay({"-n", "--compare", dir + "/stray.gltrace"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(compare_line(r.out).identical, 1u) << r.out;
  EXPECT_NE(r.out.find("compare: 1 trace images had no replayed image"), std::string::npos)
      << r.out;
}

// A swap that cannot be replayed (its surface was never made) has no
// replayed image: the trace's image there is counted as not replayed, with
// the call that failed, and fails the compare.
TEST(GlreplayCompareEnd, AFrameWhoseSwapIsNotReplayedIsCountedWithTheReason) {
  std::string dir = make_temp_dir();
  std::string pixels = rgba_pattern(1);
  ImageSourceTrace::write(dir + "/unswapped.gltrace", pixels, pixels, nullptr, 0x5e);
  ProcessResult r = glreplay({"-n", "--compare", dir + "/unswapped.gltrace"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("compare: 0 frames identical, 0 differ, 0 without a trace image, 1 not "
                       "replayed\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(
          "compare: 0 images identical (0 at swaps, 0 at off-screen frame ends, 0 after draws), "
          "0 differ, 0 without a trace image, 1 not replayed\n"),
      std::string::npos)
      << r.out;
  // The report names the swap and why it failed.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(R"(frame 0, image at call (\d+) \(eglSwapBuffers, origin swap\): not replayed: )"
                 R"(call (\d+): cannot replay eglSwapBuffers: .*surface)")))
      << r.out;
  EXPECT_EQ(m[1], m[2]) << r.out;
  EXPECT_EQ(r.out.find("had no replayed image"), std::string::npos) << r.out;
}

TEST(GlreplayEglImages, AnImageFromOutsideGlReplaysFromItsRecordedPixels) {
  std::string dir = make_temp_dir();
  std::string pixels = rgba_pattern(1);
  ImageSourceTrace::write(dir + "/dmabuf.gltrace", pixels, pixels);
  ProcessResult r = glreplay({"-n", "--compare", dir + "/dmabuf.gltrace"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  CompareLine c = compare_line(r.out);
  EXPECT_EQ(c.identical, 1u) << r.out << r.err;
  EXPECT_EQ(r.err.find("glreplay:"), std::string::npos) << r.err;  // no call failed
  ProcessResult dump = gltrace({"dump", dir + "/dmabuf.gltrace"});
  EXPECT_NE(dump.out.find("target = EGL_LINUX_DMA_BUF_EXT"), std::string::npos) << dump.out;
  EXPECT_NE(dump.out.find("// image source: 4x4 RGBA8 pixels (blob 0x000000000000050c)"),
            std::string::npos)
      << dump.out;

  // Other pixels than the frame shows: the comparison sees it.
  ImageSourceTrace::write(dir + "/other.gltrace", rgba_pattern(2), pixels);
  ProcessResult wrong = glreplay({"-n", "--compare", dir + "/other.gltrace"});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out << wrong.err;
  EXPECT_EQ(compare_line(wrong.out).differ, 1u) << wrong.out;
}

TEST(GlreplayEglImages, AnImageWhosePixelsWereNotCapturedIsReportedNotReplayable) {
  std::string path = make_temp_dir() + "/lost.gltrace";
  ImageSourceTrace::write(path, "", rgba_pattern(1));
  ProcessResult r = glreplay({"-n", path});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("call 5: cannot replay eglCreateImageKHR: the source of this image (target "
                       "0x3270) is not a GL object and its pixels were not captured (no context "
                       "was current)"),
            std::string::npos)
      << r.err;
  // What used it fails clearly, without handing the driver a stale handle.
  EXPECT_NE(r.err.find("cannot replay glEGLImageTargetTexture2DOES: argument image: unknown EGL "
                       "image 0x1a6e"),
            std::string::npos)
      << r.err;
  ProcessResult dump = gltrace({"dump", path});
  EXPECT_NE(dump.out.find("// image source not captured: no context was current"),
            std::string::npos)
      << dump.out;
}

// glmark2-es2 on an X11 window (Xvfb), replayed headless into pbuffers.
// Scenes checked (duration=0.2, 160x120): build texture shading bump effect2d
// pulsar desktop buffer ideas jellyfish terrain refract shadow; every frame of
// every one of them matches the trace exactly (none is known to differ).
TEST(GlreplayGlmark2, ScenesReplayPixelIdenticalHeadless) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  std::string trace = make_temp_dir() + "/glmark2.gltrace";
  {
    XvfbServer xvfb;
    ASSERT_FALSE(xvfb.display().empty());
    EnvChanges env = clean_env();
    env["DISPLAY"] = xvfb.display();
    std::vector<std::string> args = {"trace", "--framebuffer",        "swap", "-o",     trace,
                                     "--",    "/usr/bin/glmark2-es2", "-s",   "160x120"};
    for (const char* scene :
         {"build", "texture", "shading", "bump", "effect2d", "pulsar", "desktop", "buffer", "ideas",
          "jellyfish", "terrain", "refract", "shadow"}) {
      args.push_back("-b");
      args.push_back(std::string(scene) + ":duration=0.2");
    }
    ProcessResult traced = gltrace(args, env);
    ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  }
  // No X server from here on: the replay is headless.
  ProcessResult r = glreplay({"-n", "--compare", trace}, clean_env(), 240);
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 4000) << r.err;
  CompareLine c = compare_line(r.out);
  ASSERT_TRUE(c.found) << r.out.substr(0, 4000);
  EXPECT_GT(c.identical, 13u * 2);
  EXPECT_EQ(c.differ, 0u) << r.out.substr(0, 4000);
  EXPECT_EQ(c.without, 0u);
  EXPECT_EQ(r.err.find("glreplay:"), std::string::npos) << r.err;  // no call failed
}

// An app traced on X11 replays into X11 windows too.
TEST(GlreplayX11, WindowsOnRequest) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = clean_env();
  env["DISPLAY"] = xvfb.display();
  std::string trace = make_temp_dir() + "/x11.gltrace";
  ASSERT_EQ(gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--", build_bin("gltrace-demo"),
                     "--frames", "3", "--platform", "x11"},
                    env)
                .exit_code,
            0);
  ProcessResult r =
      run_process({build_bin("glreplay"), "-n", "--x11", "--compare", trace}, env, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(compare_line(r.out).identical, 3u) << r.out;
  EnvChanges unset = clean_env();
  unset["DISPLAY"] = std::nullopt;
  ProcessResult no_display = run_process({build_bin("glreplay"), "-n", "--x11", trace}, unset, 60);
  EXPECT_EQ(no_display.exit_code, 1);
  EXPECT_NE(no_display.err.find("--x11: cannot open X display"), std::string::npos)
      << no_display.err;
}

}  // namespace
}  // namespace gltrace::test
