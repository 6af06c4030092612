// A recorded call as the replay keeps it: an owned copy of a decoded
// format::Call (the decoder's views die with their chunk), with blob
// references already resolved to the blob's bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/records.h"
#include "replay/increment.h"

namespace gltrace::glreplay {

// Immutable bytes, shared between calls that refer to one blob.
using Bytes = std::shared_ptr<const std::string>;

struct Value {
  // kBlob is resolved on reading: it arrives here as kData (or kUnknown when
  // the blob is missing from the trace).
  format::ValueKind kind = format::ValueKind::kNone;
  int64_t sint = 0;
  uint64_t uint = 0;
  float f32 = 0;
  double f64 = 0;
  uint64_t pointer = 0;  // kPointer, kUnknown
  Bytes bytes;           // kData, kText; kUnknown: the reason
  std::vector<std::string> strings;
  std::vector<int64_t> sints;
  std::vector<uint64_t> uints;
  std::vector<float> floats;
};

struct ClientArray {
  uint32_t index = 0;
  uint64_t first = 0;
  uint32_t stride = 0;
  Bytes data;  // from vertex `first` on
};

struct BufferWrite {
  uint32_t target = 0;
  uint64_t offset = 0;  // from the start of the buffer
  Bytes data;
};

struct Call : replay::IncrementPayload {
  uint32_t function = 0;
  uint32_t thread = 0;
  uint32_t context = 0;  // the trace's Context.index current for the call
  uint64_t seq = 0;
  std::vector<Value> args;
  Value ret;
  bool has_ret = false;
  std::vector<ClientArray> client_arrays;
  std::vector<BufferWrite> buffer_writes;
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
