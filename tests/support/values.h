// Decoded values (format::Value) made by hand, for tests of what reads them:
// the formatter, the replay's validation.
#pragma once

#include <cstdint>
#include <string_view>

#include "format/records.h"

namespace gltrace::test {

inline format::Value sint(int64_t v) {
  format::Value x;
  x.kind = format::ValueKind::kSint;
  x.sint = v;
  return x;
}
inline format::Value uint(uint64_t v) {
  format::Value x;
  x.kind = format::ValueKind::kUint;
  x.uint = v;
  return x;
}
inline format::Value pointer(uint64_t v) {
  format::Value x;
  x.kind = format::ValueKind::kPointer;
  x.pointer = v;
  return x;
}
// Characters or bytes (kString, kData...) viewed where they are: `text` must
// outlive the value.
inline format::Value chars(format::ValueKind kind, std::string_view text) {
  format::Value x;
  x.kind = kind;
  x.data = text.data();
  x.size = text.size();
  return x;
}

}  // namespace gltrace::test
