#include "hostile.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "format/container.h"
#include "format/crc32.h"
#include "format/reader.h"
#include "format/records.h"
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
