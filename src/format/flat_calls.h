// Flat calls: how a capture thread hands calls to the writer without
// encoding them (issue 27: the app's thread pays a flat copy of the call,
// the writer thread encodes it).
//
// A capture thread's payload is a sequence of entries, each either
//  - a whole Chunk.records field (an encoded Record: a blob, a context, a
//    frame...), as the file stores it; or
//  - a flat call: kFlatCallMarker, a FlatCallHead, [thread time], then
//    args_size bytes of the Call's fields. Those are encoded Call fields
//    (client arrays, a blob's Value...) and flat values: a byte
//    flat_value_byte(kind, ret) (never the first byte of a protobuf key:
//    its wire type would be 7) followed by the value's raw bytes.
// expand_flat_calls() turns such a payload into the Chunk payload the file
// stores: the same bytes the capture thread used to encode itself, so
// readers see no difference. It runs on the writer thread, and in a frozen
// copy of the process (the flight recorder): no allocation, no lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gltrace::format {

// A protobuf key byte with wire type 7, which no field has: a flat call.
inline constexpr uint8_t kFlatCallMarker = 0xff;

struct FlatCallHead {
  uint32_t function = 0;
  uint32_t context = 0;  // 0: none (the field is left out)
  uint64_t seq = 0;
  uint64_t start_ns = 0;  // trace time
  uint64_t duration_ns = 0;
  uint32_t args_size = 0;  // bytes of Call fields after the head (and thread time)
  uint32_t flags = 0;      // kFlat* below
};
inline constexpr uint32_t kFlatThreadTime = 1;  // a uint64 thread time follows the head
inline constexpr uint32_t kFlatSynthetic = 2;
inline constexpr uint32_t kFlatSnapshot = 4;

// The kinds of flat values. Scalars carry 8 bytes (f32: 4); an integer
// array carries a byte (element size, | kFlatSigned), a uint32 count and
// count elements of that size; floats, a uint32 count and the floats;
// data, a uint32 size and the bytes.
enum class FlatValue : uint8_t {
  kUint = 0,
  kSint = 1,
  kPointer = 2,
  kF32 = 3,
  kF64 = 4,
  kInts = 5,
  kFloats = 6,
  kData = 7,
};
inline constexpr uint8_t kFlatSigned = 0x80;
// The byte that starts a flat value: of Call.args, or of Call.ret.
inline constexpr uint8_t flat_value_byte(FlatValue kind, bool ret) {
  return static_cast<uint8_t>((static_cast<unsigned>(kind) | (ret ? 8u : 0u)) << 3 | 7u);
}

// The most bytes expand_flat_calls() writes for this payload: encoded
// records as they are; a flat call's head at most doubles, a byte array's
// elements become varints of up to two bytes, and a call is encoded past
// its final place first. (Not a bound on the whole payload's size: a
// payload of large blobs would need three times its size.)
size_t expanded_room(const uint8_t* data, size_t size);

// Writes the Chunk payload of `size` bytes of flat payload of thread
// `thread` to `out` (expanded_room() bytes of room); returns its size.
// Each flat call becomes Record{call}; each encoded Call record loses its
// seq, start and duration and each Frame record its number, seq and time:
// those go to the chunk's times column, in units of time_unit_ns, which
// comes first (format 3, times_column.h); other encoded records pass
// through. Stops at the first entry it cannot read whole (the payload of a
// thread frozen while appending): *records (if not null) counts the entries
// written.
size_t expand_flat_calls(const uint8_t* data, size_t size, uint32_t thread, uint64_t time_unit_ns,
                         uint8_t* out, uint32_t* records = nullptr);

// Writes the flat payload as one uncompressed chunk to fd, with no
// allocation (memory from mmap): for a frozen copy of the process.
bool write_flat_chunk(int fd, const uint8_t* data, size_t size, uint32_t thread,
                      uint64_t time_unit_ns);

}  // namespace gltrace::format
