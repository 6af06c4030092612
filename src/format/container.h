// The .gltrace container: byte layout shared by the writer and the reader
// (docs/trace-format.md). All integers are little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gltrace::format {

// File header: magic, u32 version, u32 flags.
inline constexpr char kFileMagic[8] = {'G', 'L', 'T', 'R', 'A', 'C', 'E', '\0'};
// Version 2: calls carry start_gap_ns (proto/trace.proto). Version 3: a
// chunk's call and frame times are in its times column (Chunk.times), out of
// the records. Versions 1 and 2 read the same way; a reader of an older
// version alone refuses a newer one rather than misplace its calls in time.
inline constexpr uint32_t kFormatVersion = 3;
inline constexpr uint32_t kOldestFormatVersion = 1;
inline constexpr size_t kFileHeaderSize = 16;

// Chunk header: magic, u32 codec, u32 stored_size, u32 raw_size, u32 crc32
// (of the stored bytes), u32 record_count; the stored bytes follow.
inline constexpr char kChunkMagic[4] = {'G', 'T', 'C', 'K'};
inline constexpr size_t kChunkHeaderSize = 24;
inline constexpr uint32_t kCodecNone = 0;
inline constexpr uint32_t kCodecZstd = 1;
inline constexpr uint32_t kCodecMask = 0xff;
// Set in the codec word of the index chunk (payload: an Index message).
inline constexpr uint32_t kChunkIndexFlag = 0x100;

// Footer of a cleanly closed file: magic, u64 offset of the index chunk.
inline constexpr char kFooterMagic[8] = {'G', 'T', 'E', 'N', 'D', '\0', '\0', '\0'};
inline constexpr size_t kFooterSize = 16;

// Limits a reader enforces before allocating anything (hostile input).
inline constexpr uint32_t kMaxRawSize = 64u << 20;
inline constexpr size_t kMaxIndexEntries = size_t{4} << 20;

struct ChunkHeader {
  uint32_t codec = kCodecNone;  // codec in the low byte, kChunkIndexFlag
  uint32_t stored_size = 0;
  uint32_t raw_size = 0;
  uint32_t crc = 0;
  uint32_t record_count = 0;

  uint32_t compression() const { return codec & kCodecMask; }
  bool is_index() const { return (codec & kChunkIndexFlag) != 0; }
};

// Largest stored size a valid chunk of raw_size bytes may claim.
uint64_t max_stored_size(uint32_t raw_size);

void encode_chunk_header(const ChunkHeader& header, uint8_t out[kChunkHeaderSize]);
// False when the magic is wrong; checks nothing else.
bool decode_chunk_header(const uint8_t in[kChunkHeaderSize], ChunkHeader* header);
// Checks codec and sizes against the limits; "" when valid, else why, naming
// the chunk's offset.
std::string check_chunk_header(const ChunkHeader& header, uint64_t offset);

inline void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace gltrace::format
