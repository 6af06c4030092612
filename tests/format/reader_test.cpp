// The container as the reader sees it: headers, limits, truncation at every
// length, single-byte corruption everywhere, the index and seeking, streams.
#include "format/reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "format/container.h"
#include "format/crc32.h"
#include "format/encoders.h"
#include "format/schema.h"
#include "format/writer.h"
#include "protowire/wire.h"
#include "record_text.h"
#include "support/subprocess.h"
#include "test_trace.h"

// The largest array the code under test asks for with new (nothrow), which is
// how the reader allocates its chunk buffers. Every array form is replaced, so
// allocation and release always pair up (the sanitizers check that).
static std::atomic<size_t> g_largest_nothrow_array{0};

void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  size_t seen = g_largest_nothrow_array.load();
  while (size > seen && !g_largest_nothrow_array.compare_exchange_weak(seen, size)) {
  }
  return malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size) {
  void* p = malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete[](void* p) noexcept { free(p); }
void operator delete[](void* p, std::size_t) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }

namespace gltrace {
namespace {

using format::ChunkReader;
using format::ReadState;
using test::decode_memory;
using test::Decoded;

std::vector<uint8_t> small_trace(int chunks = 3, int level = 1) {
  std::string path = test::make_temp_dir() + "/small.gltrace";
  format::WriterOptions options;
  options.zstd_level = level;
  test::write_small_trace(path, chunks, 4, options);
  return test::read_bytes(path);
}

// Offsets of the chunk headers (data and index) of a valid trace.
std::vector<uint64_t> chunk_offsets(const std::vector<uint8_t>& bytes) {
  std::vector<uint64_t> offsets;
  uint64_t at = format::kFileHeaderSize;
  while (at + format::kChunkHeaderSize <= bytes.size() &&
         memcmp(bytes.data() + at, format::kChunkMagic, 4) == 0) {
    offsets.push_back(at);
    at += format::kChunkHeaderSize + format::get_u32(bytes.data() + at + 8);
  }
  return offsets;
}

// read_trace_prefetched (which decodes on its second thread) ends like
// read_trace, with the same records. After a bad record, only how far its
// reading thread got (chunks read, the footer seen) can differ.
void expect_prefetched_same(const std::vector<uint8_t>& bytes, const Decoded& plain) {
  Decoded d = decode_memory(bytes, true, true);
  EXPECT_EQ(d.opened, plain.opened);
  EXPECT_EQ(d.ok, plain.ok);
  EXPECT_EQ(d.lines, plain.lines);
  EXPECT_EQ(d.status.state, plain.status.state);
  EXPECT_EQ(d.status.message, plain.status.message);
  EXPECT_EQ(d.status.offset, plain.status.offset);
  if (plain.status.message.find(", byte ") == std::string::npos) {
    EXPECT_EQ(d.status.chunks, plain.status.chunks);
    EXPECT_EQ(d.status.closed_cleanly, plain.status.closed_cleanly);
  }
}

TEST(Reader, CleanTraceWithIndex) {
  std::vector<uint8_t> bytes = small_trace();
  Decoded d = decode_memory(bytes);
  ASSERT_TRUE(d.ok) << d.status.message;
  EXPECT_EQ(d.status.state, ReadState::kEnd);
  EXPECT_TRUE(d.status.closed_cleanly);
  EXPECT_EQ(d.status.chunks, 3u);
  EXPECT_EQ(d.status.message, "");
  // header, thread, then 4 calls and a frame per chunk
  ASSERT_EQ(d.lines.size(), 2u + 3 * 5);
  EXPECT_EQ(d.lines[0].rfind("header v1 pid=42 name=\"small\"", 0), 0u) << d.lines[0];
  EXPECT_EQ(d.lines[2],
            "call fn=10 thread=0 context=0 seq=0 start=0 duration=7 cpu=0 error=0 "
            "args=(sint:0,uint:0,text:\"t0\",) ret=uint:1");

  ChunkReader reader;
  ASSERT_TRUE(reader.open_memory(bytes));
  const format::Index* index = reader.index();
  ASSERT_NE(index, nullptr) << reader.index_error();
  std::vector<uint64_t> offsets = chunk_offsets(bytes);
  ASSERT_EQ(offsets.size(), 4u);  // 3 data chunks, the index chunk
  ASSERT_EQ(index->entries.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(index->entries[i].frame, i);
    EXPECT_EQ(index->entries[i].seq, i * 4);
    EXPECT_EQ(index->entries[i].chunk_offset, offsets[i]);
  }
}

TEST(Reader, SeekToAnIndexedFrame) {
  std::vector<uint8_t> bytes = small_trace();
  std::string path = test::make_temp_dir() + "/seek.gltrace";
  test::write_bytes(path, bytes);
  ChunkReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.status().message;
  ASSERT_NE(reader.index(), nullptr);
  ASSERT_TRUE(reader.seek(reader.index()->entries[1].chunk_offset));
  test::RecordText text;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, text, &status)) << status.message;
  ASSERT_EQ(text.lines.size(), 2u * 5);
  EXPECT_NE(text.lines[0].find(" seq=4 "), std::string::npos) << text.lines[0];
  EXPECT_TRUE(status.closed_cleanly);
  // Back to the start, and out of range.
  EXPECT_TRUE(reader.seek(format::kFileHeaderSize));
  format::ChunkView chunk;
  ASSERT_TRUE(reader.next(&chunk));
  EXPECT_EQ(chunk.offset, format::kFileHeaderSize);
  EXPECT_EQ(chunk.record_count, 7u);
  EXPECT_FALSE(reader.seek(3));
  EXPECT_FALSE(reader.seek(bytes.size() + 1));
}

// A file still being written (gltrace view --attach follows one): the end
// of what is there, even inside a chunk, is read again from where it
// stopped once more bytes are in, past the size the file had at open.
TEST(Reader, GrowingFileReadsOnFromWhereItStopped) {
  std::vector<uint8_t> bytes = small_trace();
  std::vector<uint64_t> offsets = chunk_offsets(bytes);
  std::string path = test::make_temp_dir() + "/growing.gltrace";
  uint64_t cut = offsets[1] + 10;  // inside the second chunk's header
  test::write_bytes(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut));
  ChunkReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.status().message;
  format::ChunkView chunk;
  ASSERT_TRUE(reader.next(&chunk));
  EXPECT_FALSE(reader.next(&chunk));
  EXPECT_EQ(reader.status().state, ReadState::kCutShort);
  EXPECT_EQ(reader.status().offset, offsets[1]);
  test::write_bytes(path, bytes);
  ASSERT_TRUE(reader.seek(offsets[2])) << "past the size at open";
  ASSERT_TRUE(reader.seek(offsets[1]));
  test::RecordText text;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, text, &status)) << status.message;
  EXPECT_EQ(text.lines.size(), 2u * 5);
  EXPECT_TRUE(status.closed_cleanly);
}

TEST(Reader, UncompressedTraceReadsTheSame) {
  Decoded compressed = decode_memory(small_trace(3, 1));
  Decoded stored = decode_memory(small_trace(3, 0));
  ASSERT_TRUE(stored.ok) << stored.status.message;
  EXPECT_EQ(compressed.lines, stored.lines);
}

TEST(Reader, EmptyFile) {
  std::string path = test::make_temp_dir() + "/empty.gltrace";
  test::write_bytes(path, {});
  ChunkReader reader;
  EXPECT_FALSE(reader.open(path));
  EXPECT_EQ(reader.status().state, ReadState::kCorrupt);
  EXPECT_EQ(reader.status().message, "empty file");
}

TEST(Reader, MissingFile) {
  ChunkReader reader;
  EXPECT_FALSE(reader.open("/nonexistent/x.gltrace"));
  EXPECT_EQ(reader.status().state, ReadState::kIoError);
  EXPECT_EQ(reader.status().message,
            "cannot open /nonexistent/x.gltrace: No such file or directory");
}

TEST(Reader, BadMagic) {
  std::vector<uint8_t> bytes = small_trace();
  bytes[3] = 'X';
  Decoded d = decode_memory(bytes);
  EXPECT_FALSE(d.opened);
  EXPECT_EQ(d.status.message, "not a gltrace file (bad magic) at offset 0");
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', '\n'};
  EXPECT_EQ(decode_memory(text).status.message, "not a gltrace file (bad magic) at offset 0");
}

TEST(Reader, WrongVersion) {
  std::vector<uint8_t> bytes = small_trace();
  for (uint32_t version : {0u, 4u}) {
    format::put_u32(bytes.data() + 8, version);
    Decoded d = decode_memory(bytes);
    EXPECT_FALSE(d.opened);
    EXPECT_EQ(d.status.state, ReadState::kCorrupt);
    EXPECT_EQ(d.status.message, "unsupported format version " + std::to_string(version) +
                                    " at offset 8 (this gltrace reads versions 1 to 3)");
  }
  // Version 1 (before start_gap_ns) reads as it did.
  format::put_u32(bytes.data() + 8, 1);
  EXPECT_TRUE(decode_memory(bytes).opened);
}

// Every call's seq, thread, start and duration, and (with_frames) every
// frame's number, seq and time, as this gltrace reads them from `path`.
std::string times_of(const std::string& path, bool with_frames) {
  struct Times : format::Consumer {
    bool with_frames = false;
    std::string text;
    void on_call(const format::Call& c) override {
      text += std::to_string(c.seq) + " " + std::to_string(c.thread) + " " +
              std::to_string(c.start_ns) + " " + std::to_string(c.duration_ns) + "\n";
    }
    void on_frame(const format::Frame& f) override {
      if (with_frames)
        text += "frame " + std::to_string(f.number) + " " + std::to_string(f.seq) + " " +
                std::to_string(f.time_ns) + "\n";
    }
  };
  format::ChunkReader reader;
  EXPECT_TRUE(reader.open(path)) << reader.status().message;
  Times times;
  times.with_frames = with_frames;
  format::ReadStatus status;
  format::read_trace(reader, times, &status);
  return times.text;
}

std::string expected_times(const std::string& path) {
  std::vector<uint8_t> bytes = test::read_bytes(path);
  return {bytes.begin(), bytes.end()};
}

// A trace of the demo written by gltrace before format 2 (data/demo-v1.gltrace,
// commit e5e6913): every call's seq, thread, start and duration read as that
// gltrace read them (data/demo-v1.times).
TEST(Reader, Version1TraceReadsAsBefore) {
  const std::string dir = GLTRACE_FORMAT_DATA_DIR;
  EXPECT_EQ(times_of(dir + "/demo-v1.gltrace", false), expected_times(dir + "/demo-v1.times"));
}

// The first two chunks of a trace of gltrace-bench-mix's small-frames mix
// written in format 2, before the times column (data/small-frames-v2.gltrace,
// commit 2853a21; the trace ends there): its calls' and frames' times read
// as that gltrace read them (data/small-frames-v2.times).
TEST(Reader, Version2TraceReadsAsBefore) {
  const std::string dir = GLTRACE_FORMAT_DATA_DIR;
  EXPECT_EQ(times_of(dir + "/small-frames-v2.gltrace", true),
            expected_times(dir + "/small-frames-v2.times"));
}

TEST(Reader, BadChunkMagicAndCrc) {
  std::vector<uint8_t> bytes = small_trace();
  std::vector<uint64_t> offsets = chunk_offsets(bytes);
  std::vector<uint8_t> bad_magic = bytes;
  bad_magic[offsets[1]] = 'X';
  Decoded d = decode_memory(bad_magic);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.status.state, ReadState::kCorrupt);
  EXPECT_EQ(d.status.message, "bad chunk magic at offset " + std::to_string(offsets[1]));
  EXPECT_EQ(d.status.chunks, 1u);
  EXPECT_EQ(d.lines.size(), 7u);  // the first chunk's records were delivered

  std::vector<uint8_t> bad_crc = bytes;
  bad_crc[offsets[2] + format::kChunkHeaderSize + 3] ^= 0x20;
  d = decode_memory(bad_crc);
  EXPECT_EQ(d.status.message, "CRC mismatch in chunk at offset " + std::to_string(offsets[2]));
  EXPECT_EQ(d.status.offset, offsets[2]);
}

// A header that claims 4 GiB is refused before any buffer is sized for it.
TEST(Reader, HugeChunkClaimIsRefusedBeforeAllocating) {
  std::vector<uint8_t> bytes = small_trace();
  uint64_t second = chunk_offsets(bytes)[1];
  std::string dir = test::make_temp_dir();

  std::vector<uint8_t> raw_claim = bytes;
  format::put_u32(raw_claim.data() + second + 8, 0xffffffff);   // stored
  format::put_u32(raw_claim.data() + second + 12, 0xffffffff);  // raw
  test::write_bytes(dir + "/raw.gltrace", raw_claim);
  g_largest_nothrow_array = 0;
  ChunkReader reader;
  ASSERT_TRUE(reader.open(dir + "/raw.gltrace"));
  test::RecordText text;
  format::ReadStatus status;
  EXPECT_FALSE(format::read_trace(reader, text, &status));
  EXPECT_EQ(status.message,
            "chunk at offset " + std::to_string(second) + " claims raw size 4294967295 > 64 MiB");
  EXPECT_LT(g_largest_nothrow_array.load(), size_t{1} << 20);

  std::vector<uint8_t> stored_claim = bytes;
  format::put_u32(stored_claim.data() + second + 8, 0xffffffff);
  test::write_bytes(dir + "/stored.gltrace", stored_claim);
  g_largest_nothrow_array = 0;
  ASSERT_TRUE(reader.open(dir + "/stored.gltrace"));
  EXPECT_FALSE(format::read_trace(reader, text, &status));
  EXPECT_NE(status.message.find("chunk at offset " + std::to_string(second) +
                                " claims stored size 4294967295 > "),
            std::string::npos)
      << status.message;
  EXPECT_LT(g_largest_nothrow_array.load(), size_t{1} << 20);

  // Within the limits but longer than the file: cut short, still nothing allocated.
  std::vector<uint8_t> long_claim(bytes.begin(), bytes.begin() + static_cast<long>(second) + 24);
  format::put_u32(long_claim.data() + second + 4, format::kCodecNone);
  format::put_u32(long_claim.data() + second + 8, format::kMaxRawSize);
  format::put_u32(long_claim.data() + second + 12, format::kMaxRawSize);
  test::write_bytes(dir + "/long.gltrace", long_claim);
  g_largest_nothrow_array = 0;
  ASSERT_TRUE(reader.open(dir + "/long.gltrace"));
  EXPECT_TRUE(format::read_trace(reader, text, &status));
  EXPECT_EQ(status.state, ReadState::kCutShort);
  EXPECT_LT(g_largest_nothrow_array.load(), size_t{1} << 20);
}

// Every prefix of a trace reads its complete chunks, then says where it stops.
TEST(Reader, EveryTruncationLength) {
  std::vector<uint8_t> bytes = small_trace();
  std::vector<uint64_t> offsets = chunk_offsets(bytes);
  ASSERT_EQ(offsets.size(), 4u);
  uint64_t index_end = bytes.size() - format::kFooterSize;
  Decoded full = decode_memory(bytes);
  for (size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE("length " + std::to_string(length));
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(length));
    Decoded d = decode_memory(prefix);
    expect_prefetched_same(prefix, decode_memory(prefix, true));
    if (length == 0) {
      EXPECT_EQ(d.status.message, "empty file");
      continue;
    }
    if (length < format::kFileHeaderSize) {
      EXPECT_FALSE(d.opened);
      EXPECT_EQ(d.status.state, ReadState::kCutShort);
      EXPECT_EQ(d.status.message,
                "trace cut short at offset 0: incomplete file header (0 complete chunks read)");
      continue;
    }
    ASSERT_TRUE(d.ok) << d.status.message;
    // The last chunk boundary at or before the cut, and the data chunks before it.
    const uint64_t ends[] = {format::kFileHeaderSize, offsets[1], offsets[2], offsets[3],
                             index_end};
    uint64_t boundary = 0;
    for (uint64_t end : ends) boundary = end <= length ? end : boundary;
    size_t complete = 0;
    for (size_t c = 1; c <= 3; ++c) complete += offsets[c] <= length ? 1 : 0;
    EXPECT_EQ(d.status.chunks, complete);
    // Records of the complete chunks, exactly.
    size_t records = complete == 0 ? 0 : 2 + 5 * complete;
    ASSERT_EQ(d.lines.size(), records);
    EXPECT_TRUE(std::equal(d.lines.begin(), d.lines.end(), full.lines.begin()));
    std::string cut = "trace cut short at offset " + std::to_string(boundary) + ": incomplete ";
    std::string chunks = " (" + std::to_string(complete) + " complete chunks read)";
    if (length == boundary) {  // killed between two chunks
      EXPECT_EQ(d.status.state, ReadState::kEnd);
      EXPECT_FALSE(d.status.closed_cleanly);
    } else if (boundary == index_end && length - index_end >= 3) {  // "GTE": the footer
      EXPECT_EQ(d.status.state, ReadState::kCutShort);
      EXPECT_EQ(d.status.message, cut + "footer" + chunks);
    } else {
      EXPECT_EQ(d.status.state, ReadState::kCutShort);
      EXPECT_EQ(d.status.message, cut + "chunk" + chunks);
    }
  }
}

// Any single corrupted byte: a clean decode or an error that names an offset.
TEST(Reader, EveryByteFlipped) {
  for (int level : {0, 1}) {
    std::vector<uint8_t> bytes = small_trace(3, level);
    size_t errors = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      SCOPED_TRACE("level " + std::to_string(level) + " byte " + std::to_string(i));
      std::vector<uint8_t> flipped = bytes;
      flipped[i] ^= 0xff;
      Decoded d = decode_memory(flipped);
      expect_prefetched_same(flipped, decode_memory(flipped, true));
      if (!d.opened || !d.ok) {
        ++errors;
        EXPECT_NE(d.status.message.find("offset"), std::string::npos) << d.status.message;
      }
    }
    // Only the record counts and the footer's pointer are not checked by a
    // CRC, and a damaged index (after the data chunks) is a warning.
    uint64_t index_offset = format::get_u64(bytes.data() + bytes.size() - 8);
    EXPECT_GT(errors, index_offset * 9 / 10);
  }
}

TEST(Reader, BadIndexLeavesTheTraceReadable) {
  std::vector<uint8_t> bytes = small_trace();
  format::put_u64(bytes.data() + bytes.size() - 8, 5);  // the footer points nowhere
  ChunkReader reader;
  ASSERT_TRUE(reader.open_memory(bytes));
  EXPECT_EQ(reader.index(), nullptr);
  EXPECT_EQ(reader.index_error(), "footer at offset " + std::to_string(bytes.size() - 16) +
                                      " points to offset 5, outside the trace");
  Decoded d = decode_memory(bytes);
  EXPECT_TRUE(d.ok);
  EXPECT_TRUE(d.status.closed_cleanly);
}

TEST(Reader, DataAfterTheFooter) {
  std::vector<uint8_t> bytes = small_trace();
  size_t footer = bytes.size() - format::kFooterSize;
  bytes.resize(bytes.size() + 30, 'x');
  Decoded d = decode_memory(bytes);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.status.message, "data after the footer at offset " + std::to_string(footer + 16));
}

TEST(Reader, DecompressionErrorNamesTheChunk) {
  std::vector<uint8_t> bytes = small_trace(3, 1);
  uint64_t second = chunk_offsets(bytes)[1];
  ASSERT_EQ(format::get_u32(bytes.data() + second + 4), format::kCodecZstd);
  // Damage the zstd frame magic, then make the CRC match again.
  uint32_t stored = format::get_u32(bytes.data() + second + 8);
  bytes[second + format::kChunkHeaderSize] ^= 0x55;
  format::put_u32(bytes.data() + second + 16,
                  format::crc32(bytes.data() + second + format::kChunkHeaderSize, stored));
  Decoded d = decode_memory(bytes);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.status.message, "chunk at offset " + std::to_string(second) +
                                  " does not decompress: zstd: Unknown frame descriptor");

  // A raw size that disagrees with the frame's own (the CRC does not cover the header).
  std::vector<uint8_t> resized = small_trace(3, 1);
  uint32_t raw = format::get_u32(resized.data() + second + 12);
  format::put_u32(resized.data() + second + 12, raw + 1000);
  d = decode_memory(resized);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.status.message, "chunk at offset " + std::to_string(second) +
                                  " holds a zstd frame of " + std::to_string(raw) +
                                  " bytes, its header says " + std::to_string(raw + 1000));
}

TEST(Reader, RecordErrorNamesChunkAndByte) {
  std::vector<uint8_t> bytes = small_trace(3, 0);
  uint64_t first = chunk_offsets(bytes)[0];
  uint32_t stored = format::get_u32(bytes.data() + first + 8);
  uint8_t* payload = bytes.data() + first + format::kChunkHeaderSize;
  payload[0] = (1 << 3) | 1;  // Chunk.records as fixed64: a wrong wire type
  format::put_u32(bytes.data() + first + 16, format::crc32(payload, stored));
  Decoded d = decode_memory(bytes);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.status.message,
            "chunk at offset 16, byte 0: Chunk field 1 has wire type 1, "
            "expected 2");
  expect_prefetched_same(bytes, decode_memory(bytes, true));
}

// A consumer that stops before a bad record never sees its error, also when
// the prefetcher decoded it ahead.
TEST(Reader, StopBeforeABadRecordIsNoError) {
  struct StopAtFrame : test::RecordText {
    void on_frame(const format::Frame& f) override {
      RecordText::on_frame(f);
      if (f.number == 1) request_stop();
    }
  };
  wire::Encoder e;
  test::encode_header(e, 1, "app");
  for (uint64_t n = 0; n < 3; ++n) test::encode_frame(e, n, n);
  size_t bad = schema::chunk::begin_records(e);
  e.fixed64_field(schema::record::kCall, 1);  // a wrong wire type
  e.end_nested(bad);
  std::string path = test::make_temp_dir() + "/bad.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  writer->submit(format::Payload::from_encoder(e));
  ASSERT_TRUE(writer->close(&error)) << error;
  for (bool prefetched : {false, true}) {
    SCOPED_TRACE(prefetched ? "prefetched" : "read_trace");
    ChunkReader reader;
    ASSERT_TRUE(reader.open(path)) << reader.status().message;
    StopAtFrame stopping;
    format::ReadStatus status;
    EXPECT_TRUE(prefetched ? format::read_trace_prefetched(reader, stopping, &status)
                           : format::read_trace(reader, stopping, &status));
    EXPECT_EQ(stopping.lines.size(), 3u);
    ASSERT_TRUE(reader.open(path)) << reader.status().message;
    test::RecordText all;
    EXPECT_FALSE(prefetched ? format::read_trace_prefetched(reader, all, &status)
                            : format::read_trace(reader, all, &status));
    EXPECT_EQ(all.lines.size(), 4u);
    EXPECT_NE(status.message.find("Record field 2 has wire type 1"), std::string::npos)
        << status.message;
  }
}

// A pipe is read front to back: no index, same records.
TEST(Reader, Stream) {
  std::vector<uint8_t> bytes = small_trace();
  for (size_t cut : {bytes.size(), bytes.size() - 40}) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::thread feeder([&] {
      size_t done = 0;
      while (done < cut) {
        ssize_t n = write(fds[1], bytes.data() + done, std::min<size_t>(cut - done, 100));
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      close(fds[1]);
    });
    ChunkReader reader;
    ASSERT_TRUE(reader.open_fd(fds[0])) << reader.status().message;
    EXPECT_EQ(reader.index(), nullptr);
    EXPECT_FALSE(reader.seek(16));
    test::RecordText text;
    format::ReadStatus status;
    EXPECT_TRUE(format::read_trace(reader, text, &status)) << status.message;
    feeder.join();
    if (cut == bytes.size()) {
      EXPECT_EQ(status.state, ReadState::kEnd);
      EXPECT_TRUE(status.closed_cleanly);
      EXPECT_EQ(text.lines, decode_memory(bytes).lines);
    } else {
      EXPECT_EQ(status.state, ReadState::kCutShort) << status.message;
    }
  }
}

}  // namespace
}  // namespace gltrace
