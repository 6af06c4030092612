// The flight recorder's store: which chunks a trace from a round keeps, what
// the ring frees, and that what it writes reads as a trace.
#include "format/chunk_ring.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "format/container.h"
#include "format/writer.h"
#include "test_trace.h"

namespace gltrace::test {
namespace {

using format::ChunkFilter;
using format::ChunkRing;
using format::ChunkTag;

TEST(ChunkFilter, ATraceFromARoundHoldsEachThreadFromItsStartInIt) {
  ChunkFilter filter(1);
  // Round 0: what no trace from round 1 holds.
  EXPECT_FALSE(filter.keep({1, 0, true}));
  EXPECT_FALSE(filter.keep({1, 0, false}));
  EXPECT_FALSE(filter.keep({0, 0, false}));
  // Thread 2 is not in round 1 yet: its records wait for its start.
  EXPECT_FALSE(filter.keep({2, 0, false}));
  // Thread 1's start of round 1, in two pieces, then its records.
  EXPECT_TRUE(filter.keep({1, 1, true}));
  EXPECT_TRUE(filter.keep({1, 1, true}));
  EXPECT_TRUE(filter.keep({1, 1, false}));
  EXPECT_TRUE(filter.keep({0, 1, false}));  // no thread's (CallsComplete)
  // Thread 2 starts only at round 2: from there on.
  EXPECT_FALSE(filter.keep({2, 1, false}));
  EXPECT_TRUE(filter.keep({2, 2, true}));
  EXPECT_TRUE(filter.keep({2, 2, false}));
  // Round 2's start of thread 1 is left out: its round 1 goes on.
  EXPECT_FALSE(filter.keep({1, 2, true}));
  EXPECT_TRUE(filter.keep({1, 2, false}));
  // A thread past the filter's table goes whole.
  EXPECT_TRUE(filter.keep({100000, 2, true}));
  filter.reset(0);
  EXPECT_TRUE(filter.keep({1, 0, true}));
  EXPECT_TRUE(filter.keep({1, 0, false}));
  EXPECT_FALSE(filter.keep({1, 1, true}));
}

void append(ChunkRing& ring, const ChunkTag& tag, size_t size) {
  std::vector<uint8_t> header(format::kChunkHeaderSize, 0);
  std::vector<uint8_t> stored(size, 7);
  ASSERT_TRUE(ring.append(header.data(), header.size(), stored.data(), stored.size(), tag));
}

TEST(ChunkRing, FreesTheRoundsItNoLongerKeepsAndTheOldestWhenFull) {
  ChunkRing ring(4);
  append(ring, {0, 0, false}, 100);  // the Header's chunk, kept for good
  append(ring, {1, 0, true}, 100);
  append(ring, {1, 0, false}, 100);
  append(ring, {1, 1, true}, 100);
  size_t chunk = format::kChunkHeaderSize + 100;
  EXPECT_EQ(ring.bytes(), 4 * chunk);
  ring.keep_from(1);
  EXPECT_EQ(ring.bytes(), 2 * chunk);
  append(ring, {1, 0, false}, 100);  // a round no longer kept: not stored
  EXPECT_EQ(ring.bytes(), 2 * chunk);
  for (int i = 0; i < 5; ++i) append(ring, {1, 1, false}, 100);
  EXPECT_EQ(ring.bytes(), 5 * chunk);  // the Header's and the last 4
  EXPECT_EQ(ring.evicted(), 2u);
  EXPECT_EQ(ring.appended(), 10u);
}

// A memory writer's chunks, written from a round on, read back as a trace:
// the Header, thread 1 from its round-1 start, nothing of round 0.
TEST(ChunkRing, WhatAMemoryWriterKeepsReadsAsATraceFromItsRound) {
  auto ring = std::make_shared<ChunkRing>(64);
  std::string error;
  auto writer = format::TraceWriter::to_memory(ring, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  auto submit = [&](const ChunkTag& tag, auto&& encode) {
    wire::Encoder e;
    encode(e);
    writer->submit(format::Payload::from_encoder(e), {}, tag);
  };
  submit({0, 0, false}, [](wire::Encoder& e) { encode_header(e, 42, "app"); });
  submit({1, 0, true}, [](wire::Encoder& e) { encode_thread(e, 1, 7, "main"); });
  submit({1, 0, false}, [](wire::Encoder& e) { encode_call(e, 1, 0, 5); });
  submit({1, 1, true}, [](wire::Encoder& e) { encode_thread(e, 1, 7, "main"); });
  submit({1, 1, false}, [](wire::Encoder& e) { encode_call(e, 1, 9, 5); });
  ASSERT_TRUE(writer->close(&error)) << error;
  ring->keep_from(1);

  int fd = memfd_create("flight", 0);
  ASSERT_GE(fd, 0);
  ChunkFilter filter(ring->kept_from());
  ASSERT_TRUE(ring->write(fd, filter));
  ASSERT_TRUE(writer->write_pending(fd, filter));  // nothing left after close
  off_t size = lseek(fd, 0, SEEK_END);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  ASSERT_EQ(pread(fd, bytes.data(), bytes.size(), 0), size);
  close(fd);
  Decoded d = decode_memory(bytes);
  ASSERT_TRUE(d.ok) << d.status.message;
  ASSERT_EQ(d.lines.size(), 3u);
  EXPECT_EQ(d.lines[0].rfind("header", 0), 0u) << d.lines[0];
  EXPECT_EQ(d.lines[1].rfind("thread", 0), 0u) << d.lines[1];
  EXPECT_NE(d.lines[2].find("seq=9"), std::string::npos) << d.lines[2];
}

}  // namespace
}  // namespace gltrace::test
