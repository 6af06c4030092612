#include "mutate.h"

#include <zstd.h>

#include "format/container.h"
#include "format/crc32.h"
#include "format/encoders.h"
#include "format/schema.h"
#include "protowire/wire.h"

namespace gltrace::test {

namespace {

// Copies the fields of a message, letting `field` replace any of them.
using FieldFn = std::function<bool(uint32_t field, wire::WireType type, std::string_view bytes,
                                   wire::Encoder& out)>;

bool copy_fields(std::string_view message, wire::Encoder& out, const FieldFn& field_fn) {
  wire::Reader r(reinterpret_cast<const uint8_t*>(message.data()), message.size());
  uint32_t field;
  wire::WireType type;
  while (r.next(&field, &type)) {
    size_t begin = r.offset();
    std::string_view bytes;
    if (type == wire::kLengthDelimited)
      bytes = r.bytes();
    else
      r.skip(type);
    if (!r.ok()) return false;
    if (field_fn(field, type, bytes, out)) continue;
    // The field as it was: its key, then what followed.
    out.tag(field, type);
    out.raw(message.data() + begin, r.offset() - begin);
  }
  return r.ok();
}

std::string rewrite_call(std::string_view call_bytes, uint64_t position,
                         const std::function<void(CallEdit&)>& edit) {
  CallEdit call;
  call.position = position;
  wire::Reader r(reinterpret_cast<const uint8_t*>(call_bytes.data()), call_bytes.size());
  uint32_t field;
  wire::WireType type;
  while (r.next(&field, &type)) {
    if (field == schema::call::kFunction && type == wire::kVarint)
      call.function = static_cast<uint32_t>(r.varint());
    else if (field == schema::call::kArgs && type == wire::kLengthDelimited)
      call.args.emplace_back(r.bytes());
    else {
      if (field == schema::call::kClientArrays) ++call.client_arrays;
      r.skip(type);
    }
  }
  edit(call);
  if (!call.changed && !call.drop_client_arrays && !call.mark_snapshot && call.inexact_note.empty())
    return std::string(call_bytes);
  wire::Encoder out;
  bool args_written = false;
  copy_fields(call_bytes, out, [&](uint32_t f, wire::WireType, std::string_view, wire::Encoder& e) {
    if (f == schema::call::kClientArrays) return call.drop_client_arrays;
    if (f != schema::call::kArgs) return false;
    if (!args_written)
      for (const std::string& a : call.args) schema::call::add_args(e, a.data(), a.size());
    args_written = true;
    return true;
  });
  if (!args_written)
    for (const std::string& a : call.args) schema::call::add_args(out, a.data(), a.size());
  if (call.mark_snapshot) schema::call::set_snapshot(out, true);
  if (!call.inexact_note.empty())
    schema::call::set_snapshot_inexact(out, call.inexact_note.data(), call.inexact_note.size());
  return {reinterpret_cast<const char*>(out.data()), out.size()};
}

}  // namespace

std::vector<uint8_t> rewrite_calls(const std::vector<uint8_t>& trace,
                                   const std::function<void(CallEdit&)>& edit) {
  if (trace.size() < format::kFileHeaderSize) return {};
  std::vector<uint8_t> out(trace.begin(), trace.begin() + format::kFileHeaderSize);
  uint64_t position = 0;
  size_t at = format::kFileHeaderSize;
  while (at + format::kChunkHeaderSize <= trace.size()) {
    format::ChunkHeader header;
    if (!format::decode_chunk_header(&trace[at], &header)) break;  // the footer
    size_t stored_at = at + format::kChunkHeaderSize;
    if (header.stored_size > trace.size() - stored_at) return {};
    at = stored_at + header.stored_size;
    if (header.is_index()) continue;
    std::string payload(header.raw_size, '\0');
    if (header.compression() == format::kCodecZstd) {
      size_t n =
          ZSTD_decompress(payload.data(), payload.size(), &trace[stored_at], header.stored_size);
      if (ZSTD_isError(n) || n != payload.size()) return {};
    } else {
      payload.assign(reinterpret_cast<const char*>(&trace[stored_at]), header.stored_size);
    }
    wire::Encoder chunk;
    bool ok = copy_fields(
        payload, chunk, [&](uint32_t f, wire::WireType, std::string_view record, wire::Encoder& e) {
          if (f != schema::chunk::kRecords) return false;
          wire::Encoder rec;
          copy_fields(record, rec,
                      [&](uint32_t k, wire::WireType, std::string_view call, wire::Encoder& re) {
                        if (k != schema::record::kCall) return false;
                        std::string bytes = rewrite_call(call, position++, edit);
                        schema::record::set_call(re, bytes.data(), bytes.size());
                        return true;
                      });
          schema::chunk::add_records(e, rec.data(), rec.size());
          return true;
        });
    if (!ok) return {};
    format::ChunkHeader h;
    h.codec = format::kCodecNone;
    h.stored_size = h.raw_size = static_cast<uint32_t>(chunk.size());
    h.crc = format::crc32(chunk.data(), chunk.size());
    h.record_count = header.record_count;
    uint8_t encoded[format::kChunkHeaderSize];
    format::encode_chunk_header(h, encoded);
    out.insert(out.end(), encoded, encoded + sizeof encoded);
    out.insert(out.end(), chunk.data(), chunk.data() + chunk.size());
  }
  return out;
}

std::string sint_value(int64_t v) {
  wire::Encoder e;
  schema::value::set_sint(e, v);
  return {reinterpret_cast<const char*>(e.data()), e.size()};
}

std::string uint_value(uint64_t v) {
  wire::Encoder e;
  schema::value::set_uint(e, v);
  return {reinterpret_cast<const char*>(e.data()), e.size()};
}

std::string pointer_value(uint64_t address) {
  wire::Encoder e;
  schema::value::set_pointer(e, address);
  return {reinterpret_cast<const char*>(e.data()), e.size()};
}

std::string data_value(const std::string& bytes) {
  wire::Encoder e;
  schema::value::set_data(e, bytes.data(), bytes.size());
  return {reinterpret_cast<const char*>(e.data()), e.size()};
}

uint32_t value_kind(const std::string& value) {
  wire::Reader r(reinterpret_cast<const uint8_t*>(value.data()), value.size());
  uint32_t field;
  wire::WireType type;
  return r.next(&field, &type) ? field : 0;
}

}  // namespace gltrace::test
