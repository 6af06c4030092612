// The Perfetto writer on calls and frames made here (pure logic: no driver):
// slices on a track follow each other even when the recorded times overlap
// (Perfetto nests a slice that begins before the one before ended, and its
// end then closes the wrong one), threads without a Thread record get a
// track, and names are interned once per sequence.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "consumers/trace_events.h"
#include "gltrace/api/functions.h"
#include "protowire/wire.h"

namespace gltrace::consumers {
namespace {

struct Event {
  uint64_t timestamp = 0;  // absolute, as trace_processor reads it
  uint64_t written = 0;    // the packet's timestamp field
  uint32_t type = 0;       // TrackEvent.Type
  uint64_t track = 0;
};

// The packets of a plain (uncompressed) Perfetto trace: their track events,
// and the count of each interned event name.
struct Decoded {
  std::vector<Event> events;
  bool incremental_clock = false;  // set up by a clock snapshot in the first packet
  std::map<std::string, int> event_names;
  std::map<uint64_t, std::string> thread_tracks;  // uuid -> thread name
};

Decoded decode(const std::string& bytes) {
  Decoded d;
  auto reader = [](std::string_view s) {
    return wire::Reader(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  wire::Reader trace = reader(bytes);
  uint32_t field;
  wire::WireType type;
  // Timestamps as trace_processor resolves them: on the sequence's default
  // clock unless the packet names one (timestamp_clock_id); on the
  // incremental clock (64) each is a delta from the one before on it.
  constexpr uint32_t kIncremental = 64;
  uint32_t default_clock = 0;
  uint64_t clock = 0;  // the incremental clock's time
  bool first = true;
  while (trace.next(&field, &type)) {
    std::string_view packet_bytes = trace.bytes();
    wire::Reader packet = reader(packet_bytes);
    Event e;
    bool is_event = false, has_timestamp = false;
    uint32_t clock_id = 0;
    while (packet.next(&field, &type)) {
      if (field == 8) {
        e.written = packet.varint();
        has_timestamp = true;
      } else if (field == 58) {
        clock_id = static_cast<uint32_t>(packet.varint());
      } else if (field == 59) {  // TracePacketDefaults
        wire::Reader defaults = reader(packet.bytes());
        while (defaults.next(&field, &type))
          if (field == 58)
            default_clock = static_cast<uint32_t>(defaults.varint());
          else
            defaults.skip(type);
      } else if (field == 6) {  // ClockSnapshot
        wire::Reader snapshot = reader(packet.bytes());
        while (snapshot.next(&field, &type)) {
          wire::Reader c = reader(snapshot.bytes());
          uint64_t id = 0, time = 0;
          bool incremental = false;
          while (c.next(&field, &type)) {
            uint64_t v = c.varint();
            if (field == 1) id = v;
            if (field == 2) time = v;
            if (field == 3) incremental = v != 0;
          }
          if (id == kIncremental && incremental) {
            clock = time;
            d.incremental_clock = first;
          }
        }
      } else if (field == 11) {
        is_event = true;
        wire::Reader event = reader(packet.bytes());
        while (event.next(&field, &type)) {
          if (field == 9)
            e.type = static_cast<uint32_t>(event.varint());
          else if (field == 11)
            e.track = event.varint();
          else
            event.skip(type);
        }
      } else if (field == 12) {  // InternedData
        wire::Reader interned = reader(packet.bytes());
        while (interned.next(&field, &type)) {
          if (field != 2) {
            interned.skip(type);
            continue;
          }
          wire::Reader name = reader(interned.bytes());
          while (name.next(&field, &type))
            if (field == 2)
              ++d.event_names[std::string(name.bytes())];
            else
              name.skip(type);
        }
      } else if (field == 60) {  // TrackDescriptor
        wire::Reader track = reader(packet.bytes());
        uint64_t uuid = 0;
        std::string thread_name;
        while (track.next(&field, &type)) {
          if (field == 1) {
            uuid = track.varint();
          } else if (field == 4) {
            wire::Reader thread = reader(track.bytes());
            while (thread.next(&field, &type))
              if (field == 5)
                thread_name = thread.bytes();
              else
                thread.skip(type);
          } else {
            track.skip(type);
          }
        }
        if (!thread_name.empty()) d.thread_tracks[uuid] = thread_name;
      } else {
        packet.skip(type);
      }
    }
    EXPECT_TRUE(packet.ok()) << packet.error();
    first = false;
    if ((clock_id != 0 ? clock_id : default_clock) == kIncremental)
      e.timestamp = clock += e.written;
    else
      e.timestamp = e.written;
    if (is_event) {
      EXPECT_TRUE(has_timestamp);
      d.events.push_back(e);
    }
  }
  EXPECT_TRUE(trace.ok()) << trace.error();
  return d;
}

std::string write(const std::function<void(PerfettoWriter&)>& body,
                  PerfettoWriter::Compression compression = PerfettoWriter::Compression::kNone) {
  char* data = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&data, &size);
  {
    PerfettoWriter writer(out, compression);
    body(writer);
    std::string error;
    EXPECT_TRUE(writer.finish(&error)) << error;
  }
  fclose(out);
  std::string bytes(data, size);
  free(data);
  return bytes;
}

format::Call call(uint32_t thread, uint64_t start, uint64_t duration) {
  format::Call c;
  c.function = api::kFn_glFlush;
  c.thread = thread;
  c.start_ns = start;
  c.duration_ns = duration;
  return c;
}

// Per track, slices alternate begin/end and never go back in time.
void expect_well_formed(const Decoded& d) {
  std::map<uint64_t, std::pair<bool, uint64_t>> tracks;  // open, last time
  for (const Event& e : d.events) {
    if (e.type != 1 && e.type != 2) continue;
    auto& [open, last] = tracks[e.track];
    EXPECT_EQ(open, e.type == 2) << "track " << e.track << " at " << e.timestamp;
    EXPECT_GE(e.timestamp, last) << "track " << e.track;
    open = e.type == 1;
    last = e.timestamp;
  }
  for (const auto& [track, state] : tracks) EXPECT_FALSE(state.first) << "track " << track;
}

TEST(PerfettoWriter, OverlappingCallsAndFramesStayInOrderOnTheirTracks) {
  Decoded d = decode(write([](PerfettoWriter& w) {
    w.process(1, "app", "app --run");
    w.thread(1, 100, "main");
    w.call(call(1, 1000, 500));  // ends at 1500
    w.call(call(1, 1490, 100));  // begins 10 ns early (another core's clock)
    w.call(call(2, 1200, 50));   // a thread without a Thread record
    w.frame({.number = 0, .seq = 2, .thread = 1, .time_ns = 2000});
    w.call(call(1, 2100, 10));
    w.frame({.number = 1, .seq = 4, .thread = 1, .time_ns = 1900});  // stamped before frame 0
  }));
  expect_well_formed(d);
  EXPECT_TRUE(d.incremental_clock);
  // The early call begins where the one before ended, and ends as recorded.
  ASSERT_GE(d.events.size(), 4u);
  EXPECT_EQ(d.events[1].timestamp, 1500u);
  EXPECT_EQ(d.events[2].timestamp, 1500u);
  EXPECT_EQ(d.events[3].timestamp, 1590u);  // its recorded end
  EXPECT_EQ(d.thread_tracks.size(), 2u);
  EXPECT_EQ(d.thread_tracks.begin()->second, "main");
  EXPECT_EQ(d.event_names["glFlush"], 1);  // interned once, used four times
}

// Timestamps are written as deltas from the packet before (an incremental
// clock): a long trace's absolute times differ in their low bits only, and
// took most of a compressed export. One before the time before it (another
// thread's) is written absolute, and the deltas go on from where they were.
TEST(PerfettoWriter, TimestampsAreDeltasFromThePacketBefore) {
  constexpr uint64_t kStart = uint64_t{3} << 50;  // an uptime of a few weeks
  Decoded d = decode(write([](PerfettoWriter& w) {
    w.process(1, "app", "app");
    w.call(call(1, kStart, 40));
    w.call(call(1, kStart + 100, 40));
    w.call(call(2, kStart + 50, 10));  // another thread's, before the end before it
    w.call(call(1, kStart + 200, 40));
  }));
  expect_well_formed(d);
  EXPECT_TRUE(d.incremental_clock);
  std::vector<uint64_t> times, written;
  for (const Event& e : d.events) {
    times.push_back(e.timestamp);
    written.push_back(e.written);
  }
  EXPECT_EQ(times, (std::vector<uint64_t>{kStart, kStart + 40, kStart + 100, kStart + 140,
                                          kStart + 50, kStart + 60, kStart + 200, kStart + 240}));
  EXPECT_EQ(written, (std::vector<uint64_t>{kStart, 40, 60, 40, kStart + 50, kStart + 60, 60, 40}));
}

// A number list's elements, the first 16 of them, then how many more; each
// kind of element as its own kind of value.
TEST(PerfettoWriter, NumberListsKeepTheirFirstElements) {
  const int64_t sints[] = {-1, 2};
  const std::vector<float> floats(20, 0.5f);
  format::Value lists[2];
  lists[0].kind = format::ValueKind::kArray;
  lists[0].elements = format::Value::Elements::kSint;
  lists[0].data = sints;
  lists[0].size = 2;
  lists[1].kind = format::ValueKind::kArray;
  lists[1].elements = format::Value::Elements::kFloat;
  lists[1].data = floats.data();
  lists[1].size = floats.size();
  std::string bytes = write([&](PerfettoWriter& w) {
    format::Call c = call(1, 10, 5);
    c.args = lists;
    w.call(c);
  });
  // The annotation's array_values, as (field, value) of each element.
  std::vector<std::pair<uint32_t, std::string>> elements;
  auto reader = [](std::string_view s) {
    return wire::Reader(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  uint32_t field;
  wire::WireType type;
  wire::Reader trace = reader(bytes);
  while (trace.next(&field, &type)) {
    wire::Reader packet = reader(trace.bytes());
    while (packet.next(&field, &type)) {
      if (field != 11) {
        packet.skip(type);
        continue;
      }
      wire::Reader event = reader(packet.bytes());
      while (event.next(&field, &type)) {
        if (field != 4) {
          event.skip(type);
          continue;
        }
        wire::Reader annotation = reader(event.bytes());
        while (annotation.next(&field, &type)) {
          if (field != 12) {
            annotation.skip(type);
            continue;
          }
          wire::Reader element = reader(annotation.bytes());
          ASSERT_TRUE(element.next(&field, &type));
          if (type == wire::kVarint) {
            elements.emplace_back(field, std::to_string(static_cast<int64_t>(element.varint())));
          } else if (type == wire::kFixed64) {
            uint64_t bits = element.fixed64();
            double v;
            memcpy(&v, &bits, 8);
            elements.emplace_back(field, std::to_string(v));
          } else {
            elements.emplace_back(field, std::string(element.bytes()));
          }
          EXPECT_TRUE(element.done());
        }
      }
    }
  }
  ASSERT_EQ(elements.size(), 19u);
  EXPECT_EQ(elements[0], std::make_pair(4u, std::string("-1")));  // int_value
  EXPECT_EQ(elements[1], std::make_pair(4u, std::string("2")));
  for (size_t i = 2; i < 18; ++i)
    EXPECT_EQ(elements[i], std::make_pair(5u, std::to_string(0.5)));     // double_value
  EXPECT_EQ(elements[18], std::make_pair(6u, std::string("<4 more>")));  // string_value
}

// An EGL enum argument is named from EGL's enums (GL's have no name for it).
TEST(PerfettoWriter, EglEnumsAreNamedAsEglNamesThem) {
  format::Value api_value;
  api_value.kind = format::ValueKind::kUint;
  api_value.uint = 0x30A0;  // EGL_OPENGL_ES_API
  std::string bytes = write([&](PerfettoWriter& w) {
    format::Call c = call(1, 10, 5);
    c.function = api::kFn_eglBindAPI;
    c.args = std::span<const format::Value>(&api_value, 1);
    w.call(c);
  });
  EXPECT_NE(bytes.find("EGL_OPENGL_ES_API"), std::string::npos);
}

// A call of a thousand long strings (a hostile trace's) makes a packet small
// enough that a compressed batch stays under Perfetto's 512 KiB.
TEST(PerfettoWriter, ACallOfManyLongArgumentsStaysASmallPacket) {
  std::string text(1000, 'x');
  std::vector<format::Value> args(1024);
  for (format::Value& v : args) {
    v.kind = format::ValueKind::kText;
    v.data = text.data();
    v.size = text.size();
  }
  std::string bytes = write([&](PerfettoWriter& w) {
    format::Call c = call(1, 10, 5);
    c.args = args;
    w.call(c);
  });
  wire::Reader trace(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint32_t field;
  wire::WireType type;
  size_t largest = 0;
  while (trace.next(&field, &type)) largest = std::max(largest, trace.bytes().size());
  EXPECT_GT(largest, size_t{64} << 10);
  EXPECT_LT(largest, size_t{80} << 10);
  EXPECT_NE(bytes.find("<more arguments: see gltrace dump>"), std::string::npos);
}

// zstd: batches compressed on the writer's own thread, in order, each a
// packet of zstd_compressed_packets under 512 KiB, together the same bytes as
// the plain output.
TEST(PerfettoWriter, CompressedBatchesHoldThePlainPacketsInOrder) {
  auto calls = [](PerfettoWriter& w) {
    w.process(1, "app", "app");
    for (uint64_t i = 0; i < 200000; ++i) {
      w.call(call(static_cast<uint32_t>(i % 3), i * 100, 50));
      if (i % 1000 == 999) w.frame({.number = i / 1000, .time_ns = i * 100 + 60});
    }
  };
  std::string plain = write(calls);
  std::string compressed = write(calls, PerfettoWriter::Compression::kZstd);
  EXPECT_LT(compressed.size(), plain.size() / 4);
  wire::Reader trace(reinterpret_cast<const uint8_t*>(compressed.data()), compressed.size());
  uint32_t field;
  wire::WireType type;
  std::string unpacked;
  size_t batches = 0;
  while (trace.next(&field, &type)) {
    std::string_view packet = trace.bytes();
    EXPECT_LT(packet.size(), size_t{512} << 10);
    wire::Reader fields(reinterpret_cast<const uint8_t*>(packet.data()), packet.size());
    ASSERT_TRUE(fields.next(&field, &type));
    ASSERT_EQ(field, 133u);
    std::string_view frame = fields.bytes();
    std::string data(ZSTD_getFrameContentSize(frame.data(), frame.size()), '\0');
    ASSERT_EQ(ZSTD_decompress(data.data(), data.size(), frame.data(), frame.size()), data.size());
    unpacked += data;
    ++batches;
  }
  EXPECT_GT(batches, 4u);
  EXPECT_TRUE(unpacked == plain);
}

}  // namespace
}  // namespace gltrace::consumers
