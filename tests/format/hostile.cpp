#include "hostile.h"

#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "encode.h"
#include "format/container.h"
#include "format/crc32.h"
#include "format/encoders.h"
#include "format/reader.h"
#include "format/records.h"
#include "format/schema.h"
#include "gltrace/api/functions.h"
#include "protowire/wire.h"
#include "record_text.h"

namespace gltrace::test {

void fix_chunk_crcs(std::vector<uint8_t>& bytes) {
  size_t at = format::kFileHeaderSize;
  while (at + format::kChunkHeaderSize <= bytes.size() &&
         memcmp(bytes.data() + at, format::kChunkMagic, 4) == 0) {
    size_t stored = format::get_u32(bytes.data() + at + 8);
    size_t begin = at + format::kChunkHeaderSize;
    if (stored > bytes.size() - begin) break;
    format::put_u32(bytes.data() + at + 16, format::crc32(bytes.data() + begin, stored));
    at = begin + stored;
  }
}

namespace {

// Every error message must say where: the point of the offsets.
void check_message(bool check, const std::string& message) {
  if (check && message.find("offset") == std::string::npos) {
    fprintf(stderr, "error without an offset: %s\n", message.c_str());
    abort();
  }
}

bool read_container(std::span<const uint8_t> bytes, bool check, bool also_prefetched) {
  format::ChunkReader reader;
  if (!reader.open_memory(bytes)) {
    if (reader.status().message != "empty file") check_message(check, reader.status().message);
    return false;
  }
  if (const format::Index* index = reader.index()) {
    for (const format::IndexEntry& e : index->entries) {
      if (!reader.seek(e.chunk_offset)) abort();  // the reader checked them
    }
    reader.seek(format::kFileHeaderSize);
  }
  RecordText text;
  format::ReadStatus status;
  bool ok = format::read_trace(reader, text, &status);
  if (!ok) check_message(check, status.message);
  if (status.state == format::ReadState::kCutShort) check_message(check, status.message);
  if (also_prefetched) {
    // Decoding ahead on a second thread must deliver the same records and
    // the same verdict.
    format::ChunkReader again;
    again.open_memory(bytes);
    RecordText prefetched;
    format::ReadStatus prefetched_status;
    bool prefetched_ok = format::read_trace_prefetched(again, prefetched, &prefetched_status);
    if (prefetched_ok != ok || prefetched.lines != text.lines ||
        prefetched_status.message != status.message) {
      fprintf(stderr, "read_trace_prefetched read the trace differently\n");
      abort();
    }
  }
  return ok;
}

}  // namespace

bool exercise(const uint8_t* data, size_t size, bool check) {
  if (size == 0) return true;
  uint8_t mode = data[0] % 3;
  std::span<const uint8_t> rest(data + 1, size - 1);
  if (mode == 0) return read_container(rest, check, false);
  if (mode == 1) {
    std::vector<uint8_t> fixed(rest.begin(), rest.end());
    fix_chunk_crcs(fixed);
    return read_container(fixed, check, true);
  }
  format::RecordDecoder decoder;
  RecordText text;
  bool ok = decoder.decode_chunk(rest, text);
  // Decoded into a batch and replayed, as read_trace_prefetched does: the
  // same records, the same verdict (unless the batch gave up keeping them).
  // One batch for all inputs, as a reading thread reuses its slots' batches.
  static format::RecordBatch batch;
  batch.clear();
  bool batch_ok = decoder.decode_chunk(rest, batch);
  RecordText replayed;
  batch.replay(replayed);
  if (!batch.overflowed() && (batch_ok != ok || replayed.lines != text.lines)) {
    fprintf(stderr, "a batch decoded the chunk differently\n");
    abort();
  }
  format::Index index;
  ok = decoder.decode_index(rest, &index, 1000) && ok;
  return ok;
}

}  // namespace gltrace::test

namespace gltrace::test {

namespace s = schema;

namespace {

// One chunk (header and stored bytes) of `payload` appended to `file`. A
// compressed one goes through room that is never zeroed: a 60 MB payload of
// zeros touches a few KB of it, not 60 MB of fresh pages.
void append_chunk(std::vector<uint8_t>* file, std::span<const uint8_t> payload, bool compress) {
  format::ChunkHeader header;
  header.raw_size = static_cast<uint32_t>(payload.size());
  std::span<const uint8_t> stored = payload;
  std::unique_ptr<uint8_t[]> compressed;
  if (compress) {
    size_t bound = ZSTD_compressBound(payload.size());
    compressed.reset(new uint8_t[bound]);
    size_t n = ZSTD_compress(compressed.get(), bound, payload.data(), payload.size(), 1);
    if (ZSTD_isError(n)) abort();
    stored = {compressed.get(), n};
    header.codec = format::kCodecZstd;
  }
  header.stored_size = static_cast<uint32_t>(stored.size());
  header.crc = format::crc32(stored.data(), stored.size());
  uint8_t head[format::kChunkHeaderSize];
  format::encode_chunk_header(header, head);
  file->insert(file->end(), head, head + sizeof head);
  file->insert(file->end(), stored.begin(), stored.end());
}

}  // namespace

std::vector<uint8_t> make_container(const std::vector<std::vector<uint8_t>>& payloads,
                                    bool compress) {
  std::vector<uint8_t> file(format::kFileHeaderSize);
  memcpy(file.data(), format::kFileMagic, sizeof format::kFileMagic);
  format::put_u32(file.data() + 8, format::kFormatVersion);
  for (const std::vector<uint8_t>& payload : payloads) append_chunk(&file, payload, compress);
  return file;
}

namespace {

// Any function the model knows (the ids are generated; 1 is the first).
constexpr uint32_t kSomeFunction = 1;

std::vector<uint8_t> bytes_of(const wire::Encoder& e) {
  return std::vector<uint8_t>(e.data(), e.data() + e.size());
}

// A chunk payload of `count` copies of one record's bytes.
std::vector<uint8_t> repeated(const wire::Encoder& record, size_t count) {
  std::vector<uint8_t> payload;
  payload.reserve(record.size() * count);
  for (size_t i = 0; i < count; ++i)
    payload.insert(payload.end(), record.data(), record.data() + record.size());
  return payload;
}

// A small well-formed trace: header, thread, calls, frames.
std::vector<uint8_t> small_trace_payload(std::string_view process, std::string_view thread_name) {
  wire::Encoder e;
  encode_header(e, 42, process);
  encode_thread(e, 0, 4242, thread_name);
  for (uint64_t seq = 0; seq < 6; ++seq) {
    encode_call(e, 0, seq, seq % 3 == 2 ? api::kFn_eglSwapBuffers : kSomeFunction);
    if (seq % 3 == 2) encode_frame(e, seq / 3, seq);
  }
  return bytes_of(e);
}

// A file of chunks made one payload at a time, each encoded into the same
// Encoder (its memory reused) and compressed as it goes, so making the file
// never holds them all.
std::vector<uint8_t> container_of(size_t chunks,
                                  const std::function<void(size_t, wire::Encoder&)>& payload) {
  std::vector<uint8_t> file = make_container({}, true);
  wire::Encoder e;
  for (size_t i = 0; i < chunks; ++i) {
    e.clear();
    payload(i, e);
    append_chunk(&file, {e.data(), e.size()}, true);
  }
  return file;
}

}  // namespace

std::vector<HostileTrace> hostile_traces() {
  constexpr size_t kMaxRaw = format::kMaxRawSize;
  std::vector<HostileTrace> kinds;
  // 8 chunks of 64 MiB each holding one Call whose Array has 64 Mi one-byte
  // packed integers (512 MiB decoded each): 17 KB compressed.
  kinds.push_back({"packed_int_bomb", [] {
                     std::vector<uint8_t> ones(kMaxRaw - 64, 0x01);
                     wire::Encoder e;
                     size_t record = s::chunk::begin_records(e);
                     size_t call = s::record::begin_call(e);
                     s::call::set_function(e, kSomeFunction);
                     size_t arg = s::call::begin_args(e);
                     size_t array = s::value::begin_array(e);
                     s::array::set_sints_packed(e, ones.data(), ones.size());
                     e.end_nested(array);
                     e.end_nested(arg);
                     e.end_nested(call);
                     e.end_nested(record);
                     return make_container(std::vector<std::vector<uint8_t>>(8, bytes_of(e)), true);
                   }});
  // 1 Mi calls, each of a thread index of its own (info and stats were
  // quadratic in them, replay started a thread each).
  kinds.push_back({"many_thread_indices", [] {
                     wire::Encoder e;
                     for (uint32_t i = 0; i < (1u << 20); ++i) {
                       size_t record = s::chunk::begin_records(e);
                       size_t call = s::record::begin_call(e);
                       s::call::set_function(e, kSomeFunction);
                       s::call::set_thread(e, i);
                       s::call::set_seq(e, i);
                       e.end_nested(call);
                       e.end_nested(record);
                     }
                     return make_container({bytes_of(e)}, true);
                   }});
  // The same with a context current on each: replay would need a thread
  // each, and refuses the trace at the 257th.
  kinds.push_back({"many_context_threads", [] {
                     wire::Encoder e;
                     for (uint32_t i = 0; i < (1u << 20); ++i) {
                       size_t record = s::chunk::begin_records(e);
                       size_t call = s::record::begin_call(e);
                       s::call::set_function(e, kSomeFunction);
                       s::call::set_thread(e, i);
                       s::call::set_context(e, 1);
                       s::call::set_seq(e, i);
                       e.end_nested(call);
                       e.end_nested(record);
                     }
                     return make_container({bytes_of(e)}, true);
                   }});
  // 48 Mi empty Frame records (4 bytes each) in 3 chunks.
  kinds.push_back({"many_frames", [] {
                     wire::Encoder frame;
                     size_t record = s::chunk::begin_records(frame);
                     size_t body = s::record::begin_frame(frame);
                     frame.end_nested(body);
                     frame.end_nested(record);
                     std::vector<uint8_t> payload = repeated(frame, kMaxRaw / frame.size());
                     return make_container({payload, payload, payload}, true);
                   }});
  // 16 Mi empty Calls (seqs 0, 1, ... by delta) in one chunk.
  kinds.push_back({"many_calls_one_chunk", [] {
                     wire::Encoder call;
                     size_t record = s::chunk::begin_records(call);
                     size_t body = s::record::begin_call(call);
                     call.end_nested(body);
                     call.end_nested(record);
                     return make_container({repeated(call, kMaxRaw / call.size())}, true);
                   }});
  // Call 0 never comes: everything after it waits for it in a replay.
  kinds.push_back({"seq_gap", [] {
                     wire::Encoder first;
                     size_t record = s::chunk::begin_records(first);
                     size_t body = s::record::begin_call(first);
                     s::call::set_seq(first, 1);
                     first.end_nested(body);
                     first.end_nested(record);
                     wire::Encoder call;
                     record = s::chunk::begin_records(call);
                     body = s::record::begin_call(call);
                     call.end_nested(body);
                     call.end_nested(record);
                     std::vector<uint8_t> payload = bytes_of(first);
                     std::vector<uint8_t> rest = repeated(call, (kMaxRaw - 64) / call.size());
                     payload.insert(payload.end(), rest.begin(), rest.end());
                     return make_container({payload}, true);
                   }});
  // Calls 0, 2, 4... (seq_delta 1): 11 Mi gaps in the seqs in one chunk.
  kinds.push_back({"many_seq_gaps", [] {
                     wire::Encoder call;
                     size_t record = s::chunk::begin_records(call);
                     size_t body = s::record::begin_call(call);
                     s::call::set_seq_delta(call, 1);
                     call.end_nested(body);
                     call.end_nested(record);
                     return make_container({repeated(call, kMaxRaw / call.size())}, true);
                   }});
  // Four framebuffer images of 4096x4000 (64 MB each, a chunk each, with
  // their Image and Frame records): 10 KB compressed. `frames` decodes one
  // at a time, as it writes it.
  kinds.push_back({"huge_images", [] {
                     constexpr uint32_t kWidth = 4096, kHeight = 4000;
                     const std::string pixels(size_t{kWidth} * kHeight * 4, '\0');
                     return container_of(4, [&](size_t i, wire::Encoder& e) {
                       if (i == 0) encode_header(e, 42, "app");
                       encode_call(e, 0, i, api::kFn_eglSwapBuffers);
                       size_t record = s::chunk::begin_records(e);
                       size_t image = s::record::begin_image(e);
                       s::image::set_frame(e, i);
                       s::image::set_seq(e, i);
                       s::image::set_width(e, kWidth);
                       s::image::set_height(e, kHeight);
                       s::image::set_blob(e, i + 1);
                       s::image::set_origin(e, "swap");
                       e.end_nested(image);
                       e.end_nested(record);
                       encode_blob(e, i + 1, pixels);
                       encode_frame(e, i, i);
                     });
                   }});
  // 24 blobs of 60 MB that no call refers to, a chunk each: 40 KB
  // compressed. Nothing needs them: a replay must not keep them.
  kinds.push_back({"huge_unreferenced_blobs", [] {
                     std::string zeros;
                     zeros.resize(60'000'000);
                     return container_of(24, [&](size_t i, wire::Encoder& e) {
                       if (i == 0) encode_header(e, 42, "app");
                       encode_blob(e, i + 1, zeros);
                     });
                   }});
  // Terminal escape sequences in the process and thread names.
  kinds.push_back({"escapes_in_names", [] {
                     return make_container(
                         {small_trace_payload("app\x1b[2J\x1b]0;owned\x07", "t\x1b[31mred\r")},
                         true);
                   }});
  // Strings a JSON or protobuf writer must escape or replace: a quote, a
  // backslash, control characters, bytes that are not UTF-8 (a lone 0xff, a
  // cut sequence, an encoded surrogate) beside valid multi-byte UTF-8.
  kinds.push_back(
      {"hostile_strings", [] {
         return make_container(
             {small_trace_payload("q\"b\\s/\x01\x7f\xff\xc3(\xe2\x82\xac", "\xed\xa0\x80t\n")},
             true);
       }});
  // Function ids the model does not name (0, one past the last).
  kinds.push_back({"unknown_function_ids", [] {
                     wire::Encoder e;
                     encode_header(e, 42, "app");
                     encode_call(e, 0, 0, 0);
                     encode_call(e, 0, 1, 0xfffff);
                     return make_container({bytes_of(e)}, true);
                   }});
  // A clean trace whose index chunk's CRC is wrong.
  kinds.push_back({"damaged_index", [] {
                     std::vector<uint8_t> file =
                         make_container({small_trace_payload("app", "main")}, false);
                     uint64_t index_offset = file.size();
                     wire::Encoder index;
                     size_t entry = s::index::begin_entries(index);
                     s::index_entry::set_chunk_offset(index, format::kFileHeaderSize);
                     index.end_nested(entry);
                     std::vector<uint8_t> chunk = make_container({bytes_of(index)}, false);
                     chunk.erase(chunk.begin(), chunk.begin() + format::kFileHeaderSize);
                     format::put_u32(chunk.data() + 4, format::kChunkIndexFlag);
                     chunk.back() ^= 0xff;  // the CRC no longer matches
                     file.insert(file.end(), chunk.begin(), chunk.end());
                     uint8_t footer[format::kFooterSize];
                     memcpy(footer, format::kFooterMagic, sizeof format::kFooterMagic);
                     format::put_u64(footer + 8, index_offset);
                     file.insert(file.end(), footer, footer + sizeof footer);
                     return file;
                   }});
  // The kinds the mutation tests cover, as whole files.
  kinds.push_back({"cut_short", [] {
                     std::vector<uint8_t> file = make_container(
                         {small_trace_payload("app", "main"), small_trace_payload("app", "main")},
                         true);
                     file.resize(file.size() - 10);
                     return file;
                   }});
  kinds.push_back({"bit_flipped", [] {
                     std::vector<uint8_t> file =
                         make_container({small_trace_payload("app", "main")}, false);
                     file[format::kFileHeaderSize + format::kChunkHeaderSize + 30] ^= 0x10;
                     return file;
                   }});
  // A 100-byte zstd frame that says it holds 64 MiB, in a chunk claiming 1 KiB.
  kinds.push_back({"zstd_bomb", [] {
                     std::vector<uint8_t> zeros(kMaxRaw, 0);
                     std::vector<uint8_t> file = make_container({zeros}, true);
                     format::put_u32(file.data() + format::kFileHeaderSize + 12, 1024);
                     return file;
                   }});
  kinds.push_back({"bad_version", [] {
                     std::vector<uint8_t> file =
                         make_container({small_trace_payload("app", "main")}, true);
                     format::put_u32(file.data() + 8, 7);
                     return file;
                   }});
  kinds.push_back({"oversized_raw_size", [] {
                     std::vector<uint8_t> file =
                         make_container({small_trace_payload("app", "main")}, true);
                     format::put_u32(file.data() + format::kFileHeaderSize + 12, 0xfffffff0);
                     return file;
                   }});
  return kinds;
}

}  // namespace gltrace::test
