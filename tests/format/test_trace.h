// Test helpers: record encoders (the producer side, as the trace layer
// writes records), small traces written through TraceWriter, file bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/reader.h"
#include "format/wire.h"
#include "format/writer.h"

namespace gltrace::test {

// Each appends one complete record (Chunk field 1, length, Record).
void encode_header(wire::Encoder& e, uint32_t pid, std::string_view process_name);
void encode_thread(wire::Encoder& e, uint32_t index, uint64_t tid, std::string_view name);
// A call with a few typed args (sint -seq, uint thread, text "t<thread>")
// and a uint return value.
void encode_call(wire::Encoder& e, uint32_t thread, uint64_t seq, uint32_t function);
void encode_frame(wire::Encoder& e, uint64_t number, uint64_t seq);
void encode_blob(wire::Encoder& e, uint64_t id, std::string_view data);

// Writes a trace of `chunks` chunks (a header, then `calls_per_chunk` calls
// per chunk, a frame start in each) and closes it. Fails the test on errors.
void write_small_trace(const std::string& path, int chunks, int calls_per_chunk,
                       const format::WriterOptions& options = {});

std::vector<uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);

// Reads a trace from memory; the decoded lines (RecordText) and how it ended.
struct Decoded {
  bool opened = false;
  bool ok = false;  // read_trace's result
  format::ReadStatus status;
  std::vector<std::string> lines;
};
Decoded decode_memory(const std::vector<uint8_t>& bytes, bool with_chunks = false);

}  // namespace gltrace::test
