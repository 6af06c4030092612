// A recorded call as the replay keeps it: an owned copy of a decoded
// format::Call (the decoder's views die with their chunk), with blob
// references already resolved to the blob's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"
#include "replay/increment.h"

namespace gltrace::glreplay {

// Immutable bytes, shared between calls that refer to one blob.
using Bytes = std::shared_ptr<const std::string>;

// Bump memory for the values of the calls decoded one after another: one
// allocation for many calls instead of several per call, freed when the last
// call using it is gone. Filled by one thread, then read-only.
class CallMemory {
 public:
  explicit CallMemory(size_t capacity)
      : memory_(std::make_unique_for_overwrite<std::byte[]>(capacity)), capacity_(capacity) {}
  // Null when it does not fit.
  void* allocate(size_t size, size_t align) {
    size_t at = (used_ + align - 1) & ~(align - 1);
    if (at > capacity_ || size > capacity_ - at) return nullptr;
    used_ = at + size;
    return memory_.get() + at;
  }

 private:
  std::unique_ptr<std::byte[]> memory_;
  size_t capacity_;
  size_t used_ = 0;
};

// A recorded value. Its views point into the call's CallMemory (or into a
// blob the call holds), so it is trivially destructible; bytes and each of
// strings are followed by a NUL, and bytes are 16-byte aligned.
struct Value {
  // kBlob is resolved on reading: it arrives here as kData (or kUnknown when
  // the blob is missing from the trace).
  format::ValueKind kind = format::ValueKind::kNone;
  int64_t sint = 0;
  uint64_t uint = 0;
  float f32 = 0;
  double f64 = 0;
  uint64_t pointer = 0;    // kPointer, kUnknown
  std::string_view bytes;  // kData, kText; kUnknown: the reason
  std::span<const std::string_view> strings;
  std::span<const int64_t> sints;
  std::span<const uint64_t> uints;
  std::span<const float> floats;
};

struct ClientArray {
  uint32_t index = 0;
  uint64_t first = 0;
  uint32_t stride = 0;
  Bytes data;  // from vertex `first` on; null when the blob is not in the trace
};

struct BufferWrite {
  uint32_t target = 0;
  uint64_t offset = 0;  // from the start of the buffer
  Bytes data;           // null when the blob is not in the trace
};

struct Call : replay::IncrementPayload {
  uint32_t function = 0;
  uint32_t thread = 0;
  uint32_t context = 0;  // the trace's Context.index current for the call
  uint64_t seq = 0;
  std::span<const Value> args;
  Value ret;
  bool has_ret = false;
  std::vector<ClientArray> client_arrays;
  std::vector<BufferWrite> buffer_writes;
  // What the values' views point into.
  std::shared_ptr<const CallMemory> memory;
  std::vector<Bytes> blobs;
};

// A context record: what the replay needs of it (the surface size of its
// first eglMakeCurrent sizes the replay's window surfaces).
struct ContextInfo {
  uint32_t index = 0;
  uint64_t handle = 0;
  int32_t client_version = 0;
  std::vector<int64_t> config_attribs;
  uint32_t surface_width = 0;
  uint32_t surface_height = 0;
};

// A framebuffer the trace captured at a swap.
struct FrameImage {
  uint32_t width = 0;
  uint32_t height = 0;
  Bytes pixels;  // RGBA8, bottom row first
};

}  // namespace gltrace::glreplay
