// A recorded call as the replay keeps it: an owned copy of a decoded
// format::Call (the decoder's views die with their chunk), with blob
// references already resolved to the blob's bytes.
#pragma once

#include <atomic>
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

// Bump memory for the calls decoded one after another and their values: one
// allocation for many calls instead of several per call. The maker (the
// source's reader thread) places calls in it, then seals it; each call
// releases it when it ends, on whichever thread; the last one frees it.
// Counting is biased so the maker never writes the counter while calls end
// on another core (a shared_ptr per call bounced its cache line per call).
class CallMemory {
 public:
  static CallMemory* create(size_t capacity) { return new CallMemory(capacity); }
  CallMemory(const CallMemory&) = delete;
  CallMemory& operator=(const CallMemory&) = delete;

  // Maker: room for one call (its values included); null when it does not fit.
  void* place(size_t size, size_t align) {
    size_t at = (used_ + align - 1) & ~(align - 1);
    if (at > capacity_ || size > capacity_ - at) return nullptr;
    used_ = at + size;
    ++placed_;
    return memory_.get() + at;
  }
  // Maker: no more calls; freed here if they have all ended.
  void seal() { drop(kOpen - placed_); }
  // A call placed here has ended.
  void release() { drop(1); }

 private:
  static constexpr int64_t kOpen = int64_t{1} << 62;  // more calls than any trace has

  explicit CallMemory(size_t capacity)
      : memory_(std::make_unique_for_overwrite<std::byte[]>(capacity)), capacity_(capacity) {}
  ~CallMemory() = default;
  void drop(int64_t n) {
    if (live_.fetch_sub(n, std::memory_order_acq_rel) == n) delete this;
  }

  std::unique_ptr<std::byte[]> memory_;
  size_t capacity_;
  size_t used_ = 0;     // maker only
  int64_t placed_ = 0;  // maker only
  std::atomic<int64_t> live_{kOpen};
};

// A recorded value: the decoder's type. In a ReplayCall, its data is in the
// call's CallMemory (or in a blob the call holds), so it is trivially
// destructible; bytes and each of strings are followed by a NUL, and bytes
// are 16-byte aligned. kBlob is resolved on reading: it arrives here as
// kData (or kUnknown, the reason, when the blob is missing from the trace).
using Value = format::Value;

struct ClientArray {
  uint32_t index = 0;  // attribute, or texture unit (GL_TEXTURE_COORD_ARRAY)
  uint64_t first = 0;
  uint32_t stride = 0;
  Bytes data;          // from vertex `first` on; null when the blob is not in the trace
  uint32_t array = 0;  // a GLES 1 array's enum; 0: a generic attribute
};

struct BufferWrite {
  uint32_t target = 0;  // 0 for a named buffer's mapping
  uint64_t offset = 0;  // from the start of the buffer
  Bytes data;           // null when the blob is not in the trace
  uint32_t buffer = 0;  // a named buffer's mapping: the buffer as recorded
};

// eglCreateImage*: the pixels of an image whose source the replay cannot
// recreate (not a GL object), or why the trace has none.
struct ImageSource {
  uint32_t width = 0;
  uint32_t height = 0;
  Bytes pixels;  // RGBA8, bottom row first; null when not captured
  std::string not_captured;
};

// One recorded call as replay runs it (format::Call is the decoder's record
// it is made from). Made in the CallMemory of its values (see TraceSource), so it ends by
// destroy(), which releases that memory last. What few calls have (client
// arrays, buffer writes, an image source, config attributes, blobs) is in
// that memory too: the common call is built and ended without a vector or
// a heap pointer to set up or free.
struct ReplayCall final : replay::IncrementPayload {
  uint32_t function = 0;
  uint32_t thread = 0;
  uint32_t context = 0;  // the trace's Context.index current for the call
  uint64_t seq = 0;
  std::span<const Value> args;
  Value ret;
  bool has_ret = false;
  bool snapshot = false;  // recreates state the app had when the capture began
  std::span<const ClientArray> client_arrays;
  std::span<const BufferWrite> buffer_writes;
  const ImageSource* image_source = nullptr;  // eglCreateImage* only
  // eglCreate*Surface, eglCreateContext: every attribute of the config used
  // (name, value...); empty in older traces.
  std::span<const int64_t> config_attribs;
  // The draw surface's size the trace recorded with this call (0: none):
  // after eglMakeCurrent, before a swap, at a frame's first draw that
  // found the window resized.
  uint32_t surface_width = 0;
  uint32_t surface_height = 0;
  // What the values' views (and the call itself) are in.
  CallMemory* memory = nullptr;
  // The blobs the args' data points into.
  std::span<const Bytes> blobs;
  // What it took of its CallMemory (the call and its values).
  size_t placed_bytes = 0;

  // That and the blob bytes it holds, each counted whole though other calls
  // may share it: an upper bound, for --preload's budget.
  size_t memory_bytes() const override {
    size_t bytes = placed_bytes;
    for (const Bytes& blob : blobs)
      if (blob != nullptr) bytes += blob->size();
    for (const ClientArray& array : client_arrays)
      if (array.data != nullptr) bytes += array.data->size();
    for (const BufferWrite& write : buffer_writes)
      if (write.data != nullptr) bytes += write.data->size();
    if (image_source != nullptr && image_source->pixels != nullptr)
      bytes += image_source->pixels->size();
    return bytes;
  }

  void destroy() override {
    CallMemory* in = memory;
    if (!blobs.empty() || !client_arrays.empty() || !buffer_writes.empty() ||
        image_source != nullptr) [[unlikely]]
      destroy_held();
    this->~ReplayCall();
    in->release();
  }

 private:
  // Ends what the call holds (blob bytes shared with other calls and the
  // source's store): out of line, so the common call's destroy() is a few
  // tests.
  [[gnu::noinline]] void destroy_held() {
    std::destroy(blobs.begin(), blobs.end());
    std::destroy(client_arrays.begin(), client_arrays.end());
    std::destroy(buffer_writes.begin(), buffer_writes.end());
    if (image_source != nullptr) std::destroy_at(image_source);
  }
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
  std::string gl_renderer, gl_version;  // the capture's driver (at most kDriverText bytes each)
};
inline constexpr size_t kDriverText = 200;

// A driver as its GL strings name it.
struct DriverStrings {
  std::string vendor, renderer, version;
};

// A framebuffer the trace captured at a swap.
struct FrameImage {
  uint32_t width = 0;
  uint32_t height = 0;
  Bytes pixels;  // RGBA8, bottom row first
};

}  // namespace gltrace::glreplay
