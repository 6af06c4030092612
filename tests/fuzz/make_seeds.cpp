// Writes the fuzzer's seed corpus into DIR: small traces written by
// TraceWriter (stored and zstd, as is and with the fix-CRC mode byte) and
// bare chunk payloads. A few KB in all; generated, so nothing binary is
// checked in. With REPLAY_DIR, also the replay_check fuzzer's: a stored trace
// of calls shaped as a GLES app records them (buffers, pixel store, a texture
// upload, a draw from client indices and a client array, read-backs).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "encode.h"
#include "format/encoders.h"
#include "format/schema.h"
#include "format/writer.h"
#include "gltrace/api/functions.h"

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
  writer->submit(Payload::from_encoder(e), {&frame, 1});
  for (int c = 1; c < chunks; ++c) {
    for (int i = 0; i < 3; ++i) gltrace::test::encode_call(e, 0, 10 * c + i, 2);
    gltrace::test::encode_frame(e, c, 10 * c + 2);
    frame = {static_cast<uint64_t>(c), static_cast<uint64_t>(10 * c)};
    writer->submit(Payload::from_encoder(e), {&frame, 1});
  }
  if (!writer->close(&error)) fprintf(stderr, "%s\n", error.c_str());
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  unlink(path.c_str());
  return bytes;
}

class CallWriter {
 public:
  explicit CallWriter(gltrace::wire::Encoder& e) : e_(e) {}
  // Each argument: a Value message's bytes.
  void call(uint32_t function, const std::vector<std::string>& args, uint64_t blob = 0,
            uint32_t stride = 0) {
    namespace schema = gltrace::schema;
    size_t r = schema::chunk::begin_records(e_);
    size_t c = schema::record::begin_call(e_);
    schema::call::set_function(e_, function);
    schema::call::set_thread(e_, 0);
    schema::call::set_context(e_, 1);
    schema::call::set_seq(e_, seq_);
    schema::call::set_start_ns(e_, seq_ * 1000);
    ++seq_;
    for (const std::string& a : args) schema::call::add_args(e_, a.data(), a.size());
    if (blob != 0) {
      size_t m = schema::call::begin_client_arrays(e_);
      schema::client_array::set_index(e_, 0);
      schema::client_array::set_first(e_, 0);
      schema::client_array::set_stride(e_, stride);
      schema::client_array::set_blob(e_, blob);
      e_.end_nested(m);
    }
    e_.end_nested(c);
    e_.end_nested(r);
    ++records_;
  }
  static std::string u(uint64_t v) {
    return one([&](gltrace::wire::Encoder& e) { gltrace::schema::value::set_uint(e, v); });
  }
  static std::string s(int64_t v) {
    return one([&](gltrace::wire::Encoder& e) { gltrace::schema::value::set_sint(e, v); });
  }
  static std::string p(uint64_t v) {
    return one([&](gltrace::wire::Encoder& e) { gltrace::schema::value::set_pointer(e, v); });
  }
  static std::string data(size_t n) {
    std::string bytes(n, '\x01');
    return one([&](gltrace::wire::Encoder& e) { gltrace::schema::value::set_data(e, bytes); });
  }
  static std::string bytes(const std::string& b) {
    return one([&](gltrace::wire::Encoder& e) { gltrace::schema::value::set_data(e, b); });
  }
  static std::string ints(std::initializer_list<int64_t> v) {
    return one([&](gltrace::wire::Encoder& e) {
      size_t a = gltrace::schema::value::begin_array(e);
      size_t m = gltrace::schema::array::begin_sints(e);
      for (int64_t x : v) gltrace::schema::array::pack_sints(e, x);
      e.end_nested(m);
      e.end_nested(a);
    });
  }
  static std::string strings(std::initializer_list<std::string> v) {
    return one([&](gltrace::wire::Encoder& e) {
      size_t a = gltrace::schema::value::begin_strings(e);
      for (const std::string& x : v) gltrace::schema::strings::add_items(e, x);
      e.end_nested(a);
    });
  }
  uint32_t records() const { return records_; }

 private:
  template <typename F>
  static std::string one(F f) {
    gltrace::wire::Encoder e;
    f(e);
    return {reinterpret_cast<const char*>(e.data()), e.size()};
  }
  gltrace::wire::Encoder& e_;
  uint64_t seq_ = 0;
  uint32_t records_ = 0;
};

// A stored trace of GLES calls as an app records them.
std::vector<uint8_t> replay_trace(const std::string& dir) {
  using namespace gltrace::api;  // NOLINT(google-build-using-namespace): kFn_ ids
  using W = CallWriter;
  std::string path = dir + "/.seed.tmp";
  gltrace::format::WriterOptions options;
  options.zstd_level = 0;
  std::string error;
  auto writer = TraceWriter::open_file(path, options, &error);
  if (writer == nullptr) {
    fprintf(stderr, "%s\n", error.c_str());
    return {};
  }
  gltrace::wire::Encoder e;
  gltrace::test::encode_header(e, 1, "seed");
  gltrace::test::encode_thread(e, 0, 1, "main");
  gltrace::test::encode_blob(e, 0xb10b, std::string(48, '\x02'));
  W w(e);
  const uint16_t indices[] = {0, 1, 2, 2, 1, 3};
  w.call(kFn_glBindBuffer, {W::u(0x8892), W::u(1)});  // GL_ARRAY_BUFFER
  w.call(kFn_glBufferData, {W::u(0x8892), W::s(72), W::data(72), W::u(0x88E4)});
  w.call(kFn_glBufferSubData, {W::u(0x8892), W::s(8), W::s(16), W::data(16)});
  w.call(kFn_glBindBuffer, {W::u(0x8892), W::u(0)});
  w.call(kFn_glPixelStorei, {W::u(0x0CF5), W::s(1)});  // GL_UNPACK_ALIGNMENT
  w.call(kFn_glTexImage2D, {W::u(0x0DE1), W::s(0), W::s(0x8058), W::s(4), W::s(4), W::s(0),
                            W::u(0x1908), W::u(0x1401), W::data(64)});
  w.call(kFn_glTexSubImage2D, {W::u(0x0DE1), W::s(0), W::s(1), W::s(1), W::s(2), W::s(2),
                               W::u(0x1908), W::u(0x1401), W::data(16)});
  w.call(kFn_glVertexAttribPointer,
         {W::u(0), W::s(3), W::u(0x1406), W::u(0), W::s(12), W::p(0x1000)});
  w.call(kFn_glDrawElements,
         {W::u(4), W::s(6), W::u(0x1403),
          W::bytes(std::string(reinterpret_cast<const char*>(indices), sizeof indices))},
         0xb10b, 12);
  w.call(kFn_glDrawArrays, {W::u(5), W::s(0), W::s(4)}, 0xb10b, 12);
  w.call(kFn_glReadPixels,
         {W::s(0), W::s(0), W::s(4), W::s(4), W::u(0x1908), W::u(0x1401), W::p(0)});
  w.call(kFn_glGetIntegerv, {W::u(0x0BA2), W::ints({0, 0, 4, 4})});  // GL_VIEWPORT
  w.call(kFn_glUniform4fv, {W::s(0), W::s(1), W::data(16)});
  w.call(kFn_glShaderSource, {W::u(1), W::s(1), W::strings({"void main() {}"}), W::ints({14})});
  w.call(kFn_glTexParameterfv, {W::u(0x0DE1), W::u(0x1004), W::data(16)});
  writer->submit(Payload::from_encoder(e), {});
  if (!writer->close(&error)) fprintf(stderr, "%s\n", error.c_str());
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  unlink(path.c_str());
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s DIR [REPLAY_DIR]\n", argv[0]);
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
  if (argc == 3) {
    std::vector<uint8_t> replay = replay_trace(argv[2]);
    std::ofstream out(std::string(argv[2]) + "/calls", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(replay.data()),
              static_cast<std::streamsize>(replay.size()));
    ok = ok && !replay.empty() && static_cast<bool>(out);
  }
  return ok ? 0 : 1;
}
