#include "test_trace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "gltrace/api/functions.h"
#include "record_text.h"

namespace gltrace::test {

void write_small_trace(const std::string& path, int chunks, int calls_per_chunk,
                       const format::WriterOptions& options) {
  std::string error;
  auto writer = format::TraceWriter::open_file(path, options, &error);
  ASSERT_NE(writer, nullptr) << error;
  wire::Encoder e;
  uint64_t seq = 0;
  for (int c = 0; c < chunks; ++c) {
    uint32_t records = 0;
    if (c == 0) {
      encode_header(e, 42, "small");
      encode_thread(e, 0, 4242, "main");
      records += 2;
    }
    format::FrameStart frame{static_cast<uint64_t>(c), seq};
    // Each frame ends with a swap, as every reader counts frames by it.
    for (int i = 0; i < calls_per_chunk; ++i, ++records)
      encode_call(e, 0, seq++,
                  i + 1 < calls_per_chunk ? static_cast<uint32_t>(10 + i)
                                          : static_cast<uint32_t>(api::kFn_eglSwapBuffers));
    encode_frame(e, static_cast<uint64_t>(c), seq - 1);
    ++records;
    writer->submit(format::Payload::from_encoder(e), {&frame, 1});
    writer->acquire_buffer().give_to(e);
  }
  ASSERT_TRUE(writer->close(&error)) << error;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

Decoded decode_memory(const std::vector<uint8_t>& bytes, bool with_chunks, bool prefetched) {
  Decoded d;
  format::ChunkReader reader;
  d.opened = reader.open_memory(bytes);
  if (!d.opened) {
    d.status = reader.status();
    return d;
  }
  RecordText text;
  text.with_chunks = with_chunks;
  d.ok = prefetched ? format::read_trace_prefetched(reader, text, &d.status)
                    : format::read_trace(reader, text, &d.status);
  d.lines = std::move(text.lines);
  return d;
}

}  // namespace gltrace::test
