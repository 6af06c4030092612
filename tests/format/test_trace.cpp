#include "test_trace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "format/schema.h"
#include "record_text.h"

namespace gltrace::test {

namespace s = schema;

void encode_header(wire::Encoder& e, uint32_t pid, std::string_view process_name) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t header = e.begin_nested(s::record::kHeader);
  e.uint_field(s::header::kFormatVersion, 1);
  e.uint_field(s::header::kPid, pid);
  e.string_field(s::header::kProcessName, process_name);
  e.string_field(s::header::kClockDomain, "CLOCK_MONOTONIC");
  e.uint_field(s::header::kStartTimeNs, 123456789);
  e.string_field(s::header::kMode, "full");
  e.end_nested(header);
  e.end_nested(record);
}

void encode_thread(wire::Encoder& e, uint32_t index, uint64_t tid, std::string_view name) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t thread = e.begin_nested(s::record::kThread);
  e.uint_field(s::thread::kIndex, index);
  e.uint_field(s::thread::kTid, tid);
  e.string_field(s::thread::kName, name);
  e.end_nested(thread);
  e.end_nested(record);
}

void encode_call(wire::Encoder& e, uint32_t thread, uint64_t seq, uint32_t function) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t call = e.begin_nested(s::record::kCall);
  e.uint_field(s::call::kFunction, function);
  e.uint_field(s::call::kThread, thread);
  e.uint_field(s::call::kSeq, seq);
  e.uint_field(s::call::kStartNs, seq * 100);
  e.uint_field(s::call::kDurationNs, 7);
  size_t arg = e.begin_nested(s::call::kArgs);
  e.sint_field(s::value::kSint, -static_cast<int64_t>(seq));
  e.end_nested(arg);
  arg = e.begin_nested(s::call::kArgs);
  e.uint_field(s::value::kUint, thread);
  e.end_nested(arg);
  arg = e.begin_nested(s::call::kArgs);
  e.string_field(s::value::kText, "t" + std::to_string(thread));
  e.end_nested(arg);
  size_t ret = e.begin_nested(s::call::kRet);
  e.uint_field(s::value::kUint, seq + 1);
  e.end_nested(ret);
  e.end_nested(call);
  e.end_nested(record);
}

void encode_frame(wire::Encoder& e, uint64_t number, uint64_t seq) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t frame = e.begin_nested(s::record::kFrame);
  e.uint_field(s::frame::kNumber, number);
  e.uint_field(s::frame::kSeq, seq);
  e.end_nested(frame);
  e.end_nested(record);
}

void encode_blob(wire::Encoder& e, uint64_t id, std::string_view data) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t blob = e.begin_nested(s::record::kBlob);
  e.fixed64_field(s::blob::kId, id);
  e.bytes_field(s::blob::kData, data.data(), data.size());
  e.end_nested(blob);
  e.end_nested(record);
}

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
    for (int i = 0; i < calls_per_chunk; ++i, ++records) encode_call(e, 0, seq++, 10 + i);
    encode_frame(e, static_cast<uint64_t>(c), seq - 1);
    ++records;
    writer->submit(format::Payload::from_encoder(e), records, {&frame, 1});
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
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Decoded decode_memory(const std::vector<uint8_t>& bytes, bool with_chunks) {
  Decoded d;
  format::ChunkReader reader;
  d.opened = reader.open_memory(bytes);
  if (!d.opened) {
    d.status = reader.status();
    return d;
  }
  RecordText text;
  text.with_chunks = with_chunks;
  d.ok = format::read_trace(reader, text, &d.status);
  d.lines = std::move(text.lines);
  return d;
}

}  // namespace gltrace::test
