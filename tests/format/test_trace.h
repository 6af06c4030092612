// Test helpers: small traces written through TraceWriter, file bytes,
// decoding from memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "encode.h"
#include "format/reader.h"
#include "format/writer.h"

namespace gltrace::test {

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
// prefetched: with read_trace_prefetched instead of read_trace.
Decoded decode_memory(const std::vector<uint8_t>& bytes, bool with_chunks = false,
                      bool prefetched = false);

}  // namespace gltrace::test
