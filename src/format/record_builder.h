// The framing of one record in a chunk payload, Chunk.records = Record{kind
// = body} (proto/trace.proto), written by every writer through these
// functions: the capture side's per-call path (inline, one reservation, no
// nested-length fix-up since the body's size is known first) and the rarer
// records alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "format/schema.h"
#include "protowire/wire.h"

namespace gltrace::format {

// Most bytes the framing of one record takes: two keys and two lengths.
inline constexpr size_t kMaxRecordFraming = 2 * (5 + 10);

// Writes at p the framing of Record{kind = a body of body_size bytes}, in
// room the caller reserved (kMaxRecordFraming + body_size bytes); returns
// where the body goes. `kind` is a field number of Record.
inline uint8_t* put_record_framing(uint8_t* p, uint32_t kind, size_t body_size) {
  uint64_t kind_key = uint64_t{kind} << 3 | wire::kLengthDelimited;
  size_t record_size = wire::varint_size(kind_key) + wire::varint_size(body_size) + body_size;
  p = wire::put_varint(p, uint64_t{schema::chunk::kRecords} << 3 | wire::kLengthDelimited);
  p = wire::put_varint(p, record_size);
  p = wire::put_varint(p, kind_key);
  return wire::put_varint(p, body_size);
}

// The inverse of put_record_framing: the kind and body of the Chunk.records
// field at p (n bytes) holding one Record member; false when it is not that.
inline bool read_record_framing(const uint8_t* p, size_t n, uint32_t* kind,
                                std::string_view* body) {
  wire::Reader entry(p, n);
  uint32_t field = 0;
  wire::WireType type{};
  if (!entry.next(&field, &type) || field != schema::chunk::kRecords ||
      type != wire::kLengthDelimited)
    return false;
  std::string_view record_bytes = entry.bytes();
  wire::Reader record(reinterpret_cast<const uint8_t*>(record_bytes.data()), record_bytes.size());
  if (!record.next(&field, &type) || type != wire::kLengthDelimited) return false;
  *kind = field;
  *body = record.bytes();
  return record.ok() && record.done();
}

// Appends the framing of Record{kind = a body of body_size bytes} to a chunk
// payload; the caller appends exactly body_size bytes of body next.
inline void begin_record(wire::Encoder& chunk, uint32_t kind, size_t body_size) {
  chunk.end_write(put_record_framing(chunk.begin_write(kMaxRecordFraming), kind, body_size));
}

// Appends Record{kind = body} to a chunk payload.
inline void append_record(wire::Encoder& chunk, uint32_t kind, const void* body, size_t size) {
  begin_record(chunk, kind, size);
  chunk.raw(body, size);
}

}  // namespace gltrace::format
