// A chunk payload is a serialized `Chunk`: protoc decodes it with the schema.
#include <gtest/gtest.h>

#include "format/container.h"
#include "format/reader.h"
#include "support/subprocess.h"
#include "test_trace.h"

namespace gltrace {
namespace {

std::string protoc_decode(const std::string& message, const std::string& payload_path) {
  std::string proto_dir = test::source_path("proto");
  test::ProcessResult r = test::run_process(
      {"/bin/sh", "-c",
       std::string(GLTRACE_PROTOC) + " --decode=gltrace.trace." + message + " -I " + proto_dir +
           " " + proto_dir + "/trace.proto < " + payload_path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Protoc, DecodesChunksAndTheIndex) {
  if (std::string(GLTRACE_PROTOC).empty()) GTEST_SKIP() << "protoc not found";
  std::string dir = test::make_temp_dir();
  format::WriterOptions options;
  options.zstd_level = 3;
  test::write_small_trace(dir + "/t.gltrace", 2, 2, options);

  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(dir + "/t.gltrace"));
  format::ChunkView chunk;
  ASSERT_TRUE(reader.next(&chunk));
  test::write_bytes(dir + "/chunk.bin",
                    std::vector<uint8_t>(chunk.payload.begin(), chunk.payload.end()));
  std::string text = protoc_decode("Chunk", dir + "/chunk.bin");
  EXPECT_NE(text.find("process_name: \"small\""), std::string::npos) << text;
  EXPECT_NE(text.find("clock_domain: \"CLOCK_MONOTONIC\""), std::string::npos) << text;
  EXPECT_NE(text.find("tid: 4242"), std::string::npos) << text;
  // The calls' times are in the chunk's times column, not their records.
  EXPECT_NE(text.find("\ntimes: \""), std::string::npos) << text;
  EXPECT_EQ(text.find("seq: 1"), std::string::npos) << text;
  EXPECT_NE(text.find("sint: -1"), std::string::npos) << text;
  EXPECT_NE(text.find("text: \"t0\""), std::string::npos) << text;
  EXPECT_EQ(test::count_occurrences(text, "records {"), 5u) << text;

  // The index chunk: stored as-is when zstd does not shrink it, else compressed.
  std::vector<uint8_t> bytes = test::read_bytes(dir + "/t.gltrace");
  uint64_t at = format::get_u64(bytes.data() + bytes.size() - 8);
  uint32_t codec = format::get_u32(bytes.data() + at + 4);
  ASSERT_EQ(codec & format::kChunkIndexFlag, format::kChunkIndexFlag);
  if ((codec & format::kCodecMask) != format::kCodecNone) GTEST_SKIP() << "index compressed";
  uint32_t stored = format::get_u32(bytes.data() + at + 8);
  auto begin = bytes.begin() + static_cast<long>(at + format::kChunkHeaderSize);
  test::write_bytes(dir + "/index.bin", std::vector<uint8_t>(begin, begin + stored));
  text = protoc_decode("Index", dir + "/index.bin");
  EXPECT_NE(text.find("entries {\n  frame: 1\n  chunk_offset: "), std::string::npos) << text;
  EXPECT_EQ(test::count_occurrences(text, "entries {"), 2u) << text;
}

}  // namespace
}  // namespace gltrace
