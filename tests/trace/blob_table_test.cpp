// Blob deduplication (src/trace/blob_table.h): blobs whose hashes collide
// keep their own bytes; the same bytes are written once. Hashes are given,
// so a collision can be forced; the payload is read back by the format
// library's decoder, as gltrace and glreplay read it.
#include "trace/blob_table.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "format/records.h"

namespace gltrace::trace {
namespace {

struct BlobsOf : format::Consumer {
  void on_blob(const format::Blob& blob) override {
    EXPECT_EQ(blobs.count(blob.id), 0u) << "blob id " << blob.id << " written twice";
    blobs[blob.id] = std::string(blob.data);
  }
  std::map<uint64_t, std::string> blobs;
};

// The Blob records in a thread's payload, by id.
std::map<uint64_t, std::string> blobs_in(const wire::Encoder& payload) {
  BlobsOf consumer;
  format::RecordDecoder decoder;
  EXPECT_TRUE(decoder.decode_chunk({payload.data(), payload.size()}, consumer)) << decoder.error();
  return consumer.blobs;
}

class BlobTableTest : public ::testing::Test {
 protected:
  // Stores `bytes` as the trace layer does, with the hash given.
  BlobTable::Stored store(const std::string& bytes, BlobHash hash) {
    return table_.store(payload_, flushes_, hash, bytes.data(), bytes.size(), last_id_);
  }
  BlobTable::Stored store(const std::string& bytes) {
    return store(bytes, hash_blob(bytes.data(), bytes.size()));
  }
  // The payload goes to the writer (read back first): its bytes are gone.
  std::map<uint64_t, std::string> flush() {
    std::map<uint64_t, std::string> blobs = blobs_in(payload_);
    payload_.clear();
    ++flushes_;
    return blobs;
  }

  BlobTable table_;
  wire::Encoder payload_;
  uint64_t flushes_ = 0;
  std::atomic<uint64_t> last_id_{0};
};

const std::string kA(300, 'a');
const std::string kB(300, 'b');
const BlobHash kSame{0x1234, 0x5678};  // given to both: a collision

TEST_F(BlobTableTest, SameBytesAreWrittenOnceUnderOneId) {
  BlobTable::Stored first = store(kA);
  EXPECT_TRUE(first.written);
  EXPECT_NE(first.id, 0u);
  BlobTable::Stored again = store(kA);  // compared with the payload's bytes
  EXPECT_FALSE(again.written);
  EXPECT_EQ(again.id, first.id);
  EXPECT_EQ(flush(), (std::map<uint64_t, std::string>{{first.id, kA}}));
  BlobTable::Stored later = store(kA);  // bytes gone: the 128-bit hash decides
  EXPECT_FALSE(later.written);
  EXPECT_EQ(later.id, first.id);
  BlobTable::Stored other = store(kB);
  EXPECT_TRUE(other.written);
  EXPECT_NE(other.id, first.id);
}

TEST_F(BlobTableTest, CollidingBlobsKeepTheirOwnBytes) {
  BlobTable::Stored a = store(kA, kSame);
  BlobTable::Stored b = store(kB, kSame);
  EXPECT_TRUE(b.written);
  EXPECT_NE(b.id, a.id);
  // The entry is b's now: a again is compared with b's bytes, and written anew.
  BlobTable::Stored a2 = store(kA, kSame);
  EXPECT_TRUE(a2.written);
  BlobTable::Stored b2 = store(kB, kSame);
  EXPECT_TRUE(b2.written);
  std::map<uint64_t, std::string> blobs = flush();
  EXPECT_EQ(blobs[a.id], kA);
  EXPECT_EQ(blobs[b.id], kB);
  EXPECT_EQ(blobs[a2.id], kA);
  EXPECT_EQ(blobs[b2.id], kB);
  // Once the bytes are gone, a hash known to collide is not trusted: the
  // blob is written again rather than referring to the other one's id.
  BlobTable::Stored a3 = store(kA, kSame);
  EXPECT_TRUE(a3.written);
  EXPECT_EQ(flush(), (std::map<uint64_t, std::string>{{a3.id, kA}}));
}

TEST_F(BlobTableTest, SameSizeDifferentBytesInTheSameChunk) {
  // Differing in the last byte only: the comparison covers every byte.
  std::string c = kA;
  c.back() = 'c';
  BlobTable::Stored a = store(kA, kSame);
  BlobTable::Stored stored = store(c, kSame);
  EXPECT_TRUE(stored.written);
  EXPECT_EQ(flush(), (std::map<uint64_t, std::string>{{a.id, kA}, {stored.id, c}}));
}

TEST_F(BlobTableTest, ManyBlobsGrowTheTableAndStayFound) {
  std::map<std::string, uint64_t> ids;
  for (int i = 0; i < 1000; ++i) {
    std::string bytes = std::to_string(i) + std::string(256, 'x');
    ids[bytes] = store(bytes).id;
    if (i % 100 == 99) flush();
  }
  EXPECT_EQ(last_id_.load(), 1000u);
  for (const auto& [bytes, id] : ids) {
    BlobTable::Stored again = store(bytes);
    EXPECT_FALSE(again.written);
    EXPECT_EQ(again.id, id);
  }
  table_.clear();  // a new session
  EXPECT_TRUE(store(ids.begin()->first).written);
}

}  // namespace
}  // namespace gltrace::trace
