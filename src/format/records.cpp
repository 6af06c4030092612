#include "format/records.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <unordered_map>

#include "format/decoders.h"
#include "format/schema.h"
#include "format/times_column.h"
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

}  // namespace

// The decoder that format/decoders.h's generated decode_<message> functions
// run through (codegen/gltrace_codegen/decoders.py): the field readers, with
// errors that name the message and the payload offset, the bounds on what a
// record may hold, and hooks for the fields that are no plain copy into the
// records of format/records.h.
struct RecordDecoder::Scratch {
  const uint8_t* payload = nullptr;
  std::string error;
  size_t error_offset = 0;
  Consumer* consumer = nullptr;

  Header header;
  Thread thread;
  Context context;
  Call call;
  Blob blob;
  Frame frame;
  Image image;
  Stats stats;
  CallsComplete calls_complete;
  DesktopGl desktop_gl;
  GpuTime gpu_time;
  GpuClock gpu_clock;
  std::vector<Value> args;
  Value ret;
  // The elements of the array or string list being decoded (a value's
  // elements must end up in one piece; fields may add to them one by one),
  // and where each value's go when it is done (reused from call to call).
  std::vector<std::string_view> staged_strings;
  std::vector<int64_t> staged_sints;
  std::vector<uint64_t> staged_uints;
  std::vector<float> staged_floats;
  ValueMemory value_memory;
  RecordBatch* batch = nullptr;  // decode_chunk() into a batch
  std::vector<ClientArray> client_arrays;
  std::vector<BufferWrite> buffer_writes;
  ImageSource image_source;
  std::vector<int64_t> config_attribs;
  // Calls are delta-coded against the previous call of their thread in the
  // same chunk (proto/trace.proto, Call): what that call had.
  struct ThreadPosition {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;  // start_ns + duration_ns
    uint64_t seq = 0;
  };
  // A few threads per chunk are the rule: looked up in a small vector, then
  // (a hostile chunk naming many threads) in a hash map.
  static constexpr size_t kFewThreads = 8;
  std::vector<std::pair<uint32_t, ThreadPosition>> positions;  // reserved: never moves
  std::unordered_map<uint32_t, ThreadPosition> many_positions;
  // The last call's thread and its position (in one of the two above): a
  // call most often follows one of its own thread.
  uint32_t last_thread = 0;
  ThreadPosition* last_position = nullptr;
  // Array elements and strings the record being decoded may still add.
  size_t elements_left = 0;
  // The call being decoded: what its fields said beyond the Call struct.
  struct CallState {
    std::vector<Value>* pool = nullptr;  // where its args go, from first_arg on
    size_t first_arg = 0;
    size_t nargs = 0;
    size_t narrays = 0;
    size_t nwrites = 0;
    bool has_ret = false;
    bool has_seq = false;
    bool has_start = false;
    bool has_start_gap = false;
    bool has_image_source = false;
    bool skip_values = false;  // the consumer does not want them (Consumer::wants_values)
    uint64_t seq_delta = 0;
    uint64_t start_delta = 0;
    uint64_t start_gap = 0;
  } call_state;
  // The chunk's times column (format 3, times_column.h): readers of its
  // sections while a decode_chunk() runs, and between two (a resumed chunk
  // may lie elsewhere in memory) their offsets in the payload; and what its
  // entries read so far leave.
  bool has_times = false;
  TimesReaders times_readers;
  size_t times_at[kTimesSections] = {};   // each section's next value
  size_t times_end[kTimesSections] = {};  // and its end
  TimesColumnState times_state;
  void times_from_offsets() {
    for (int i = 0; i < kTimesSections; ++i)
      times_readers.at[i] = wire::Reader(payload + times_at[i], times_end[i] - times_at[i]);
  }
  void times_to_offsets() {
    for (int i = 0; i < kTimesSections; ++i) times_at[i] += times_readers.at[i].offset();
  }
  bool frame_has_number = false;  // the Frame being decoded carries its own
  size_t max_index_entries = SIZE_MAX;

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
  [[gnu::always_inline]] bool want(const Msg& m, uint32_t field, WireType got, WireType expected) {
    if (got == expected) [[likely]]
      return true;
    return wrong_wire_type(m, field, got, expected);
  }
  [[gnu::noinline]] bool wrong_wire_type(const Msg& m, uint32_t field, WireType got,
                                         WireType expected) {
    size_t key = wire::varint_size((uint64_t{field} << 3) | got);
    return fail(m.base + m.r.offset() - key, "%s field %u has wire type %u, expected %u", m.name,
                field, static_cast<unsigned>(got), static_cast<unsigned>(expected));
  }
  size_t offset_of(std::string_view bytes) const {
    return static_cast<size_t>(reinterpret_cast<const uint8_t*>(bytes.data()) - payload);
  }

  // What the generated decoders call (decoders.py lists it). Readers check
  // the wire type, then read; errors surface through m.r.ok() and finish().
  Msg open(std::string_view bytes, const char* name) const {
    return {bytes, offset_of(bytes), name};
  }
  bool finish(Msg& m) { return m.r.ok() || fail_reader(m); }
  // The readers are inlined into the generated decoders' loops: out of line,
  // the calls cost a tenth of decoding a call.
  // A nested message's bytes.
  [[gnu::always_inline]] bool nested(Msg& m, uint32_t f, WireType t, std::string_view* out) {
    return bytes(m, f, t, out) && (m.r.ok() || fail_reader(m));
  }
  [[gnu::always_inline]] bool varint(Msg& m, uint32_t f, WireType t, uint64_t* out) {
    if (!want(m, f, t, wire::kVarint)) return false;
    *out = m.r.varint();
    return true;
  }
  // Narrower integers keep the low bits, as protobuf does.
  template <typename T>
  requires std::is_integral_v<T>
  [[gnu::always_inline]] bool varint(Msg& m, uint32_t f, WireType t, T* out) {
    uint64_t v = 0;
    if (!varint(m, f, t, &v)) return false;
    if constexpr (std::is_same_v<T, bool>)
      *out = v != 0;
    else
      *out = static_cast<T>(v);
    return true;
  }
  [[gnu::always_inline]] bool zigzag(Msg& m, uint32_t f, WireType t, int64_t* out) {
    uint64_t v = 0;
    if (!varint(m, f, t, &v)) return false;
    *out = wire::unzigzag(v);
    return true;
  }
  template <typename T>
  [[gnu::always_inline]] bool fixed64(Msg& m, uint32_t f, WireType t, T* out) {
    static_assert(sizeof(T) == 8);
    if (!want(m, f, t, wire::kFixed64)) return false;
    uint64_t bits = m.r.fixed64();
    memcpy(out, &bits, 8);
    return true;
  }
  template <typename T>
  [[gnu::always_inline]] bool fixed32(Msg& m, uint32_t f, WireType t, T* out) {
    static_assert(sizeof(T) == 4);
    if (!want(m, f, t, wire::kFixed32)) return false;
    uint32_t bits = m.r.fixed32();
    memcpy(out, &bits, 4);
    return true;
  }
  [[gnu::always_inline]] bool bytes(Msg& m, uint32_t f, WireType t, std::string_view* out) {
    if (!want(m, f, t, wire::kLengthDelimited)) return false;
    *out = m.r.bytes();
    return true;
  }

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
    std::string_view packed_bytes;
    if (!nested(m, f, t, &packed_bytes)) return false;
    // Every element is at least a byte, so growth is bounded by the field's length.
    Msg packed(packed_bytes, offset_of(packed_bytes), m.name);
    while (!packed.r.done()) {
      uint64_t v = packed.r.varint();
      if (!packed.r.ok()) break;
      if (!take_elements(packed, 1)) return false;
      out->push_back(kZigzag ? static_cast<T>(wire::unzigzag(v)) : static_cast<T>(v));
    }
    return finish(packed);
  }
  template <typename T>
  bool repeated_varint(Msg& m, uint32_t f, WireType t, std::vector<T>* out) {
    return ints<T, false>(m, f, t, out);
  }
  bool repeated_zigzag(Msg& m, uint32_t f, WireType t, std::vector<int64_t>* out) {
    return ints<int64_t, true>(m, f, t, out);
  }
  bool repeated_fixed32(Msg& m, uint32_t f, WireType t, std::vector<float>* out) {
    if (t == wire::kFixed32) {
      if (!take_elements(m, 1)) return false;
      uint32_t bits = m.r.fixed32();
      float v = 0;
      memcpy(&v, &bits, 4);
      out->push_back(v);
      return true;
    }
    std::string_view packed_bytes;
    if (!nested(m, f, t, &packed_bytes)) return false;
    if (packed_bytes.size() % 4 != 0) {
      return fail(offset_of(packed_bytes), "in %s: packed floats of %zu bytes, not a multiple of 4",
                  m.name, packed_bytes.size());
    }
    if (!take_elements(m, packed_bytes.size() / 4)) return false;
    size_t first = out->size();
    out->resize(first + packed_bytes.size() / 4);
    if (!packed_bytes.empty())
      memcpy(out->data() + first, packed_bytes.data(), packed_bytes.size());
    return true;
  }

  // Chunk: records until the consumer asks to stop.
  bool stop_chunk() const { return consumer->stop_requested(); }
  bool field_chunk_times(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    std::string_view column;
    if (!nested(m, f, t, &column)) return false;
    if (has_times) return fail(offset_of(column), "Chunk has a second times column");
    TimesLayout layout;
    const char* why = nullptr;
    if (!read_times_head(reinterpret_cast<const uint8_t*>(column.data()), column.size(), &layout,
                         &why))
      return fail(offset_of(column), "Chunk's times column: %s", why);
    has_times = true;
    for (int i = 0; i < kTimesSections; ++i) {
      times_at[i] = offset_of(column) + layout.begin[i];
      times_end[i] = offset_of(column) + layout.end[i];
    }
    times_state = TimesColumnState(layout.unit_ns);
    times_from_offsets();
    return true;
  }
  // The next entry of the times column, through take (TimesColumnState's
  // take_call or take_frame); `what` names the record in the error.
  template <typename Times>
  bool take_times(const Msg& record, Times* times,
                  bool (TimesColumnState::*take)(TimesReaders&, Times*), const char* what) {
    if (!(times_state.*take)(times_readers, times))
      return fail(record.base, "%s: the chunk's times column ends before its entry", what);
    return true;
  }
  bool field_chunk_records(Msg& m, uint32_t f, WireType t, Scratch* out) {
    std::string_view record;
    if (!nested(m, f, t, &record)) return false;
    Msg r = open(record, "Record");
    return s::decode_record(*this, r, out);
  }

  // Record: each member present is decoded into a cleared scratch record and
  // delivered (a oneof, so normally one member).
  template <typename T, typename Decode>
  bool record(Msg& m, uint32_t f, WireType t, const char* name, T* out, Decode decode,
              void (Consumer::*deliver)(const T&)) {
    std::string_view bytes;
    if (!nested(m, f, t, &bytes)) return false;
    clear_record(out);
    Msg r = open(bytes, name);
    if (!decode(r, out)) return false;
    (consumer->*deliver)(*out);
    return true;
  }
  bool field_record_header(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "Header", &header,
        [this](Msg& r, Header* h) { return s::decode_header(*this, r, h); }, &Consumer::on_header);
  }
  bool field_record_thread(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "Thread", &thread,
        [this](Msg& r, Thread* h) { return s::decode_thread(*this, r, h); }, &Consumer::on_thread);
  }
  bool field_record_blob(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "Blob", &blob, [this](Msg& r, Blob* b) { return s::decode_blob(*this, r, b); },
        &Consumer::on_blob);
  }
  bool field_record_frame(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "Frame", &frame,
        [this](Msg& r, Frame* x) {
          frame_has_number = false;
          if (!s::decode_frame(*this, r, x)) return false;
          if (!has_times || frame_has_number) return true;
          FrameTimes times;
          if (!take_times(r, &times, &TimesColumnState::take_frame, "Frame")) return false;
          x->number = times.number;
          x->seq = times.seq;
          x->time_ns = times.time_ns;
          return true;
        },
        &Consumer::on_frame);
  }
  bool field_frame_number(Msg& m, uint32_t f, WireType t, Frame* x) {
    frame_has_number = true;
    return varint(m, f, t, &x->number);
  }
  bool field_record_image(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "Image", &image, [this](Msg& r, Image* x) { return s::decode_image(*this, r, x); },
        &Consumer::on_image);
  }
  bool field_record_stats(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "Stats", &stats, [this](Msg& r, Stats* x) { return s::decode_stats(*this, r, x); },
        &Consumer::on_stats);
  }
  bool field_record_calls_complete(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "CallsComplete", &calls_complete,
        [this](Msg& r, CallsComplete* x) { return s::decode_calls_complete(*this, r, x); },
        &Consumer::on_calls_complete);
  }
  bool field_record_desktop_gl(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "DesktopGl", &desktop_gl,
        [this](Msg& r, DesktopGl* x) { return s::decode_desktop_gl(*this, r, x); },
        &Consumer::on_desktop_gl);
  }
  bool field_record_gpu_time(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "GpuTime", &gpu_time,
        [this](Msg& r, GpuTime* x) { return s::decode_gpu_time(*this, r, x); },
        &Consumer::on_gpu_time);
  }
  bool field_record_gpu_clock(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    return record(
        m, f, t, "GpuClock", &gpu_clock,
        [this](Msg& r, GpuClock* x) { return s::decode_gpu_clock(*this, r, x); },
        &Consumer::on_gpu_clock);
  }
  bool field_record_context(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    std::string_view bytes;
    if (!nested(m, f, t, &bytes)) return false;
    std::vector<int64_t> attribs;
    attribs.swap(context.config_attribs);  // keep the capacity across records
    context = Context{};
    context.config_attribs.swap(attribs);
    clear_pooled(&context.config_attribs);
    elements_left = kMaxElementsPerRecord;
    Msg r = open(bytes, "Context");
    if (!s::decode_context(*this, r, &context)) return false;
    consumer->on_context(context);
    return true;
  }
  void begin_call() {
    clear_record(&call);
    elements_left = kMaxElementsPerRecord;
    value_memory.reset();
    config_attribs.clear();
    CallState& c = call_state;
    c = CallState{};
    // Args go to the unused end of a batch's value pool, where its on_call()
    // keeps them without a copy; else to args.
    c.pool = &args;
    if (batch != nullptr && !batch->overflowed()) {
      c.pool = &batch->values_;
      c.first_arg = batch->values_used_;
    }
    c.nargs = c.first_arg;
  }
  bool field_record_call(Msg& m, uint32_t f, WireType t, Scratch* /*out*/) {
    std::string_view bytes;
    if (!nested(m, f, t, &bytes)) return false;
    begin_call();
    CallState& c = call_state;
    Msg r = open(bytes, "Call");
    switch (plain_call(r, &call)) {
      case PlainCall::kRead:
        break;
      case PlainCall::kFailed:
        return false;
      case PlainCall::kNotPlain:
        begin_call();
        r = open(bytes, "Call");
        if (!s::decode_call(*this, r, &call)) return false;
        break;
    }
    if (has_times && !c.has_seq) {
      CallTimes times;
      if (!take_times(r, &times, &TimesColumnState::take_call, "Call")) return false;
      call.seq = times.seq;
      call.start_ns = times.start_ns;
      call.duration_ns = times.duration_ns;
      c.has_seq = c.has_start = true;
    }
    resolve_deltas(&call, c);
    call.args = std::span<const Value>(c.pool->data() + c.first_arg, c.nargs - c.first_arg);
    call.ret = c.has_ret ? &ret : nullptr;
    call.client_arrays = std::span<const ClientArray>(client_arrays.data(), c.narrays);
    call.buffer_writes = std::span<const BufferWrite>(buffer_writes.data(), c.nwrites);
    call.image_source = c.has_image_source ? &image_source : nullptr;
    call.config_attribs = config_attribs.empty() ? nullptr : &config_attribs;
    consumer->on_call(call);
    return true;
  }

  // Most calls, in one pass instead of the general field loop: function,
  // thread, context, gl_error, args and ret. At any other field, or a key or
  // length that is malformed, kNotPlain: the general decoder reads the call
  // again from a cleared one (and names the fault).
  enum class PlainCall { kRead, kNotPlain, kFailed };
  static constexpr uint64_t key_of(uint32_t field, WireType type) {
    return (uint64_t{field} << 3) | type;
  }
  PlainCall plain_call(Msg& m, Call* c) {
    CallState& st = call_state;
    wire::Reader& r = m.r;
    while (!r.done()) {
      switch (r.varint()) {
        case key_of(s::call::kFunction, wire::kVarint):
          c->function = static_cast<uint32_t>(r.varint());
          st.skip_values = !consumer->wants_values(c->function);
          break;
        case key_of(s::call::kThread, wire::kVarint):
          c->thread = static_cast<uint32_t>(r.varint());
          break;
        case key_of(s::call::kContext, wire::kVarint):
          c->context = static_cast<uint32_t>(r.varint());
          break;
        case key_of(s::call::kGlError, wire::kVarint):
          c->gl_error = static_cast<uint32_t>(r.varint());
          break;
        case key_of(s::call::kArgs, wire::kLengthDelimited): {
          std::string_view value_bytes = r.bytes();
          if (st.skip_values || !r.ok()) break;
          Value* v = next_slot(m, st.pool, &st.nargs, "args", st.first_arg);
          if (v == nullptr || !value(value_bytes, v)) return PlainCall::kFailed;
          break;
        }
        case key_of(s::call::kRet, wire::kLengthDelimited): {
          std::string_view value_bytes = r.bytes();
          if (st.skip_values || !r.ok()) break;
          st.has_ret = true;
          if (!value(value_bytes, &ret)) return PlainCall::kFailed;
          break;
        }
        default:
          return PlainCall::kNotPlain;
      }
    }
    return r.ok() ? PlainCall::kRead : PlainCall::kNotPlain;
  }

  // Call: the fields that are no plain copy into the Call struct.
  bool field_call_seq(Msg& m, uint32_t f, WireType t, Call* c) {
    call_state.has_seq = true;
    return varint(m, f, t, &c->seq);
  }
  bool field_call_start_ns(Msg& m, uint32_t f, WireType t, Call* c) {
    call_state.has_start = true;
    return varint(m, f, t, &c->start_ns);
  }
  bool field_call_seq_delta(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    return varint(m, f, t, &call_state.seq_delta);
  }
  bool field_call_start_delta_ns(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    return varint(m, f, t, &call_state.start_delta);
  }
  bool field_call_start_gap_ns(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    call_state.has_start_gap = true;
    return varint(m, f, t, &call_state.start_gap);
  }
  bool field_call_config_attribs(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    return ints<int64_t, false>(m, f, t, &config_attribs);
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
  bool field_call_function(Msg& m, uint32_t f, WireType t, Call* c) {
    if (!varint(m, f, t, &c->function)) return false;
    call_state.skip_values = !consumer->wants_values(c->function);
    return true;
  }
  bool field_call_args(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    std::string_view bytes;
    Value* v = nullptr;
    if (call_state.skip_values) return nested(m, f, t, &bytes);
    return nested(m, f, t, &bytes) &&
           (v = next_slot(m, call_state.pool, &call_state.nargs, "args", call_state.first_arg)) !=
               nullptr &&
           value(bytes, v);
  }
  bool field_call_ret(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    std::string_view bytes;
    if (call_state.skip_values) return nested(m, f, t, &bytes);
    call_state.has_ret = true;
    return nested(m, f, t, &bytes) && value(bytes, &ret);
  }
  bool field_call_client_arrays(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    std::string_view bytes;
    ClientArray* a = nullptr;
    if (call_state.skip_values) return nested(m, f, t, &bytes);
    if (!nested(m, f, t, &bytes) ||
        (a = next_slot(m, &client_arrays, &call_state.narrays, "client arrays")) == nullptr)
      return false;
    clear_record(a);
    Msg r = open(bytes, "ClientArray");
    return s::decode_client_array(*this, r, a);
  }
  bool field_call_buffer_writes(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    std::string_view bytes;
    BufferWrite* w = nullptr;
    if (call_state.skip_values) return nested(m, f, t, &bytes);
    if (!nested(m, f, t, &bytes) ||
        (w = next_slot(m, &buffer_writes, &call_state.nwrites, "buffer writes")) == nullptr)
      return false;
    clear_record(w);
    Msg r = open(bytes, "BufferWrite");
    return s::decode_buffer_write(*this, r, w);
  }
  bool field_call_image_source(Msg& m, uint32_t f, WireType t, Call* /*c*/) {
    std::string_view bytes;
    if (call_state.skip_values) return nested(m, f, t, &bytes);
    call_state.has_image_source = true;
    if (!nested(m, f, t, &bytes)) return false;
    clear_record(&image_source);
    Msg r = open(bytes, "ImageSource");
    return s::decode_image_source(*this, r, &image_source);
  }

  // Frame: whether app_frame was written at all.
  bool field_frame_app_frame(Msg& m, uint32_t f, WireType t, Frame* out) {
    out->has_app_frame = varint(m, f, t, &out->app_frame);
    return out->has_app_frame;
  }

  // Value: a oneof kept as a kind and the members its kinds share.
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
  // A value that is one float or one run of bytes, as the general loop
  // would read it; false for any other.
  static bool decode_plain_value(std::string_view bytes, Value* v) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    size_t n = bytes.size();
    if (n == 5 && p[0] == key_of(s::value::kF32, wire::kFixed32)) {
      v->kind = ValueKind::kF32;
      memcpy(&v->f32, p + 1, 4);
      return true;
    }
    if (n == 9 && p[0] == key_of(s::value::kF64, wire::kFixed64)) {
      v->kind = ValueKind::kF64;
      memcpy(&v->f64, p + 1, 8);
      return true;
    }
    if (n >= 2 && p[1] < 0x80 && size_t{p[1]} + 2 == n &&
        (p[0] == key_of(s::value::kData, wire::kLengthDelimited) ||
         p[0] == key_of(s::value::kText, wire::kLengthDelimited))) {
      v->kind = p[0] >> 3 == s::value::kData ? ValueKind::kData : ValueKind::kText;
      v->data = p + 2;
      v->size = p[1];
      return true;
    }
    return false;
  }
  // A length-delimited field's length at p (at most 4 bytes: under 256 MiB)
  // and where its bytes begin; nullptr when it is not one within end.
  static const uint8_t* length_of(const uint8_t* p, const uint8_t* end, size_t* length) {
    size_t n = 0;
    for (int shift = 0; p < end && shift < 28; shift += 7) {
      uint8_t b = *p++;
      n |= size_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) {
        *length = n;
        return n <= static_cast<size_t>(end - p) ? p : nullptr;
      }
    }
    return nullptr;
  }
  // A value that is one packed array (Value{array{floats | sints | uints}},
  // the recorder's one shape of them), as the general loop would read it,
  // without its Msg, staging and second copy; false for any other shape, an
  // empty array, or one over the record's element budget (the loop names
  // what is wrong).
  bool decode_packed_array(std::string_view bytes, Value* v) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    const uint8_t* end = p + bytes.size();
    size_t n = 0;
    if (bytes.size() < 4 || p[0] != key_of(s::value::kArray, wire::kLengthDelimited) ||
        (p = length_of(p + 1, end, &n)) == nullptr || p + n != end || n < 2)
      return false;
    uint8_t key = *p++;
    const uint8_t* packed = length_of(p, end, &n);
    if (packed == nullptr || packed + n != end || n == 0) return false;
    if (key == key_of(s::array::kFloats, wire::kLengthDelimited)) {
      if (n % 4 != 0 || n / 4 > elements_left) return false;
      elements_left -= n / 4;
      void* at = value_memory.take(n);
      memcpy(at, packed, n);
      v->elements = Value::Elements::kFloat;
      v->data = at;
      v->size = n / 4;
    } else if (key == key_of(s::array::kSints, wire::kLengthDelimited) ||
               key == key_of(s::array::kUints, wire::kLengthDelimited)) {
      // As many elements as bytes that end a varint; the last must end one.
      if ((end[-1] & 0x80) != 0) return false;
      size_t count = 0;
      for (const uint8_t* q = packed; q < end; ++q) count += (*q & 0x80) == 0 ? 1 : 0;
      if (count > elements_left) return false;
      bool zigzag = key == key_of(s::array::kSints, wire::kLengthDelimited);
      auto* out = static_cast<uint64_t*>(value_memory.take(count * sizeof(uint64_t)));
      wire::Reader r(packed, n);
      for (size_t i = 0; i < count; ++i) {
        uint64_t x = r.varint();
        out[i] = zigzag ? static_cast<uint64_t>(wire::unzigzag(x)) : x;
      }
      if (!r.ok()) return false;  // a varint over 10 bytes
      elements_left -= count;
      v->elements = zigzag ? Value::Elements::kSint : Value::Elements::kUint;
      v->data = out;
      v->size = count;
    } else {
      return false;
    }
    v->kind = ValueKind::kArray;
    return true;
  }
  [[gnu::always_inline]] bool value(std::string_view bytes, Value* v) {
    *v = Value{};
    return decode_integer_value(bytes, v) || decode_plain_value(bytes, v) ||
           decode_packed_array(bytes, v) || any_value(bytes, v);
  }
  [[gnu::noinline]] bool any_value(std::string_view bytes, Value* v) {
    Msg m = open(bytes, "Value");
    if (!s::decode_value(*this, m, v)) return false;
    if (v->kind == ValueKind::kStrings) {
      v->data = keep_elements(staged_strings);
      v->size = staged_strings.size();
    } else if (v->kind == ValueKind::kArray) {
      if (!staged_floats.empty()) {
        v->elements = Value::Elements::kFloat;
        v->data = keep_elements(staged_floats);
        v->size = staged_floats.size();
      } else if (!staged_sints.empty()) {
        v->elements = Value::Elements::kSint;
        v->data = keep_elements(staged_sints);
        v->size = staged_sints.size();
      } else {
        v->elements = Value::Elements::kUint;
        v->data = keep_elements(staged_uints);
        v->size = staged_uints.size();
      }
    }
    return true;
  }
  // A copy of a value's staged elements in value_memory.
  template <typename T>
  const T* keep_elements(const std::vector<T>& staged) {
    if (staged.empty()) return nullptr;
    void* at = value_memory.take(sizeof(T) * staged.size());
    memcpy(at, staged.data(), sizeof(T) * staged.size());
    return static_cast<const T*>(at);
  }
  // Sets the oneof member (the last one present wins, as in protobuf).
  void begin_value_v(Value* v, uint32_t field) {
    auto kind = static_cast<ValueKind>(field);  // ValueKind's numbers are the fields'
    // A repeated array or string list adds to the first.
    if (v->kind == kind) return;
    *v = Value{};
    v->kind = kind;
    if (kind == ValueKind::kStrings) clear_pooled(&staged_strings);
    if (kind == ValueKind::kArray) {
      clear_pooled(&staged_sints);
      clear_pooled(&staged_uints);
      clear_pooled(&staged_floats);
    }
  }
  bool field_value_data(Msg& m, uint32_t f, WireType t, Value* v) { return chars(m, f, t, v); }
  bool field_value_text(Msg& m, uint32_t f, WireType t, Value* v) { return chars(m, f, t, v); }
  // Unknown, Strings and Array decode into the Value itself; Unknown's
  // reason is its chars.
  bool field_unknown_reason(Msg& m, uint32_t f, WireType t, Value* v) { return chars(m, f, t, v); }
  bool chars(Msg& m, uint32_t f, WireType t, Value* v) {
    std::string_view text;
    if (!bytes(m, f, t, &text)) return false;
    v->data = text.data();
    v->size = text.size();
    return true;
  }
  bool field_strings_items(Msg& m, uint32_t f, WireType t, Value* /*v*/) {
    std::string_view item;
    if (!bytes(m, f, t, &item)) return false;
    if (!m.r.ok()) return true;  // finish() reports it
    if (!take_elements(m, 1)) return false;
    staged_strings.push_back(item);
    return true;
  }
  bool field_array_sints(Msg& m, uint32_t f, WireType t, Value* /*v*/) {
    return repeated_zigzag(m, f, t, &staged_sints);
  }
  bool field_array_uints(Msg& m, uint32_t f, WireType t, Value* /*v*/) {
    return repeated_varint(m, f, t, &staged_uints);
  }
  bool field_array_floats(Msg& m, uint32_t f, WireType t, Value* /*v*/) {
    return repeated_fixed32(m, f, t, &staged_floats);
  }

  // Absolute fields win; delta fields count from the thread's previous call
  // in this chunk: seq and (format 1) start from its own, (format 2) start
  // from its end.
  void resolve_deltas(Call* c, const CallState& state) {
    ThreadPosition* previous = nullptr;
    bool found = false;  // the thread had a call before in this chunk
    if (last_position != nullptr && c->thread == last_thread) {
      previous = last_position;
      found = true;
    } else if (many_positions.empty()) {
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
    last_thread = c->thread;
    last_position = previous;
    if (!state.has_seq && found) c->seq = previous->seq + 1 + state.seq_delta;
    if (!state.has_start && found)
      c->start_ns = state.has_start_gap ? previous->end_ns + state.start_gap
                                        : previous->start_ns + state.start_delta;
    *previous = {c->start_ns, c->start_ns + c->duration_ns, c->seq};
  }

  // From byte *resume on (0: a new chunk); *resume is where it stopped.
  bool decode_chunk(std::span<const uint8_t> bytes, Consumer& to, size_t* resume) {
    payload = bytes.data();
    consumer = &to;
    size_t start = std::min(*resume, bytes.size());
    if (start == 0) {
      has_times = false;
      times_state = TimesColumnState();
      positions.clear();  // every chunk decodes on its own (seeking)
      last_position = nullptr;
      many_positions = {};
    }
    if (has_times) times_from_offsets();
    Msg m(
        std::string_view(reinterpret_cast<const char*>(bytes.data()) + start, bytes.size() - start),
        start, "Chunk");
    bool ok = s::decode_chunk(*this, m, this);
    *resume = start + m.r.offset();
    if (has_times) times_to_offsets();
    return ok;
  }

  // Index: at most max_index_entries entries.
  bool field_index_entries(Msg& m, uint32_t f, WireType t, Index* index) {
    std::string_view bytes;
    if (!nested(m, f, t, &bytes)) return false;
    if (index->entries.size() >= max_index_entries)
      return fail(offset_of(bytes), "Index has more than %zu entries", max_index_entries);
    IndexEntry entry;
    Msg e = open(bytes, "IndexEntry");
    if (!s::decode_index_entry(*this, e, &entry)) return false;
    index->entries.push_back(entry);
    return true;
  }
  bool decode_index(std::span<const uint8_t> bytes, Index* index, size_t max_entries) {
    payload = bytes.data();
    index->entries.clear();
    max_index_entries = max_entries;
    Msg m(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), 0, "Index");
    return s::decode_index(*this, m, index);
  }
};

RecordDecoder::RecordDecoder() : scratch_(std::make_unique<Scratch>()) {
  scratch_->positions.reserve(Scratch::kFewThreads);
}
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

void* ValueMemory::take(size_t size) {
  size = (size + 15) & ~size_t{15};
  while (block_ < blocks_.size()) {
    if (sizes_[block_] - used_ >= size) {
      void* at = blocks_[block_].get() + used_;
      used_ += size;
      return at;
    }
    ++block_;
    used_ = 0;
  }
  constexpr size_t kBlock = size_t{64} << 10;
  size_t block = std::max(kBlock, size);
  blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(block));
  sizes_.push_back(block);
  held_ += block;
  block_ = blocks_.size() - 1;
  used_ = size;
  return blocks_.back().get();
}

void ValueMemory::trim() {
  size_t keep = 0;
  held_ = 0;
  while (keep < blocks_.size() && held_ + sizes_[keep] <= kKeepBytes) held_ += sizes_[keep++];
  blocks_.resize(keep);
  sizes_.resize(keep);
}

RecordBatch::RecordBatch() = default;
RecordBatch::~RecordBatch() = default;

void RecordBatch::clear() {
  order_.clear();
  headers_.clear();
  threads_.clear();
  contexts_.clear();
  calls_.clear();
  call_extras_.clear();
  blobs_.clear();
  frames_.clear();
  images_.clear();
  stats_.clear();
  calls_complete_.clear();
  desktop_gl_.clear();
  gpu_times_.clear();
  gpu_clocks_.clear();
  values_used_ = 0;
  value_memory_.reset();
  client_arrays_.clear();
  buffer_writes_.clear();
  bytes_ = 0;
  overflowed_ = false;
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
void RecordBatch::on_desktop_gl(const DesktopGl& desktop_gl) {
  keep(Kind::kDesktopGl, &desktop_gl_, desktop_gl);
}

void RecordBatch::on_gpu_time(const GpuTime& gpu_time) {
  keep(Kind::kGpuTime, &gpu_times_, gpu_time);
}

void RecordBatch::on_gpu_clock(const GpuClock& gpu_clock) {
  keep(Kind::kGpuClock, &gpu_clocks_, gpu_clock);
}

void RecordBatch::on_call(const Call& call) {
  size_t elements = 0;
  for (const Value& v : call.args) elements += v.element_bytes();
  if (call.ret != nullptr) elements += call.ret->element_bytes();
  size_t values = call.args.size() + (call.ret != nullptr ? 1 : 0);
  size_t config_bytes =
      call.config_attribs != nullptr ? call.config_attribs->size() * sizeof(int64_t) : 0;
  if (!room(sizeof(CallEntry) + call.client_arrays.size_bytes() + call.buffer_writes.size_bytes() +
            values * sizeof(Value) + elements + config_bytes))
    return;
  CallEntry entry{call, values_used_, client_arrays_.size(), buffer_writes_.size(), kNoExtra};
  if (call.image_source != nullptr || call.config_attribs != nullptr) [[unlikely]] {
    entry.extra = static_cast<uint32_t>(call_extras_.size());
    call_extras_.push_back(
        {call.image_source != nullptr ? *call.image_source : ImageSource{},
         call.config_attribs != nullptr ? *call.config_attribs : std::vector<int64_t>{}});
  }
  // The decoder puts args where they belong (decode_chunk into a batch).
  if (call.args.data() != values_.data() + values_used_) {
    size_t first = values_used_;
    if (values_.size() < first + call.args.size()) values_.resize(first + call.args.size());
    std::copy(call.args.begin(), call.args.end(), values_.begin() + static_cast<ptrdiff_t>(first));
  }
  values_used_ += call.args.size();
  if (call.ret != nullptr) {
    if (values_used_ == values_.size()) values_.emplace_back();
    values_[values_used_++] = *call.ret;
  }
  // Array elements and string lists are the decoder's until the next call.
  if (elements != 0) {
    for (size_t i = entry.first_value; i < values_used_; ++i) {
      Value& v = values_[i];
      size_t n = v.element_bytes();
      if (n == 0) continue;
      void* kept = value_memory_.take(n);
      memcpy(kept, v.data, n);
      v.data = kept;
    }
  }
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
        if (c.extra != kNoExtra) {
          const CallExtra& extra = call_extras_[c.extra];
          if (c.call.image_source != nullptr) call.image_source = &extra.image_source;
          if (c.call.config_attribs != nullptr) call.config_attribs = &extra.config_attribs;
        }
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
      case Kind::kDesktopGl:
        consumer.on_desktop_gl(desktop_gl_[e.index]);
        break;
      case Kind::kGpuTime:
        consumer.on_gpu_time(gpu_times_[e.index]);
        break;
      case Kind::kGpuClock:
        consumer.on_gpu_clock(gpu_clocks_[e.index]);
        break;
    }
  }
}

}  // namespace gltrace::format
