// Encoding records from their typed views (format/records.h): the inverse of
// RecordDecoder, for tools that write a trace from decoded records and calls
// of their own (gltrace trim). What one of them decodes from the bytes
// encode_record() wrote is the record it was given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "format/records.h"
#include "format/writer.h"
#include "protowire/wire.h"

namespace gltrace::format {

// Each appends one complete record (Chunk.records = Record{kind = body}) to
// a chunk payload. Fields at their default are left out, as proto3 does. A
// Call carries its absolute seq and start_ns (never the delta fields), so it
// decodes the same wherever in a chunk it lands.
void encode_record(wire::Encoder& chunk, const Header& header);
void encode_record(wire::Encoder& chunk, const Thread& thread);
void encode_record(wire::Encoder& chunk, const Context& context);
void encode_record(wire::Encoder& chunk, const Call& call);
void encode_record(wire::Encoder& chunk, const Blob& blob);
void encode_record(wire::Encoder& chunk, const Frame& frame);
void encode_record(wire::Encoder& chunk, const Image& image);
void encode_record(wire::Encoder& chunk, const Stats& stats);
void encode_record(wire::Encoder& chunk, const CallsComplete& complete);
void encode_record(wire::Encoder& chunk, const DesktopGl& desktop_gl);
void encode_record(wire::Encoder& chunk, const GpuTime& gpu_time);
void encode_record(wire::Encoder& chunk, const GpuClock& gpu_clock);

// Writes records, in the order given, to a TraceWriter: a payload goes to the
// writer once it passes kPayloadBytes, with the frames that start in it for
// the index, found as the trace layer finds them. As in a capture, a Blob
// must come before the first call that refers to it, and Frame records are
// numbered from 0 in the order they are added. The writer moves the calls'
// and frames' times to the chunk's times column (flat_calls.h), as it does
// a capture's.
class RecordSink {
 public:
  static constexpr size_t kPayloadBytes = size_t{1} << 20;

  explicit RecordSink(TraceWriter& writer);
  RecordSink(const RecordSink&) = delete;
  RecordSink& operator=(const RecordSink&) = delete;

  void add(const Header& header) { append(header); }
  void add(const Thread& thread) { append(thread); }
  void add(const Context& context) { append(context); }
  void add(const Call& call);
  void add(const Blob& blob) { append(blob); }
  void add(const Frame& frame);
  void add(const Image& image) { append(image); }
  void add(const Stats& stats) { append(stats); }
  void add(const CallsComplete& complete) { append(complete); }
  void add(const DesktopGl& desktop_gl) { append(desktop_gl); }
  void add(const GpuTime& gpu_time) { append(gpu_time); }
  void add(const GpuClock& gpu_clock) { append(gpu_clock); }

  // Submits what is left and closes the writer; false (error says why) when
  // the output failed.
  bool finish(std::string* error);

 private:
  template <typename Record>
  void append(const Record& record) {
    encode_record(payload_, record);
    ++records_;
    if (payload_.size() >= kPayloadBytes) submit();
  }
  void submit();

  TraceWriter& writer_;
  wire::Encoder payload_;
  uint32_t records_ = 0;                  // in payload_
  std::vector<FrameStart> frame_starts_;  // frames whose first call is in payload_
  uint64_t frames_ = 0;                   // Frame records added: the frame calls are in
  // Threads that called since their last Frame record: their next call
  // starts no frame (the trace layer's ThreadState::frame_started, negated).
  std::unordered_set<uint32_t> in_frame_;
};

}  // namespace gltrace::format
