// Writes the fuzzer's seed corpus into DIR: small traces written by
// TraceWriter (stored and zstd, as is and with the fix-CRC mode byte) and
// bare chunk payloads. A few KB in all; generated, so nothing binary is
// checked in.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "encode.h"
#include "format/writer.h"

namespace {

using gltrace::format::Payload;
using gltrace::format::TraceWriter;

bool write_seed(const std::string& path, uint8_t mode, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.put(static_cast<char>(mode));
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// A trace of `chunks` chunks through the real writer; its bytes.
std::vector<uint8_t> trace(const std::string& dir, int level, int chunks) {
  std::string path = dir + "/.seed.tmp";
  gltrace::format::WriterOptions options;
  options.zstd_level = level;
  std::string error;
  auto writer = TraceWriter::open_file(path, options, &error);
  if (writer == nullptr) {
    fprintf(stderr, "%s\n", error.c_str());
    return {};
  }
  gltrace::wire::Encoder e;
  gltrace::test::encode_everything(e);
  gltrace::format::FrameStart frame{0, 1};
  writer->submit(Payload::from_encoder(e), gltrace::test::kEverythingRecords, {&frame, 1});
  for (int c = 1; c < chunks; ++c) {
    for (int i = 0; i < 3; ++i) gltrace::test::encode_call(e, 0, 10 * c + i, 2);
    gltrace::test::encode_frame(e, c, 10 * c + 2);
    frame = {static_cast<uint64_t>(c), static_cast<uint64_t>(10 * c)};
    writer->submit(Payload::from_encoder(e), 4, {&frame, 1});
  }
  if (!writer->close(&error)) fprintf(stderr, "%s\n", error.c_str());
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  unlink(path.c_str());
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  bool ok = write_seed(dir + "/stored", 0, trace(dir, 0, 2)) &&
            write_seed(dir + "/zstd", 0, trace(dir, 1, 3)) &&
            write_seed(dir + "/stored-fixcrc", 1, trace(dir, 0, 3)) &&
            write_seed(dir + "/zstd-fixcrc", 1, trace(dir, 1, 2));
  gltrace::wire::Encoder e;
  gltrace::test::encode_everything(e);
  ok = ok && write_seed(dir + "/payload", 2, std::vector<uint8_t>(e.data(), e.data() + e.size()));
  return ok ? 0 : 1;
}
