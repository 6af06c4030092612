#include "format/container.h"

#include <zstd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gltrace::format {

uint64_t max_stored_size(uint32_t raw_size) { return ZSTD_COMPRESSBOUND(uint64_t{raw_size}); }

void encode_chunk_header(const ChunkHeader& header, uint8_t out[kChunkHeaderSize]) {
  memcpy(out, kChunkMagic, 4);
  put_u32(out + 4, header.codec);
  put_u32(out + 8, header.stored_size);
  put_u32(out + 12, header.raw_size);
  put_u32(out + 16, header.crc);
  put_u32(out + 20, header.record_count);
}

bool decode_chunk_header(const uint8_t in[kChunkHeaderSize], ChunkHeader* header) {
  if (memcmp(in, kChunkMagic, 4) != 0) return false;
  header->codec = get_u32(in + 4);
  header->stored_size = get_u32(in + 8);
  header->raw_size = get_u32(in + 12);
  header->crc = get_u32(in + 16);
  header->record_count = get_u32(in + 20);
  return true;
}

std::string check_chunk_header(const ChunkHeader& header, uint64_t offset) {
  char why[160];
  uint32_t compression = header.compression();
  if ((header.codec & ~(kCodecMask | kChunkIndexFlag)) != 0 ||
      (compression != kCodecNone && compression != kCodecZstd)) {
    snprintf(why, sizeof why, "chunk at offset %" PRIu64 " has unknown codec 0x%x", offset,
             header.codec);
  } else if (header.raw_size > kMaxRawSize) {
    snprintf(why, sizeof why, "chunk at offset %" PRIu64 " claims raw size %" PRIu32 " > 64 MiB",
             offset, header.raw_size);
  } else if (compression == kCodecNone && header.stored_size != header.raw_size) {
    snprintf(why, sizeof why,
             "uncompressed chunk at offset %" PRIu64 " claims stored size %" PRIu32
             " != raw size %" PRIu32,
             offset, header.stored_size, header.raw_size);
  } else if (header.stored_size > max_stored_size(header.raw_size)) {
    snprintf(why, sizeof why,
             "chunk at offset %" PRIu64 " claims stored size %" PRIu32 " > %" PRIu64
             " (the most raw size %" PRIu32 " can compress to)",
             offset, header.stored_size, max_stored_size(header.raw_size), header.raw_size);
  } else {
    return {};
  }
  return why;
}

}  // namespace gltrace::format
