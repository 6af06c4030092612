#include "consumers/value_format.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "consumers/float_chars.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"

namespace gltrace::consumers {
namespace {

// A call's text collects in a buffer on the stack and goes to the string in
// one append, not one per piece (each a capacity check and a call into
// libstdc++); numbers are written in place, not copied from a local buffer.
class Text {
 public:
  explicit Text(std::string& out) : out_(out) {}
  ~Text() { flush(); }
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;

  // Room for n chars (n <= kRoom) at the returned pointer; then done(end).
  char* room(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) flush();
    return p_;
  }
  void done(char* end) { p_ = end; }

  Text& operator+=(char c) {
    *room(1) = c;
    ++p_;
    return *this;
  }
  Text& operator+=(std::string_view s) {
    if (s.size() > kRoom) {
      flush();
      out_ += s;
    } else {
      char* at = room(s.size());
      memcpy(at, s.data(), s.size());
      p_ = at + s.size();
    }
    return *this;
  }

  static constexpr size_t kRoom = 512;

 private:
  void flush() {
    out_.append(buffer_, static_cast<size_t>(p_ - buffer_));
    p_ = buffer_;
  }

  std::string& out_;
  char buffer_[kRoom];
  char* p_ = buffer_;
  char* const end_ = buffer_ + kRoom;
};

void appendf(Text& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(Text& out, const char* fmt, ...) {
  char* at = out.room(128);
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(at, 128, fmt, args);
  va_end(args);
  if (n > 0) out.done(at + std::min(n, 127));
}

template <typename T>
void append_number(Text& out, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    // Whole numbers (matrices are full of 0 and 1) print as integers: the
    // same text as the shortest round trip, and far cheaper.
    if (value >= -1e6 && value <= 1e6 && value == static_cast<T>(static_cast<int32_t>(value)) &&
        !(value == 0 && std::signbit(value)))
      return append_number(out, static_cast<int32_t>(value));
  }
  char* at = out.room(32);
  if constexpr (std::is_same_v<T, float>)
    out.done(float_chars(at, value));
  else
    out.done(std::to_chars(at, at + 32, value).ptr);
}

void append_hex(Text& out, uint64_t value) {
  char* at = out.room(24);
  at[0] = '0';
  at[1] = 'x';
  out.done(std::to_chars(at + 2, at + 24, value, 16).ptr);
}

// The registry finds a name by binary search (and its length by strlen);
// the first enums seen keep theirs here, as a trace repeats a few. Each slot
// is filled once and then only read, without locks: the trace layer's log
// mode formats on the app's threads, and a thread_local cache would not fit
// the layer's static TLS.
std::string_view enum_name(uint32_t value, int32_t group) {
  struct Slot {
    std::atomic<uint8_t> state{0};  // 0: free, 1: being filled, 2: filled
    uint32_t value = 0;
    int32_t group = 0;
    std::string_view name;  // data() null: no name
  };
  static Slot slots[256];
  Slot& slot = slots[(value ^ (value >> 8) ^ (static_cast<uint32_t>(group) * 37)) & 255];
  if (slot.state.load(std::memory_order_acquire) == 2 && slot.value == value && slot.group == group)
    return slot.name;
  const char* found = api::enum_name_in(value, group);
  std::string_view name = found != nullptr ? std::string_view(found) : std::string_view();
  uint8_t free = 0;
  if (slot.state.compare_exchange_strong(free, 1, std::memory_order_acquire)) {
    slot.value = value;
    slot.group = group;
    slot.name = name;
    slot.state.store(2, std::memory_order_release);
  }
  return name;
}

void append_enum(Text& out, uint64_t value, int32_t group) {
  std::string_view name =
      value <= 0xffffffffu ? enum_name(static_cast<uint32_t>(value), group) : std::string_view();
  if (name.data() != nullptr)
    out += name;
  else
    append_hex(out, value);
}

void append_bitfield(Text& out, uint64_t value, int32_t group) {
  if (value == 0) {
    out += "0";
    return;
  }
  bool first = true;
  for (int bit = 0; bit < 32; ++bit) {
    uint32_t mask = 1u << bit;
    if ((value & mask) == 0) continue;
    if (!first) out += " | ";
    first = false;
    std::string_view name = enum_name(mask, group);
    if (name.find("_BIT") != std::string_view::npos)
      out += name;
    else
      append_hex(out, mask);
  }
}

void append_unquoted(Text& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          appendf(out, "\\x%02x", c & 0xff);
        else
          out += c;
    }
  }
}

void append_escaped(Text& out, std::string_view s) {
  out += '"';
  append_unquoted(out, s);
  out += '"';
}

void append_bytes(Text& out, std::string_view data) {
  appendf(out, "<%zu bytes:", data.size());
  for (size_t i = 0; i < data.size() && i < 16; ++i)
    appendf(out, " %02x", static_cast<unsigned char>(data[i]));
  out += data.size() > 16 ? " ...>" : ">";
}

struct ValueFormat {
  api::Kind kind = api::Kind::kUint;
  int32_t group = -1;  // api::enum_group of the value's enum group
};

void append_egl_enum(Text& out, uint64_t value) {
  const char* name =
      value <= 0xffffffffu ? api::egl_enum_name(static_cast<uint32_t>(value)) : nullptr;
  if (name != nullptr)
    out += name;
  else
    append_number(out, value);
}

// Nanoseconds; EGL_FOREVER (all ones) waits without end.
void append_time(Text& out, uint64_t u, int64_t s, bool is_signed) {
  if (!is_signed && u == ~uint64_t{0}) {
    out += "EGL_FOREVER";
    return;
  }
  if (is_signed)
    append_number(out, s);
  else
    append_number(out, u);
  out += " ns";
}

void append_integer(Text& out, uint64_t u, int64_t s, bool is_signed, ValueFormat f) {
  switch (f.kind) {
    case api::Kind::kEnum:
      return append_enum(out, u, f.group);
    case api::Kind::kEglEnum:
      return append_egl_enum(out, u);
    case api::Kind::kBitmask:
      return append_bitfield(out, u, f.group);
    case api::Kind::kTime:
      return append_time(out, u, s, is_signed);
    case api::Kind::kBoolean:
      if (u <= 1)
        out += u == 0 ? "GL_FALSE" : "GL_TRUE";
      else
        append_number(out, u);
      return;
    case api::Kind::kEglBoolean:
      if (u <= 1)
        out += u == 0 ? "EGL_FALSE" : "EGL_TRUE";
      else
        append_number(out, u);
      return;
    case api::Kind::kHandle:
      return append_hex(out, u);
    default:
      if (is_signed)
        append_number(out, s);
      else
        append_number(out, u);
  }
}

void format_value(Text& out, const format::Value& value, ValueFormat f, const BlobSizes& blobs) {
  using format::ValueKind;
  switch (value.kind) {
    case ValueKind::kNone:
      out += "?";
      break;
    case ValueKind::kSint:
      append_integer(out, static_cast<uint64_t>(value.sint), value.sint, true, f);
      break;
    case ValueKind::kUint:
      append_integer(out, value.uint, static_cast<int64_t>(value.uint), false, f);
      break;
    case ValueKind::kF32:
      append_number(out, value.f32);
      break;
    case ValueKind::kF64:
      append_number(out, value.f64);
      break;
    case ValueKind::kPointer:
      if (value.pointer == 0)
        out += "NULL";
      else
        append_hex(out, value.pointer);
      break;
    case ValueKind::kData:
      append_bytes(out, value.bytes);
      break;
    case ValueKind::kBlob: {
      auto it = blobs.find(value.blob);
      if (it != blobs.end())
        appendf(out, "<blob %016" PRIx64 ", %" PRIu64 " bytes>", value.blob, it->second);
      else
        appendf(out, "<blob %016" PRIx64 ">", value.blob);
      break;
    }
    case ValueKind::kText:
      append_escaped(out, value.bytes);
      break;
    case ValueKind::kUnknown:
      appendf(out, "<0x%" PRIx64 ", size unknown: ", value.pointer);
      out += value.bytes;
      out += ">";
      break;
    case ValueKind::kStrings:
      out += "{";
      for (size_t i = 0; i < value.strings.size(); ++i) {
        if (i != 0) out += ", ";
        append_escaped(out, value.strings[i]);
      }
      out += "}";
      break;
    case ValueKind::kArray: {
      out += "{";
      bool first = true;
      auto sep = [&] {
        if (!first) out += ", ";
        first = false;
      };
      for (float v : value.floats) sep(), append_number(out, v);
      for (int64_t s : value.sints)
        sep(), append_integer(out, static_cast<uint64_t>(s), s, true, f);
      for (uint64_t u : value.uints)
        sep(), append_integer(out, u, static_cast<int64_t>(u), false, f);
      out += "}";
      break;
    }
  }
}

// {EGL_RED_SIZE, 8, ..., EGL_NONE}
bool append_egl_attrib_list(Text& out, const format::Value& value) {
  if (value.kind != format::ValueKind::kArray || value.floats.size() != 0) return false;
  out += '{';
  size_t n = value.sints.size() + value.uints.size();
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = i < value.sints.size() ? static_cast<uint64_t>(value.sints[i])
                                        : value.uints[i - value.sints.size()];
    if (i != 0) out += ", ";
    if (i % 2 == 0)
      append_egl_enum(out, v);
    else
      append_number(out, static_cast<int64_t>(v));
  }
  out += '}';
  return true;
}

struct ParamText {
  std::string prefix;  // ", name = "
  ValueFormat format;
};

// What finding enum groups (string work) says about a function, and its
// "glName(" and ", name = " texts: the dumper's hot loop then only appends
// and switches.
struct CallText {
  std::string open;
  std::vector<ParamText> params;
  ValueFormat ret;
};

CallText make_call_text(const api::FunctionInfo& info) {
  CallText text;
  text.open = std::string(info.name) + "(";
  for (uint32_t i = 0; i < info.param_count; ++i) {
    const api::ParamInfo& p = info.params[i];
    text.params.push_back(
        {(i != 0 ? ", " : "") + std::string(p.name) + " = ", {p.kind, api::enum_group(p.group)}});
  }
  text.ret = {info.ret_kind, api::enum_group(info.ret_group)};
  return text;
}

// Made on first use: a trace calls a few dozen of the thousand functions,
// and making them all was a tenth of dumping a short trace.
const CallText& call_text(uint32_t function) {
  static std::atomic<bool> made[api::kFunctionIdLimit];
  static CallText texts[api::kFunctionIdLimit];
  static std::mutex mutex;
  if (!made[function].load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!made[function].load(std::memory_order_relaxed)) {
      texts[function] = make_call_text(api::kFunctionInfo[function]);
      made[function].store(true, std::memory_order_release);
    }
  }
  return texts[function];
}

}  // namespace

std::string escaped(std::string_view text) {
  std::string string;
  {
    Text out(string);
    append_unquoted(out, text);
  }
  return string;
}

namespace {

const CallText* find_call_text(uint32_t function) {
  return function < api::kFunctionIdLimit && api::kFunctionInfo[function].name != nullptr
             ? &call_text(function)
             : nullptr;
}

void append_argument(Text& out, const format::Value& v, const ParamText* param,
                     const BlobSizes& blobs) {
  if (param == nullptr) return format_value(out, v, {}, blobs);
  if (param->format.kind != api::Kind::kAttribList || !append_egl_attrib_list(out, v))
    format_value(out, v, param->format, blobs);
}

void append_arguments(Text& out, const format::Call& call, const CallText* text,
                      const BlobSizes& blobs) {
  for (size_t i = 0; i < call.args.size(); ++i) {
    const ParamText* param =
        text != nullptr && i < text->params.size() ? &text->params[i] : nullptr;
    if (param == nullptr) {
      if (i != 0) out += ", ";
    } else {
      out += param->prefix;
    }
    append_argument(out, call.args[i], param, blobs);
  }
}

void append_result(Text& out, const format::Call& call, const CallText* text,
                   const BlobSizes& blobs) {
  format_value(out, *call.ret, text != nullptr ? text->ret : ValueFormat{}, blobs);
}

}  // namespace

void format_call(std::string& string, const format::Call& call, const BlobSizes& blobs) {
  Text out(string);
  const CallText* text = find_call_text(call.function);
  if (text == nullptr)
    appendf(out, "<unknown function %u>(", call.function);
  else
    out += text->open;
  append_arguments(out, call, text, blobs);
  out += ')';
  if (call.ret != nullptr) {
    out += " = ";
    append_result(out, call, text, blobs);
  }
}

void format_call_arguments(std::string& string, const format::Call& call, const BlobSizes& blobs) {
  Text out(string);
  append_arguments(out, call, find_call_text(call.function), blobs);
}

void format_argument(std::string& string, const format::Call& call, size_t index,
                     const BlobSizes& blobs) {
  if (index >= call.args.size()) return;
  Text out(string);
  const CallText* text = find_call_text(call.function);
  append_argument(out, call.args[index],
                  text != nullptr && index < text->params.size() ? &text->params[index] : nullptr,
                  blobs);
}

void format_result(std::string& string, const format::Call& call, const BlobSizes& blobs) {
  if (call.ret == nullptr) return;
  Text out(string);
  append_result(out, call, find_call_text(call.function), blobs);
}

}  // namespace gltrace::consumers
