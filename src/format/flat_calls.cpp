#include "format/flat_calls.h"

#include <sys/mman.h>

#include "format/chunk_ring.h"
#include "format/encoders.h"
#include "format/record_builder.h"
#include "format/schema.h"
#include "format/times_column.h"
#include "protowire/wire.h"

namespace gltrace::format {

namespace {

namespace call = schema::call;

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

// The length of the protobuf field at p (key, and value by its wire type),
// or 0 when it does not lie whole before end.
size_t field_length(const uint8_t* p, const uint8_t* end) {
  wire::Reader reader(p, static_cast<size_t>(end - p));
  uint32_t field = 0;
  wire::WireType type{};
  if (!reader.next(&field, &type)) return 0;
  reader.skip(type);
  return reader.ok() ? reader.offset() : 0;
}

// The bytes a flat value's data takes after its first byte, or 0 when they
// do not lie whole before end.
size_t flat_value_length(FlatValue kind, const uint8_t* p, const uint8_t* end) {
  auto left = static_cast<size_t>(end - p);
  size_t n = 0;
  switch (kind) {
    case FlatValue::kUint:
    case FlatValue::kSint:
    case FlatValue::kPointer:
    case FlatValue::kF64:
      n = 8;
      break;
    case FlatValue::kF32:
      n = 4;
      break;
    case FlatValue::kInts:
      if (left < 5) return 0;
      n = 5 + size_t{load_u32(p + 1)} * (p[0] & ~kFlatSigned);
      break;
    case FlatValue::kFloats:
      if (left < 4) return 0;
      n = 4 + size_t{load_u32(p)} * 4;
      break;
    case FlatValue::kData:
      if (left < 4) return 0;
      n = 4 + size_t{load_u32(p)};
      break;
  }
  return n <= left ? n : 0;
}

// An integer array's element i, as unsigned and as signed.
uint64_t element(const uint8_t* e, size_t size, bool is_signed) {
  switch (size) {
    case 1:
      return is_signed ? static_cast<uint64_t>(static_cast<int8_t>(e[0])) : e[0];
    case 2: {
      uint16_t v;
      memcpy(&v, e, 2);
      return is_signed ? static_cast<uint64_t>(static_cast<int16_t>(v)) : v;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, e, 4);
      return is_signed ? static_cast<uint64_t>(static_cast<int32_t>(v)) : v;
    }
    default:
      return load_u64(e);
  }
}

// Writes Value{...} of a flat value at out as the Call field `key`; `data`
// is the value's bytes after its first byte. Returns the end.
uint8_t* put_flat_value(uint8_t* out, uint32_t key, FlatValue kind, const uint8_t* data) {
  namespace value = schema::value;
  out = wire::put_varint(out, key);
  switch (kind) {
    case FlatValue::kUint:
    case FlatValue::kSint:
    case FlatValue::kPointer: {
      uint64_t v = load_u64(data);
      uint32_t value_key = value::kUintTag;
      if (kind == FlatValue::kSint) {
        value_key = value::kSintTag;
        v = wire::zigzag(static_cast<int64_t>(v));
      } else if (kind == FlatValue::kPointer) {
        value_key = value::kPointerTag;
      }
      uint8_t* length = out++;
      uint8_t* end = wire::put_varint(wire::put_varint(out, value_key), v);
      *length = static_cast<uint8_t>(end - out);
      return end;
    }
    case FlatValue::kF32:
      *out++ = 5;
      *out++ = static_cast<uint8_t>(value::kF32Tag);
      memcpy(out, data, 4);
      return out + 4;
    case FlatValue::kF64:
      *out++ = 9;
      *out++ = static_cast<uint8_t>(value::kF64Tag);
      memcpy(out, data, 8);
      return out + 8;
    case FlatValue::kData: {
      size_t n = load_u32(data);
      uint64_t data_key = uint64_t{value::kData} << 3 | wire::kLengthDelimited;
      out = wire::put_varint(out, wire::varint_size(data_key) + wire::varint_size(n) + n);
      out = wire::put_varint(wire::put_varint(out, data_key), n);
      memcpy(out, data + 4, n);
      return out + n;
    }
    case FlatValue::kFloats:
    case FlatValue::kInts:
      break;
  }
  // Value{array = Array{floats | sints | uints, packed}}; an empty array
  // has no packed field.
  uint64_t array_key = uint64_t{value::kArray} << 3 | wire::kLengthDelimited;
  bool floats = kind == FlatValue::kFloats;
  // Integers: a byte (element size | kFlatSigned) before the count.
  size_t element_size = floats ? 4 : data[0] & ~kFlatSigned;
  bool is_signed = !floats && (data[0] & kFlatSigned) != 0;
  size_t count = load_u32(floats ? data : data + 1);
  const uint8_t* elements = data + (floats ? 4 : 5);
  auto packed = [&](size_t i) {
    uint64_t v = element(elements + i * element_size, element_size, is_signed);
    return is_signed ? wire::zigzag(static_cast<int64_t>(v)) : v;
  };
  size_t packed_size = floats ? count * 4 : 0;
  if (!floats)
    for (size_t i = 0; i < count; ++i) packed_size += wire::varint_size(packed(i));
  uint32_t packed_field = floats      ? schema::array::kFloats
                          : is_signed ? schema::array::kSints
                                      : schema::array::kUints;
  uint64_t packed_key = uint64_t{packed_field} << 3 | wire::kLengthDelimited;
  size_t array_size =
      count == 0 ? 0 : wire::varint_size(packed_key) + wire::varint_size(packed_size) + packed_size;
  size_t value_size = wire::varint_size(array_key) + wire::varint_size(array_size) + array_size;
  out = wire::put_varint(out, value_size);
  out = wire::put_varint(wire::put_varint(out, array_key), array_size);
  if (count == 0) return out;
  out = wire::put_varint(wire::put_varint(out, packed_key), packed_size);
  if (floats) {
    memcpy(out, elements, packed_size);
    return out + packed_size;
  }
  for (size_t i = 0; i < count; ++i) out = wire::put_varint(out, packed(i));
  return out;
}

// The time fields of a Call (seq, start, duration) and of a Frame (number,
// seq, time), which the writer moves to the chunk's times column.
bool is_time_field(uint32_t kind, uint32_t field) {
  if (kind == schema::record::kCall)
    return field == schema::call::kSeq || field == schema::call::kStartNs ||
           field == schema::call::kDurationNs;
  return field == schema::frame::kNumber || field == schema::frame::kSeq ||
         field == schema::frame::kTimeNs;
}

// The times of a Call or Frame record, encoded (RecordSink's records, a
// capture's Frame records).
struct RecordTimes {
  TimesEntry kind = TimesEntry::kNone;
  uint64_t values[3] = {};  // in the order is_time_field lists them
};

// The times of the Call or Frame record that is the Chunk.records field at
// p, n bytes; kind kNone when it is neither (or one this cannot read: it is
// left as it is). Its body, without those fields, is then the rest.
RecordTimes record_times(const uint8_t* p, size_t n) {
  uint32_t kind = 0;
  std::string_view body;
  if (!read_record_framing(p, n, &kind, &body) ||
      (kind != schema::record::kCall && kind != schema::record::kFrame))
    return {};
  RecordTimes times;
  // Call fields 4, 5, 6; Frame fields 1, 2, 5: each one's slot.
  auto slot = [&](uint32_t field) {
    if (kind == schema::record::kCall) return field - schema::call::kSeq;
    return field == schema::frame::kTimeNs ? 2U : field - schema::frame::kNumber;
  };
  wire::Reader fields(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  uint32_t field = 0;
  wire::WireType type{};
  while (fields.next(&field, &type)) {
    if (!is_time_field(kind, field)) {
      fields.skip(type);
      continue;
    }
    if (type != wire::kVarint) return {};
    times.values[slot(field)] = fields.varint();
  }
  if (!fields.ok()) return {};
  times.kind = kind == schema::record::kCall ? TimesEntry::kCall : TimesEntry::kFrame;
  return times;
}

void put_times(TimesColumnState& column, TimesCursors& c, const RecordTimes& t) {
  const uint64_t* v = t.values;
  if (t.kind == TimesEntry::kCall) {
    column.put_call(c, {v[0], v[1], v[2]});
  } else {
    column.put_frame(c, {v[0], v[1], v[2]});
  }
}

// Writes at out the Call or Frame record at p (n bytes, record_times() read
// it) without its times; returns the end.
uint8_t* put_record_without_times(uint8_t* out, const uint8_t* p, size_t n) {
  uint32_t kind = 0;
  std::string_view body_bytes;
  read_record_framing(p, n, &kind, &body_bytes);
  const auto* body = reinterpret_cast<const uint8_t*>(body_bytes.data());
  // The body goes after room for the longest framing, then moves up to it.
  uint8_t* kept = out + kMaxRecordFraming;
  uint8_t* k = kept;
  wire::Reader fields(body, body_bytes.size());
  uint32_t field = 0;
  wire::WireType type{};
  size_t field_start = 0;
  while (fields.next(&field, &type)) {
    fields.skip(type);
    size_t field_end = fields.offset();
    if (!is_time_field(kind, field)) {
      memcpy(k, body + field_start, field_end - field_start);
      k += field_end - field_start;
    }
    field_start = field_end;
  }
  auto kept_size = static_cast<size_t>(k - kept);
  uint8_t* framed = put_record_framing(out, kind, kept_size);
  memmove(framed, kept, kept_size);
  return framed + kept_size;
}

// Encodes the flat call at p (after its marker) as Record{call} at out;
// returns the bytes of payload it took, or 0 when it does not lie whole
// before end (*out_end is left alone then).
size_t expand_call(const uint8_t* p, const uint8_t* end, uint32_t thread, uint8_t** out_end) {
  const uint8_t* start = p;
  if (static_cast<size_t>(end - p) < sizeof(FlatCallHead)) return 0;
  FlatCallHead head;
  memcpy(&head, p, sizeof head);
  p += sizeof head;
  uint64_t thread_time = 0;
  if ((head.flags & kFlatThreadTime) != 0) {
    if (end - p < 8) return 0;
    thread_time = load_u64(p);
    p += 8;
  }
  if (static_cast<size_t>(end - p) < head.args_size) return 0;
  const uint8_t* args_end = p + head.args_size;

  // The body goes after room for the longest framing, then moves up to it.
  uint8_t* out = *out_end;
  uint8_t* body = out + kMaxRecordFraming;
  uint8_t* b = body;
  b = call::put_function(b, head.function);
  b = call::put_thread(b, thread);
  if (head.context != 0) b = call::put_context(b, head.context);
  // seq, start and duration are in the chunk's times column.
  if (thread_time != 0) b = call::put_thread_time_ns(b, thread_time);
  if ((head.flags & kFlatSynthetic) != 0) b = call::put_synthetic(b, 1);
  if ((head.flags & kFlatSnapshot) != 0) b = call::put_snapshot(b, 1);
  while (p < args_end) {
    if ((*p & 7) == 7 && *p != kFlatCallMarker) {
      auto kind = static_cast<FlatValue>((*p >> 3) & 7);
      uint32_t key = (*p & 0x40) != 0 ? call::kRetTag : call::kArgsTag;
      size_t n = flat_value_length(kind, p + 1, args_end);
      if (n == 0) return 0;
      b = put_flat_value(b, key, kind, p + 1);
      p += 1 + n;
    } else {
      size_t n = field_length(p, args_end);
      if (n == 0) return 0;
      memcpy(b, p, n);
      b += n;
      p += n;
    }
  }
  auto body_size = static_cast<size_t>(b - body);
  uint8_t* framed = put_record_framing(out, schema::record::kCall, body_size);
  memmove(framed, body, body_size);
  *out_end = framed + body_size;
  return static_cast<size_t>(p - start);
}

// The bytes of the entry at p (a flat call or an encoded field), or 0 when
// it does not lie whole before end.
size_t entry_length(const uint8_t* p, const uint8_t* end) {
  if (*p != kFlatCallMarker) return field_length(p, end);
  if (static_cast<size_t>(end - p) < 1 + sizeof(FlatCallHead)) return 0;
  FlatCallHead head;
  memcpy(&head, p + 1, sizeof head);
  size_t n = 1 + sizeof head + ((head.flags & kFlatThreadTime) != 0 ? 8 : 0) + head.args_size;
  return n <= static_cast<size_t>(end - p) ? n : 0;
}

// Whether the entry at p (n bytes) takes an entry of the times column.
bool is_timed(const uint8_t* p, size_t n) {
  return *p == kFlatCallMarker || record_times(p, n).kind != TimesEntry::kNone;
}

}  // namespace

size_t expanded_room(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  size_t room = 64;
  bool timed = false;  // an entry takes room in the times column
  for (const uint8_t* p = data; p < end;) {
    size_t n = entry_length(p, end);
    if (n == 0) break;
    if (is_timed(p, n)) {
      room += TimesColumnState::kMaxEntryBytes + (timed ? 0 : kMaxTimesStartBytes);
      timed = true;
    }
    room += *p == kFlatCallMarker ? 3 * n : n;
    p += n;
  }
  return room;
}

size_t expand_flat_calls(const uint8_t* data, size_t size, uint32_t thread, uint64_t time_unit_ns,
                         uint8_t* out, uint32_t* records) {
  const uint8_t* end = data + size;
  // First the times column (Chunk.times, format 3): it comes first, so that
  // a reader has it before the records that take their times from it. Its
  // sections are written apart, each with room for every entry's value,
  // after room for the column's start (key, length, head), then moved
  // together behind it.
  size_t timed = 0;
  for (const uint8_t* p = data; p < end;) {
    size_t n = entry_length(p, end);
    if (n == 0) break;
    timed += is_timed(p, n) ? 1 : 0;
    p += n;
  }
  uint8_t* o = out;
  if (timed != 0) {
    uint8_t* sections = out + kMaxTimesStartBytes;
    TimesCursors c;
    for (int i = 0; i < kTimesSections; ++i)
      c.at[i] = sections + i * timed * TimesColumnState::kMaxValueBytes;
    TimesColumnState times(time_unit_ns);
    for (const uint8_t* p = data; p < end;) {
      size_t n = entry_length(p, end);
      if (n == 0) break;
      if (*p == kFlatCallMarker) {
        FlatCallHead head;
        memcpy(&head, p + 1, sizeof head);
        times.put_call(c, {head.seq, head.start_ns, head.duration_ns});
      } else if (RecordTimes t = record_times(p, n); t.kind != TimesEntry::kNone) {
        put_times(times, c, t);
      }
      p += n;
    }
    size_t section_size[kTimesSections];
    for (int i = 0; i < kTimesSections; ++i)
      section_size[i] =
          static_cast<size_t>(c.at[i] - (sections + i * timed * TimesColumnState::kMaxValueBytes));
    o = put_times_start(o, times.unit_ns(), section_size);
    for (int i = 0; i < kTimesSections; ++i) {
      memmove(o, sections + i * timed * TimesColumnState::kMaxValueBytes, section_size[i]);
      o += section_size[i];
    }
  }
  // Then the records, in the order of the entries.
  uint32_t count = 0;
  for (const uint8_t* p = data; p < end;) {
    size_t n;
    if (*p == kFlatCallMarker) {
      n = expand_call(p + 1, end, thread, &o);
      if (n == 0) break;
      n += 1;
    } else {
      n = field_length(p, end);
      if (n == 0) break;
      if (record_times(p, n).kind != TimesEntry::kNone) {
        o = put_record_without_times(o, p, n);
      } else {
        memcpy(o, p, n);
        o += n;
      }
    }
    p += n;
    ++count;
  }
  if (records != nullptr) *records = count;
  return static_cast<size_t>(o - out);
}

bool write_flat_chunk(int fd, const uint8_t* data, size_t size, uint32_t thread,
                      uint64_t time_unit_ns) {
  if (size == 0) return true;
  size_t room = expanded_room(data, size);
  void* out = mmap(nullptr, room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (out == MAP_FAILED) return false;
  uint32_t records = 0;
  size_t n =
      expand_flat_calls(data, size, thread, time_unit_ns, static_cast<uint8_t*>(out), &records);
  bool ok = write_raw_chunk(fd, static_cast<const uint8_t*>(out), n, records);
  munmap(out, room);
  return ok;
}

}  // namespace gltrace::format
