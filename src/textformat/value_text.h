// Values as readable text, by the kind the API description gives them
// (spec/api.toml, api::kFunctionInfo): enums by name, handles in hex,
// pointer data summarised. The one place a value becomes text: the dumper
// formats decoded calls with it, the trace layer's log and error modes the
// values of a call as it records them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "gltrace/api/functions.h"

namespace gltrace::textformat {

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

  // Moves what was collected to the string (a Text kept from line to line
  // does so only when its buffer is full or its owner writes the string out).
  void flush() {
    out_.append(buffer_, static_cast<size_t>(p_ - buffer_));
    p_ = buffer_;
  }

 private:
  std::string& out_;
  char buffer_[kRoom];
  char* p_ = buffer_;
  char* const end_ = buffer_ + kRoom;
};

// How a value is shown: its kind and, for enums and bits, its group.
struct ValueFormat {
  api::Kind kind = api::Kind::kUint;
  int32_t group = -1;  // api::enum_group of the value's enum group
};

void appendf(Text& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void append_number(Text& out, float value);
void append_number(Text& out, double value);
void append_number(Text& out, int64_t value);
void append_number(Text& out, uint64_t value);
void append_hex(Text& out, uint64_t value);
// An integer as its format says (an enum by name, a handle in hex...);
// `u` and `s` are the same bits, unsigned and signed.
void append_integer(Text& out, uint64_t u, int64_t s, bool is_signed, ValueFormat f);
inline void append_uint(Text& out, uint64_t u, ValueFormat f) {
  append_integer(out, u, static_cast<int64_t>(u), false, f);
}
inline void append_sint(Text& out, int64_t s, ValueFormat f) {
  append_integer(out, static_cast<uint64_t>(s), s, true, f);
}
void append_egl_enum(Text& out, uint64_t value);
// NULL or the address.
void append_pointer(Text& out, uint64_t pointer);
// Text from a trace made safe for a terminal: control characters (an
// escape sequence's ESC too) written as \n, \t, \x1b..., quotes and
// backslashes escaped. append_escaped adds the quotes.
void append_unquoted(Text& out, std::string_view s);
void append_escaped(Text& out, std::string_view s);
// "<N bytes: 01 02 ...>", the first 16.
void append_bytes(Text& out, std::string_view data);
// Pointer data stored apart by its hash; size 0 when it is not known.
void append_blob(Text& out, uint64_t hash, uint64_t size);
// A pointer whose data was not recorded, and why.
void append_unknown(Text& out, uint64_t pointer, std::string_view reason);

// Lists: "{a, b, c}", element i written by each(out, i). An EGL attribute
// list shows (EGL enum, number) pairs: element(i) is its i-th integer.
template <typename Each>
void append_list(Text& out, size_t count, Each each) {
  out += '{';
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) out += ", ";
    each(out, i);
  }
  out += '}';
}
template <typename Element>
void append_attrib_list(Text& out, size_t count, Element element) {
  append_list(out, count, [&](Text& text, size_t i) {
    uint64_t v = element(i);
    if (i % 2 == 0)
      append_egl_enum(text, v);
    else
      append_number(text, static_cast<int64_t>(v));
  });
}

// A function's call text: "glName(" and, per parameter, ", name = " and its
// format, made once per function (finding enum groups is string work).
struct ParamText {
  std::string prefix;  // ", name = " ("name = " for the first)
  ValueFormat format;
};
struct CallText {
  std::string open;
  std::vector<ParamText> params;
  ValueFormat ret;
};
// Nullptr for an id that names no function. Made on first use: a trace calls
// a few dozen of the thousand functions. Thread-safe.
const CallText* find_call_text(uint32_t function);

}  // namespace gltrace::textformat
