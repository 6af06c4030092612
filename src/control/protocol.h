// The control protocol (proto/control.proto): messages, their encoding, and
// the length-prefixed framing. Both ends use it: the server inside the app
// and the host tools. Decoding treats every byte as hostile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gltrace::control {

inline constexpr uint32_t kProtocolVersion = 1;
// Larger frames are refused (and end the connection: the framing is lost).
inline constexpr size_t kMaxMessageSize = 64 * 1024;

// The capture options a request asks to change, or a status reports: the
// control.proto CaptureOptions message, each option present or absent (the
// traced process's effective set is trace::CaptureOptions).
struct CaptureSettings {
  std::optional<bool> framebuffer_on_swap;
  std::optional<bool> framebuffer_on_draw;
  std::optional<bool> texture_data;
  std::optional<bool> thread_time;
};

enum class Command { kNone, kHello, kStart, kStop, kSetOptions, kGetStatus, kDataChannel, kFlight };
const char* command_name(Command command);

struct Request {
  uint32_t version = kProtocolVersion;
  uint64_t id = 0;
  Command command = Command::kNone;
  std::string token;        // hello
  std::string client;       // hello
  CaptureSettings options;  // start, set_options
  uint64_t max_frames = 0;  // start
  std::string mode;         // start ("" = the process's mode)
  int32_t zstd_level = 0;   // start
};

struct Status {
  uint32_t pid = 0;
  std::string process_name;
  std::string state;  // idle, tracing, finishing
  std::string mode;
  uint64_t session = 0;
  uint64_t frames = 0;
  uint64_t calls = 0;
  uint64_t bytes = 0;
  uint64_t stalls = 0;
  uint64_t stall_ns = 0;
  uint64_t app_frames = 0;
  uint32_t threads_tracing = 0;
  CaptureSettings options;
  std::string output;
  uint64_t flight_frames = 0;  // the flight recorder's (all 0 without one)
  uint64_t flight_bytes = 0;
  uint64_t flight_traces = 0;
  uint64_t shadow_bytes = 0;  // copies of compressed uploads (a traceable app's)
  uint64_t shadow_uploaded = 0;
};

struct Reply {
  uint32_t version = kProtocolVersion;
  uint64_t id = 0;
  bool ok = false;
  std::string error;
  std::optional<Status> status;
  std::string path;  // flight: the trace written
};

std::vector<uint8_t> encode(const Request& request);
std::vector<uint8_t> encode(const Reply& reply);
// False with *error (naming the byte offset) on a malformed message. Unknown
// fields are skipped; a request without a command decodes as kNone.
bool decode(const uint8_t* data, size_t size, Request* request, std::string* error);
bool decode(const uint8_t* data, size_t size, Reply* reply, std::string* error);

// Prepends the u32 little-endian length.
std::vector<uint8_t> frame(const std::vector<uint8_t>& message);

// Collects bytes from a stream and cuts them into messages.
class FrameReader {
 public:
  enum class Result { kNeedMore, kMessage, kTooLarge };
  void append(const uint8_t* data, size_t size);
  // kMessage: *message holds the next one. kTooLarge: the stream is unusable.
  Result next(std::vector<uint8_t>* message);
  size_t buffered() const { return buffer_.size() - start_; }

 private:
  std::vector<uint8_t> buffer_;
  size_t start_ = 0;
};

// Blocking helpers on a connected stream socket (never raise SIGPIPE).
// Each returns false with *error on failure or after timeout_ms (-1: none).
bool send_message(int fd, const std::vector<uint8_t>& message, std::string* error);
bool receive_message(int fd, FrameReader* reader, std::vector<uint8_t>* message, int timeout_ms,
                     std::string* error);

}  // namespace gltrace::control
