#include "control/protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "control/decoders.h"
#include "control/encoders.h"
#include "control/schema.h"
#include "protowire/wire.h"

namespace gltrace::control {
namespace {

namespace wire = gltrace::wire;

std::vector<uint8_t> to_vector(const wire::Encoder& e) {
  return std::vector<uint8_t>(e.data(), e.data() + e.size());
}

// The fields of a CaptureOptions message a generated begin_options() opened
// at mark `m`; closes it.
void encode_options(wire::Encoder* e, size_t m, const CaptureSettings& o) {
  namespace f = schema::capture_options;
  // Optional fields: present when set, even when false.
  if (o.framebuffer_on_swap) f::set_framebuffer_on_swap(*e, *o.framebuffer_on_swap);
  if (o.framebuffer_on_draw) f::set_framebuffer_on_draw(*e, *o.framebuffer_on_draw);
  if (o.texture_data) f::set_texture_data(*e, *o.texture_data);
  if (o.thread_time) f::set_thread_time(*e, *o.thread_time);
  e->end_nested(m);
}

// The decoder that control/decoders.h's generated decode_<message> functions
// run through (codegen/gltrace_codegen/decoders.py): field readers whose
// errors name the message and the byte of the whole message, and hooks for
// the fields that are no plain copy into Request, Reply and Status.
class Decoder {
 public:
  // A message being read: its reader, where it starts, its name.
  struct Msg {
    wire::Reader r;
    size_t base;
    const char* name;
  };

  Decoder(const uint8_t* data, std::string* error) : data_(data), error_(error) {}

  Msg open(std::string_view bytes, const char* name) const {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    return {wire::Reader(p, bytes.size()), static_cast<size_t>(p - data_), name};
  }
  bool finish(Msg& m) { return m.r.ok() || fail(m); }
  bool nested(Msg& m, uint32_t /*f*/, wire::WireType t, std::string_view* out) {
    return bytes(m, 0, t, out) && (m.r.ok() || fail(m));
  }
  template <typename T>
  bool varint(Msg& m, uint32_t /*f*/, wire::WireType t, T* out) {
    if (!want(m, t, wire::kVarint)) return false;
    uint64_t v = m.r.varint();
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::optional<bool>>)
      *out = v != 0;
    else
      *out = static_cast<T>(v);  // the low bits, as protobuf does
    return true;
  }
  bool bytes(Msg& m, uint32_t /*f*/, wire::WireType t, std::string* out) {
    std::string_view view;
    if (!bytes(m, 0, t, &view)) return false;
    *out = std::string(view);
    return true;
  }
  bool bytes(Msg& m, uint32_t /*f*/, wire::WireType t, std::string_view* out) {
    if (!want(m, t, wire::kLengthDelimited)) return false;
    *out = m.r.bytes();
    return true;
  }

  // Versions saturate: a huge one must not read as a small supported one.
  template <typename Out>
  bool version(Msg& m, wire::WireType t, Out* out) {
    uint64_t v = 0;
    if (!varint(m, 0, t, &v)) return false;
    out->version = v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
    return true;
  }
  bool field_request_version(Msg& m, uint32_t /*f*/, wire::WireType t, Request* q) {
    return version(m, t, q);
  }
  bool field_reply_version(Msg& m, uint32_t /*f*/, wire::WireType t, Reply* p) {
    return version(m, t, p);
  }
  // A oneof: the last member wins and clears what an earlier one set (the
  // same member again merges, as protobuf does). Its members decode into the
  // Request itself.
  static void begin_request_command(Request* q, uint32_t field) {
    namespace f = schema::request;
    Command command = field == f::kHello         ? Command::kHello
                      : field == f::kStart       ? Command::kStart
                      : field == f::kStop        ? Command::kStop
                      : field == f::kSetOptions  ? Command::kSetOptions
                      : field == f::kGetStatus   ? Command::kGetStatus
                      : field == f::kDataChannel ? Command::kDataChannel
                      : field == f::kFlight      ? Command::kFlight
                                                 : Command::kNone;
    if (command == q->command) return;
    Request cleared;
    cleared.version = q->version;
    cleared.id = q->id;
    *q = cleared;
    q->command = command;
  }
  bool field_reply_status(Msg& m, uint32_t f, wire::WireType t, Reply* p) {
    std::string_view body;
    if (!nested(m, f, t, &body)) return false;
    p->status.emplace();
    Msg inner = open(body, "Status");
    return schema::decode_status(*this, inner, &*p->status);
  }

 private:
  bool want(Msg& m, wire::WireType got, wire::WireType expected) {
    if (got == expected) return true;
    m.r.fail("wrong wire type for a known field");
    return fail(m);
  }
  // "malformed capture options at byte 12: truncated varint"
  bool fail(const Msg& m) {
    std::string name;
    for (const char* c = m.name; *c != 0; ++c) {
      if (isupper(static_cast<unsigned char>(*c)) && c != m.name) name += ' ';
      name += static_cast<char>(tolower(static_cast<unsigned char>(*c)));
    }
    *error_ = "malformed " + name + " at byte " + std::to_string(m.base + m.r.error_offset()) +
              ": " + m.r.error();
    return false;
  }

  const uint8_t* data_;
  std::string* error_;
};

template <typename Out>
bool decode_message(const uint8_t* data, size_t size, const char* name, Out* out,
                    std::string* error) {
  Decoder d(data, error);
  Decoder::Msg m = d.open(std::string_view(reinterpret_cast<const char*>(data), size), name);
  if constexpr (std::is_same_v<Out, Request>)
    return schema::decode_request(d, m, out);
  else
    return schema::decode_reply(d, m, out);
}

}  // namespace

const char* command_name(Command command) {
  switch (command) {
    case Command::kNone:
      return "none";
    case Command::kHello:
      return "hello";
    case Command::kStart:
      return "start";
    case Command::kStop:
      return "stop";
    case Command::kSetOptions:
      return "set_options";
    case Command::kGetStatus:
      return "get_status";
    case Command::kDataChannel:
      return "data_channel";
    case Command::kFlight:
      return "flight";
  }
  return "?";
}

std::vector<uint8_t> encode(const Request& q) {
  namespace f = schema::request;
  wire::Encoder e;
  f::set_version(e, q.version);
  f::set_id(e, q.id);
  switch (q.command) {
    case Command::kNone:
      break;
    case Command::kHello: {
      size_t m = f::begin_hello(e);
      if (!q.token.empty()) schema::hello::set_token(e, q.token);
      if (!q.client.empty()) schema::hello::set_client(e, q.client);
      e.end_nested(m);
      break;
    }
    case Command::kStart: {
      size_t m = f::begin_start(e);
      encode_options(&e, schema::start::begin_options(e), q.options);
      if (q.max_frames != 0) schema::start::set_max_frames(e, q.max_frames);
      if (!q.mode.empty()) schema::start::set_mode(e, q.mode);
      if (q.zstd_level != 0) schema::start::set_zstd_level(e, static_cast<uint64_t>(q.zstd_level));
      e.end_nested(m);
      break;
    }
    case Command::kSetOptions: {
      size_t m = f::begin_set_options(e);
      encode_options(&e, schema::set_options::begin_options(e), q.options);
      e.end_nested(m);
      break;
    }
    case Command::kStop:
      f::set_stop(e, nullptr, 0);
      break;
    case Command::kGetStatus:
      f::set_get_status(e, nullptr, 0);
      break;
    case Command::kDataChannel:
      f::set_data_channel(e, nullptr, 0);
      break;
    case Command::kFlight:
      f::set_flight(e, nullptr, 0);
      break;
  }
  return to_vector(e);
}

std::vector<uint8_t> encode(const Reply& p) {
  namespace f = schema::reply;
  wire::Encoder e;
  f::set_version(e, p.version);
  f::set_id(e, p.id);
  f::set_ok(e, p.ok);
  if (!p.error.empty()) f::set_error(e, p.error);
  if (p.status) {
    namespace s = schema::status;
    const Status& st = *p.status;
    size_t m = f::begin_status(e);
    s::set_pid(e, st.pid);
    s::set_process_name(e, st.process_name);
    s::set_state(e, st.state);
    s::set_mode(e, st.mode);
    s::set_session(e, st.session);
    s::set_frames(e, st.frames);
    s::set_calls(e, st.calls);
    s::set_bytes(e, st.bytes);
    s::set_stalls(e, st.stalls);
    s::set_stall_ns(e, st.stall_ns);
    s::set_app_frames(e, st.app_frames);
    s::set_threads_tracing(e, st.threads_tracing);
    encode_options(&e, s::begin_options(e), st.options);
    if (!st.output.empty()) s::set_output(e, st.output);
    if (st.flight_frames != 0) s::set_flight_frames(e, st.flight_frames);
    if (st.flight_bytes != 0) s::set_flight_bytes(e, st.flight_bytes);
    if (st.flight_traces != 0) s::set_flight_traces(e, st.flight_traces);
    if (st.shadow_bytes != 0) s::set_shadow_bytes(e, st.shadow_bytes);
    if (st.shadow_uploaded != 0) s::set_shadow_uploaded(e, st.shadow_uploaded);
    e.end_nested(m);
  }
  if (!p.path.empty()) f::set_path(e, p.path);
  return to_vector(e);
}

bool decode(const uint8_t* data, size_t size, Request* q, std::string* error) {
  *q = Request();
  q->version = 0;
  return decode_message(data, size, "Request", q, error);
}

bool decode(const uint8_t* data, size_t size, Reply* p, std::string* error) {
  *p = Reply();
  p->version = 0;
  return decode_message(data, size, "Reply", p, error);
}

std::vector<uint8_t> frame(const std::vector<uint8_t>& message) {
  std::vector<uint8_t> out(4 + message.size());
  uint32_t n = static_cast<uint32_t>(message.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  if (!message.empty()) memcpy(out.data() + 4, message.data(), message.size());
  return out;
}

void FrameReader::append(const uint8_t* data, size_t size) {
  if (start_ > 0 && start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  }
  buffer_.insert(buffer_.end(), data, data + size);
}

FrameReader::Result FrameReader::next(std::vector<uint8_t>* message) {
  size_t available = buffer_.size() - start_;
  if (available < 4) return Result::kNeedMore;
  const uint8_t* p = buffer_.data() + start_;
  uint32_t n = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  if (n > kMaxMessageSize) return Result::kTooLarge;
  if (available < 4 + size_t{n}) return Result::kNeedMore;
  message->assign(p + 4, p + 4 + n);
  start_ += 4 + n;
  if (start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  }
  return Result::kMessage;
}

bool send_message(int fd, const std::vector<uint8_t>& message, std::string* error) {
  std::vector<uint8_t> bytes = frame(message);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("cannot send: ") + strerror(n < 0 ? errno : EPIPE);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool receive_message(int fd, FrameReader* reader, std::vector<uint8_t>* message, int timeout_ms,
                     std::string* error) {
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    switch (reader->next(message)) {
      case FrameReader::Result::kMessage:
        return true;
      case FrameReader::Result::kTooLarge:
        *error = "message larger than " + std::to_string(kMaxMessageSize) + " bytes";
        return false;
      case FrameReader::Result::kNeedMore:
        break;
    }
    int wait = timeout_ms;
    if (timeout_ms >= 0) {
      timespec now{};
      clock_gettime(CLOCK_MONOTONIC, &now);
      long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
      if (elapsed >= timeout_ms) {
        *error = "no reply within " + std::to_string(timeout_ms) + " ms";
        return false;
      }
      wait = static_cast<int>(timeout_ms - elapsed);
    }
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      *error = std::string("poll: ") + strerror(errno);
      return false;
    }
    if (ready == 0) continue;
    uint8_t buffer[4096];
    ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("cannot receive: ") + strerror(errno);
      return false;
    }
    if (n == 0) {
      *error = "the connection was closed";
      return false;
    }
    reader->append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace gltrace::control
