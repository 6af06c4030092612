// A chunk's times column (format 3, proto/trace.proto Chunk.times): the
// seq, start and duration of its calls and the number, seq and time of its
// frames, taken out of their records and written apart, as varints, in
// record order. Interleaved with the calls' other fields, these few
// changing bytes broke zstd's matches of the repeating rest at every call;
// apart, the rest compresses to little and the times to near their entropy.
//
// Each value counts from the column's previous entries in the chunk, so
// that it is small: a call's seq from the previous call's seq + 1, its start
// from the previous call's end (zigzag: a synthetic call may start before),
// then its duration; a frame's number from the previous frame's + 1, its seq
// from the previous call's, its time from the previous call's end. Writer
// (flat_calls.cpp) and reader (records.cpp) keep the same state, below.
//
// The column is a head (the time unit in ns, then the byte sizes of the
// first two sections) and three sections: every entry puts its first value
// in the first, its second in the second, its third in the third. Kept
// apart, each kind of value compresses on its own statistics (the starts and
// durations of bench/call_mix.py's demo mix: 10% fewer bytes than
// interleaved). Times are stored in the unit, the trace clock's resolution
// (trace/tsc_clock.h: 10 ns on a VM whose TSC steps by 10 ns, else
// 1): digits below it are rounding, not measurement, and cost a third of
// the column's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "protowire/wire.h"

namespace gltrace::format {

struct CallTimes {
  uint64_t seq = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
};
struct FrameTimes {
  uint64_t number = 0;
  uint64_t seq = 0;
  uint64_t time_ns = 0;
};

inline constexpr int kTimesSections = 3;

// Where the writer puts each section's next value.
struct TimesCursors {
  uint8_t* at[kTimesSections] = {};
};
// What the reader reads each section's next value from.
struct TimesReaders {
  wire::Reader at[kTimesSections] = {{nullptr, 0}, {nullptr, 0}, {nullptr, 0}};
};

class TimesColumnState {
 public:
  // Most bytes one value takes (a varint), and one entry.
  static constexpr size_t kMaxValueBytes = 10;
  static constexpr size_t kMaxEntryBytes = kTimesSections * kMaxValueBytes;

  explicit TimesColumnState(uint64_t unit_ns = 1) : unit_(unit_ns == 0 ? 1 : unit_ns) {}
  uint64_t unit_ns() const { return unit_; }

  void put_call(TimesCursors& c, const CallTimes& t) {
    uint64_t start = units(t.start_ns);
    uint64_t end = units(t.start_ns + t.duration_ns);
    put(c, 0, wire::zigzag(static_cast<int64_t>(t.seq - next_seq_)));
    put(c, 1, wire::zigzag(static_cast<int64_t>(start - end_)));
    put(c, 2, end - start);
    next_seq_ = t.seq + 1;
    end_ = end;
  }
  void put_frame(TimesCursors& c, const FrameTimes& t) {
    put(c, 0, wire::zigzag(static_cast<int64_t>(t.number - next_frame_)));
    put(c, 1, wire::zigzag(static_cast<int64_t>(t.seq - (next_seq_ - 1))));
    put(c, 2, wire::zigzag(static_cast<int64_t>(units(t.time_ns) - end_)));
    next_frame_ = t.number + 1;
  }
  // False when a section ends before the entry.
  bool take_call(TimesReaders& r, CallTimes* t) {
    uint64_t seq = r.at[0].varint();
    uint64_t start = r.at[1].varint();
    uint64_t duration = r.at[2].varint();
    if (!ok(r)) return false;
    t->seq = next_seq_ + static_cast<uint64_t>(wire::unzigzag(seq));
    start = end_ + static_cast<uint64_t>(wire::unzigzag(start));
    t->start_ns = start * unit_;
    t->duration_ns = duration * unit_;
    next_seq_ = t->seq + 1;
    end_ = start + duration;
    return true;
  }
  bool take_frame(TimesReaders& r, FrameTimes* t) {
    uint64_t number = r.at[0].varint();
    uint64_t seq = r.at[1].varint();
    uint64_t time = r.at[2].varint();
    if (!ok(r)) return false;
    t->number = next_frame_ + static_cast<uint64_t>(wire::unzigzag(number));
    t->seq = next_seq_ - 1 + static_cast<uint64_t>(wire::unzigzag(seq));
    t->time_ns = (end_ + static_cast<uint64_t>(wire::unzigzag(time))) * unit_;
    next_frame_ = t->number + 1;
    return true;
  }

 private:
  // Rounded to the nearest unit.
  uint64_t units(uint64_t ns) const { return unit_ == 1 ? ns : (ns + unit_ / 2) / unit_; }
  static void put(TimesCursors& c, int section, uint64_t v) {
    c.at[section] = wire::put_varint(c.at[section], v);
  }
  static bool ok(const TimesReaders& r) { return r.at[0].ok() && r.at[1].ok() && r.at[2].ok(); }

  uint64_t unit_;
  uint64_t next_seq_ = 0;
  uint64_t end_ = 0;  // in units
  uint64_t next_frame_ = 0;
};

// The Chunk.times field's key and length, then the column's head (its unit,
// the sizes of its first two sections: the third runs to the column's end),
// for sections of these sizes, which the caller puts after it. Returns the end.
inline constexpr size_t kMaxTimesStartBytes = 2 * 10 + 3 * 10;
uint8_t* put_times_start(uint8_t* p, uint64_t unit_ns,
                         const size_t (&section_sizes)[kTimesSections]);

// The times column a chunk payload begins with (its bytes, after its key and
// length); empty when it begins with none.
std::string_view leading_times_column(const uint8_t* payload, size_t size);

// A column's head read: its unit and where each section lies in it.
struct TimesLayout {
  uint64_t unit_ns = 1;
  size_t begin[kTimesSections] = {};
  size_t end[kTimesSections] = {};
};
// False (error says why) when the head is malformed or its sizes pass the
// column's end.
bool read_times_head(const uint8_t* column, size_t size, TimesLayout* layout, const char** error);

// Which entry of the times column the Chunk.records field at p (n bytes)
// takes: none, a call's (a Call without seq) or a frame's (a Frame without
// number). For splitting a chunk (writer.cpp); the decoder sees it as it
// decodes.
enum class TimesEntry { kNone, kCall, kFrame };
TimesEntry times_entry_of(const uint8_t* p, size_t n);

}  // namespace gltrace::format
