#include "format/records.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "format/schema.h"
#include "protowire/wire.h"

namespace gltrace::format {
namespace {

using wire::WireType;
namespace s = schema;

// A message being read: its reader, where it starts in the payload, its name.
struct Msg {
  Msg(std::string_view bytes, size_t base_in, const char* name_in)
      : r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
        base(base_in),
        name(name_in) {}
  wire::Reader r;
  size_t base;
  const char* name;
};

// Resets a record by copying an empty one: for `record = T{}` GCC zeroes
// with rep stos, whose start-up cost was a sixth of decoding a call.
template <typename T>
void clear_record(T* record) {
  static const T kEmpty{};
  *record = kEmpty;
}

// A pooled vector keeps its memory for the next value unless it grew past
// what the writer ever puts in one value (arrays under 256 bytes are inline):
// hostile values must not leave every pool slot holding megabytes.
template <typename T>
void clear_pooled(std::vector<T>* items) {
  constexpr size_t kKeepCapacity = 256;
  if (items->capacity() > kKeepCapacity)
    *items = {};
  else
    items->clear();
}

void reset(Value* v) {
  v->kind = ValueKind::kNone;
  v->sint = 0;
  v->uint = 0;
  v->f32 = 0;
  v->f64 = 0;
  v->pointer = 0;
  v->blob = 0;
  v->bytes = {};
  clear_pooled(&v->strings);
  clear_pooled(&v->sints);
  clear_pooled(&v->uints);
  clear_pooled(&v->floats);
}

// Copies a value over a pooled one; its vectors keep their memory, and the
// common scalar values skip the calls into them.
void assign(Value* to, const Value& from) {
  auto copy = [](auto* to_items, const auto& from_items) {
    if (from_items.empty())
      to_items->clear();
    else
      to_items->assign(from_items.begin(), from_items.end());
  };
  to->kind = from.kind;
  to->sint = from.sint;
  to->uint = from.uint;
  to->f32 = from.f32;
  to->f64 = from.f64;
  to->pointer = from.pointer;
  to->blob = from.blob;
  to->bytes = from.bytes;
  copy(&to->strings, from.strings);
  copy(&to->sints, from.sints);
  copy(&to->uints, from.uints);
  copy(&to->floats, from.floats);
}

}  // namespace

struct RecordDecoder::Scratch {
  const uint8_t* payload = nullptr;
  std::string error;
  size_t error_offset = 0;

  Header header;
  Thread thread;
  Context context;
  Call call;
  Blob blob;
  Frame frame;
  Image image;
  Stats stats;
  CallsComplete calls_complete;
  std::vector<Value> args;
  Value ret;
  RecordBatch* batch = nullptr;  // decode_chunk() into a batch
  std::vector<ClientArray> client_arrays;
  std::vector<BufferWrite> buffer_writes;
  ImageSource image_source;
  std::vector<int64_t> config_attribs;
  // Calls are delta-coded against the previous call of their thread in the
  // same chunk (proto/trace.proto, Call): what that call had.
  struct ThreadPosition {
    uint64_t start_ns = 0;
    uint64_t seq = 0;
  };
  // A few threads per chunk are the rule: looked up in a small vector, then
  // (a hostile chunk naming many threads) in a hash map.
  static constexpr size_t kFewThreads = 8;
  std::vector<std::pair<uint32_t, ThreadPosition>> positions;
  std::unordered_map<uint32_t, ThreadPosition> many_positions;
  // Array elements and strings the record being decoded may still add.
  size_t elements_left = 0;

  bool fail(size_t offset, const char* fmt, ...) __attribute__((format(printf, 3, 4))) {
    char why[256];
    va_list list;
    va_start(list, fmt);
    vsnprintf(why, sizeof why, fmt, list);
    va_end(list);
    error = why;
    error_offset = offset;
    return false;
  }
  // The reader's own error (truncation, bad length), at the byte it was found.
  bool fail_reader(const Msg& m) {
    return fail(m.base + m.r.error_offset(), "in %s: %s", m.name, m.r.error());
  }
  // Errors name the offset of the field's key.
  bool want(const Msg& m, uint32_t field, WireType got, WireType expected) {
    if (got == expected) return true;
    size_t key = wire::varint_size((uint64_t{field} << 3) | got);
    return fail(m.base + m.r.offset() - key, "%s field %u has wire type %u, expected %u", m.name,
                field, static_cast<unsigned>(got), static_cast<unsigned>(expected));
  }
  size_t offset_of(std::string_view bytes) const {
    return static_cast<size_t>(reinterpret_cast<const uint8_t*>(bytes.data()) - payload);
  }

  // Field readers: check the wire type, then read (errors surface through m.r.ok()).
  bool u64(Msg& m, uint32_t f, WireType t, uint64_t* out) {
    if (!want(m, f, t, wire::kVarint)) return false;
    *out = m.r.varint();
    return true;
  }
  bool u32(Msg& m, uint32_t f, WireType t, uint32_t* out) {
    uint64_t v = 0;
    if (!u64(m, f, t, &v)) return false;
    *out = static_cast<uint32_t>(v);  // as protobuf does: keep the low 32 bits
    return true;
  }
  bool fixed64(Msg& m, uint32_t f, WireType t, uint64_t* out) {
    if (!want(m, f, t, wire::kFixed64)) return false;
    *out = m.r.fixed64();
    return true;
  }
  bool str(Msg& m, uint32_t f, WireType t, std::string_view* out) {
    if (!want(m, f, t, wire::kLengthDelimited)) return false;
    *out = m.r.bytes();
    return true;
  }
  // A nested message's bytes.
  bool sub(Msg& m, uint32_t f, WireType t, std::string_view* out) {
    return str(m, f, t, out) && (m.r.ok() || fail_reader(m));
  }
  bool finish(Msg& m) { return m.r.ok() || fail_reader(m); }

  // Takes n elements from the record's budget.
  bool take_elements(const Msg& m, size_t n) {
    if (n <= elements_left) {
      elements_left -= n;
      return true;
    }
    return fail(m.base + m.r.offset(), "%s has more than %zu array elements", m.name,
                kMaxElementsPerRecord);
  }

  // Repeated integers, packed or not.
  template <typename T, bool kZigzag>
  bool ints(Msg& m, uint32_t f, WireType t, std::vector<T>* out) {
    if (t == wire::kVarint) {
      if (!take_elements(m, 1)) return false;
      uint64_t v = m.r.varint();
      out->push_back(kZigzag ? static_cast<T>(wire::unzigzag(v)) : static_cast<T>(v));
      return true;
    }
    std::string_view bytes;
    if (!sub(m, f, t, &bytes)) return false;
    // Every element is at least a byte, so growth is bounded by the field's length.
    Msg packed(bytes, offset_of(bytes), m.name);
    while (!packed.r.done()) {
      uint64_t v = packed.r.varint();
      if (!packed.r.ok()) break;
      if (!take_elements(packed, 1)) return false;
      out->push_back(kZigzag ? static_cast<T>(wire::unzigzag(v)) : static_cast<T>(v));
    }
    return finish(packed);
  }
  bool floats(Msg& m, uint32_t f, WireType t, std::vector<float>* out) {
    if (t == wire::kFixed32) {
      if (!take_elements(m, 1)) return false;
      uint32_t bits = m.r.fixed32();
      float v = 0;
      memcpy(&v, &bits, 4);
      out->push_back(v);
      return true;
    }
    std::string_view bytes;
    if (!sub(m, f, t, &bytes)) return false;
    if (bytes.size() % 4 != 0) {
      return fail(offset_of(bytes), "in %s: packed floats of %zu bytes, not a multiple of 4",
                  m.name, bytes.size());
    }
    if (!take_elements(m, bytes.size() / 4)) return false;
    size_t first = out->size();
    out->resize(first + bytes.size() / 4);
    if (!bytes.empty()) memcpy(out->data() + first, bytes.data(), bytes.size());
    return true;
  }

  bool decode_header(std::string_view bytes) {
    clear_record(&header);
    Msg m(bytes, offset_of(bytes), "Header");
    uint32_t f = 0;
    WireType t{};
    uint64_t v = 0;
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::header::kFormatVersion:
          ok = u32(m, f, t, &header.format_version);
          break;
        case s::header::kPid:
          ok = u32(m, f, t, &header.pid);
          break;
        case s::header::kProcessName:
          ok = str(m, f, t, &header.process_name);
          break;
        case s::header::kCommandLine:
          ok = str(m, f, t, &header.command_line);
          break;
        case s::header::kClockDomain:
          ok = str(m, f, t, &header.clock_domain);
          break;
        case s::header::kStartTimeNs:
          ok = u64(m, f, t, &header.start_time_ns);
          break;
        case s::header::kMode:
          ok = str(m, f, t, &header.mode);
          break;
        case s::header::kCaptureOptions:
          ok = str(m, f, t, &header.capture_options);
          break;
        case s::header::kMidRun:
          ok = u64(m, f, t, &v);
          header.mid_run = v != 0;
          break;
        case s::header::kDriver:
          ok = str(m, f, t, &header.driver);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_thread(std::string_view bytes) {
    clear_record(&thread);
    Msg m(bytes, offset_of(bytes), "Thread");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::thread::kIndex:
          ok = u32(m, f, t, &thread.index);
          break;
        case s::thread::kTid:
          ok = u64(m, f, t, &thread.tid);
          break;
        case s::thread::kName:
          ok = str(m, f, t, &thread.name);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_context(std::string_view bytes) {
    context.config_attribs.clear();
    std::vector<int64_t> attribs;
    attribs.swap(context.config_attribs);  // keep the capacity across records
    context = Context{};
    context.config_attribs.swap(attribs);
    clear_pooled(&context.config_attribs);
    elements_left = kMaxElementsPerRecord;
    Msg m(bytes, offset_of(bytes), "Context");
    uint32_t f = 0;
    WireType t{};
    uint64_t v = 0;
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::context::kIndex:
          ok = u32(m, f, t, &context.index);
          break;
        case s::context::kHandle:
          ok = u64(m, f, t, &context.handle);
          break;
        case s::context::kDisplay:
          ok = u64(m, f, t, &context.display);
          break;
        case s::context::kConfig:
          ok = u64(m, f, t, &context.config);
          break;
        case s::context::kShareContext:
          ok = u64(m, f, t, &context.share_context);
          break;
        case s::context::kClientVersion:
          ok = u64(m, f, t, &v);
          context.client_version = static_cast<int32_t>(v);
          break;
        case s::context::kConfigAttribs:
          ok = ints<int64_t, false>(m, f, t, &context.config_attribs);
          break;
        case s::context::kGlVendor:
          ok = str(m, f, t, &context.gl_vendor);
          break;
        case s::context::kGlRenderer:
          ok = str(m, f, t, &context.gl_renderer);
          break;
        case s::context::kGlVersion:
          ok = str(m, f, t, &context.gl_version);
          break;
        case s::context::kSurfaceWidth:
          ok = u32(m, f, t, &context.surface_width);
          break;
        case s::context::kSurfaceHeight:
          ok = u32(m, f, t, &context.surface_height);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  // Sets the oneof member (the last one present wins, as in protobuf).
  static void set_kind(Value* v, ValueKind kind) {
    if (v->kind == kind) return;
    if (v->kind != ValueKind::kNone) reset(v);  // kNone: nothing set yet
    v->kind = kind;
  }

  // Most values are one integer field, which this reads without the general
  // loop; false for anything else (and for malformed input, left to the loop).
  static bool decode_integer_value(std::string_view bytes, Value* v) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    if (bytes.size() < 2 || bytes.size() > 11 || (p[0] & 7) != wire::kVarint) return false;
    uint32_t field = p[0] >> 3;
    if (field != s::value::kSint && field != s::value::kUint && field != s::value::kPointer)
      return false;
    uint64_t raw = 0;
    for (size_t i = 1, shift = 0; i < bytes.size(); ++i, shift += 7) {
      raw |= uint64_t{p[i] & 0x7fu} << shift;
      if ((p[i] & 0x80) != 0) continue;
      if (i + 1 != bytes.size()) return false;  // more fields follow
      v->kind = static_cast<ValueKind>(field);
      if (field == s::value::kSint)
        v->sint = wire::unzigzag(raw);
      else if (field == s::value::kUint)
        v->uint = raw;
      else
        v->pointer = raw;
      return true;
    }
    return false;  // truncated
  }

  bool decode_value(std::string_view bytes, Value* v) {
    reset(v);
    if (decode_integer_value(bytes, v)) return true;
    Msg m(bytes, offset_of(bytes), "Value");
    uint32_t f = 0;
    WireType t{};
    std::string_view nested;
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::value::kSint: {
          set_kind(v, ValueKind::kSint);
          uint64_t raw = 0;
          ok = u64(m, f, t, &raw);
          v->sint = wire::unzigzag(raw);
          break;
        }
        case s::value::kUint:
          set_kind(v, ValueKind::kUint);
          ok = u64(m, f, t, &v->uint);
          break;
        case s::value::kF32:
          set_kind(v, ValueKind::kF32);
          if ((ok = want(m, f, t, wire::kFixed32))) {
            uint32_t bits = m.r.fixed32();
            memcpy(&v->f32, &bits, 4);
          }
          break;
        case s::value::kF64:
          set_kind(v, ValueKind::kF64);
          if ((ok = want(m, f, t, wire::kFixed64))) {
            uint64_t bits = m.r.fixed64();
            memcpy(&v->f64, &bits, 8);
          }
          break;
        case s::value::kPointer:
          set_kind(v, ValueKind::kPointer);
          ok = u64(m, f, t, &v->pointer);
          break;
        case s::value::kData:
          set_kind(v, ValueKind::kData);
          ok = str(m, f, t, &v->bytes);
          break;
        case s::value::kBlob:
          set_kind(v, ValueKind::kBlob);
          ok = fixed64(m, f, t, &v->blob);
          break;
        case s::value::kText:
          set_kind(v, ValueKind::kText);
          ok = str(m, f, t, &v->bytes);
          break;
        case s::value::kUnknown:
          set_kind(v, ValueKind::kUnknown);
          ok = sub(m, f, t, &nested) && decode_unknown(nested, v);
          break;
        case s::value::kStrings:
          set_kind(v, ValueKind::kStrings);
          ok = sub(m, f, t, &nested) && decode_strings(nested, v);
          break;
        case s::value::kArray:
          set_kind(v, ValueKind::kArray);
          ok = sub(m, f, t, &nested) && decode_array(nested, v);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_unknown(std::string_view bytes, Value* v) {
    Msg m(bytes, offset_of(bytes), "Unknown");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::unknown::kPointer:
          ok = u64(m, f, t, &v->pointer);
          break;
        case s::unknown::kReason:
          ok = str(m, f, t, &v->bytes);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_strings(std::string_view bytes, Value* v) {
    Msg m(bytes, offset_of(bytes), "Strings");
    uint32_t f = 0;
    WireType t{};
    std::string_view item;
    while (m.r.next(&f, &t)) {
      if (f == s::strings::kItems) {
        if (!str(m, f, t, &item)) return false;
        if (!m.r.ok()) break;
        if (!take_elements(m, 1)) return false;
        v->strings.push_back(item);
      } else {
        m.r.skip(t);
      }
    }
    return finish(m);
  }

  bool decode_array(std::string_view bytes, Value* v) {
    Msg m(bytes, offset_of(bytes), "Array");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::array::kSints:
          ok = ints<int64_t, true>(m, f, t, &v->sints);
          break;
        case s::array::kUints:
          ok = ints<uint64_t, false>(m, f, t, &v->uints);
          break;
        case s::array::kFloats:
          ok = floats(m, f, t, &v->floats);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  // Room for one more args value (or client array...) in pool, whose slots
  // from `first` on are this call's: slots are reused across calls.
  template <typename T>
  T* next_slot(const Msg& m, std::vector<T>* pool, size_t* used, const char* what,
               size_t first = 0) {
    if (*used - first >= kMaxValuesPerCall) {
      fail(m.base + m.r.offset(), "Call has more than %zu %s", kMaxValuesPerCall, what);
      return nullptr;
    }
    if (*used == pool->size()) pool->emplace_back();
    return &(*pool)[(*used)++];
  }

  bool decode_client_array(std::string_view bytes, ClientArray* a) {
    clear_record(a);
    Msg m(bytes, offset_of(bytes), "ClientArray");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::client_array::kIndex:
          ok = u32(m, f, t, &a->index);
          break;
        case s::client_array::kFirst:
          ok = u64(m, f, t, &a->first);
          break;
        case s::client_array::kStride:
          ok = u32(m, f, t, &a->stride);
          break;
        case s::client_array::kPointer:
          ok = u64(m, f, t, &a->pointer);
          break;
        case s::client_array::kData:
          ok = str(m, f, t, &a->data);
          break;
        case s::client_array::kBlob:
          ok = fixed64(m, f, t, &a->blob);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_buffer_write(std::string_view bytes, BufferWrite* w) {
    clear_record(w);
    Msg m(bytes, offset_of(bytes), "BufferWrite");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::buffer_write::kTarget:
          ok = u32(m, f, t, &w->target);
          break;
        case s::buffer_write::kOffset:
          ok = u64(m, f, t, &w->offset);
          break;
        case s::buffer_write::kData:
          ok = str(m, f, t, &w->data);
          break;
        case s::buffer_write::kBlob:
          ok = fixed64(m, f, t, &w->blob);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_image_source(std::string_view bytes) {
    clear_record(&image_source);
    Msg m(bytes, offset_of(bytes), "ImageSource");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::image_source::kWidth:
          ok = u32(m, f, t, &image_source.width);
          break;
        case s::image_source::kHeight:
          ok = u32(m, f, t, &image_source.height);
          break;
        case s::image_source::kBlob:
          ok = fixed64(m, f, t, &image_source.blob);
          break;
        case s::image_source::kNotCaptured:
          ok = str(m, f, t, &image_source.not_captured);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_call(std::string_view bytes) {
    clear_record(&call);
    elements_left = kMaxElementsPerRecord;
    bool has_image_source = false;
    config_attribs.clear();
    // Args go to the unused end of a batch's value pool, where its on_call()
    // keeps them without a copy; else to args.
    std::vector<Value>* pool = &args;
    size_t first_arg = 0;
    if (batch != nullptr && !batch->overflowed()) {
      pool = &batch->values_;
      first_arg = batch->values_used_;
    }
    size_t nargs = first_arg;
    size_t narrays = 0;
    size_t nwrites = 0;
    bool has_ret = false;
    bool has_seq = false, has_start = false;
    uint64_t seq_delta = 0, start_delta = 0;
    Msg m(bytes, offset_of(bytes), "Call");
    uint32_t f = 0;
    WireType t{};
    std::string_view nested;
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::call::kFunction:
          ok = u32(m, f, t, &call.function);
          break;
        case s::call::kThread:
          ok = u32(m, f, t, &call.thread);
          break;
        case s::call::kContext:
          ok = u32(m, f, t, &call.context);
          break;
        case s::call::kSeq:
          ok = u64(m, f, t, &call.seq);
          has_seq = true;
          break;
        case s::call::kStartNs:
          ok = u64(m, f, t, &call.start_ns);
          has_start = true;
          break;
        case s::call::kSeqDelta:
          ok = u64(m, f, t, &seq_delta);
          break;
        case s::call::kStartDeltaNs:
          ok = u64(m, f, t, &start_delta);
          break;
        case s::call::kDurationNs:
          ok = u64(m, f, t, &call.duration_ns);
          break;
        case s::call::kThreadTimeNs:
          ok = u64(m, f, t, &call.thread_time_ns);
          break;
        case s::call::kGlError:
          ok = u32(m, f, t, &call.gl_error);
          break;
        case s::call::kSynthetic: {
          uint32_t v = 0;
          ok = u32(m, f, t, &v);
          call.synthetic = v != 0;
          break;
        }
        case s::call::kEndsFrame: {
          uint32_t v = 0;
          ok = u32(m, f, t, &v);
          call.ends_frame = v != 0;
          break;
        }
        case s::call::kArgs: {
          Value* v = nullptr;
          ok = sub(m, f, t, &nested) &&
               (v = next_slot(m, pool, &nargs, "args", first_arg)) != nullptr &&
               decode_value(nested, v);
          break;
        }
        case s::call::kRet:
          ok = sub(m, f, t, &nested) && decode_value(nested, &ret);
          has_ret = true;
          break;
        case s::call::kClientArrays: {
          ClientArray* a = nullptr;
          ok = sub(m, f, t, &nested) &&
               (a = next_slot(m, &client_arrays, &narrays, "client arrays")) != nullptr &&
               decode_client_array(nested, a);
          break;
        }
        case s::call::kBufferWrites: {
          BufferWrite* w = nullptr;
          ok = sub(m, f, t, &nested) &&
               (w = next_slot(m, &buffer_writes, &nwrites, "buffer writes")) != nullptr &&
               decode_buffer_write(nested, w);
          break;
        }
        case s::call::kImageSource:
          ok = sub(m, f, t, &nested) && decode_image_source(nested);
          has_image_source = true;
          break;
        case s::call::kConfigAttribs:
          ok = ints<int64_t, false>(m, f, t, &config_attribs);
          break;
        case s::call::kSurfaceWidth:
          ok = u32(m, f, t, &call.surface_width);
          break;
        case s::call::kSurfaceHeight:
          ok = u32(m, f, t, &call.surface_height);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    if (!finish(m)) return false;
    resolve_deltas(&call, has_seq, seq_delta, has_start, start_delta);
    call.args = std::span<const Value>(pool->data() + first_arg, nargs - first_arg);
    call.ret = has_ret ? &ret : nullptr;
    call.client_arrays = std::span<const ClientArray>(client_arrays.data(), narrays);
    call.buffer_writes = std::span<const BufferWrite>(buffer_writes.data(), nwrites);
    call.image_source = has_image_source ? &image_source : nullptr;
    call.config_attribs = config_attribs.empty() ? nullptr : &config_attribs;
    return true;
  }

  bool decode_blob(std::string_view bytes) {
    clear_record(&blob);
    Msg m(bytes, offset_of(bytes), "Blob");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::blob::kId:
          ok = fixed64(m, f, t, &blob.id);
          break;
        case s::blob::kData:
          ok = str(m, f, t, &blob.data);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_frame(std::string_view bytes) {
    clear_record(&frame);
    Msg m(bytes, offset_of(bytes), "Frame");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::frame::kNumber:
          ok = u64(m, f, t, &frame.number);
          break;
        case s::frame::kSeq:
          ok = u64(m, f, t, &frame.seq);
          break;
        case s::frame::kThread:
          ok = u32(m, f, t, &frame.thread);
          break;
        case s::frame::kContext:
          ok = u32(m, f, t, &frame.context);
          break;
        case s::frame::kTimeNs:
          ok = u64(m, f, t, &frame.time_ns);
          break;
        case s::frame::kAppFrame:
          ok = u64(m, f, t, &frame.app_frame);
          frame.has_app_frame = ok;
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_image(std::string_view bytes) {
    clear_record(&image);
    Msg m(bytes, offset_of(bytes), "Image");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::image::kFrame:
          ok = u64(m, f, t, &image.frame);
          break;
        case s::image::kSeq:
          ok = u64(m, f, t, &image.seq);
          break;
        case s::image::kWidth:
          ok = u32(m, f, t, &image.width);
          break;
        case s::image::kHeight:
          ok = u32(m, f, t, &image.height);
          break;
        case s::image::kBlob:
          ok = fixed64(m, f, t, &image.blob);
          break;
        case s::image::kOrigin:
          ok = str(m, f, t, &image.origin);
          break;
        case s::image::kContext:
          ok = u32(m, f, t, &image.context);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_stats(std::string_view bytes) {
    clear_record(&stats);
    Msg m(bytes, offset_of(bytes), "Stats");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      switch (f) {
        case s::stats::kCalls:
          ok = u64(m, f, t, &stats.calls);
          break;
        case s::stats::kFrames:
          ok = u64(m, f, t, &stats.frames);
          break;
        case s::stats::kBytesUncompressed:
          ok = u64(m, f, t, &stats.bytes_uncompressed);
          break;
        case s::stats::kStallCount:
          ok = u64(m, f, t, &stats.stall_count);
          break;
        case s::stats::kStallNs:
          ok = u64(m, f, t, &stats.stall_ns);
          break;
        case s::stats::kBlobs:
          ok = u64(m, f, t, &stats.blobs);
          break;
        case s::stats::kBlobBytesDeduplicated:
          ok = u64(m, f, t, &stats.blob_bytes_deduplicated);
          break;
        case s::stats::kDesktopGlLibraries:
          ok = str(m, f, t, &stats.desktop_gl_libraries);
          break;
        default:
          m.r.skip(t);
          break;
      }
      if (!ok) return false;
    }
    return finish(m);
  }

  bool decode_calls_complete(std::string_view bytes) {
    clear_record(&calls_complete);
    Msg m(bytes, offset_of(bytes), "CallsComplete");
    uint32_t f = 0;
    WireType t{};
    while (m.r.next(&f, &t)) {
      bool ok = true;
      if (f == s::calls_complete::kBelowSeq)
        ok = u64(m, f, t, &calls_complete.below_seq);
      else
        m.r.skip(t);
      if (!ok) return false;
    }
    return finish(m);
  }

  // One Record: a oneof, so normally one member; each present member is delivered.
  bool decode_record(std::string_view bytes, Consumer& consumer) {
    Msg m(bytes, offset_of(bytes), "Record");
    uint32_t f = 0;
    WireType t{};
    std::string_view nested;
    while (m.r.next(&f, &t)) {
      if ((f < s::record::kHeader || f > s::record::kStats) &&
          f != s::record::kCallsComplete) {  // a newer record kind
        m.r.skip(t);
        continue;
      }
      if (!sub(m, f, t, &nested)) return false;
      switch (f) {
        case s::record::kHeader:
          if (!decode_header(nested)) return false;
          consumer.on_header(header);
          break;
        case s::record::kCall:
          if (!decode_call(nested)) return false;
          consumer.on_call(call);
          break;
        case s::record::kBlob:
          if (!decode_blob(nested)) return false;
          consumer.on_blob(blob);
          break;
        case s::record::kFrame:
          if (!decode_frame(nested)) return false;
          consumer.on_frame(frame);
          break;
        case s::record::kThread:
          if (!decode_thread(nested)) return false;
          consumer.on_thread(thread);
          break;
        case s::record::kContext:
          if (!decode_context(nested)) return false;
          consumer.on_context(context);
          break;
        case s::record::kImage:
          if (!decode_image(nested)) return false;
          consumer.on_image(image);
          break;
        case s::record::kStats:
          if (!decode_stats(nested)) return false;
          consumer.on_stats(stats);
          break;
        case s::record::kCallsComplete:
          if (!decode_calls_complete(nested)) return false;
          consumer.on_calls_complete(calls_complete);
          break;
        default:
          break;
      }
    }
    return finish(m);
  }

  // Absolute fields win; delta fields count from the thread's previous call
  // in this chunk.
  void resolve_deltas(Call* c, bool has_seq, uint64_t seq_delta, bool has_start,
                      uint64_t start_delta) {
    ThreadPosition* previous = nullptr;
    bool found = false;  // the thread had a call before in this chunk
    if (many_positions.empty()) {
      for (auto& [thread, position] : positions)
        if (thread == c->thread) previous = &position, found = true;
      if (!found && positions.size() < kFewThreads) {
        previous = &positions.emplace_back(c->thread, ThreadPosition{}).second;
      } else if (!found) {  // one thread too many for the vector
        for (const auto& [thread, position] : positions) many_positions.emplace(thread, position);
        positions.clear();
      }
    }
    if (previous == nullptr) {
      auto [it, added] = many_positions.try_emplace(c->thread);
      previous = &it->second;
      found = !added;
    }
    if (!has_seq && found) c->seq = previous->seq + 1 + seq_delta;
    if (!has_start && found) c->start_ns = previous->start_ns + start_delta;
    *previous = {c->start_ns, c->seq};
  }

  // From byte *resume on (0: a new chunk); *resume is where it stopped.
  bool decode_chunk(std::span<const uint8_t> bytes, Consumer& consumer, size_t* resume) {
    payload = bytes.data();
    size_t start = std::min(*resume, bytes.size());
    if (start == 0) {
      positions.clear();  // every chunk decodes on its own (seeking)
      many_positions = {};
    }
    Msg m(
        std::string_view(reinterpret_cast<const char*>(bytes.data()) + start, bytes.size() - start),
        start, "Chunk");
    bool ok = decode_records(m, consumer);
    *resume = start + m.r.offset();
    return ok;
  }

  bool decode_records(Msg& m, Consumer& consumer) {
    uint32_t f = 0;
    WireType t{};
    std::string_view record;
    while (!consumer.stop_requested() && m.r.next(&f, &t)) {
      if (f != s::chunk::kRecords) {
        m.r.skip(t);
        continue;
      }
      if (!sub(m, f, t, &record)) return false;
      if (!decode_record(record, consumer)) return false;
    }
    return finish(m);
  }

  bool decode_index(std::span<const uint8_t> bytes, Index* index, size_t max_entries) {
    payload = bytes.data();
    index->entries.clear();
    Msg m(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), 0, "Index");
    uint32_t f = 0;
    WireType t{};
    std::string_view nested;
    while (m.r.next(&f, &t)) {
      if (f != s::index::kEntries) {
        m.r.skip(t);
        continue;
      }
      if (!sub(m, f, t, &nested)) return false;
      if (index->entries.size() >= max_entries)
        return fail(offset_of(nested), "Index has more than %zu entries", max_entries);
      IndexEntry entry;
      Msg e(nested, offset_of(nested), "IndexEntry");
      while (e.r.next(&f, &t)) {
        bool ok = true;
        switch (f) {
          case s::index_entry::kFrame:
            ok = u64(e, f, t, &entry.frame);
            break;
          case s::index_entry::kChunkOffset:
            ok = u64(e, f, t, &entry.chunk_offset);
            break;
          case s::index_entry::kSeq:
            ok = u64(e, f, t, &entry.seq);
            break;
          default:
            e.r.skip(t);
            break;
        }
        if (!ok) return false;
      }
      if (!finish(e)) return false;
      index->entries.push_back(entry);
    }
    return finish(m);
  }
};

RecordDecoder::RecordDecoder() : scratch_(std::make_unique<Scratch>()) {}
RecordDecoder::~RecordDecoder() = default;

bool RecordDecoder::decode_chunk(std::span<const uint8_t> payload, Consumer& consumer) {
  size_t start = 0;
  return decode_chunk(payload, consumer, &start);
}

bool RecordDecoder::decode_chunk(std::span<const uint8_t> payload, Consumer& consumer,
                                 size_t* resume) {
  bool ok = false;
  try {
    ok = scratch_->decode_chunk(payload, consumer, resume);
  } catch (const std::bad_alloc&) {
    scratch_->fail(0, "out of memory decoding the chunk");
  }
  if (!ok) {
    error_ = scratch_->error;
    error_offset_ = scratch_->error_offset;
  }
  return ok;
}

bool RecordDecoder::decode_chunk(std::span<const uint8_t> payload, RecordBatch& batch) {
  scratch_->batch = &batch;
  bool ok = decode_chunk(payload, static_cast<Consumer&>(batch));
  scratch_->batch = nullptr;
  return ok;
}

bool RecordDecoder::decode_index(std::span<const uint8_t> payload, Index* index,
                                 size_t max_entries) {
  bool ok = false;
  try {
    ok = scratch_->decode_index(payload, index, max_entries);
  } catch (const std::bad_alloc&) {
    scratch_->fail(0, "out of memory decoding the index");
  }
  if (!ok) {
    error_ = scratch_->error;
    error_offset_ = scratch_->error_offset;
  }
  return ok;
}

RecordBatch::RecordBatch() = default;
RecordBatch::~RecordBatch() = default;

void RecordBatch::clear() {
  order_.clear();
  headers_.clear();
  threads_.clear();
  contexts_.clear();
  calls_.clear();
  blobs_.clear();
  frames_.clear();
  images_.clear();
  stats_.clear();
  calls_complete_.clear();
  values_used_ = 0;
  client_arrays_.clear();
  buffer_writes_.clear();
  bytes_ = 0;
  overflowed_ = false;
  // Pooled values keep their arrays' memory: after many chunks each slot
  // could hold the largest array it ever had. Past a bound, start afresh.
  if (array_bytes_ > kMaxBytes) {
    values_ = {};
    array_bytes_ = 0;
  }
}

// Counts what one more record takes; false (and nothing more is kept) past kMaxBytes.
bool RecordBatch::room(size_t bytes) {
  bytes_ += bytes + sizeof(Entry);
  if (bytes_ > kMaxBytes) overflowed_ = true;
  return !overflowed_;
}

template <typename T>
void RecordBatch::keep(Kind kind, std::vector<T>* records, const T& record, size_t extra_bytes) {
  if (!room(sizeof(T) + extra_bytes)) return;
  order_.push_back({kind, static_cast<uint32_t>(records->size())});
  records->push_back(record);
}

void RecordBatch::on_header(const Header& header) { keep(Kind::kHeader, &headers_, header); }
void RecordBatch::on_thread(const Thread& thread) { keep(Kind::kThread, &threads_, thread); }
void RecordBatch::on_context(const Context& context) {
  keep(Kind::kContext, &contexts_, context, context.config_attribs.size() * sizeof(int64_t));
}
void RecordBatch::on_blob(const Blob& blob) { keep(Kind::kBlob, &blobs_, blob); }
void RecordBatch::on_frame(const Frame& frame) { keep(Kind::kFrame, &frames_, frame); }
void RecordBatch::on_image(const Image& image) { keep(Kind::kImage, &images_, image); }
void RecordBatch::on_stats(const Stats& stats) { keep(Kind::kStats, &stats_, stats); }
void RecordBatch::on_calls_complete(const CallsComplete& complete) {
  keep(Kind::kCallsComplete, &calls_complete_, complete);
}

void RecordBatch::on_call(const Call& call) {
  auto array_bytes = [](const Value& v) -> size_t {
    if (v.kind != ValueKind::kStrings && v.kind != ValueKind::kArray) return 0;
    return v.strings.size() * sizeof(std::string_view) + v.sints.size() * sizeof(int64_t) +
           v.uints.size() * sizeof(uint64_t) + v.floats.size() * sizeof(float);
  };
  size_t arrays = 0;
  for (const Value& v : call.args) arrays += array_bytes(v);
  if (call.ret != nullptr) arrays += array_bytes(*call.ret);
  array_bytes_ += arrays;  // counted even when not kept: the decoder may have filled our slots
  size_t values = call.args.size() + (call.ret != nullptr ? 1 : 0);
  size_t config_bytes =
      call.config_attribs != nullptr ? call.config_attribs->size() * sizeof(int64_t) : 0;
  if (!room(sizeof(CallEntry) + call.client_arrays.size_bytes() + call.buffer_writes.size_bytes() +
            values * sizeof(Value) + arrays + config_bytes))
    return;
  CallEntry entry{call,
                  values_used_,
                  client_arrays_.size(),
                  buffer_writes_.size(),
                  call.image_source != nullptr ? *call.image_source : ImageSource{},
                  call.config_attribs != nullptr ? *call.config_attribs : std::vector<int64_t>{}};
  auto add_value = [this](const Value& v) {
    if (values_used_ == values_.size()) values_.emplace_back();
    assign(&values_[values_used_++], v);
  };
  // The decoder puts args where they belong (decode_chunk into a batch).
  if (call.args.data() == values_.data() + values_used_)
    values_used_ += call.args.size();
  else
    for (const Value& v : call.args) add_value(v);
  if (call.ret != nullptr) add_value(*call.ret);
  client_arrays_.insert(client_arrays_.end(), call.client_arrays.begin(), call.client_arrays.end());
  buffer_writes_.insert(buffer_writes_.end(), call.buffer_writes.begin(), call.buffer_writes.end());
  order_.push_back({Kind::kCall, static_cast<uint32_t>(calls_.size())});
  calls_.push_back(entry);
}

void RecordBatch::replay(Consumer& consumer) const {
  for (const Entry& e : order_) {
    if (consumer.stop_requested()) return;
    switch (e.kind) {
      case Kind::kHeader:
        consumer.on_header(headers_[e.index]);
        break;
      case Kind::kThread:
        consumer.on_thread(threads_[e.index]);
        break;
      case Kind::kContext:
        consumer.on_context(contexts_[e.index]);
        break;
      case Kind::kCall: {
        const CallEntry& c = calls_[e.index];
        Call call = c.call;
        call.args = {values_.data() + c.first_value, c.call.args.size()};
        if (c.call.ret != nullptr) call.ret = values_.data() + c.first_value + call.args.size();
        call.client_arrays = {client_arrays_.data() + c.first_array, c.call.client_arrays.size()};
        call.buffer_writes = {buffer_writes_.data() + c.first_write, c.call.buffer_writes.size()};
        if (c.call.image_source != nullptr) call.image_source = &c.image_source;
        if (c.call.config_attribs != nullptr) call.config_attribs = &c.config_attribs;
        consumer.on_call(call);
        break;
      }
      case Kind::kBlob:
        consumer.on_blob(blobs_[e.index]);
        break;
      case Kind::kFrame:
        consumer.on_frame(frames_[e.index]);
        break;
      case Kind::kImage:
        consumer.on_image(images_[e.index]);
        break;
      case Kind::kStats:
        consumer.on_stats(stats_[e.index]);
        break;
      case Kind::kCallsComplete:
        consumer.on_calls_complete(calls_complete_[e.index]);
        break;
    }
  }
}

}  // namespace gltrace::format
