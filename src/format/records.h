// Typed views of the records of proto/trace.proto, as decoded from a chunk.
// Strings and bytes point into the chunk buffer, array elements and string
// lists into the decoder's memory: valid during the callback that receives
// them. Absent fields read as zero/empty (proto3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gltrace::format {

struct Header {
  uint32_t format_version = 0;
  uint32_t pid = 0;
  std::string_view process_name;
  std::string_view command_line;
  std::string_view clock_domain;
  uint64_t start_time_ns = 0;
  std::string_view mode;
  std::string_view capture_options;
  bool mid_run = false;
  std::string_view driver;
  std::string_view cut_from;  // gltrace trim: what this trace was cut from
  bool flight_recorder = false;
};

struct Thread {
  uint32_t index = 0;
  uint64_t tid = 0;
  std::string_view name;
};

struct Context {
  uint32_t index = 0;
  uint64_t handle = 0;
  uint64_t display = 0;
  uint64_t config = 0;
  uint64_t share_context = 0;
  int32_t client_version = 0;
  std::vector<int64_t> config_attribs;  // name, value, name, value...
  std::string_view gl_vendor;
  std::string_view gl_renderer;
  std::string_view gl_version;
  uint32_t surface_width = 0;
  uint32_t surface_height = 0;
  int32_t client_type = 0;         // EGL_CONTEXT_CLIENT_TYPE (0: not recorded)
  std::string_view window_system;  // "glx", or empty: EGL
  uint32_t profile_mask = 0;       // desktop GL's GL_CONTEXT_PROFILE_MASK (0: not recorded)
};

// Which member of Value's oneof is set; the numbers are its field numbers.
enum class ValueKind : uint32_t {
  kNone = 0,
  kSint = 1,
  kUint = 2,
  kF32 = 3,
  kF64 = 4,
  kPointer = 5,
  kData = 6,
  kBlob = 7,
  kText = 8,
  kUnknown = 9,
  kStrings = 10,
  kArray = 11,
};

// A recorded value, 32 bytes: the one representation from the decoder to
// the replay's executor (glreplay::Value is this type; calls are read by
// another core than the one that decoded them: every cache line counts).
// Scalars are in the union; what is longer is at `data`, `size` counting it:
// as decoded, bytes and text point into the chunk, array elements and string
// lists into the decoder's memory for the current record (see Consumer).
struct Value {
  // kArray: the type of its elements (the recorder writes one per array;
  // of an array that has several, floats are kept, else sints, else uints).
  enum class Elements : uint8_t { kSint, kUint, kFloat };

  ValueKind kind = ValueKind::kNone;
  Elements elements = Elements::kSint;
  union {  // by kind
    int64_t sint = 0;
    uint64_t uint;
    float f32;
    double f64;
    uint64_t pointer;  // kPointer; kUnknown: Unknown.pointer
    uint64_t blob;     // kBlob: Blob.id
  };
  // kData, kText, kUnknown (the reason): chars; kStrings: string_views;
  // kArray: elements.
  const void* data = nullptr;
  size_t size = 0;

  std::string_view bytes() const {
    if (kind != ValueKind::kData && kind != ValueKind::kText && kind != ValueKind::kUnknown)
      return {};
    return {static_cast<const char*>(data), size};
  }
  std::span<const std::string_view> strings() const {
    if (kind != ValueKind::kStrings) return {};
    return {static_cast<const std::string_view*>(data), size};
  }
  std::span<const int64_t> sints() const { return elements_of<int64_t>(Elements::kSint); }
  std::span<const uint64_t> uints() const { return elements_of<uint64_t>(Elements::kUint); }
  std::span<const float> floats() const { return elements_of<float>(Elements::kFloat); }
  // The bytes of a string list's views or of an array's elements at `data`
  // (0 for other kinds, whose data are `size` chars).
  size_t element_bytes() const {
    if (kind == ValueKind::kStrings) return size * sizeof(std::string_view);
    if (kind != ValueKind::kArray) return 0;
    return size * (elements == Elements::kFloat ? sizeof(float) : sizeof(int64_t));
  }

 private:
  template <typename T>
  std::span<const T> elements_of(Elements type) const {
    if (kind != ValueKind::kArray || elements != type) return {};
    return {static_cast<const T*>(data), size};
  }
};
static_assert(sizeof(Value) == 32);

// Bump memory in blocks that never move, for what decoded values point to
// beyond the chunk (array elements, string lists); reused after reset().
class ValueMemory {
 public:
  // `size` bytes, 16-byte aligned, valid until reset().
  void* take(size_t size);
  // Forgets what was taken; keeps up to kKeepBytes of blocks for reuse (a
  // hostile record must not leave megabytes held).
  void reset() {
    block_ = 0;
    used_ = 0;
    if (held_ > kKeepBytes) trim();
  }
  static constexpr size_t kKeepBytes = size_t{1} << 20;
  // The bytes of its blocks, in use or kept for reuse.
  size_t held() const { return held_; }

 private:
  void trim();

  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::vector<size_t> sizes_;
  size_t held_ = 0;   // the blocks' bytes
  size_t block_ = 0;  // the block being filled
  size_t used_ = 0;   // of it
};

// The part of a client-side vertex array a draw call reads.
struct ClientArray {
  uint32_t index = 0;  // attribute, or texture unit (GL_TEXTURE_COORD_ARRAY)
  uint64_t first = 0;
  uint32_t stride = 0;
  uint64_t pointer = 0;
  std::string_view data;  // inline, or
  uint64_t blob = 0;      // the Blob's id (0: none)
  uint32_t array = 0;     // a GLES 1 array's enum; 0: a generic attribute
};

// Bytes the app wrote into a mapped buffer range.
struct BufferWrite {
  uint32_t target = 0;  // 0 for a named buffer's mapping
  uint64_t offset = 0;
  std::string_view data;  // inline, or
  uint64_t blob = 0;      // the Blob's id (0: none)
  uint32_t buffer = 0;    // a named buffer's mapping: the app's buffer name
};

// eglCreateImage*: the pixels of an image whose source a replay cannot
// recreate, or why they were not read.
struct ImageSource {
  uint32_t width = 0;
  uint32_t height = 0;
  uint64_t blob = 0;  // the Blob's id (0: none)
  std::string_view not_captured;
};

struct Call {
  uint32_t function = 0;
  uint32_t thread = 0;
  uint32_t context = 0;
  uint64_t seq = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint64_t thread_time_ns = 0;
  std::span<const Value> args;
  const Value* ret = nullptr;  // null for void functions
  uint32_t gl_error = 0;
  std::span<const ClientArray> client_arrays;
  std::span<const BufferWrite> buffer_writes;
  bool synthetic = false;
  bool snapshot = false;              // recreates state the app had when the capture began
  std::string_view snapshot_inexact;  // a snapshot call: what it recreates is not exact, why
  bool ends_frame = false;  // a glFinish or glReadPixels that ended an off-screen program's frame
  const ImageSource* image_source = nullptr;  // null when the call has none
  // eglCreate*Surface, eglCreateContext: the config's attributes (name,
  // value...); null when the call has none.
  const std::vector<int64_t>* config_attribs = nullptr;
  // The draw surface's size (0 when not recorded with this call).
  uint32_t surface_width = 0;
  uint32_t surface_height = 0;
};

struct Blob {
  uint64_t id = 0;
  std::string_view data;
};

struct Frame {
  uint64_t number = 0;
  uint64_t seq = 0;
  uint32_t thread = 0;
  uint32_t context = 0;
  uint64_t time_ns = 0;
  uint64_t app_frame = 0;  // live tracing: the app's own frame number
  bool has_app_frame = false;
};

struct Image {
  uint64_t frame = 0;
  uint64_t seq = 0;
  uint32_t width = 0;
  uint32_t height = 0;
  uint64_t blob = 0;
  std::string_view origin;
  uint32_t context = 0;
};

struct Stats {
  uint64_t calls = 0;
  uint64_t frames = 0;
  uint64_t bytes_uncompressed = 0;
  uint64_t stall_count = 0;
  uint64_t stall_ns = 0;
  uint64_t blobs = 0;
  uint64_t blob_bytes_deduplicated = 0;
  std::string_view desktop_gl_libraries;  // space-separated file names
};

struct DesktopGl {
  std::string_view libraries;  // space-separated file names
};

struct GpuTime {
  uint64_t seq = 0;
  uint64_t gpu_start_ns = 0;  // the GPU's clock
  uint64_t duration_ns = 0;
  bool disjoint = false;
};

struct GpuClock {
  uint64_t time_ns = 0;  // the trace's clock
  uint64_t gpu_ns = 0;
};

// Every call with a seq below below_seq is in the chunks before this record.
struct CallsComplete {
  uint64_t below_seq = 0;
};

struct IndexEntry {
  uint64_t frame = 0;
  uint64_t chunk_offset = 0;
  uint64_t seq = 0;
};

struct Index {
  std::vector<IndexEntry> entries;
};

// Receives decoded records in file order. Every callback is a no-op by default.
class Consumer {
 public:
  virtual ~Consumer() = default;
  virtual void on_chunk(uint64_t /*offset*/, uint32_t /*record_count*/) {}
  virtual void on_header(const Header& /*header*/) {}
  virtual void on_thread(const Thread& /*thread*/) {}
  virtual void on_context(const Context& /*context*/) {}
  virtual void on_call(const Call& /*call*/) {}
  virtual void on_blob(const Blob& /*blob*/) {}
  virtual void on_frame(const Frame& /*frame*/) {}
  virtual void on_image(const Image& /*image*/) {}
  virtual void on_stats(const Stats& /*stats*/) {}
  virtual void on_calls_complete(const CallsComplete& /*complete*/) {}
  virtual void on_desktop_gl(const DesktopGl& /*desktop_gl*/) {}
  virtual void on_gpu_time(const GpuTime& /*gpu_time*/) {}
  virtual void on_gpu_clock(const GpuClock& /*gpu_clock*/) {}

  // Whether on_call needs the values of calls of `function`: its args, ret,
  // client arrays, buffer writes and image source. A scan that reads a call's
  // function, seq, thread, times and flags alone says false, and the decoder
  // skips them (their decoding is most of a call's). Asked on the thread
  // that decodes, which may not be on_call's: an answer must depend on the
  // function alone.
  virtual bool wants_values(uint32_t /*function*/) const { return true; }

  // From a callback: stop after the current record.
  void request_stop() { stop_ = true; }
  bool stop_requested() const { return stop_; }
  // Before decoding on (RecordDecoder::decode_chunk with resume).
  void clear_stop_request() { stop_ = false; }

 private:
  bool stop_ = false;
};

// Keeps the records it is given, to hand them on later: read_trace_prefetched
// decodes chunks on its reading thread and delivers them on the caller's.
// Views still point into the chunk's payload, which must outlive replay().
// Memory is reused from one chunk to the next.
class RecordBatch final : public Consumer {
 public:
  // Past about this much memory it keeps nothing more and says overflowed()
  // (a hostile chunk of tiny records must not make it hold gigabytes).
  static constexpr size_t kMaxBytes = size_t{16} << 20;

  RecordBatch();
  ~RecordBatch() override;
  RecordBatch(const RecordBatch&) = delete;
  RecordBatch& operator=(const RecordBatch&) = delete;

  void clear();
  bool overflowed() const { return overflowed_; }
  // Delivers the kept records in order until `consumer` asks to stop.
  void replay(Consumer& consumer) const;
  // The consumer replay() will deliver to, asked which call values to keep.
  void set_destination(const Consumer* destination) { destination_ = destination; }
  bool wants_values(uint32_t function) const override {
    return destination_ == nullptr || destination_->wants_values(function);
  }

  void on_header(const Header& header) override;
  void on_thread(const Thread& thread) override;
  void on_context(const Context& context) override;
  void on_call(const Call& call) override;
  void on_blob(const Blob& blob) override;
  void on_frame(const Frame& frame) override;
  void on_image(const Image& image) override;
  void on_stats(const Stats& stats) override;
  void on_calls_complete(const CallsComplete& complete) override;
  void on_desktop_gl(const DesktopGl& desktop_gl) override;
  void on_gpu_time(const GpuTime& gpu_time) override;
  void on_gpu_clock(const GpuClock& gpu_clock) override;

 private:
  const Consumer* destination_ = nullptr;
  enum class Kind : uint8_t {
    kHeader,
    kThread,
    kContext,
    kCall,
    kBlob,
    kFrame,
    kImage,
    kStats,
    kCallsComplete,
    kDesktopGl,
    kGpuTime,
    kGpuClock
  };
  struct Entry {
    Kind kind;
    uint32_t index;  // into the vector of its kind
  };
  // A Call's spans as offsets (the pools below move when they grow); the
  // return value, if any, follows the args. What few calls have (an image
  // source, config attributes) is a copy in call_extras_ (the decoder's
  // points into its scratch), so the entry of every other call stays a
  // plain copy.
  struct CallEntry {
    Call call;
    size_t first_value, first_array, first_write;
    uint32_t extra;  // index into call_extras_, or kNoExtra
  };
  struct CallExtra {
    ImageSource image_source;
    std::vector<int64_t> config_attribs;
  };
  static constexpr uint32_t kNoExtra = UINT32_MAX;
  template <typename T>
  void keep(Kind kind, std::vector<T>* records, const T& record, size_t extra_bytes = 0);
  bool room(size_t bytes);

  friend class RecordDecoder;  // decodes args straight into values_

  std::vector<Entry> order_;
  std::vector<Header> headers_;
  std::vector<Thread> threads_;
  std::vector<Context> contexts_;
  std::vector<CallEntry> calls_;
  std::vector<CallExtra> call_extras_;
  std::vector<Blob> blobs_;
  std::vector<Frame> frames_;
  std::vector<Image> images_;
  std::vector<Stats> stats_;
  std::vector<CallsComplete> calls_complete_;
  std::vector<DesktopGl> desktop_gl_;
  std::vector<GpuTime> gpu_times_;
  std::vector<GpuClock> gpu_clocks_;
  // Values are assigned over the ones of earlier chunks, so only
  // values_used_ of them are this chunk's.
  std::vector<Value> values_;
  size_t values_used_ = 0;
  // The kept values' array elements and string lists (the decoder's are
  // reused from call to call).
  ValueMemory value_memory_;
  std::vector<ClientArray> client_arrays_;
  std::vector<BufferWrite> buffer_writes_;
  size_t bytes_ = 0;
  bool overflowed_ = false;
};

// Most args (and most client arrays, buffer writes) one Call may hold: a
// bound on what a hostile chunk can make the decoder keep.
inline constexpr size_t kMaxValuesPerCall = 1024;

// Most array elements and strings one Call (or Context) may hold, all its
// values together. A packed integer of one byte decodes to eight, so without
// this a 64 MiB chunk of them would decode to 512 MiB; the writer inlines
// arrays under 256 bytes only (bigger data is bytes or a Blob), far below it.
inline constexpr size_t kMaxElementsPerRecord = size_t{1} << 20;

// Decodes chunk payloads (serialized Chunk messages) into Consumer calls,
// reusing its scratch records. Unknown fields are skipped; a wrong wire type,
// a length past its message or too many values is an error.
class RecordDecoder {
 public:
  RecordDecoder();
  ~RecordDecoder();
  RecordDecoder(const RecordDecoder&) = delete;
  RecordDecoder& operator=(const RecordDecoder&) = delete;

  // False on malformed data; error() says what and names error_offset().
  bool decode_chunk(std::span<const uint8_t> payload, Consumer& consumer);
  // The same, from byte *resume of the payload (0: its start), for a consumer
  // that stops inside a chunk to go on later: *resume is then where the next
  // record starts (payload.size() once the chunk is done). The payload must
  // stay the same between the calls, and no other chunk be decoded between.
  bool decode_chunk(std::span<const uint8_t> payload, Consumer& consumer, size_t* resume);
  // The same into a batch, without copying the calls' args.
  bool decode_chunk(std::span<const uint8_t> payload, RecordBatch& batch);
  // An Index message; at most max_entries entries.
  bool decode_index(std::span<const uint8_t> payload, Index* index, size_t max_entries = SIZE_MAX);

  const std::string& error() const { return error_; }
  size_t error_offset() const { return error_offset_; }  // byte in the payload

 private:
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
  std::string error_;
  size_t error_offset_ = 0;
};

}  // namespace gltrace::format
