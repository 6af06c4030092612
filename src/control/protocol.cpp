#include "control/protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "control/schema.h"
#include "protowire/wire.h"

namespace gltrace::control {
namespace {

namespace wire = gltrace::wire;

std::vector<uint8_t> to_vector(const wire::Encoder& e) {
  return std::vector<uint8_t>(e.data(), e.data() + e.size());
}

void encode_options(wire::Encoder* e, uint32_t field, const CaptureOptions& o) {
  size_t m = e->begin_nested(field);
  namespace f = schema::capture_options;
  // Optional fields: present when set, even when false.
  if (o.framebuffer_on_swap) e->bool_field(f::kFramebufferOnSwap, *o.framebuffer_on_swap);
  if (o.framebuffer_on_draw) e->bool_field(f::kFramebufferOnDraw, *o.framebuffer_on_draw);
  if (o.texture_data) e->bool_field(f::kTextureData, *o.texture_data);
  if (o.thread_time) e->bool_field(f::kThreadTime, *o.thread_time);
  e->end_nested(m);
}

std::string where(const wire::Reader& r, const char* message) {
  return std::string("malformed ") + message + " at byte " + std::to_string(r.error_offset()) +
         ": " + r.error();
}

// Reads one field of an expected wire type; a mismatch is an error.
bool expect(wire::Reader& r, wire::WireType got, wire::WireType want) {
  if (got == want) return true;
  return r.fail("wrong wire type for a known field");
}

bool decode_options(std::string_view bytes, CaptureOptions* o, std::string* error) {
  wire::Reader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint32_t field;
  wire::WireType type;
  namespace f = schema::capture_options;
  while (r.next(&field, &type)) {
    std::optional<bool>* target = field == f::kFramebufferOnSwap   ? &o->framebuffer_on_swap
                                  : field == f::kFramebufferOnDraw ? &o->framebuffer_on_draw
                                  : field == f::kTextureData       ? &o->texture_data
                                  : field == f::kThreadTime        ? &o->thread_time
                                                                   : nullptr;
    if (target == nullptr) {
      r.skip(type);
    } else if (expect(r, type, wire::kVarint)) {
      *target = r.varint() != 0;
    }
  }
  if (!r.ok()) *error = where(r, "capture options");
  return r.ok();
}

bool decode_status(std::string_view bytes, Status* s, std::string* error) {
  wire::Reader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint32_t field;
  wire::WireType type;
  namespace f = schema::status;
  while (r.next(&field, &type)) {
    uint64_t* number = field == f::kSession     ? &s->session
                       : field == f::kFrames    ? &s->frames
                       : field == f::kCalls     ? &s->calls
                       : field == f::kBytes     ? &s->bytes
                       : field == f::kStalls    ? &s->stalls
                       : field == f::kStallNs   ? &s->stall_ns
                       : field == f::kAppFrames ? &s->app_frames
                                                : nullptr;
    std::string* text = field == f::kProcessName ? &s->process_name
                        : field == f::kState     ? &s->state
                        : field == f::kMode      ? &s->mode
                        : field == f::kOutput    ? &s->output
                                                 : nullptr;
    if (number != nullptr) {
      if (expect(r, type, wire::kVarint)) *number = r.varint();
    } else if (text != nullptr) {
      if (expect(r, type, wire::kLengthDelimited)) *text = std::string(r.bytes());
    } else if (field == f::kPid || field == f::kThreadsTracing) {
      if (expect(r, type, wire::kVarint))
        (field == f::kPid ? s->pid : s->threads_tracing) = static_cast<uint32_t>(r.varint());
    } else if (field == f::kOptions) {
      if (expect(r, type, wire::kLengthDelimited) && !decode_options(r.bytes(), &s->options, error))
        return false;
    } else {
      r.skip(type);
    }
  }
  if (!r.ok()) *error = where(r, "status");
  return r.ok();
}

bool decode_start(std::string_view bytes, Request* q, std::string* error) {
  wire::Reader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint32_t field;
  wire::WireType type;
  namespace f = schema::start;
  while (r.next(&field, &type)) {
    if (field == f::kOptions) {
      if (expect(r, type, wire::kLengthDelimited) && !decode_options(r.bytes(), &q->options, error))
        return false;
    } else if (field == f::kMaxFrames) {
      if (expect(r, type, wire::kVarint)) q->max_frames = r.varint();
    } else if (field == f::kMode) {
      if (expect(r, type, wire::kLengthDelimited)) q->mode = std::string(r.bytes());
    } else if (field == f::kZstdLevel) {
      if (expect(r, type, wire::kVarint)) q->zstd_level = static_cast<int32_t>(r.varint());
    } else {
      r.skip(type);
    }
  }
  if (!r.ok()) *error = where(r, "start");
  return r.ok();
}

bool decode_hello(std::string_view bytes, Request* q, std::string* error) {
  wire::Reader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint32_t field;
  wire::WireType type;
  while (r.next(&field, &type)) {
    if (field == schema::hello::kToken || field == schema::hello::kClient) {
      if (expect(r, type, wire::kLengthDelimited))
        (field == schema::hello::kToken ? q->token : q->client) = std::string(r.bytes());
    } else {
      r.skip(type);
    }
  }
  if (!r.ok()) *error = where(r, "hello");
  return r.ok();
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
  }
  return "?";
}

std::vector<uint8_t> encode(const Request& q) {
  namespace f = schema::request;
  wire::Encoder e;
  e.uint_field(f::kVersion, q.version);
  e.uint_field(f::kId, q.id);
  switch (q.command) {
    case Command::kNone:
      break;
    case Command::kHello: {
      size_t m = e.begin_nested(f::kHello);
      if (!q.token.empty()) e.string_field(schema::hello::kToken, q.token);
      if (!q.client.empty()) e.string_field(schema::hello::kClient, q.client);
      e.end_nested(m);
      break;
    }
    case Command::kStart: {
      size_t m = e.begin_nested(f::kStart);
      encode_options(&e, schema::start::kOptions, q.options);
      if (q.max_frames != 0) e.uint_field(schema::start::kMaxFrames, q.max_frames);
      if (!q.mode.empty()) e.string_field(schema::start::kMode, q.mode);
      if (q.zstd_level != 0)
        e.uint_field(schema::start::kZstdLevel, static_cast<uint64_t>(q.zstd_level));
      e.end_nested(m);
      break;
    }
    case Command::kSetOptions: {
      size_t m = e.begin_nested(f::kSetOptions);
      encode_options(&e, schema::set_options::kOptions, q.options);
      e.end_nested(m);
      break;
    }
    case Command::kStop:
      e.bytes_field(f::kStop, nullptr, 0);
      break;
    case Command::kGetStatus:
      e.bytes_field(f::kGetStatus, nullptr, 0);
      break;
    case Command::kDataChannel:
      e.bytes_field(f::kDataChannel, nullptr, 0);
      break;
  }
  return to_vector(e);
}

std::vector<uint8_t> encode(const Reply& p) {
  namespace f = schema::reply;
  wire::Encoder e;
  e.uint_field(f::kVersion, p.version);
  e.uint_field(f::kId, p.id);
  e.bool_field(f::kOk, p.ok);
  if (!p.error.empty()) e.string_field(f::kError, p.error);
  if (p.status) {
    namespace s = schema::status;
    const Status& st = *p.status;
    size_t m = e.begin_nested(f::kStatus);
    e.uint_field(s::kPid, st.pid);
    e.string_field(s::kProcessName, st.process_name);
    e.string_field(s::kState, st.state);
    e.string_field(s::kMode, st.mode);
    e.uint_field(s::kSession, st.session);
    e.uint_field(s::kFrames, st.frames);
    e.uint_field(s::kCalls, st.calls);
    e.uint_field(s::kBytes, st.bytes);
    e.uint_field(s::kStalls, st.stalls);
    e.uint_field(s::kStallNs, st.stall_ns);
    e.uint_field(s::kAppFrames, st.app_frames);
    e.uint_field(s::kThreadsTracing, st.threads_tracing);
    encode_options(&e, s::kOptions, st.options);
    if (!st.output.empty()) e.string_field(s::kOutput, st.output);
    e.end_nested(m);
  }
  return to_vector(e);
}

bool decode(const uint8_t* data, size_t size, Request* q, std::string* error) {
  *q = Request();
  q->version = 0;
  wire::Reader r(data, size);
  uint32_t field;
  wire::WireType type;
  namespace f = schema::request;
  while (r.next(&field, &type)) {
    if (field == f::kVersion || field == f::kId) {
      if (!expect(r, type, wire::kVarint)) break;
      uint64_t v = r.varint();
      if (field == f::kId)
        q->id = v;
      else
        q->version = v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
      continue;
    }
    Command command = field == f::kHello         ? Command::kHello
                      : field == f::kStart       ? Command::kStart
                      : field == f::kStop        ? Command::kStop
                      : field == f::kSetOptions  ? Command::kSetOptions
                      : field == f::kGetStatus   ? Command::kGetStatus
                      : field == f::kDataChannel ? Command::kDataChannel
                                                 : Command::kNone;
    if (command == Command::kNone) {
      r.skip(type);
      continue;
    }
    if (!expect(r, type, wire::kLengthDelimited)) break;
    std::string_view body = r.bytes();
    if (!r.ok()) break;
    if (command != q->command) {
      // A oneof: the last member wins and clears what an earlier one set
      // (the same member again merges, as protobuf does).
      Request cleared;
      cleared.version = q->version;
      cleared.id = q->id;
      *q = cleared;
      q->command = command;
    }
    bool ok = true;
    if (command == Command::kHello) ok = decode_hello(body, q, error);
    if (command == Command::kStart) ok = decode_start(body, q, error);
    if (command == Command::kSetOptions) {
      wire::Reader inner(reinterpret_cast<const uint8_t*>(body.data()), body.size());
      uint32_t f2;
      wire::WireType t2;
      while (ok && inner.next(&f2, &t2)) {
        if (f2 == schema::set_options::kOptions && t2 == wire::kLengthDelimited)
          ok = decode_options(inner.bytes(), &q->options, error);
        else
          inner.skip(t2);
      }
      if (ok && !inner.ok()) {
        *error = where(inner, "set_options");
        ok = false;
      }
    }
    if (!ok) return false;
  }
  if (!r.ok()) {
    *error = where(r, "request");
    return false;
  }
  return true;
}

bool decode(const uint8_t* data, size_t size, Reply* p, std::string* error) {
  *p = Reply();
  p->version = 0;
  wire::Reader r(data, size);
  uint32_t field;
  wire::WireType type;
  namespace f = schema::reply;
  while (r.next(&field, &type)) {
    if (field == f::kVersion || field == f::kId || field == f::kOk) {
      if (!expect(r, type, wire::kVarint)) break;
      uint64_t v = r.varint();
      if (field == f::kVersion) p->version = v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
      if (field == f::kId) p->id = v;
      if (field == f::kOk) p->ok = v != 0;
    } else if (field == f::kError) {
      if (expect(r, type, wire::kLengthDelimited)) p->error = std::string(r.bytes());
    } else if (field == f::kStatus) {
      if (!expect(r, type, wire::kLengthDelimited)) break;
      p->status.emplace();
      if (!decode_status(r.bytes(), &*p->status, error)) return false;
    } else {
      r.skip(type);
    }
  }
  if (!r.ok()) {
    *error = where(r, "reply");
    return false;
  }
  return true;
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
