// Protocol-buffer wire format, both ways, without libprotobuf: the capture
// side encodes records straight into a reusable byte buffer (no allocation
// once the buffer has grown), the read side parses with every length
// checked against what is left (traces are hostile input). Shared by the
// trace format (src/format) and the control protocol (src/control).
//
// Not libprotobuf: it would put a large C++ library, and its symbols, into
// every traced app (which may link another protobuf version of its own),
// and its messages allocate where the capture writes into a reused buffer.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

namespace gltrace::wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };
inline constexpr uint64_t kMaxFieldNumber = (1u << 29) - 1;

inline constexpr uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline constexpr int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}
inline constexpr size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

// Copies n bytes, inline for the few bytes of a call's fields (a libc
// memcpy through the PLT costs more than the copy; measured in commit()).
inline uint8_t* copy_small(uint8_t* to, const uint8_t* from, size_t n) {
  if (n > 16 && n <= 64) {  // 16-byte blocks, the last one overlapping
    struct Block {
      uint8_t b[16];
    };
    Block last;
    memcpy(&last, from + n - 16, 16);
    for (size_t i = 0; i + 16 < n; i += 16) {
      Block block;
      memcpy(&block, from + i, 16);
      memcpy(to + i, &block, 16);
    }
    memcpy(to + n - 16, &last, 16);
  } else if (n >= 8 && n <= 16) {
    uint64_t head, tail;
    memcpy(&head, from, 8);
    memcpy(&tail, from + n - 8, 8);
    memcpy(to, &head, 8);
    memcpy(to + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t head, tail;
    memcpy(&head, from, 4);
    memcpy(&tail, from + n - 4, 4);
    memcpy(to, &head, 4);
    memcpy(to + n - 4, &tail, 4);
  } else if (n != 0 && n < 4) {  // 1 to 3: first, middle, last
    uint8_t first = from[0], middle = from[n / 2], last = from[n - 1];
    to[0] = first;
    to[n / 2] = middle;
    to[n - 1] = last;
  } else if (n != 0) {
    memcpy(to, from, n);
  }
  return to + n;
}

// Writes v as a varint at p (up to 10 bytes); returns the end. For callers
// that reserved the room first (Encoder::begin_write): one check per record
// instead of one per byte written.
inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}
inline uint8_t* put_uint_field(uint8_t* p, uint32_t field, uint64_t v) {
  return put_varint(put_varint(p, uint64_t{field} << 3 | kVarint), v);
}

// A growable byte buffer that keeps its memory across clear().
class Encoder {
 public:
  Encoder() = default;
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;
  ~Encoder() { free(data_); }

  void clear() { size_ = 0; }
  const uint8_t* data() const { return data_; }
  uint8_t* data() { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  // Room for `extra` more bytes, allocated now.
  void reserve(size_t extra) {
    if (size_ + extra > capacity_) [[unlikely]]
      grow(extra);
  }
  // Hands the memory to the caller (who frees it with free()); the encoder is empty after.
  uint8_t* release(size_t* size, size_t* capacity) {
    uint8_t* d = data_;
    *size = size_;
    *capacity = capacity_;
    data_ = nullptr;
    size_ = capacity_ = 0;
    return d;
  }
  // Takes over memory from free()-compatible storage (a recycled buffer).
  void adopt(uint8_t* data, size_t capacity) {
    free(data_);
    data_ = data;
    capacity_ = capacity;
    size_ = 0;
  }

  // Room for n more bytes, and where they go; end_write() then says where
  // the bytes written there end.
  uint8_t* begin_write(size_t n) {
    reserve(n);
    return data_ + size_;
  }
  void end_write(const uint8_t* end) { size_ = static_cast<size_t>(end - data_); }

  void raw(const void* bytes, size_t n) {
    reserve(n);
    if (n != 0) memcpy(data_ + size_, bytes, n);
    size_ += n;
  }
  void raw_varint(uint64_t v) { end_write(put_varint(begin_write(10), v)); }
  void tag(uint32_t field, WireType type) { raw_varint((uint64_t{field} << 3) | type); }

  // Fields are always written, also when zero: callers skip defaults they do
  // not want (a oneof member must be present even when it is 0).
  void uint_field(uint32_t field, uint64_t v) {
    tag(field, kVarint);
    raw_varint(v);
  }
  void sint_field(uint32_t field, int64_t v) { uint_field(field, zigzag(v)); }
  void bool_field(uint32_t field, bool v) { uint_field(field, v ? 1 : 0); }
  void fixed64_field(uint32_t field, uint64_t v) {
    tag(field, kFixed64);
    raw(&v, 8);  // little-endian hosts only (x86-64, aarch64)
  }
  void fixed32_field(uint32_t field, uint32_t v) {
    tag(field, kFixed32);
    raw(&v, 4);
  }
  void float_field(uint32_t field, float v) {
    tag(field, kFixed32);
    raw(&v, 4);
  }
  void double_field(uint32_t field, double v) {
    tag(field, kFixed64);
    raw(&v, 8);
  }
  void bytes_field(uint32_t field, const void* bytes, size_t n) {
    tag(field, kLengthDelimited);
    raw_varint(n);
    raw(bytes, n);
  }
  void string_field(uint32_t field, std::string_view s) { bytes_field(field, s.data(), s.size()); }

  // A nested message (or packed field) of unknown length: the content is
  // written after a 5-byte gap, then moved down to follow its real length.
  size_t begin_nested(uint32_t field) {
    return begin_nested_key(uint64_t{field} << 3 | kLengthDelimited);
  }
  // The same after a ready key (a generated kXTag of a length-delimited field).
  size_t begin_nested_key(uint64_t key) {
    raw_varint(key);
    reserve(5);
    size_ += 5;
    return size_;
  }
  void end_nested(size_t mark) {
    size_t length = size_ - mark;
    uint8_t prefix[10];
    size_t n = static_cast<size_t>(put_varint(prefix, length) - prefix);
    uint8_t* start = data_ + mark - 5;
    memcpy(start, prefix, n);
    if (n != 5) memmove(start + n, data_ + mark, length);
    size_ -= 5 - n;
  }

 private:
  // Out of line: the capture's inlined writers then keep their values in
  // registers across the check (an opaque call may change what they point at).
  [[gnu::noinline]] void grow(size_t extra) {
    size_t capacity = capacity_ == 0 ? 4096 : capacity_;
    while (capacity < size_ + extra) capacity *= 2;
    auto* grown = static_cast<uint8_t*>(realloc(data_, capacity));
    if (grown == nullptr) throw std::bad_alloc();
    data_ = grown;
    capacity_ = capacity;
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Reads fields from a byte range; every read checks the bounds. After an
// error, ok() is false and every further read returns zero/empty.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size), begin_(data) {}

  bool ok() const { return ok_; }
  bool done() const { return !ok_ || p_ == end_; }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  const char* error() const { return error_; }
  // Where the first error was found (offset() is the end after an error).
  size_t error_offset() const { return error_offset_; }

  // The next field's number and wire type; false at the end or on error.
  bool next(uint32_t* field, WireType* type) {
    if (done()) return false;
    uint64_t key = varint();
    if (!ok_) return false;
    // Checked before narrowing: a huge number must not alias a real field.
    if ((key >> 3) == 0 || (key >> 3) > kMaxFieldNumber) return fail("field number out of range");
    *field = static_cast<uint32_t>(key >> 3);
    *type = static_cast<WireType>(key & 7);
    return true;
  }
  // Inlined for the one-byte case (most keys, lengths and values): out of
  // line, the call was a tenth of decoding a record.
  [[gnu::always_inline]] uint64_t varint() {
    if (p_ != end_ && *p_ < 0x80) [[likely]]
      return *p_++;
    return long_varint();
  }
  [[gnu::noinline]] uint64_t long_varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return fail("truncated varint"), 0;
      uint8_t byte = *p_++;
      v |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return fail("varint longer than 10 bytes"), 0;
  }
  uint64_t fixed64() {
    uint64_t v = 0;
    if (take(8, &v)) return v;
    return 0;
  }
  uint32_t fixed32() {
    uint32_t v = 0;
    if (take(4, &v)) return v;
    return 0;
  }
  // A length-delimited field's bytes (pointing into the input).
  [[gnu::always_inline]] std::string_view bytes() {
    uint64_t n = varint();
    if (!ok_) return {};
    if (n > static_cast<uint64_t>(end_ - p_))
      return fail("length past the end"), std::string_view();
    std::string_view s(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return s;
  }
  void skip(WireType type) {
    switch (type) {
      case kVarint:
        varint();
        break;
      case kFixed64:
        fixed64();
        break;
      case kFixed32:
        fixed32();
        break;
      case kLengthDelimited:
        bytes();
        break;
      default:
        fail("unknown wire type");
        break;
    }
  }
  bool fail(const char* why) {
    if (ok_) {
      error_ = why;
      error_offset_ = offset();
    }
    ok_ = false;
    p_ = end_;
    return false;
  }

 private:
  bool take(size_t n, void* out) {
    if (static_cast<size_t>(end_ - p_) < n) return fail("truncated fixed-size field");
    memcpy(out, p_, n);
    p_ += n;
    return true;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
  bool ok_ = true;
  const char* error_ = "";
  size_t error_offset_ = 0;
};

}  // namespace gltrace::wire
