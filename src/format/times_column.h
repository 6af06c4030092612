// A chunk's times column (format 3, proto/trace.proto Chunk.times): the
// seq, start and duration of its flat-recorded calls and the number, seq and
// time of its frames, taken out of their records and written together, as
// varints, in record order. Interleaved with the calls' other fields, these
// few changing bytes broke zstd's matches of the repeating rest at every
// call; apart, the rest compresses to little and the times to their entropy
// (bench/call_mix.py's mixes: about half the bytes per call).
//
// Each value counts from the column's previous entries in the chunk, so
// that it is small: a call's seq from the previous call's seq + 1, its start
// from the previous call's end (zigzag: a synthetic call may start before),
// then its duration; a frame's number from the previous frame's + 1, its seq
// from the previous call's, its time from the previous call's end. Writer
// (flat_calls.cpp) and reader (records.cpp) keep the same state, below.
#pragma once

#include <cstddef>
#include <cstdint>

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

class TimesColumnState {
 public:
  // Most bytes one entry takes: three varints.
  static constexpr size_t kMaxEntryBytes = 3 * 10;

  uint8_t* put_call(uint8_t* p, const CallTimes& t) {
    p = wire::put_varint(p, wire::zigzag(static_cast<int64_t>(t.seq - next_seq_)));
    p = wire::put_varint(p, wire::zigzag(static_cast<int64_t>(t.start_ns - end_)));
    p = wire::put_varint(p, t.duration_ns);
    note_call(t);
    return p;
  }
  uint8_t* put_frame(uint8_t* p, const FrameTimes& t) {
    p = wire::put_varint(p, wire::zigzag(static_cast<int64_t>(t.number - next_frame_)));
    p = wire::put_varint(p, wire::zigzag(static_cast<int64_t>(t.seq - (next_seq_ - 1))));
    p = wire::put_varint(p, wire::zigzag(static_cast<int64_t>(t.time_ns - end_)));
    next_frame_ = t.number + 1;
    return p;
  }
  // False when the column ends before the entry.
  bool take_call(wire::Reader& column, CallTimes* t) {
    uint64_t seq = column.varint();
    uint64_t start = column.varint();
    uint64_t duration = column.varint();
    if (!column.ok()) return false;
    t->seq = next_seq_ + static_cast<uint64_t>(wire::unzigzag(seq));
    t->start_ns = end_ + static_cast<uint64_t>(wire::unzigzag(start));
    t->duration_ns = duration;
    note_call(*t);
    return true;
  }
  bool take_frame(wire::Reader& column, FrameTimes* t) {
    uint64_t number = column.varint();
    uint64_t seq = column.varint();
    uint64_t time = column.varint();
    if (!column.ok()) return false;
    t->number = next_frame_ + static_cast<uint64_t>(wire::unzigzag(number));
    t->seq = next_seq_ - 1 + static_cast<uint64_t>(wire::unzigzag(seq));
    t->time_ns = end_ + static_cast<uint64_t>(wire::unzigzag(time));
    next_frame_ = t->number + 1;
    return true;
  }

 private:
  void note_call(const CallTimes& t) {
    next_seq_ = t.seq + 1;
    end_ = t.start_ns + t.duration_ns;
  }

  uint64_t next_seq_ = 0;
  uint64_t end_ = 0;
  uint64_t next_frame_ = 0;
};

// Which entry of the times column the Chunk.records field at p (n bytes)
// takes: none, a call's (a Call without seq) or a frame's (a Frame without
// number). For splitting a chunk (writer.cpp); the decoder sees it as it
// decodes.
enum class TimesEntry { kNone, kCall, kFrame };
TimesEntry times_entry_of(const uint8_t* p, size_t n);

}  // namespace gltrace::format
