#include "textformat/value_text.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <type_traits>

#include "gltrace/api/enums.h"
#include "textformat/float_chars.h"

namespace gltrace::textformat {
namespace {

template <typename T>
void append_any_number(Text& out, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    // Whole numbers (matrices are full of 0 and 1) print as integers: the
    // same text as the shortest round trip, and far cheaper.
    if (value >= -1e6 && value <= 1e6 && value == static_cast<T>(static_cast<int32_t>(value)) &&
        !(value == 0 && std::signbit(value)))
      return append_any_number(out, static_cast<int32_t>(value));
  }
  char* at = out.room(32);
  if constexpr (std::is_same_v<T, float>)
    out.done(float_chars(at, value));
  else
    out.done(std::to_chars(at, at + 32, value).ptr);
}

// The low `digits` hex digits of v, zero-padded, lowercase (printf's %0Nx).
char* hex_digits(char* at, uint64_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i, v >>= 4) at[i] = "0123456789abcdef"[v & 15];
  return at + digits;
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
  // A value whose slot another took looks in the next few (a third of a
  // state-heavy trace's enums missed with one slot each).
  constexpr uint32_t kSlots = 256, kProbes = 4;
  static Slot slots[kSlots];
  uint32_t hash = value ^ (value >> 8) ^ (static_cast<uint32_t>(group) * 37);
  Slot* free_slot = nullptr;
  for (uint32_t i = 0; i < kProbes; ++i) {
    Slot& slot = slots[(hash + i) % kSlots];
    uint8_t state = slot.state.load(std::memory_order_acquire);
    if (state == 2 && slot.value == value && slot.group == group) return slot.name;
    if (state == 0) {
      free_slot = &slot;
      break;
    }
  }
  const char* found = api::enum_name_in(value, group);
  std::string_view name = found != nullptr ? std::string_view(found) : std::string_view();
  uint8_t free = 0;
  if (free_slot != nullptr &&
      free_slot->state.compare_exchange_strong(free, 1, std::memory_order_acquire)) {
    free_slot->value = value;
    free_slot->group = group;
    free_slot->name = name;
    free_slot->state.store(2, std::memory_order_release);
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
    // A bit of the parameter's group only, when it has one.
    const char* in_group = group >= 0 ? api::group_enum_name(mask, group) : nullptr;
    std::string_view name = group < 0             ? enum_name(mask, group)
                            : in_group != nullptr ? in_group
                                                  : "";
    if (name.find("_BIT") != std::string_view::npos)
      out += name;
    else
      append_hex(out, mask);
  }
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

// GLboolean and EGLBoolean: their two names; any other value as a number.
void append_boolean(Text& out, uint64_t u, std::string_view no, std::string_view yes) {
  if (u <= 1)
    out += u == 0 ? no : yes;
  else
    append_number(out, u);
}

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

}  // namespace

void appendf(Text& out, const char* fmt, ...) {
  char* at = out.room(128);
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(at, 128, fmt, args);
  va_end(args);
  if (n > 0) out.done(at + std::min(n, 127));
}

void append_number(Text& out, float value) { append_any_number(out, value); }
void append_number(Text& out, double value) { append_any_number(out, value); }
void append_number(Text& out, int64_t value) { append_any_number(out, value); }
void append_number(Text& out, uint64_t value) { append_any_number(out, value); }

void append_hex(Text& out, uint64_t value) {
  char* at = out.room(24);
  at[0] = '0';
  at[1] = 'x';
  out.done(std::to_chars(at + 2, at + 24, value, 16).ptr);
}

void append_egl_enum(Text& out, uint64_t value) {
  const char* name =
      value <= 0xffffffffu ? api::egl_enum_name(static_cast<uint32_t>(value)) : nullptr;
  if (name != nullptr)
    out += name;
  else
    append_number(out, value);
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
      return append_boolean(out, u, "GL_FALSE", "GL_TRUE");
    case api::Kind::kEglBoolean:
      return append_boolean(out, u, "EGL_FALSE", "EGL_TRUE");
    case api::Kind::kHandle:
      return append_hex(out, u);
    default:
      if (is_signed)
        append_number(out, s);
      else
        append_number(out, u);
  }
}

void append_pointer(Text& out, uint64_t pointer) {
  if (pointer == 0)
    out += "NULL";
  else
    append_hex(out, pointer);
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
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char* at = out.room(4);
          at[0] = '\\';
          at[1] = 'x';
          out.done(hex_digits(at + 2, static_cast<unsigned char>(c), 2));
        } else
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
  out += '<';
  append_number(out, uint64_t{data.size()});
  out += " bytes:";
  char* at = out.room(16 * 3);
  for (size_t i = 0; i < data.size() && i < 16; ++i) {
    auto byte = static_cast<unsigned char>(data[i]);
    *at++ = ' ';
    at = hex_digits(at, byte, 2);
  }
  out.done(at);
  out += data.size() > 16 ? " ...>" : ">";
}

// Written by hand, not by printf: a dump of uploads has one per call, and
// vsnprintf took a sixth of its time.
void append_blob(Text& out, uint64_t hash, uint64_t size) {
  out += "<blob ";
  out.done(hex_digits(out.room(16), hash, 16));
  if (size != 0) {
    out += ", ";
    append_number(out, size);
    out += " bytes";
  }
  out += '>';
}

void append_unknown(Text& out, uint64_t pointer, std::string_view reason) {
  out += '<';
  append_hex(out, pointer);
  out += ", size unknown: ";
  out += reason;
  out += ">";
}

namespace {
// Null until made; made ones are kept for the process's life. Pointers, not
// CallTexts: no static guard to check on each call, nothing to destroy at
// exit while the trace layer may still format on an app's thread.
std::atomic<const CallText*> call_texts[api::kFunctionIdLimit];
}  // namespace

const CallText* find_call_text(uint32_t function) {
  if (function >= api::kFunctionIdLimit) return nullptr;
  // Made before: every call but a function's first.
  if (const CallText* text = call_texts[function].load(std::memory_order_acquire)) [[likely]]
    return text;
  if (api::kFunctionInfo[function].name == nullptr) return nullptr;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const CallText* text = call_texts[function].load(std::memory_order_relaxed);
  if (text == nullptr) {
    text = new CallText(make_call_text(api::kFunctionInfo[function]));
    call_texts[function].store(text, std::memory_order_release);
  }
  return text;
}

}  // namespace gltrace::textformat
