// encode_record, the inverse of the decoder: every field of every record
// decodes back as it was; calls carry absolute seq and start_ns wherever
// they land in a chunk; RecordSink writes a trace with a usable index.
#include "format/record_encoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <type_traits>

#include "format/encoders.h"
#include "format/reader.h"
#include "format/record_builder.h"
#include "format/schema.h"
#include "support/subprocess.h"
#include "test_trace.h"

namespace gltrace {
namespace {

namespace s = schema;
using format::Call;
using format::Value;
using format::ValueKind;

// ---- Every field of a record, by name, as text ----
// Two records are the same when their field lists are; a record sets a field
// when its text differs from the default record's. Each list names every
// member of its struct in format/records.h.
using Fields = std::vector<std::pair<std::string, std::string>>;

std::string text(uint64_t v) { return std::to_string(v); }
std::string text(int64_t v) { return std::to_string(v); }
std::string text(uint32_t v) { return std::to_string(v); }
std::string text(int32_t v) { return std::to_string(v); }
std::string text(bool v) { return v ? "true" : "false"; }
std::string text(std::string_view v) { return '"' + std::string(v) + '"'; }
// Floats by their bits: exact, and -0 differs from 0.
template <typename F>
requires std::is_floating_point_v<F> std::string text(F v) {
  std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t> bits;
  memcpy(&bits, &v, sizeof bits);
  return "bits:" + std::to_string(bits);
}
std::string text(const Fields& fields) {
  std::string out = "{";
  for (const auto& [name, value] : fields) out += name + "=" + value + " ";
  return out + "}";
}
template <typename T, typename F>
std::string list(std::span<const T> items, F&& item) {
  std::string out = "[";
  for (const T& x : items) out += item(x) + ",";
  return out + "]";
}

std::string text(const Value& v) {
  std::string out = "kind=" + text(static_cast<uint32_t>(v.kind)) + " ";
  switch (v.kind) {
    case ValueKind::kNone:
      return out;
    case ValueKind::kSint:
      return out + text(v.sint);
    case ValueKind::kUint:
      return out + text(v.uint);
    case ValueKind::kF32:
      return out + text(v.f32);
    case ValueKind::kF64:
      return out + text(v.f64);
    case ValueKind::kPointer:
      return out + text(v.pointer);
    case ValueKind::kBlob:
      return out + text(v.blob);
    case ValueKind::kData:
    case ValueKind::kText:
      return out + text(v.bytes());
    case ValueKind::kUnknown:
      return out + text(v.pointer) + " " + text(v.bytes());
    case ValueKind::kStrings:
      return out + list(v.strings(), [](std::string_view x) { return text(x); });
    case ValueKind::kArray:
      out += "elements=" + text(static_cast<uint32_t>(v.elements)) + " ";
      switch (v.elements) {
        case Value::Elements::kSint:
          return out + list(v.sints(), [](int64_t x) { return text(x); });
        case Value::Elements::kUint:
          return out + list(v.uints(), [](uint64_t x) { return text(x); });
        case Value::Elements::kFloat:
          return out + list(v.floats(), [](float x) { return text(x); });
      }
  }
  return out + "?";
}

Fields fields(const format::Header& h) {
  return {{"record", "Header"},
          {"format_version", text(h.format_version)},
          {"pid", text(h.pid)},
          {"process_name", text(h.process_name)},
          {"command_line", text(h.command_line)},
          {"clock_domain", text(h.clock_domain)},
          {"start_time_ns", text(h.start_time_ns)},
          {"mode", text(h.mode)},
          {"capture_options", text(h.capture_options)},
          {"mid_run", text(h.mid_run)},
          {"driver", text(h.driver)},
          {"cut_from", text(h.cut_from)}};
}
Fields fields(const format::Thread& t) {
  return {
      {"record", "Thread"}, {"index", text(t.index)}, {"tid", text(t.tid)}, {"name", text(t.name)}};
}
std::string attribs(const std::vector<int64_t>& a) {
  return list(std::span<const int64_t>(a), [](int64_t x) { return text(x); });
}
Fields fields(const format::Context& c) {
  return {{"record", "Context"},
          {"index", text(c.index)},
          {"handle", text(c.handle)},
          {"display", text(c.display)},
          {"config", text(c.config)},
          {"share_context", text(c.share_context)},
          {"client_version", text(c.client_version)},
          {"config_attribs", attribs(c.config_attribs)},
          {"gl_vendor", text(c.gl_vendor)},
          {"gl_renderer", text(c.gl_renderer)},
          {"gl_version", text(c.gl_version)},
          {"surface_width", text(c.surface_width)},
          {"surface_height", text(c.surface_height)},
          {"client_type", text(c.client_type)},
          {"window_system", text(c.window_system)},
          {"profile_mask", text(c.profile_mask)}};
}
Fields fields(const format::ClientArray& a) {
  return {{"index", text(a.index)},     {"first", text(a.first)}, {"stride", text(a.stride)},
          {"pointer", text(a.pointer)}, {"data", text(a.data)},   {"blob", text(a.blob)},
          {"array", text(a.array)}};
}
Fields fields(const format::BufferWrite& w) {
  return {{"target", text(w.target)},
          {"offset", text(w.offset)},
          {"data", text(w.data)},
          {"blob", text(w.blob)}};
}
Fields fields(const format::ImageSource& i) {
  return {{"width", text(i.width)},
          {"height", text(i.height)},
          {"blob", text(i.blob)},
          {"not_captured", text(i.not_captured)}};
}
Fields fields(const Call& c) {
  auto value = [](const Value& v) { return text(v); };
  auto nested = [](const auto& x) { return text(fields(x)); };
  return {{"record", "Call"},
          {"function", text(c.function)},
          {"thread", text(c.thread)},
          {"context", text(c.context)},
          {"seq", text(c.seq)},
          {"start_ns", text(c.start_ns)},
          {"duration_ns", text(c.duration_ns)},
          {"thread_time_ns", text(c.thread_time_ns)},
          {"args", list(c.args, value)},
          {"ret", c.ret != nullptr ? text(*c.ret) : "absent"},
          {"gl_error", text(c.gl_error)},
          {"client_arrays", list(c.client_arrays, nested)},
          {"buffer_writes", list(c.buffer_writes, nested)},
          {"synthetic", text(c.synthetic)},
          {"snapshot", text(c.snapshot)},
          {"ends_frame", text(c.ends_frame)},
          {"image_source", c.image_source != nullptr ? nested(*c.image_source) : "absent"},
          {"config_attribs", c.config_attribs != nullptr ? attribs(*c.config_attribs) : "absent"},
          {"surface_width", text(c.surface_width)},
          {"surface_height", text(c.surface_height)}};
}
Fields fields(const format::Blob& b) {
  return {{"record", "Blob"}, {"id", text(b.id)}, {"data", text(b.data)}};
}
Fields fields(const format::Frame& f) {
  return {{"record", "Frame"},
          {"number", text(f.number)},
          {"seq", text(f.seq)},
          {"thread", text(f.thread)},
          {"context", text(f.context)},
          {"time_ns", text(f.time_ns)},
          {"app_frame", text(f.app_frame)},
          {"has_app_frame", text(f.has_app_frame)}};
}
Fields fields(const format::Image& i) {
  return {{"record", "Image"},        {"frame", text(i.frame)},    {"seq", text(i.seq)},
          {"width", text(i.width)},   {"height", text(i.height)},  {"blob", text(i.blob)},
          {"origin", text(i.origin)}, {"context", text(i.context)}};
}
Fields fields(const format::Stats& st) {
  return {{"record", "Stats"},
          {"calls", text(st.calls)},
          {"frames", text(st.frames)},
          {"bytes_uncompressed", text(st.bytes_uncompressed)},
          {"stall_count", text(st.stall_count)},
          {"stall_ns", text(st.stall_ns)},
          {"blobs", text(st.blobs)},
          {"blob_bytes_deduplicated", text(st.blob_bytes_deduplicated)},
          {"desktop_gl_libraries", text(st.desktop_gl_libraries)}};
}
Fields fields(const format::CallsComplete& c) {
  return {{"record", "CallsComplete"}, {"below_seq", text(c.below_seq)}};
}
Fields fields(const format::DesktopGl& d) {
  return {{"record", "DesktopGl"}, {"libraries", text(d.libraries)}};
}

// Fails for each field of `record` left at its default: a round trip of it
// then checks every field.
template <typename T>
void expect_every_field_set(const T& record) {
  Fields set = fields(record);
  Fields unset = fields(T{});
  ASSERT_EQ(set.size(), unset.size());
  for (size_t i = 1; i < set.size(); ++i)
    EXPECT_NE(set[i].second, unset[i].second) << set[0].second << " field " << set[i].first;
}

// The same for a call, its parts, and its values (every kind, every array
// element type).
void expect_call_sets_everything(const Call& c) {
  expect_every_field_set(c);
  ASSERT_FALSE(c.client_arrays.empty());
  expect_every_field_set(c.client_arrays[0]);
  ASSERT_FALSE(c.buffer_writes.empty());
  expect_every_field_set(c.buffer_writes[0]);
  ASSERT_NE(c.image_source, nullptr);
  expect_every_field_set(*c.image_source);
  std::set<std::string> kinds;
  for (const Value& v : c.args) {
    std::string kind = text(static_cast<uint32_t>(v.kind));
    if (v.kind == ValueKind::kArray) kind += "/" + text(static_cast<uint32_t>(v.elements));
    kinds.insert(kind);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                          "11/0", "11/1", "11/2"}));
}

// Decodes a chunk into each record's fields; re-encodes each record into
// `again` when given (while its views are valid).
struct Fieldwise : format::Consumer {
  template <typename R>
  void keep(const R& r) {
    records.push_back(fields(r));
    if (again != nullptr) format::encode_record(*again, r);
  }
  void on_header(const format::Header& r) override { keep(r); }
  void on_thread(const format::Thread& r) override { keep(r); }
  void on_context(const format::Context& r) override { keep(r); }
  void on_call(const Call& r) override {
    keep(r);
    if (each_call) each_call(r);
  }
  void on_blob(const format::Blob& r) override { keep(r); }
  void on_frame(const format::Frame& r) override { keep(r); }
  void on_image(const format::Image& r) override { keep(r); }
  void on_stats(const format::Stats& r) override { keep(r); }
  void on_calls_complete(const format::CallsComplete& r) override { keep(r); }
  void on_desktop_gl(const format::DesktopGl& r) override { keep(r); }

  std::vector<Fields> records;
  wire::Encoder* again = nullptr;
  std::function<void(const Call&)> each_call;
};

void decode(const wire::Encoder& chunk, format::Consumer& consumer) {
  format::RecordDecoder decoder;
  ASSERT_TRUE(decoder.decode_chunk({chunk.data(), chunk.size()}, consumer))
      << decoder.error() << " at byte " << decoder.error_offset();
}

// The records of encode_everything, decoded, re-encoded and decoded again.
TEST(RecordEncoder, EverythingDecodesBackIdentical) {
  wire::Encoder original;
  test::encode_everything(original);
  wire::Encoder again;
  Fieldwise first;
  first.again = &again;
  int calls = 0;
  first.each_call = [&](const Call& c) {
    ++calls;
    expect_call_sets_everything(c);
  };
  decode(original, first);
  ASSERT_EQ(first.records.size(), test::kEverythingRecords);
  EXPECT_EQ(calls, 1);
  Fieldwise second;
  decode(again, second);
  ASSERT_EQ(second.records.size(), first.records.size());
  for (size_t i = 0; i < first.records.size(); ++i)
    EXPECT_EQ(second.records[i], first.records[i]) << "record " << i;
}

// Records built here with every field set (the kinds encode_everything
// lacks too) decode as they were given.
TEST(RecordEncoder, EveryFieldOfEveryRecord) {
  format::Header header{2,
                        77,
                        "app",
                        "app --flag",
                        "CLOCK_MONOTONIC",
                        1234567,
                        "full",
                        "framebuffer=swap",
                        true,
                        "/usr/lib/libEGL.so.1",
                        "frames 3-7 of demo.gltrace"};
  format::Thread thread{3, 4242, "render"};
  format::Context context{2,
                          0xc0,
                          0xd0,
                          0xcf,
                          0xc1,
                          3,
                          {0x3024, 8, 0x3025, -1},
                          "Mesa",
                          "llvmpipe",
                          "OpenGL ES 3.2",
                          640,
                          480,
                          0x30A2,
                          "glx",
                          1};
  format::Blob blob{0xb10b, std::string_view("blob\0bytes", 10)};
  format::Frame frame{4, 99, 3, 2, 5000, 12, true};
  format::Image image{4, 99, 16, 8, 0xb10b, "draw", 2};
  format::Stats stats{100, 5, 1 << 20, 2, 3000, 7, 512, "libGL.so.1 libGLX.so.0"};
  format::CallsComplete complete{100};
  format::DesktopGl desktop_gl{"libGL.so.1"};

  std::vector<std::string_view> strings = {"a", "", std::string_view("c\0d", 3)};
  int64_t sints[] = {-1, INT64_MIN, INT64_MAX};
  uint64_t uints[] = {0, UINT64_MAX};
  float floats[] = {-0.0f, 1.5f};
  auto make = [](ValueKind kind, auto set) {
    Value v;
    v.kind = kind;
    set(v);
    return v;
  };
  auto array = [&](Value::Elements elements, const void* data, size_t size) {
    return make(ValueKind::kArray, [&](Value& v) {
      v.elements = elements;
      v.data = data;
      v.size = size;
    });
  };
  auto chars = [&](ValueKind kind, std::string_view s) {
    return make(kind, [&](Value& v) {
      v.data = s.data();
      v.size = s.size();
    });
  };
  std::vector<Value> args = {
      Value{},
      make(ValueKind::kSint, [](Value& v) { v.sint = INT64_MIN; }),
      make(ValueKind::kUint, [](Value& v) { v.uint = 0; }),
      make(ValueKind::kF32, [](Value& v) { v.f32 = -0.0f; }),
      make(ValueKind::kF64, [](Value& v) { v.f64 = 1e300; }),
      make(ValueKind::kPointer, [](Value& v) { v.pointer = UINT64_MAX; }),
      chars(ValueKind::kData, std::string_view("\0\1", 2)),
      make(ValueKind::kBlob, [](Value& v) { v.blob = 0; }),
      chars(ValueKind::kText, ""),
      [&] {
        Value v = chars(ValueKind::kUnknown, "size unknown");
        v.pointer = 0x1000;
        return v;
      }(),
      make(ValueKind::kStrings,
           [&](Value& v) {
             v.data = strings.data();
             v.size = strings.size();
           }),
      array(Value::Elements::kSint, sints, std::size(sints)),
      array(Value::Elements::kUint, uints, std::size(uints)),
      array(Value::Elements::kFloat, floats, std::size(floats)),
      // Empty: an empty Array, which the decoder reads as one of uints.
      array(Value::Elements::kUint, nullptr, 0),
  };
  Value ret = make(ValueKind::kSint, [](Value& v) { v.sint = 0; });
  format::ClientArray arrays[] = {{1, 2, 12, 0x3000, "inline", 0xb10b, 0x8074},
                                  {0, 0, 4, 0, "", 0, 0}};
  format::BufferWrite writes[] = {{0x8892, 16, "written", 0xb10b}, {0x8893, 0, "", 7}};
  format::ImageSource source{2, 3, 0xb10b, "no context"};
  std::vector<int64_t> config_attribs = {0x3024, 8, 0x3040, -5};
  Call call;
  call.function = 42;
  call.thread = 3;
  call.context = 2;
  call.seq = 98;
  call.start_ns = 4000;
  call.duration_ns = 30;
  call.thread_time_ns = 20;
  call.args = args;
  call.ret = &ret;
  call.gl_error = 0x502;
  call.client_arrays = arrays;
  call.buffer_writes = writes;
  call.synthetic = true;
  call.snapshot = true;
  call.ends_frame = true;
  call.image_source = &source;
  call.config_attribs = &config_attribs;
  call.surface_width = 640;
  call.surface_height = 480;
  // What is absent stays absent: a void call, an image source of no fields.
  format::ImageSource empty_source;
  Call sparse;
  sparse.image_source = &empty_source;

  std::vector<Fields> given;
  wire::Encoder chunk;
  auto add = [&](const auto& record) {
    given.push_back(fields(record));
    format::encode_record(chunk, record);
  };
  add(header);
  add(thread);
  add(context);
  add(blob);
  add(call);
  add(sparse);
  add(frame);
  add(image);
  add(desktop_gl);
  add(complete);
  add(stats);

  expect_every_field_set(header);
  expect_every_field_set(thread);
  expect_every_field_set(context);
  expect_every_field_set(blob);
  expect_call_sets_everything(call);
  expect_every_field_set(frame);
  expect_every_field_set(image);
  expect_every_field_set(stats);
  expect_every_field_set(complete);
  expect_every_field_set(desktop_gl);

  Fieldwise decoded;
  decode(chunk, decoded);
  ASSERT_EQ(decoded.records.size(), given.size());
  for (size_t i = 0; i < given.size(); ++i)
    EXPECT_EQ(decoded.records[i], given[i]) << "record " << i;
}

// Fields at their default are not written (proto3); seq and start_ns are,
// and a record's framing is the writers' own.
TEST(RecordEncoder, DefaultsAreLeftOut) {
  wire::Encoder chunk;
  format::encode_record(chunk, format::Frame{});
  uint8_t framing[format::kMaxRecordFraming];
  size_t size =
      static_cast<size_t>(format::put_record_framing(framing, s::record::kFrame, 0) - framing);
  EXPECT_EQ(std::vector<uint8_t>(chunk.data(), chunk.data() + chunk.size()),
            std::vector<uint8_t>(framing, framing + size));

  chunk.clear();
  format::encode_record(chunk, Call{});
  wire::Encoder body;
  s::call::set_seq(body, 0);
  s::call::set_start_ns(body, 0);
  wire::Encoder expected;
  format::append_record(expected, s::record::kCall, body.data(), body.size());
  EXPECT_EQ(std::vector<uint8_t>(chunk.data(), chunk.data() + chunk.size()),
            std::vector<uint8_t>(expected.data(), expected.data() + expected.size()));
}

// Calls encoded after others of their thread in a chunk (where the capture
// would write deltas) decode with their own absolute seq and start_ns,
// however they relate to the previous call's: larger, smaller, 0, the most.
TEST(RecordEncoder, CallsKeepAbsoluteSeqAndStart) {
  struct Expected {
    uint32_t thread;
    uint64_t seq, start_ns, duration_ns;
  };
  std::vector<Expected> expected;
  wire::Encoder chunk;
  auto absolute = [&](uint32_t thread, uint64_t seq, uint64_t start_ns, uint64_t duration_ns) {
    Call c;
    c.thread = thread;
    c.seq = seq;
    c.start_ns = start_ns;
    c.duration_ns = duration_ns;
    format::encode_record(chunk, c);
    expected.push_back({thread, seq, start_ns, duration_ns});
  };
  // As the capture writes a thread's later calls in a chunk: deltas from
  // the call before (here resolved by hand).
  auto delta = [&](uint32_t thread, uint64_t seq_delta, uint64_t gap, uint64_t duration_ns) {
    wire::Encoder body;
    s::call::set_thread(body, thread);
    if (seq_delta != 0) s::call::set_seq_delta(body, seq_delta);
    s::call::set_start_gap_ns(body, gap);
    s::call::set_duration_ns(body, duration_ns);
    format::append_record(chunk, s::record::kCall, body.data(), body.size());
  };
  absolute(1, 5, 100, 10);
  delta(1, 0, 5, 2);
  expected.push_back({1, 6, 115, 2});
  absolute(1, uint64_t{1} << 40, uint64_t{1} << 62, 3);
  absolute(2, 9, 200, 1);
  absolute(1, 0, 0, 0);
  delta(1, 2, 1, 4);
  expected.push_back({1, 3, 1, 4});
  absolute(1, 2, 0, 0);  // before the previous call in seq and time
  absolute(2, UINT64_MAX, UINT64_MAX, 0);
  absolute(1, UINT64_MAX - 1, 50, 0);

  std::vector<Expected> got;
  struct Calls : format::Consumer {
    std::vector<Expected>* got;
    void on_call(const Call& c) override {
      got->push_back({c.thread, c.seq, c.start_ns, c.duration_ns});
    }
  } calls;
  calls.got = &got;
  decode(chunk, calls);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("call " + std::to_string(i));
    EXPECT_EQ(got[i].thread, expected[i].thread);
    EXPECT_EQ(got[i].seq, expected[i].seq);
    EXPECT_EQ(got[i].start_ns, expected[i].start_ns);
    EXPECT_EQ(got[i].duration_ns, expected[i].duration_ns);
  }
}

bool chunk_of_seq_has(const std::map<uint64_t, uint64_t>& chunk_of_seq, uint64_t chunk) {
  for (const auto& [seq, offset] : chunk_of_seq)
    if (offset == chunk) return true;
  return false;
}

// A trace written through RecordSink: several payloads, every record read
// back, and an index that finds each frame's first call.
TEST(RecordSink, WritesATraceWithAFrameIndex) {
  std::string path = test::make_temp_dir() + "/sink.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  format::RecordSink sink(*writer);

  format::Header header;
  header.format_version = 2;
  header.process_name = "sink";
  sink.add(header);
  sink.add(format::Thread{1, 100, "main"});
  sink.add(format::Thread{2, 101, "worker"});
  format::Context context;
  context.index = 1;
  context.handle = 0xc0;
  sink.add(context);
  // 600 KiB blobs: a payload holds one or two.
  std::string pixels(600 << 10, 'p');
  uint64_t seq = 0;
  size_t calls = 0;
  // Each index entry, as the trace layer makes them: a thread's first call,
  // and its first after a frame it ended.
  std::vector<format::IndexEntry> entries;
  std::map<uint64_t, uint64_t> chunk_of_seq;
  auto call = [&](uint32_t thread, uint64_t blob = 0) {
    Value arg;
    if (blob != 0) {
      arg.kind = ValueKind::kBlob;
      arg.blob = blob;
    } else {
      arg.kind = ValueKind::kUint;
      arg.uint = seq;
    }
    Call c;
    c.function = 7;
    c.thread = thread;
    c.context = 1;
    c.seq = seq++;
    c.start_ns = c.seq * 1000;
    c.duration_ns = 100;
    c.args = {&arg, 1};
    sink.add(c);
    ++calls;
    return c.seq;
  };
  for (uint64_t frame = 0; frame < 3; ++frame) {
    uint64_t first = call(1);
    entries.push_back({frame, 0, first});
    if (frame == 0) entries.push_back({frame, 0, call(2)});
    for (uint64_t b = 0; b < 2; ++b) {
      uint64_t id = frame * 2 + b + 1;
      sink.add(format::Blob{id, pixels});
      call(1, id);
    }
    for (int i = 0; i < 50; ++i) call(i % 5 == 0 ? 2 : 1);
    uint64_t swap = call(1);
    sink.add(format::Frame{
        .number = frame, .seq = swap, .thread = 1, .context = 1, .time_ns = swap * 1000 + 100});
  }
  format::Stats stats;
  stats.calls = calls;
  stats.frames = 3;
  sink.add(stats);
  ASSERT_TRUE(sink.finish(&error)) << error;

  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.status().message;
  struct Reader : format::Consumer {
    void on_chunk(uint64_t offset, uint32_t /*records*/) override { chunk = offset; }
    void on_call(const Call& c) override {
      chunk_of_seq->emplace(c.seq, chunk);
      ++calls;
      // The times, through the chunk's times column.
      if (c.start_ns != c.seq * 1000 || c.duration_ns != 100) ++wrong_times;
    }
    void on_blob(const format::Blob& b) override { blob_bytes += b.data.size(); }
    void on_frame(const format::Frame& f) override {
      if (f.number != frames.size() || f.time_ns != f.seq * 1000 + 100) ++wrong_times;
      frames.push_back(f.seq);
    }
    void on_stats(const format::Stats&) override { ++stats; }
    uint64_t chunk = 0;
    std::map<uint64_t, uint64_t>* chunk_of_seq;
    size_t calls = 0;
    size_t blob_bytes = 0;
    std::vector<uint64_t> frames;
    int stats = 0;
    int wrong_times = 0;
  } read;
  read.chunk_of_seq = &chunk_of_seq;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, read, &status)) << status.message;
  EXPECT_TRUE(status.closed_cleanly);
  EXPECT_GE(status.chunks, 3u);
  EXPECT_EQ(read.calls, calls);
  EXPECT_EQ(read.blob_bytes, 6 * pixels.size());
  EXPECT_EQ(read.frames.size(), 3u);
  EXPECT_EQ(read.stats, 1);
  EXPECT_EQ(read.wrong_times, 0);

  const format::Index* index = reader.index();
  ASSERT_NE(index, nullptr) << reader.index_error();
  ASSERT_EQ(index->entries.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    SCOPED_TRACE("index entry " + std::to_string(i));
    const format::IndexEntry& got = index->entries[i];
    EXPECT_EQ(got.frame, entries[i].frame);
    EXPECT_EQ(got.seq, entries[i].seq);
    // The chunk that holds the call: a seek there reads it.
    EXPECT_EQ(got.chunk_offset, chunk_of_seq.at(entries[i].seq));
  }

  // As the trace layer writes them (format 3): a payload with calls begins
  // with their times column, which the call records leave out.
  format::ChunkReader raw;
  ASSERT_TRUE(raw.open(path)) << raw.status().message;
  format::ChunkView chunk;
  size_t with_calls = 0;
  while (raw.next(&chunk)) {
    if (chunk_of_seq_has(chunk_of_seq, chunk.offset)) {
      ++with_calls;
      ASSERT_FALSE(chunk.payload.empty());
      EXPECT_EQ(chunk.payload[0], s::chunk::kTimes << 3 | wire::kLengthDelimited)
          << "chunk at " << chunk.offset;
    }
  }
  EXPECT_GE(with_calls, 3u);
}

}  // namespace
}  // namespace gltrace
