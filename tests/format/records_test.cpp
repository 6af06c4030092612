// Record decoding from wire bytes: every kind, forward compatibility,
// and malformed messages reported with their offset.
#include "format/records.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "format/encoders.h"
#include "format/record_builder.h"
#include "format/schema.h"
#include "protowire/wire.h"
#include "record_text.h"
#include "support/subprocess.h"
#include "test_trace.h"

namespace gltrace {
namespace {

namespace s = schema;
using format::RecordDecoder;
using test::RecordText;

std::span<const uint8_t> bytes_of(const wire::Encoder& e) { return {e.data(), e.size()}; }

std::vector<std::string> decode(const wire::Encoder& e, std::string* error = nullptr,
                                size_t* offset = nullptr) {
  RecordDecoder decoder;
  RecordText text;
  bool ok = decoder.decode_chunk(bytes_of(e), text);
  if (error != nullptr) *error = ok ? "" : decoder.error();
  if (offset != nullptr) *offset = decoder.error_offset();
  if (!ok) text.lines.push_back("ERROR");
  return text.lines;
}

// Wraps a record kind's body into Chunk.records[].kind.
// `kind` opens Record's field: a generated begin_<field> (schema::record::begin_call...).
template <typename F>
void record(wire::Encoder& e, size_t (*kind)(wire::Encoder&), F&& body) {
  size_t r = s::chunk::begin_records(e);
  size_t k = kind(e);
  body();
  e.end_nested(k);
  e.end_nested(r);
}

TEST(Records, EveryValueKind) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    s::call::set_function(e, 5);
    s::call::set_thread(e, 2);
    s::call::set_context(e, 3);
    s::call::set_seq(e, 99);
    s::call::set_start_ns(e, 1000);
    s::call::set_duration_ns(e, 20);
    s::call::set_thread_time_ns(e, 15);
    s::call::set_gl_error(e, 0x502);
    auto arg = [&](auto&& value) {
      size_t m = s::call::begin_args(e);
      value();
      e.end_nested(m);
    };
    arg([&] { s::value::set_sint(e, -12345678901); });
    arg([&] { s::value::set_uint(e, 18446744073709551615ull); });
    arg([&] { s::value::set_f32(e, 1.5f); });
    arg([&] { s::value::set_f64(e, -2.25); });
    arg([&] { s::value::set_pointer(e, 0xdeadbeef); });
    arg([&] { s::value::set_data(e, "\x01\x02\0", 3); });
    arg([&] { s::value::set_blob(e, 0x1122334455667788); });
    arg([&] { s::value::set_text(e, "hello"); });
    arg([&] {
      size_t u = s::value::begin_unknown(e);
      s::unknown::set_pointer(e, 0x1000);
      s::unknown::set_reason(e, "computed size");
      e.end_nested(u);
    });
    arg([&] {
      size_t list = s::value::begin_strings(e);
      s::strings::add_items(e, "void main(){}");
      s::strings::add_items(e, "");
      e.end_nested(list);
    });
    auto sints = [&] {
      size_t p = s::array::begin_sints(e);
      s::array::pack_sints(e, -1);
      s::array::pack_sints(e, 300);
      e.end_nested(p);
    };
    auto uints = [&] {
      size_t p = s::array::begin_uints(e);
      s::array::pack_uints(e, 7);
      e.end_nested(p);
    };
    auto floats = [&] {
      float items[2] = {0.5f, 4.0f};
      s::array::set_floats_packed(e, items, sizeof items);
    };
    auto array = [&](auto&&... lists) {
      arg([&] {
        size_t a = s::value::begin_array(e);
        (lists(), ...);
        e.end_nested(a);
      });
    };
    array(sints);
    array(uints);
    array(floats);
    // A value keeps one kind of elements: floats, else sints, else uints.
    array(sints, uints, floats);
    array(uints, sints);
    arg([] {});  // no member set
    size_t ret = s::call::begin_ret(e);
    s::value::set_uint(e, 1);
    e.end_nested(ret);
    size_t ca = s::call::begin_client_arrays(e);
    s::client_array::set_index(e, 1);
    s::client_array::set_first(e, 4);
    s::client_array::set_stride(e, 12);
    s::client_array::set_pointer(e, 0x5000);
    s::client_array::set_data(e, "abc", 3);
    e.end_nested(ca);
    // A GLES 1 array: texture coordinates of unit 1.
    ca = s::call::begin_client_arrays(e);
    s::client_array::set_index(e, 1);
    s::client_array::set_stride(e, 8);
    s::client_array::set_data(e, "d", 1);
    s::client_array::set_array(e, 0x8078);
    e.end_nested(ca);
    size_t bw = s::call::begin_buffer_writes(e);
    s::buffer_write::set_target(e, 0x8892);
    s::buffer_write::set_offset(e, 64);
    s::buffer_write::set_blob(e, 0xabc);
    e.end_nested(bw);
    size_t is = s::call::begin_image_source(e);
    s::image_source::set_width(e, 16);
    s::image_source::set_height(e, 8);
    s::image_source::set_blob(e, 0xdef);
    e.end_nested(is);
  });
  std::vector<std::string> lines = decode(e);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "call fn=5 thread=2 context=3 seq=99 start=1000 duration=20 cpu=15 error=1282 "
            "args=(sint:-12345678901,uint:18446744073709551615,f32:1.5,f64:-2.25,"
            "pointer:0xdeadbeef,data:\"\\x01\\x02\\x00\",blob:1122334455667788,text:\"hello\","
            "unknown:0x1000:\"computed size\",strings:[\"void main(){}\",\"\",],"
            "array:[-1,300,||],array:[|7,|],array:[||0.5,4,],array:[||0.5,4,],"
            "array:[-1,300,||],none,) ret=uint:1 "
            "array(1 first=4 stride=12 pointer=0x5000 blob=0000000000000000 \"abc\") "
            "array(1 first=0 stride=8 pointer=0x0 blob=0000000000000000 \"d\" of=0x8078) "
            "write(0x8892 offset=64 blob=0000000000000abc \"\") "
            "image_source(16x8 blob=0000000000000def \"\")");
}

TEST(Records, EveryRecordKind) {
  wire::Encoder e;
  test::encode_header(e, 7, "app");
  test::encode_thread(e, 1, 77, "render");
  record(e, s::record::begin_context, [&] {
    s::context::set_index(e, 1);
    s::context::set_handle(e, 0xc0);
    s::context::set_client_version(e, 3);
    size_t p = s::context::begin_config_attribs(e);
    s::context::pack_config_attribs(e, 0x3024);
    s::context::pack_config_attribs(e, 8);
    e.end_nested(p);
    s::context::add_config_attribs(e, 0x3038);  // unpacked is valid too
    s::context::set_gl_renderer(e, "llvmpipe");
    s::context::set_surface_width(e, 640);
    s::context::set_surface_height(e, 480);
  });
  test::encode_blob(e, 0xfeed, "pixels");
  test::encode_frame(e, 3, 40);
  record(e, s::record::begin_image, [&] {
    s::image::set_frame(e, 3);
    s::image::set_width(e, 2);
    s::image::set_height(e, 1);
    s::image::set_blob(e, 0xfeed);
    s::image::set_origin(e, "swap");
  });
  record(e, s::record::begin_stats, [&] {
    s::stats::set_calls(e, 41);
    s::stats::set_stall_count(e, 2);
  });
  std::vector<std::string> lines = decode(e);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "header v1 pid=7 name=\"app\" cmd=\"\" clock=\"CLOCK_MONOTONIC\" start=123456789 "
            "mode=\"full\" options=\"\" mid_run=0 driver=\"\"");
  EXPECT_EQ(lines[1], "thread 1 tid=77 name=\"render\"");
  EXPECT_EQ(lines[2],
            "context 1 handle=192 display=0 config=0 share=0 version=3 attribs=[12324,8,12344,] "
            "vendor=\"\" renderer=\"llvmpipe\" version=\"\" size=640x480");
  EXPECT_EQ(lines[3], "blob 000000000000feed \"pixels\"");
  EXPECT_EQ(lines[4], "frame 3 seq=40 thread=0 context=0 time=0");
  EXPECT_EQ(lines[5], "image frame=3 seq=0 2x1 blob=000000000000feed context=0 origin=\"swap\"");
  EXPECT_EQ(lines[6], "stats calls=41 frames=0 bytes=0 stalls=2 stall_ns=0 blobs=0 dedup=0");
}

TEST(Records, StatsNameTheDesktopGlLibraries) {
  wire::Encoder e;
  record(e, s::record::begin_stats, [&] {
    s::stats::set_calls(e, 3);
    s::stats::set_desktop_gl_libraries(e, "libGL.so.1 libGLX_mesa.so.0");
  });
  struct : format::Consumer {
    std::string libraries;
    void on_stats(const format::Stats& stats) override {
      libraries = std::string(stats.desktop_gl_libraries);
    }
  } stats;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk(bytes_of(e), stats)) << decoder.error();
  EXPECT_EQ(stats.libraries, "libGL.so.1 libGLX_mesa.so.0");
}

// Later calls of a thread in a chunk carry deltas; every chunk resolves on its own.
TEST(Records, DeltaCodedCallsResolvePerThreadAndChunk) {
  struct Seen : format::Consumer {
    std::vector<std::pair<uint64_t, uint64_t>> calls;  // seq, start
    void on_call(const format::Call& c) override { calls.push_back({c.seq, c.start_ns}); }
  };
  auto call = [](wire::Encoder& e, uint32_t thread, bool absolute, uint64_t seq, uint64_t start) {
    size_t r = s::chunk::begin_records(e);
    size_t c = s::record::begin_call(e);
    s::call::set_thread(e, thread);
    if (absolute) {
      s::call::set_seq(e, seq);
      s::call::set_start_ns(e, start);
    } else {
      if (seq != 0) s::call::set_seq_delta(e, seq);
      s::call::set_start_delta_ns(e, start);
    }
    e.end_nested(c);
    e.end_nested(r);
  };
  wire::Encoder e;
  call(e, 1, true, 10, 1000);  // thread 1: seq 10 at 1000
  call(e, 2, true, 11, 1005);  // thread 2: seq 11
  call(e, 1, false, 1, 20);    // thread 1: 10 + 1 + 1 = 12, 1020
  call(e, 1, false, 0, 5);     // thread 1: 13, 1025
  call(e, 2, false, 0, 100);   // thread 2: 12 ... deltas of its own
  Seen seen;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk({e.data(), e.size()}, seen)) << decoder.error();
  EXPECT_EQ(seen.calls, (std::vector<std::pair<uint64_t, uint64_t>>{
                            {10, 1000}, {11, 1005}, {12, 1020}, {13, 1025}, {12, 1105}}));
  // A new chunk starts afresh: a delta with no earlier call counts from 0,
  // also for the thread of the last call before.
  wire::Encoder next;
  call(next, 2, false, 0, 7);
  call(next, 1, false, 0, 7);
  Seen again;
  ASSERT_TRUE(decoder.decode_chunk({next.data(), next.size()}, again));
  EXPECT_EQ(again.calls, (std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}, {0, 0}}));
  // More threads than the decoder looks up in its small vector, each call
  // after one of its own thread or of another.
  wire::Encoder many;
  std::vector<std::pair<uint64_t, uint64_t>> want;
  for (uint32_t thread = 1; thread <= 12; ++thread) {
    call(many, thread, true, 100 * thread, 1000 * thread);
    want.push_back({100 * thread, 1000 * thread});
    if (thread % 3 == 0) {
      call(many, thread, false, 0, 1);
      want.push_back({100 * thread + 1, 1000 * thread + 1});
    }
  }
  for (uint32_t thread = 12; thread >= 1; --thread) {
    call(many, thread, false, 1, 10);
    uint64_t calls_before = thread % 3 == 0 ? 2 : 1;
    want.push_back({100 * thread + calls_before + 1, 1000 * thread + calls_before - 1 + 10});
  }
  Seen threads;
  ASSERT_TRUE(decoder.decode_chunk({many.data(), many.size()}, threads));
  EXPECT_EQ(threads.calls, want);
}

// Format 2: a call's start is a gap after the end of the thread's previous
// call in the chunk; format-1 deltas and absolute starts still mix in.
TEST(Records, StartGapsCountFromThePreviousCallsEnd) {
  struct Seen : format::Consumer {
    std::vector<std::pair<uint64_t, uint64_t>> calls;  // seq, start
    void on_call(const format::Call& c) override { calls.push_back({c.seq, c.start_ns}); }
  };
  enum Start { kAbsolute, kGap, kDelta };
  auto call = [](wire::Encoder& e, uint32_t thread, Start how, uint64_t start, uint64_t duration) {
    size_t r = s::chunk::begin_records(e);
    size_t c = s::record::begin_call(e);
    s::call::set_thread(e, thread);
    if (how == kAbsolute) s::call::set_seq(e, 0);
    if (how == kAbsolute)
      s::call::set_start_ns(e, start);
    else if (how == kGap)
      s::call::set_start_gap_ns(e, start);
    else
      s::call::set_start_delta_ns(e, start);
    s::call::set_duration_ns(e, duration);
    e.end_nested(c);
    e.end_nested(r);
  };
  wire::Encoder e;
  call(e, 1, kAbsolute, 1000, 50);  // thread 1: 1000..1050
  call(e, 2, kAbsolute, 1010, 7);   // thread 2: 1010..1017
  call(e, 1, kGap, 5, 30);          // 1055..1085
  call(e, 2, kGap, 0, 1);           // 1017
  call(e, 1, kAbsolute, 1060, 10);  // a start before the previous end: absolute
  call(e, 1, kDelta, 3, 0);         // format 1 still reads: 1063
  call(e, 1, kGap, 2, 0);           // 1065
  Seen seen;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk({e.data(), e.size()}, seen)) << decoder.error();
  EXPECT_EQ(seen.calls,
            (std::vector<std::pair<uint64_t, uint64_t>>{
                {0, 1000}, {0, 1010}, {1, 1055}, {1, 1017}, {0, 1060}, {1, 1063}, {2, 1065}}));
}

// A consumer that wants no values of a function gets its calls without
// args or ret (and everything else as written), straight from the decoder
// and through a batch that delivers to it.
TEST(Records, ValuesOnlyOfTheFunctionsAConsumerWants) {
  struct Seen : format::Consumer {
    std::vector<std::string> calls;
    bool wants_values(uint32_t function) const override { return function == 6; }
    void on_call(const format::Call& c) override {
      calls.push_back(std::to_string(c.function) + " seq " + std::to_string(c.seq) + " start " +
                      std::to_string(c.start_ns) + " args " + std::to_string(c.args.size()) +
                      (c.ret != nullptr ? " ret " + std::to_string(c.ret->uint) : ""));
    }
  };
  wire::Encoder e;
  for (uint32_t function : {5, 6, 5}) {
    record(e, s::record::begin_call, [&] {
      s::call::set_function(e, function);
      s::call::set_seq(e, function * 10);
      s::call::set_start_ns(e, 1000 + function);
      for (uint64_t i = 0; i < 2; ++i) {
        size_t arg = s::call::begin_args(e);
        s::value::set_uint(e, i);
        e.end_nested(arg);
      }
      size_t ret = s::call::begin_ret(e);
      s::value::set_uint(e, 7);
      e.end_nested(ret);
    });
  }
  const std::vector<std::string> expected = {"5 seq 50 start 1005 args 0",
                                             "6 seq 60 start 1006 args 2 ret 7",
                                             "5 seq 50 start 1005 args 0"};
  Seen direct;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk(bytes_of(e), direct)) << decoder.error();
  EXPECT_EQ(direct.calls, expected);
  Seen batched;
  format::RecordBatch batch;
  batch.set_destination(&batched);
  ASSERT_TRUE(RecordDecoder().decode_chunk(bytes_of(e), batch));
  batch.replay(batched);
  EXPECT_EQ(batched.calls, expected);
}

// Calls the decoder reads in one pass (function, thread, context, error,
// args and ret) and calls it leaves there, at their first unusual field or
// value, to the general loop, which reads them from the start: the same
// records either way, the last of a repeated field winning.
TEST(Records, OnePassAndGeneralReadingsAgree) {
  wire::Encoder e;
  auto arg = [&](auto&& value) {
    size_t m = s::call::begin_args(e);
    value();
    e.end_nested(m);
  };
  auto scalars = [&] {
    arg([&] { s::value::set_uint(e, 300); });
    arg([&] { s::value::set_sint(e, -2); });
    arg([&] { s::value::set_pointer(e, 0x40); });
    arg([&] { s::value::set_f32(e, 0.25f); });
    arg([&] { s::value::set_f64(e, 8.5); });
    arg([&] { s::value::set_data(e, "ab", 2); });
    arg([&] { s::value::set_text(e, "t"); });
  };
  // One pass: the common fields, in any order, a ret, a value of any kind.
  record(e, s::record::begin_call, [&] {
    s::call::set_context(e, 3);
    s::call::set_function(e, 7);
    s::call::set_thread(e, 1);
    scalars();
    arg([&] {
      size_t a = s::value::begin_array(e);
      size_t p = s::array::begin_uints(e);
      s::array::pack_uints(e, 9);
      e.end_nested(p);
      e.end_nested(a);
    });
    arg([] {});
    size_t ret = s::call::begin_ret(e);
    s::value::set_uint(e, 1);
    e.end_nested(ret);
    s::call::set_gl_error(e, 0x500);
    s::call::set_function(e, 8);  // the last one wins
  });
  // Left to the general loop after its args: a field the pass does not read.
  record(e, s::record::begin_call, [&] {
    s::call::set_function(e, 9);
    scalars();
    s::call::set_seq(e, 40);
  });
  // A value of two members (the last wins) is read by the general value decoder.
  record(e, s::record::begin_call, [&] {
    s::call::set_function(e, 10);
    arg([&] {
      s::value::set_uint(e, 1);
      s::value::set_sint(e, -1);
    });
  });
  std::vector<std::string> lines = decode(e);
  ASSERT_EQ(lines.size(), 3u);
  const std::string values =
      "uint:300,sint:-2,pointer:0x40,f32:0.25,f64:8.5,data:\"ab\",text:\"t\",";
  EXPECT_EQ(lines[0],
            "call fn=8 thread=1 context=3 seq=0 start=0 duration=0 cpu=0 error=1280 args=(" +
                values + "array:[|9,|],none,) ret=uint:1");
  EXPECT_EQ(
      lines[1],
      "call fn=9 thread=0 context=0 seq=40 start=0 duration=0 cpu=0 error=0 args=(" + values + ")");
  EXPECT_EQ(
      lines[2],
      "call fn=10 thread=0 context=0 seq=41 start=0 duration=0 cpu=0 error=0 args=(sint:-1,)");
}

// wire::copy_small, by which the capture copies each call's fields: every
// size class it has (0, 1-3, 4-7, 8-16, 17-64, larger), exactly n bytes written.
TEST(Wire, CopySmallCopiesExactlyNBytes) {
  uint8_t from[80];
  for (size_t i = 0; i < sizeof from; ++i) from[i] = static_cast<uint8_t>(i * 7 + 1);
  for (size_t n = 0; n <= sizeof from; ++n) {
    SCOPED_TRACE("n = " + std::to_string(n));
    uint8_t to[sizeof from + 2];
    memset(to, 0xaa, sizeof to);
    EXPECT_EQ(wire::copy_small(to + 1, from, n), to + 1 + n);
    EXPECT_EQ(memcmp(to + 1, from, n), 0);
    EXPECT_EQ(to[0], 0xaa);
    for (size_t i = n + 1; i < sizeof to; ++i) EXPECT_EQ(to[i], 0xaa) << "byte " << i;
  }
}

// Fields and record kinds from a newer gltrace are skipped, of every wire type.
TEST(Records, UnknownFieldsAreSkipped) {
  wire::Encoder e;
  auto unknowns = [&] {
    e.uint_field(900, 1);
    e.fixed64_field(901, 2);
    e.float_field(902, 3);
    e.string_field(903, "future");
  };
  e.string_field(50, "chunk-level field");
  // A record kind from the future.
  record(
      e, [](wire::Encoder& x) { return x.begin_nested(60); }, [&] { unknowns(); });
  record(e, s::record::begin_call, [&] {
    unknowns();
    s::call::set_seq(e, 5);
    size_t arg = s::call::begin_args(e);
    unknowns();
    s::value::set_uint(e, 9);
    e.end_nested(arg);
    unknowns();
  });
  std::vector<std::string> lines = decode(e);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("seq=5 "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("args=(uint:9,)"), std::string::npos) << lines[0];
}

TEST(Records, WrongWireTypeNamesTheField) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    s::call::set_function(e, 1);
    e.string_field(s::call::kSeq, "not a varint");
  });
  std::string error;
  size_t offset = 0;
  decode(e, &error, &offset);
  EXPECT_EQ(error, "Call field 4 has wire type 2, expected 0");
  // Chunk tag+len (2), Record tag+len (2), function (2), then the key of seq.
  EXPECT_EQ(offset, 6u);
}

TEST(Records, PackedLengthPastItsFieldIsAnError) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    size_t arg = s::call::begin_args(e);
    size_t a = s::value::begin_array(e);
    e.tag(s::array::kUints, wire::kLengthDelimited);
    e.raw_varint(1000000);  // claims far more than the message holds
    e.raw_varint(1);
    e.end_nested(a);
    e.end_nested(arg);
  });
  std::string error;
  decode(e, &error);
  EXPECT_EQ(error, "in Array: length past the end");
}

TEST(Records, PackedFloatsMustBeWholeFloats) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    size_t arg = s::call::begin_args(e);
    size_t a = s::value::begin_array(e);
    s::array::set_floats_packed(e, "12345", 5);
    e.end_nested(a);
    e.end_nested(arg);
  });
  std::string error;
  decode(e, &error);
  EXPECT_EQ(error, "in Array: packed floats of 5 bytes, not a multiple of 4");
}

// A call's value that is one packed array is read in one pass; a malformed
// one is left to the general loop, which names the fault.
TEST(Records, MalformedPackedValueArraysAreNamedAsTheGeneralLoopNamesThem) {
  auto error_of = [](std::string_view packed) {
    wire::Encoder e;
    record(e, s::record::begin_call, [&] {
      size_t arg = s::call::begin_args(e);
      size_t a = s::value::begin_array(e);
      s::array::set_uints_packed(e, packed.data(), packed.size());
      e.end_nested(a);
      e.end_nested(arg);
    });
    std::string error;
    decode(e, &error);
    return error;
  };
  EXPECT_EQ(error_of("\x05\x80"), "in Array: truncated varint");
  EXPECT_EQ(error_of(std::string(11, '\xff') + "\x01"), "in Array: varint longer than 10 bytes");
  EXPECT_EQ(
      error_of(std::string(format::kMaxElementsPerRecord + 1, '\x01')),
      "Array has more than " + std::to_string(format::kMaxElementsPerRecord) + " array elements");
  EXPECT_EQ(error_of("\x05\x01"), "");
}

TEST(Records, TruncatedVarintInsidePackedArray) {
  wire::Encoder e;
  record(e, s::record::begin_context,
         [&] { s::context::set_config_attribs_packed(e, "\x80\x80", 2); });
  std::string error;
  decode(e, &error);
  EXPECT_EQ(error, "in Context: truncated varint");
}

TEST(Records, TooManyArgsIsAnError) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    for (size_t i = 0; i <= format::kMaxValuesPerCall; ++i) {
      size_t arg = s::call::begin_args(e);
      e.end_nested(arg);
    }
  });
  std::string error;
  decode(e, &error);
  EXPECT_EQ(error, "Call has more than 1024 args");
}

TEST(Records, HugeFieldNumberDoesNotAliasAKnownField) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    // (2^32 + 4) << 3: a 32-bit truncation would read it as field 4 (seq).
    e.raw_varint(((uint64_t{1} << 32) + 4) << 3);
    e.raw_varint(5);
  });
  std::string error;
  decode(e, &error);
  EXPECT_EQ(error, "in Call: field number out of range");
}

// Slots are reused: a call with fewer args after one with more sees only its own.
TEST(Records, ScratchValuesDoNotLeakAcrossCalls) {
  wire::Encoder e;
  record(e, s::record::begin_call, [&] {
    for (int i = 0; i < 3; ++i) {
      size_t arg = s::call::begin_args(e);
      size_t list = s::value::begin_strings(e);
      s::strings::add_items(e, "x");
      e.end_nested(list);
      e.end_nested(arg);
    }
    size_t ret = s::call::begin_ret(e);
    s::value::set_uint(e, 1);
    e.end_nested(ret);
  });
  record(e, s::record::begin_call, [&] {
    size_t arg = s::call::begin_args(e);
    s::value::set_uint(e, 2);
    e.end_nested(arg);
  });
  std::vector<std::string> lines = decode(e);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("args=(uint:2,)"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find("ret="), std::string::npos) << lines[1];
}

// Asks to stop after its second record.
struct StopAtSecond : RecordText {
  void on_frame(const format::Frame& f) override {
    RecordText::on_frame(f);
    if (lines.size() == 2) request_stop();
  }
};

TEST(Records, ConsumerCanStop) {
  wire::Encoder e;
  for (int i = 0; i < 5; ++i) test::encode_frame(e, i, i);
  RecordDecoder decoder;
  StopAtSecond consumer;
  EXPECT_TRUE(decoder.decode_chunk(bytes_of(e), consumer));
  EXPECT_EQ(consumer.lines.size(), 2u);
}

TEST(Records, IndexEntries) {
  wire::Encoder e;
  for (uint64_t i = 0; i < 3; ++i) {
    size_t m = s::index::begin_entries(e);
    s::index_entry::set_frame(e, i);
    s::index_entry::set_chunk_offset(e, 16 + i * 100);
    s::index_entry::set_seq(e, i * 10);
    e.end_nested(m);
  }
  RecordDecoder decoder;
  format::Index index;
  ASSERT_TRUE(decoder.decode_index(bytes_of(e), &index));
  ASSERT_EQ(index.entries.size(), 3u);
  EXPECT_EQ(index.entries[2].chunk_offset, 216u);
  EXPECT_EQ(index.entries[2].seq, 20u);
  EXPECT_FALSE(decoder.decode_index(bytes_of(e), &index, 2));
  EXPECT_EQ(decoder.error(), "Index has more than 2 entries");
}

}  // namespace
}  // namespace gltrace

namespace gltrace {
namespace {

// What read_trace_prefetched does: decode into a batch, replay it later.
// One batch decodes every chunk, as one slot of the prefetcher does.
TEST(Records, BatchReplaysWhatTheDecoderDelivers) {
  std::vector<std::function<void(wire::Encoder&)>> chunks = {
      test::encode_everything,
      [](wire::Encoder& e) {  // many calls of two threads (delta-coded), frames, blobs
        test::encode_header(e, 7, "app");
        for (uint64_t seq = 0; seq < 300; ++seq) {
          test::encode_call(e, 1 + seq % 2, seq, 10 + seq % 7);
          if (seq % 50 == 49) test::encode_frame(e, seq / 50, seq);
          if (seq % 100 == 0) test::encode_blob(e, seq, "blob data");
        }
      },
      [](wire::Encoder& e) {  // a call with more args after one with fewer, then the reverse
        for (int n : {1, 5, 2}) {
          record(e, s::record::begin_call, [&] {
            for (int i = 0; i < n; ++i) {
              size_t arg = s::call::begin_args(e);
              size_t list = s::value::begin_strings(e);
              s::strings::add_items(e, std::to_string(i));
              e.end_nested(list);
              e.end_nested(arg);
            }
          });
        }
      },
      [](wire::Encoder& e) {  // good records, then too many args: an error
        test::encode_frame(e, 0, 0);
        test::encode_call(e, 1, 1, 3);
        record(e, s::record::begin_call, [&] {
          for (size_t i = 0; i <= format::kMaxValuesPerCall; ++i) {
            size_t arg = s::call::begin_args(e);
            e.end_nested(arg);
          }
        });
        test::encode_frame(e, 1, 2);
      },
      [](wire::Encoder& e) {  // a wrong wire type after a call
        test::encode_call(e, 1, 1, 3);
        record(e, s::record::begin_call, [&] { e.fixed64_field(s::call::kFunction, 1); });
      },
      test::encode_everything,
  };
  format::RecordBatch batch;
  RecordDecoder batch_decoder;
  for (size_t i = 0; i < chunks.size(); ++i) {
    SCOPED_TRACE("chunk " + std::to_string(i));
    wire::Encoder e;
    chunks[i](e);
    std::string error;
    size_t offset = 0;
    std::vector<std::string> direct = decode(e, &error, &offset);
    batch.clear();
    bool ok = batch_decoder.decode_chunk(bytes_of(e), batch);
    EXPECT_FALSE(batch.overflowed());
    RecordText text;
    batch.replay(text);
    if (!ok) text.lines.push_back("ERROR");
    EXPECT_EQ(text.lines, direct);
    EXPECT_EQ(ok ? "" : batch_decoder.error(), error);
    if (!ok) {
      EXPECT_EQ(batch_decoder.error_offset(), offset);
    }
  }
}

// A call's array elements and string lists are in the decoder's memory
// until its next call: a batch keeps its own copy of every call's.
TEST(Records, BatchKeepsEachCallsArraysAndStrings) {
  wire::Encoder e;
  for (int call = 0; call < 40; ++call) {
    record(e, s::record::begin_call, [&] {
      size_t arg = s::call::begin_args(e);
      size_t a = s::value::begin_array(e);
      size_t p = s::array::begin_sints(e);
      for (int i = 0; i <= call % 5; ++i) s::array::pack_sints(e, call * 100 + i);
      e.end_nested(p);
      e.end_nested(a);
      e.end_nested(arg);
      arg = s::call::begin_args(e);
      size_t list = s::value::begin_strings(e);
      s::strings::add_items(e, "call " + std::to_string(call));
      e.end_nested(list);
      e.end_nested(arg);
      size_t ret = s::call::begin_ret(e);
      float floats[2] = {static_cast<float>(call), 0.5f};
      a = s::value::begin_array(e);
      s::array::set_floats_packed(e, floats, sizeof floats);
      e.end_nested(a);
      e.end_nested(ret);
    });
  }
  format::RecordBatch batch;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk(bytes_of(e), batch));
  RecordText text;
  batch.replay(text);
  std::vector<std::string> direct = decode(e);
  ASSERT_EQ(direct.size(), 40u);
  EXPECT_NE(direct[0], direct[1]);
  EXPECT_EQ(text.lines, direct);
}

// Memory for decoded elements is reused from record to record, and what a
// huge record took is given back at the next reset.
TEST(Records, ValueMemoryIsReusedAndBounded) {
  format::ValueMemory memory;
  void* first = memory.take(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 16, 0u);
  void* second = memory.take(3);
  EXPECT_EQ(static_cast<std::byte*>(second), static_cast<std::byte*>(first) + 112);
  memory.reset();
  EXPECT_EQ(memory.take(100), first);
  size_t small = memory.held();
  EXPECT_LE(small, format::ValueMemory::kKeepBytes);
  for (int i = 0; i < 8; ++i) memory.take(size_t{3} << 20);
  EXPECT_GT(memory.held(), size_t{24} << 20);
  memory.reset();
  EXPECT_EQ(memory.held(), small);
  EXPECT_EQ(memory.take(100), first);
}

// Calls given to a batch by anyone (not decoded into it) are copied.
TEST(Records, BatchKeepsCallsOfOtherDecoders) {
  wire::Encoder e;
  test::encode_everything(e);
  for (uint64_t seq = 0; seq < 20; ++seq) test::encode_call(e, 1, seq, 4);
  format::RecordBatch batch;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk(bytes_of(e), static_cast<format::Consumer&>(batch)));
  RecordText text;
  batch.replay(text);
  EXPECT_EQ(text.lines, decode(e));
}

TEST(Records, BatchStopsKeepingPastItsLimit) {
  std::vector<format::Value> args(format::kMaxValuesPerCall);
  format::Call call;
  call.args = args;
  format::RecordBatch batch;
  size_t given = 0;
  while (!batch.overflowed() && given < 1000) {
    call.seq = given++;
    batch.on_call(call);
  }
  EXPECT_TRUE(batch.overflowed());
  EXPECT_LT(given * args.size() * sizeof(format::Value), 2 * format::RecordBatch::kMaxBytes);
  RecordText text;
  batch.replay(text);
  EXPECT_EQ(text.lines.size(), given - 1);  // all but the one that did not fit
  batch.clear();
  EXPECT_FALSE(batch.overflowed());
}

// A consumer that stops during a replay gets nothing after.
TEST(Records, BatchReplayStopsWhenAsked) {
  wire::Encoder e;
  for (int i = 0; i < 5; ++i) test::encode_frame(e, i, i);
  format::RecordBatch batch;
  RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk(bytes_of(e), batch));
  StopAtSecond consumer;
  batch.replay(consumer);
  EXPECT_EQ(consumer.lines.size(), 2u);
}

// The same records, decoded straight from the encoder and through a file.
TEST(Records, EverythingThroughTheWriter) {
  wire::Encoder e;
  test::encode_everything(e);
  std::vector<std::string> direct = decode(e);
  ASSERT_EQ(direct.size(), test::kEverythingRecords);
  EXPECT_EQ(direct.back(), "stats calls=1 frames=0 bytes=0 stalls=0 stall_ns=0 blobs=0 dedup=0");

  std::string path = test::make_temp_dir() + "/everything.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  writer->submit(format::Payload::from_encoder(e));
  ASSERT_TRUE(writer->close(&error)) << error;
  test::Decoded d = test::decode_memory(test::read_bytes(path));
  ASSERT_TRUE(d.ok) << d.status.message;
  EXPECT_EQ(d.lines, direct);
}

// The writers' framing (format/record_builder.h) is the protobuf encoding of
// Chunk{records: Record{kind: body}}, lengths of every varint size included,
// and decodes as such.
TEST(RecordBuilder, FramingIsTheNestedEncoding) {
  for (uint32_t kind :
       {s::record::kThread, s::record::kCallsComplete, uint32_t{16}, uint32_t{2048}}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{124}, size_t{125}, size_t{127}, size_t{128},
                        size_t{16380}, size_t{16384}, size_t{1} << 21}) {
      std::string body(size, 'x');
      wire::Encoder nested;
      size_t r = s::chunk::begin_records(nested);
      nested.bytes_field(kind, body.data(), body.size());
      nested.end_nested(r);
      wire::Encoder built;
      format::append_record(built, kind, body.data(), body.size());
      ASSERT_EQ(std::string(reinterpret_cast<const char*>(built.data()), built.size()),
                std::string(reinterpret_cast<const char*>(nested.data()), nested.size()))
          << "kind " << kind << ", " << size << " bytes";
      // In place, as the per-call path writes it.
      wire::Encoder in_place;
      uint8_t* p = in_place.begin_write(format::kMaxRecordFraming + size);
      p = format::put_record_framing(p, kind, size);
      if (size != 0) memcpy(p, body.data(), size);
      in_place.end_write(p + size);
      ASSERT_EQ(in_place.size(), nested.size());
      EXPECT_EQ(memcmp(in_place.data(), nested.data(), nested.size()), 0);
    }
  }
  wire::Encoder chunk;
  wire::Encoder thread;
  s::thread::set_index(thread, 3);
  s::thread::set_name(thread, "worker");
  format::append_record(chunk, s::record::kThread, thread.data(), thread.size());
  std::vector<std::string> lines = decode(chunk);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("worker"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace gltrace
