// Flat calls (format/flat_calls.h): what a capture thread hands the writer
// decodes, once expanded, as the calls it holds.
#include "format/flat_calls.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "encode.h"
#include "format/record_encoder.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/times_column.h"
#include "protowire/wire.h"

namespace gltrace::test {
namespace {

using format::FlatValue;

// A flat call's entry, built as the trace layer builds it: values first,
// then the head in front of them.
class FlatCall {
 public:
  FlatCall& scalar(FlatValue kind, const void* bytes, size_t n, bool ret = false) {
    args_.push_back(format::flat_value_byte(kind, ret));
    const auto* b = static_cast<const uint8_t*>(bytes);
    args_.insert(args_.end(), b, b + n);
    if (kind != FlatValue::kF32) args_.resize(args_.size() + 8 - n);  // the 8 bytes scalars take
    return *this;
  }
  FlatCall& uint(uint64_t v, bool ret = false) { return scalar(FlatValue::kUint, &v, 8, ret); }
  FlatCall& sint(int64_t v) { return scalar(FlatValue::kSint, &v, 8); }
  // kInts of element_size bytes each (| kFlatSigned), kFloats, kData.
  FlatCall& array(FlatValue kind, int element, uint32_t count, const void* bytes, size_t n) {
    args_.push_back(format::flat_value_byte(kind, false));
    if (kind == FlatValue::kInts) args_.push_back(static_cast<uint8_t>(element));
    const auto* c = reinterpret_cast<const uint8_t*>(&count);
    args_.insert(args_.end(), c, c + 4);
    const auto* b = static_cast<const uint8_t*>(bytes);
    args_.insert(args_.end(), b, b + n);
    return *this;
  }
  // An encoded Call field among the flat values.
  FlatCall& field(uint32_t number, uint64_t v) {
    wire::Encoder e;
    e.uint_field(number, v);
    args_.insert(args_.end(), e.data(), e.data() + e.size());
    return *this;
  }
  void append_to(std::vector<uint8_t>& payload, format::FlatCallHead head,
                 uint64_t thread_time = 0) const {
    head.args_size = static_cast<uint32_t>(args_.size());
    if (thread_time != 0) head.flags |= format::kFlatThreadTime;
    payload.push_back(format::kFlatCallMarker);
    const auto* h = reinterpret_cast<const uint8_t*>(&head);
    payload.insert(payload.end(), h, h + sizeof head);
    if (thread_time != 0) {
      const auto* t = reinterpret_cast<const uint8_t*>(&thread_time);
      payload.insert(payload.end(), t, t + 8);
    }
    payload.insert(payload.end(), args_.begin(), args_.end());
  }

 private:
  std::vector<uint8_t> args_;
};

format::FlatCallHead head(uint32_t function, uint64_t seq, uint64_t start, uint64_t duration,
                          uint32_t context = 0, uint32_t flags = 0) {
  format::FlatCallHead h;
  h.function = function;
  h.seq = seq;
  h.start_ns = start;
  h.duration_ns = duration;
  h.context = context;
  h.flags = flags;
  return h;
}

struct Expanded {
  std::vector<uint8_t> bytes;
  uint32_t records = 0;
};
Expanded expand(const std::vector<uint8_t>& payload, uint32_t thread, uint64_t time_unit_ns = 1) {
  Expanded e;
  // Guard bytes past the bound catch a write beyond it.
  size_t bound = format::expanded_room(payload.data(), payload.size());
  e.bytes.assign(bound + 64, 0xA5);
  size_t n = format::expand_flat_calls(payload.data(), payload.size(), thread, time_unit_ns,
                                       e.bytes.data(), &e.records);
  EXPECT_LE(n, bound);
  for (size_t i = bound; i < e.bytes.size(); ++i) EXPECT_EQ(e.bytes[i], 0xA5) << i;
  e.bytes.resize(n);
  return e;
}

// The calls of a chunk payload, decoded; with the values a test checks kept.
struct Calls : format::Consumer {
  struct Kept {
    format::Call call;
    std::vector<format::Value> args;
    std::vector<std::vector<int64_t>> sints;
    std::vector<std::vector<uint64_t>> uints;
    std::vector<std::vector<float>> floats;
    std::vector<std::string> data;
    bool has_ret = false;
    uint64_t ret = 0;
  };
  void on_call(const format::Call& c) override {
    Kept k;
    k.call = c;
    k.call.args = {};
    k.args.assign(c.args.begin(), c.args.end());
    for (const format::Value& v : c.args) {
      k.sints.emplace_back(v.sints().begin(), v.sints().end());
      k.uints.emplace_back(v.uints().begin(), v.uints().end());
      k.floats.emplace_back(v.floats().begin(), v.floats().end());
      k.data.emplace_back(v.bytes());
    }
    k.has_ret = c.ret != nullptr;
    if (k.has_ret) k.ret = c.ret->uint;
    calls.push_back(std::move(k));
  }
  void on_frame(const format::Frame& f) override { frames.push_back(f); }
  std::vector<Kept> calls;
  std::vector<format::Frame> frames;
};

Calls decode(const std::vector<uint8_t>& chunk) {
  Calls calls;
  format::RecordDecoder decoder;
  EXPECT_TRUE(decoder.decode_chunk(chunk, calls)) << decoder.error();
  return calls;
}

TEST(FlatCalls, AFlatCallDecodesAsTheCallItHolds) {
  int8_t bytes[] = {-1, 2, -128};
  uint16_t shorts[] = {1, 65535};
  uint64_t longs[] = {~uint64_t{0}, 7};
  float floats[] = {1.5f, -2.25f};
  float f = 0.5f;
  double d = -3.75;
  const void* pointer = reinterpret_cast<const void*>(uintptr_t{0x1234});
  FlatCall call;
  call.uint(0x8B31)
      .sint(-5)
      .scalar(FlatValue::kPointer, &pointer, 8)
      .scalar(FlatValue::kF32, &f, 4)
      .scalar(FlatValue::kF64, &d, 8)
      .array(FlatValue::kInts, 1 | format::kFlatSigned, 3, bytes, sizeof bytes)
      .array(FlatValue::kInts, 2, 2, shorts, sizeof shorts)
      .array(FlatValue::kInts, 8, 2, longs, sizeof longs)
      .array(FlatValue::kFloats, 0, 2, floats, sizeof floats)
      .array(FlatValue::kInts, 4, 0, nullptr, 0)
      .array(FlatValue::kData, 0, 3, "abc", 3)
      .field(schema::call::kSurfaceWidth, 640)
      .uint(42, /*ret=*/true);
  std::vector<uint8_t> payload;
  call.append_to(payload,
                 head(17, 100, 5000, 250, 2, format::kFlatSynthetic | format::kFlatSnapshot),
                 /*thread_time=*/99);
  Expanded e = expand(payload, 3);
  EXPECT_EQ(e.records, 1u);
  Calls calls = decode(e.bytes);
  ASSERT_EQ(calls.calls.size(), 1u);
  const Calls::Kept& k = calls.calls[0];
  EXPECT_EQ(k.call.function, 17u);
  EXPECT_EQ(k.call.thread, 3u);
  EXPECT_EQ(k.call.context, 2u);
  EXPECT_EQ(k.call.seq, 100u);
  EXPECT_EQ(k.call.start_ns, 5000u);
  EXPECT_EQ(k.call.duration_ns, 250u);
  EXPECT_EQ(k.call.thread_time_ns, 99u);
  EXPECT_TRUE(k.call.synthetic);
  EXPECT_TRUE(k.call.snapshot);
  EXPECT_EQ(k.call.surface_width, 640u);
  ASSERT_EQ(k.args.size(), 11u);
  EXPECT_EQ(k.args[0].kind, format::ValueKind::kUint);
  EXPECT_EQ(k.args[0].uint, 0x8B31u);
  EXPECT_EQ(k.args[1].kind, format::ValueKind::kSint);
  EXPECT_EQ(k.args[1].sint, -5);
  EXPECT_EQ(k.args[2].kind, format::ValueKind::kPointer);
  EXPECT_EQ(k.args[2].pointer, 0x1234u);
  EXPECT_EQ(k.args[3].kind, format::ValueKind::kF32);
  EXPECT_EQ(k.args[3].f32, 0.5f);
  EXPECT_EQ(k.args[4].kind, format::ValueKind::kF64);
  EXPECT_EQ(k.args[4].f64, -3.75);
  EXPECT_EQ(k.sints[5], (std::vector<int64_t>{-1, 2, -128}));
  EXPECT_EQ(k.uints[6], (std::vector<uint64_t>{1, 65535}));
  EXPECT_EQ(k.uints[7], (std::vector<uint64_t>{~uint64_t{0}, 7}));
  EXPECT_EQ(k.floats[8], (std::vector<float>{1.5f, -2.25f}));
  EXPECT_EQ(k.args[9].kind, format::ValueKind::kArray);
  EXPECT_EQ(k.args[9].size, 0u);
  EXPECT_EQ(k.args[10].kind, format::ValueKind::kData);
  EXPECT_EQ(k.data[10], "abc");
  ASSERT_TRUE(k.has_ret);
  EXPECT_EQ(k.ret, 42u);
}

// A Frame record as the trace layer writes it (session.cpp), whole.
void append_frame(std::vector<uint8_t>& payload, uint64_t number, uint64_t seq, uint64_t time_ns) {
  wire::Encoder e;
  format::Frame frame;
  frame.number = number;
  frame.seq = seq;
  frame.thread = 3;
  frame.context = 1;
  frame.time_ns = time_ns;
  frame.app_frame = 9;
  frame.has_app_frame = true;
  format::encode_record(e, frame);
  payload.insert(payload.end(), e.data(), e.data() + e.size());
}

// Format 3: the calls' and the frames' times go to the chunk's times column,
// each counted from the column's entries before it (a call encoded whole,
// as a snapshot's, too).
TEST(FlatCalls, TimesGoToTheColumnAndDecodeAsTheyWere) {
  std::vector<uint8_t> payload;
  FlatCall plain;
  plain.uint(1);
  plain.append_to(payload, head(1, 10, 1000, 100));
  append_frame(payload, 0, 10, 1150);                // frame 0 (number 0: no field when whole)
  plain.append_to(payload, head(1, 12, 1500, 100));  // a seq skipped (another thread's)
  append_frame(payload, 5, 12, 1590);                // frames of other threads between; time
                                                     // before the call's end
  // A snapshot's call, encoded whole with its own numbers.
  wire::Encoder encoded;
  format::Call snapshot;
  snapshot.function = 2;
  snapshot.thread = 3;
  snapshot.seq = 20;
  snapshot.start_ns = 3000;
  snapshot.snapshot = true;
  format::encode_record(encoded, snapshot);
  payload.insert(payload.end(), encoded.data(), encoded.data() + encoded.size());
  plain.append_to(payload, head(1, 21, 3100, 100));
  plain.append_to(payload, head(1, 22, 3150, 100));  // starts before the last one ended
  append_frame(payload, 3, 30, 2000);                // every number lower than the last's
  Expanded e = expand(payload, 3);
  EXPECT_EQ(e.records, 8u);
  EXPECT_EQ(e.bytes[0], uint8_t{schema::chunk::kTimes << 3 | wire::kLengthDelimited});
  Calls calls = decode(e.bytes);
  ASSERT_EQ(calls.calls.size(), 5u);
  uint64_t seqs[] = {10, 12, 20, 21, 22};
  uint64_t starts[] = {1000, 1500, 3000, 3100, 3150};
  uint64_t durations[] = {100, 100, 0, 100, 100};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(calls.calls[i].call.seq, seqs[i]) << i;
    EXPECT_EQ(calls.calls[i].call.start_ns, starts[i]) << i;
    EXPECT_EQ(calls.calls[i].call.duration_ns, durations[i]) << i;
    EXPECT_EQ(calls.calls[i].call.thread, 3u) << i;
  }
  ASSERT_EQ(calls.frames.size(), 3u);
  uint64_t numbers[] = {0, 5, 3};
  uint64_t frame_seqs[] = {10, 12, 30};
  uint64_t times[] = {1150, 1590, 2000};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(calls.frames[i].number, numbers[i]) << i;
    EXPECT_EQ(calls.frames[i].seq, frame_seqs[i]) << i;
    EXPECT_EQ(calls.frames[i].time_ns, times[i]) << i;
    EXPECT_EQ(calls.frames[i].thread, 3u) << i;
    EXPECT_EQ(calls.frames[i].context, 1u) << i;
    EXPECT_EQ(calls.frames[i].app_frame, 9u) << i;
  }
}

// In a clock unit of 10 ns, times are rounded to it: a start to the nearest
// unit, a duration to the distance between the rounded start and end, so
// that a call's end is the next call's reference exactly; the reader gives
// nanoseconds back.
TEST(FlatCalls, TimesAreKeptInTheClocksUnit) {
  std::vector<uint8_t> payload;
  FlatCall plain;
  plain.uint(1);
  plain.append_to(payload, head(1, 10, 1003, 98));  // 1000 to 1100 (1101 rounded)
  plain.append_to(payload, head(1, 11, 1106, 14));  // 1110 to 1120
  append_frame(payload, 0, 11, 1125);               // 1130 (halves round up)
  Expanded e = expand(payload, 3, 10);
  Calls calls = decode(e.bytes);
  ASSERT_EQ(calls.calls.size(), 2u);
  EXPECT_EQ(calls.calls[0].call.start_ns, 1000u);
  EXPECT_EQ(calls.calls[0].call.duration_ns, 100u);
  EXPECT_EQ(calls.calls[1].call.start_ns, 1110u);
  EXPECT_EQ(calls.calls[1].call.duration_ns, 10u);
  EXPECT_EQ(calls.calls[1].call.seq, 11u);
  ASSERT_EQ(calls.frames.size(), 1u);
  EXPECT_EQ(calls.frames[0].time_ns, 1130u);
  EXPECT_EQ(calls.frames[0].seq, 11u);
  // The column says its unit first.
  format::TimesLayout layout;
  const char* error = nullptr;
  ASSERT_EQ(e.bytes[0], uint8_t{schema::chunk::kTimes << 3 | wire::kLengthDelimited});
  ASSERT_TRUE(format::read_times_head(e.bytes.data() + 2, e.bytes[1], &layout, &error)) << error;
  EXPECT_EQ(layout.unit_ns, 10u);
}

// A column shorter than its records need (a damaged or lying chunk) is an
// error that names the record, not times made up.
TEST(FlatCalls, AColumnThatEndsEarlyIsAnError) {
  std::vector<uint8_t> payload;
  FlatCall plain;
  plain.uint(1);
  plain.append_to(payload, head(1, 10, 1000, 100));
  plain.append_to(payload, head(1, 11, 1200, 100));
  Expanded e = expand(payload, 3);
  // The head (unit 1, sections of 2 and 4 bytes), then the sections: seqs
  // 10 and 11 count from 0 and 11 (zigzag, a byte each), starts 1000 from 0
  // and 100 after the first's end (zigzag, 2 bytes each), durations 100.
  ASSERT_EQ(e.bytes[1], 11u);
  // The column's last byte left out: the second call finds no duration.
  std::vector<uint8_t> cut = e.bytes;
  cut[1] = 10;
  cut.erase(cut.begin() + 2 + 10);
  Calls calls;
  format::RecordDecoder decoder;
  EXPECT_FALSE(decoder.decode_chunk(cut, calls));
  EXPECT_EQ(decoder.error(), "Call: the chunk's times column ends before its entry");
  EXPECT_EQ(calls.calls.size(), 1u);
}

TEST(FlatCalls, AnEntryCutShortEndsTheExpansionWithTheWholeOnesBeforeIt) {
  std::vector<uint8_t> payload;
  wire::Encoder blob;
  encode_blob(blob, 7, "pixels");
  payload.assign(blob.data(), blob.data() + blob.size());
  FlatCall call;
  call.uint(1).array(FlatValue::kData, 0, 5, "hello", 5);
  call.append_to(payload, head(1, 0, 0, 1));
  size_t two = payload.size();
  call.append_to(payload, head(1, 1, 2, 1));
  // A thread frozen while appending: every cut of its last entry.
  for (size_t cut = two; cut < payload.size(); ++cut) {
    std::vector<uint8_t> frozen(payload.begin(), payload.begin() + static_cast<long>(cut));
    Expanded e = expand(frozen, 1);
    EXPECT_EQ(e.records, 2u) << cut;
    EXPECT_EQ(decode(e.bytes).calls.size(), 1u) << cut;
  }
  Expanded whole = expand(payload, 1);
  EXPECT_EQ(whole.records, 3u);
  EXPECT_EQ(decode(whole.bytes).calls.size(), 2u);
}

TEST(FlatCalls, TheExpansionStaysWithinItsBound) {
  // What grows most: heads with every number large, and byte arrays whose
  // elements become two-byte varints.
  std::vector<uint8_t> payload;
  uint8_t high[64];
  memset(high, 0xff, sizeof high);
  for (uint64_t i = 0; i < 50; ++i) {
    FlatCall call;
    call.array(FlatValue::kInts, 1, 1, high, 1)
        .array(FlatValue::kInts, 1 | format::kFlatSigned, 64, high, 64)
        .uint(~uint64_t{0});
    call.append_to(payload,
                   head(~uint32_t{0}, ~uint64_t{0} - 100 + i * 2, ~uint64_t{0} >> 1, ~uint64_t{0},
                        ~uint32_t{0}, format::kFlatSynthetic | format::kFlatSnapshot),
                   ~uint64_t{0});
  }
  Expanded e = expand(payload, ~uint32_t{0});
  EXPECT_EQ(e.records, 50u);
  // Encoded records need no more room than they take: a payload of large
  // blobs is not given three times its size.
  wire::Encoder blob;
  encode_blob(blob, 1, std::string(1 << 20, 'x'));
  EXPECT_LE(format::expanded_room(blob.data(), blob.size()), blob.size() + 64);
}

}  // namespace
}  // namespace gltrace::test
