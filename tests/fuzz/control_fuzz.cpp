// libFuzzer target: the control protocol's framing and decoders on arbitrary
// bytes, as a traceable app's control server meets them. Whatever decodes
// must encode and decode again to the same message (no state the encoder
// cannot express), and an error must say where.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "control/protocol.h"

namespace {

void check(bool ok) {
  if (!ok) abort();
}

void round_trip(const gltrace::control::Request& q) {
  std::vector<uint8_t> bytes = gltrace::control::encode(q);
  gltrace::control::Request again;
  std::string error;
  check(gltrace::control::decode(bytes.data(), bytes.size(), &again, &error));
  check(again.id == q.id && again.command == q.command && again.token == q.token &&
        again.client == q.client && again.max_frames == q.max_frames && again.mode == q.mode &&
        again.zstd_level == q.zstd_level &&
        again.options.framebuffer_on_swap == q.options.framebuffer_on_swap &&
        again.options.framebuffer_on_draw == q.options.framebuffer_on_draw &&
        again.options.texture_data == q.options.texture_data &&
        again.options.thread_time == q.options.thread_time);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gltrace::control;
  std::string error;
  Request request;
  if (decode(data, size, &request, &error)) {
    round_trip(request);
  } else {
    check(error.find("at byte") != std::string::npos);
  }
  Reply reply;
  error.clear();
  if (!decode(data, size, &reply, &error)) check(error.find("at byte") != std::string::npos);
  // The same bytes as a stream, cut into frames.
  FrameReader reader;
  std::vector<uint8_t> message;
  for (size_t i = 0; i < size; i += 7) {
    reader.append(data + i, size - i < 7 ? size - i : 7);
    FrameReader::Result r;
    while ((r = reader.next(&message)) == FrameReader::Result::kMessage)
      check(message.size() <= kMaxMessageSize);
    if (r == FrameReader::Result::kTooLarge) break;
  }
  return 0;
}
