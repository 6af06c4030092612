#include "consumers/trace_events.h"

#include <zstd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <condition_variable>
#include <mutex>
#include <new>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "consumers/perfetto_encoders.h"
#include "consumers/perfetto_schema.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"
#include "protowire/wire.h"

// ---------------------------------------------------------------------------
// Perfetto's protobuf format.

namespace gltrace::consumers {
namespace {

namespace pf = gltrace::perfetto;

// Track uuids: fixed ones for the process and its frame and counter tracks,
// threads after them by their index in the trace.
constexpr uint64_t kProcessTrack = 1;
constexpr uint64_t kFrameTrack = 2;
constexpr uint64_t kCallsCounterTrack = 3;
constexpr uint64_t kBytesCounterTrack = 4;
constexpr uint64_t kFirstThreadTrack = 16;

// Every packet is on one sequence: its interned names are shared by all.
constexpr uint32_t kSequence = 1;

// Timestamps are deltas on an incremental clock of the sequence (as
// Perfetto's SDK writes them): absolute times of consecutive calls differ in
// their low bits only, which compression cannot remove, and took most of a
// compressed export. A time before the one before it (another thread's call,
// a frame's start) is written absolute, on BOOTTIME, the trace's clock.
constexpr uint32_t kIncrementalClock = 64;  // the first sequence-scoped clock id
constexpr uint32_t kBoottime = pf::clock_snapshot::clock::builtin_clocks::kBoottime;
// The GPU's clock (GL_TIMESTAMP), tied to BOOTTIME by snapshots (gpu_clock).
constexpr uint32_t kGpuClock = 65;

// Plain packets are buffered up to this much; compressed, a batch stays
// under the 512 KiB Perfetto allows one compressed packet.
constexpr size_t kBatchBytes = size_t{256} << 10;

// Longest text and most array elements put in an annotation: a shader's
// source or a big array stays in the trace (gltrace dump shows it whole).
constexpr size_t kMaxText = 1024;
constexpr size_t kMaxElements = 16;
// Past this many bytes of a call's annotations, the rest are left out.
constexpr size_t kMaxCallBytes = size_t{64} << 10;

// How a parameter's value is shown, from its kind (spec/api.toml).
enum class ParamKind : uint8_t { kNumber, kEnum, kBoolean };

struct ParamPlan {
  uint64_t name_iid = 0;
  ParamKind kind = ParamKind::kNumber;
  int32_t group = -1;  // api::enum_group of an enum's group, or kEglEnums
};

// ParamPlan::group of an EGL enum: named from EGL's enums, not GL's.
constexpr int32_t kEglEnums = -2;

struct FunctionPlan {
  bool planned = false;
  uint64_t name_iid = 0;
  std::vector<ParamPlan> params;
};

// The bytes of v as a varint (1 to 10), without wire::varint_size's loop.
constexpr size_t varint_bytes(uint64_t v) {
  return (static_cast<size_t>(std::bit_width(v | 1)) + 6) / 7;
}

// Room for a call's packet header and its track event's fixed fields (tags,
// two 4-byte lengths, a timestamp, four varints), written in one go.
constexpr size_t kCallHeaderBound = 64;
// Room for an annotation of a scalar: its tag, a 1-byte length (its name's
// iid and the value, with their tags, take at most 1+10+2+10 bytes), then
// those.
constexpr size_t kScalarAnnotationBound = 32;

// "<prefix><n><suffix>" (ASCII), made in `buffer` rather than on the heap.
class NumberText {
 public:
  NumberText(std::string_view prefix, uint64_t n, std::string_view suffix) {
    char* p = std::copy(prefix.begin(), prefix.end(), buffer_);
    p = std::to_chars(p, p + 20, n).ptr;
    size_ = static_cast<size_t>(std::copy(suffix.begin(), suffix.end(), p) - buffer_);
  }
  std::string_view view() const { return {buffer_, size_}; }

 private:
  char buffer_[64];  // prefixes and suffixes here are short
  size_t size_;
};

// The bytes of s that are UTF-8 (protobuf strings must be; a hostile trace's
// need not), others as '?', at most kMaxText of them.
void append_utf8(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t left = std::min(s.size(), kMaxText);
  while (left != 0) {
    // Runs of ASCII (most text) in one go.
    size_t ascii = 0;
    while (ascii < left && p[ascii] < 0x80) ++ascii;
    out.append(reinterpret_cast<const char*>(p), ascii);
    p += ascii;
    left -= ascii;
    if (left == 0) break;
    size_t n = textformat::utf8_sequence_length(p, left);
    if (n == 0) {
      out += '?';
      n = 1;
    } else {
      out.append(reinterpret_cast<const char*>(p), n);
    }
    p += n;
    left -= n;
  }
  if (s.size() > kMaxText) out += "...";
}

}  // namespace

struct PerfettoWriter::State {
  FILE* out;
  Compression compression;
  wire::Encoder packets;     // plain packets not yet written
  wire::Encoder compressed;  // a compressed batch as a TracePacket
  ZSTD_CCtx* zstd = nullptr;
  bool failed = false;
  uint64_t written = 0;
  bool first_packet = true;
  uint64_t clock_ns = 0;  // the incremental clock's time: the last delta's end

  uint32_t pid = 0;
  std::vector<FunctionPlan> functions = std::vector<FunctionPlan>(api::kFunctionIdLimit);
  std::unordered_map<std::string_view, uint64_t> annotation_names;  // registry names: static
  std::unordered_map<std::string, uint64_t> strings;                // interned string values
  // Described threads by index, with where their last slice ended.
  std::unordered_map<uint32_t, uint64_t> threads;
  uint32_t last_thread = UINT32_MAX;  // of the last call
  uint64_t* last_thread_end = nullptr;
  uint64_t last_frame_end = 0;
  uint64_t next_name_iid = 1, next_annotation_iid = 1, next_string_iid = 1;
  uint64_t unknown_function_iid = 0;
  // Annotation names of arguments without a registry name, interned on first use.
  uint64_t arg_iid = 0, return_iid = 0, gl_error_iid = 0, more_iid = 0, call_iid = 0;
  bool call_numbers = false;  // each call's slice says its number ("call")

  // The GPU's (replay --profile): interned queues and stages by name, the
  // contexts described, whether the counters were.
  std::unordered_map<std::string, uint64_t> gpu_specifications;
  std::vector<uint64_t> gpu_contexts;
  uint64_t next_gpu_iid = 1, next_gpu_event = 1;
  bool gpu_counters_described = false;
  // Interned entries a packet introduces: written with it.
  std::vector<std::pair<uint64_t, std::string_view>> new_names, new_annotations;
  std::vector<std::pair<uint64_t, std::string>> new_strings;
  std::string text, composed;  // scratch

  // The frame in progress.
  uint64_t frame_start_ns = 0, frame_calls = 0, frame_bytes = 0;
  bool frame_started = false;

  ~State() {
    stop_compressor();
    free(spare);
    ZSTD_freeCCtx(zstd);
  }

  // A nested message whose length goes in 4 bytes reserved before it, as a
  // padded varint (protozero writes lengths so too): nothing is moved when
  // it ends. Up to 256 MiB; a packet's arguments are bounded far below.
  size_t open_padded(uint32_t key) {
    uint8_t* p = packets.begin_write(16);
    p = wire::put_varint(p, key);
    packets.end_write(p + 4);
    return packets.size();
  }
  void close_padded(size_t mark) {
    size_t length = packets.size() - mark;
    uint8_t* p = packets.data() + mark - 4;
    p[0] = static_cast<uint8_t>(length | 0x80);
    p[1] = static_cast<uint8_t>(length >> 7 | 0x80);
    p[2] = static_cast<uint8_t>(length >> 14 | 0x80);
    p[3] = static_cast<uint8_t>(length >> 21 & 0x7f);
  }

  // The sequence's first packet: it clears the incremental state and sets
  // the incremental clock up, at 0, as the packets' default clock.
  void start_sequence() {
    namespace tp = pf::trace_packet;
    namespace clock = pf::clock_snapshot::clock;
    first_packet = false;
    clock_ns = 0;
    size_t packet = pf::trace::begin_packet(packets);
    tp::set_trusted_packet_sequence_id(packets, kSequence);
    tp::set_sequence_flags(packets, tp::sequence_flags::kSeqIncrementalStateCleared);
    size_t defaults = tp::begin_trace_packet_defaults(packets);
    pf::trace_packet_defaults::set_timestamp_clock_id(packets, kIncrementalClock);
    packets.end_nested(defaults);
    size_t snapshot = tp::begin_clock_snapshot(packets);
    size_t boottime = pf::clock_snapshot::begin_clocks(packets);
    clock::set_clock_id(packets, kBoottime);
    clock::set_timestamp(packets, 0);
    packets.end_nested(boottime);
    size_t incremental = pf::clock_snapshot::begin_clocks(packets);
    clock::set_clock_id(packets, kIncrementalClock);
    clock::set_timestamp(packets, 0);
    clock::set_is_incremental(packets, true);
    packets.end_nested(incremental);
    packets.end_nested(snapshot);
    packets.end_nested(packet);
  }

  // A packet's timestamp (up to 14 bytes): a delta on the incremental clock,
  // or absolute on BOOTTIME when it is before the clock's time.
  uint8_t* put_timestamp(uint8_t* p, uint64_t time_ns) {
    namespace tp = pf::trace_packet;
    if (time_ns >= clock_ns) {
      p = tp::put_timestamp(p, time_ns - clock_ns);
      clock_ns = time_ns;
      return p;
    }
    p = tp::put_timestamp(p, time_ns);
    return tp::put_timestamp_clock_id(p, kBoottime);
  }

  size_t begin_packet(uint64_t timestamp, bool has_timestamp) {
    if (first_packet) start_sequence();
    size_t mark = open_padded(pf::trace::kPacketTag);
    if (has_timestamp) packets.end_write(put_timestamp(packets.begin_write(16), timestamp));
    pf::trace_packet::set_trusted_packet_sequence_id(packets, kSequence);
    return mark;
  }
  void end_packet(size_t mark) {
    if (!new_names.empty() || !new_annotations.empty() || !new_strings.empty())
      write_interned_data();
    close_padded(mark);
    if (packets.size() >= kBatchBytes) flush();
  }
  void write_interned_data() {
    size_t interned = pf::trace_packet::begin_interned_data(packets);
    for (const auto& [iid, name] : new_names) {
      size_t m = pf::interned_data::begin_event_names(packets);
      pf::event_name::set_iid(packets, iid);
      pf::event_name::set_name(packets, name);
      packets.end_nested(m);
    }
    for (const auto& [iid, name] : new_annotations) {
      size_t m = pf::interned_data::begin_debug_annotation_names(packets);
      pf::debug_annotation_name::set_iid(packets, iid);
      pf::debug_annotation_name::set_name(packets, name);
      packets.end_nested(m);
    }
    for (const auto& [iid, name] : new_strings) {
      size_t m = pf::interned_data::begin_debug_annotation_string_values(packets);
      pf::interned_string::set_iid(packets, iid);
      pf::interned_string::set_str(packets, name);
      packets.end_nested(m);
    }
    packets.end_nested(interned);
    new_names.clear();
    new_annotations.clear();
    new_strings.clear();
  }

  uint64_t annotation_iid(std::string_view name) {
    auto [it, added] = annotation_names.try_emplace(name, next_annotation_iid);
    if (added) new_annotations.emplace_back(next_annotation_iid++, name);
    return it->second;
  }
  uint64_t annotation_iid(uint64_t* cached, std::string_view name) {
    if (*cached == 0) *cached = annotation_iid(name);
    return *cached;
  }
  uint64_t string_iid(std::string_view s) {
    auto it = strings.find(std::string(s));
    if (it != strings.end()) return it->second;
    strings.emplace(std::string(s), next_string_iid);
    new_strings.emplace_back(next_string_iid, std::string(s));
    return next_string_iid++;
  }

  // The interned name of an enum value (0: it has none). A trace repeats a
  // few values: they are found in a direct-mapped cache, not looked up by
  // name each time.
  struct EnumSlot {
    uint32_t value = 0;
    int32_t group = 0;
    uint64_t iid = 0;  // 0: empty
  };
  std::vector<EnumSlot> enum_cache = std::vector<EnumSlot>(4096);
  uint64_t enum_iid(uint32_t value, int32_t group) {
    EnumSlot& slot =
        enum_cache[(value ^ (value >> 12) ^ static_cast<uint32_t>(group) * 2654435761u) & 4095];
    if (slot.iid != 0 && slot.value == value && slot.group == group) return slot.iid;
    return enum_iid_looked_up(slot, value, group);
  }
  [[gnu::noinline]] uint64_t enum_iid_looked_up(EnumSlot& slot, uint32_t value, int32_t group) {
    const char* name =
        group == kEglEnums ? api::egl_enum_name(value) : api::enum_name_in(value, group);
    if (name == nullptr) return 0;
    slot = {value, group, string_iid(name)};
    return slot.iid;
  }

  const FunctionPlan* plan(uint32_t function) {
    if (function >= functions.size() || api::kFunctionInfo[function].name == nullptr) {
      // Ids past this gltrace's model (a newer writer, or damage): one name.
      if (unknown_function_iid == 0) {
        unknown_function_iid = next_name_iid++;
        new_names.emplace_back(unknown_function_iid, "(function unknown to this gltrace)");
      }
      return nullptr;
    }
    FunctionPlan& f = functions[function];
    if (f.planned) return &f;
    const api::FunctionInfo& info = api::kFunctionInfo[function];
    f.planned = true;
    f.name_iid = next_name_iid++;
    new_names.emplace_back(f.name_iid, info.name);
    for (uint32_t i = 0; i < info.param_count; ++i) {
      const api::ParamInfo& p = info.params[i];
      ParamPlan plan;
      plan.name_iid = annotation_iid(p.name);
      if (p.kind == api::Kind::kEnum || p.kind == api::Kind::kEglEnum) {
        plan.kind = ParamKind::kEnum;
        plan.group = p.kind == api::Kind::kEglEnum ? kEglEnums : api::enum_group(p.group);
      } else if (p.kind == api::Kind::kBoolean || p.kind == api::Kind::kEglBoolean) {
        plan.kind = ParamKind::kBoolean;
      }
      f.params.push_back(plan);
    }
    return &f;
  }

  void string_annotation_value(std::string_view s) {
    text.clear();
    append_utf8(text, s);
    pf::debug_annotation::set_string_value(packets, text);
  }

  // An annotation whose value is text (UTF-8 checked, at most kMaxText
  // bytes of it): its length is known before it is written.
  void string_annotation(uint64_t name_iid, std::string_view s) {
    text.clear();
    append_utf8(text, s);
    utf8_annotation(name_iid, text);
  }
  // The same of text known to be UTF-8 and short.
  void utf8_annotation(uint64_t name_iid, std::string_view utf8) {
    namespace da = pf::debug_annotation;
    size_t size = 1 + varint_bytes(name_iid) + 1 + varint_bytes(utf8.size()) + utf8.size();
    uint8_t* at = packets.begin_write(size + 16);
    at = wire::put_varint(at, pf::track_event::kDebugAnnotationsTag);
    at = wire::put_varint(at, size);
    at = da::put_name_iid(at, name_iid);
    at = wire::put_varint(at, da::kStringValueTag);
    at = wire::put_varint(at, utf8.size());
    memcpy(at, utf8.data(), utf8.size());
    packets.end_write(at + utf8.size());
  }

  // An annotation of a list of strings (at most kMaxElements of them):
  // nested, as its length is not known before.
  void strings_annotation(uint64_t name_iid, const format::Value& v) {
    namespace da = pf::debug_annotation;
    size_t annotation = pf::track_event::begin_debug_annotations(packets);
    da::set_name_iid(packets, name_iid);
    const std::span<const std::string_view> strings = v.strings();
    for (size_t i = 0; i < strings.size() && i < kMaxElements; ++i) {
      size_t m = da::begin_array_values(packets);
      string_annotation_value(strings[i]);
      packets.end_nested(m);
    }
    packets.end_nested(annotation);
  }

  // An annotation of a list of numbers: the first kMaxElements, then how
  // many more there are (a value's elements are of one kind, so two of
  // these lists are empty). Its size is known first, so it is written in one go.
  void numbers_annotation(uint64_t name_iid, const format::Value& v) {
    namespace da = pf::debug_annotation;
    const std::span<const int64_t> all_sints = v.sints();
    const std::span<const uint64_t> all_uints = v.uints();
    const std::span<const float> all_floats = v.floats();
    const size_t n = all_sints.size() + all_uints.size() + all_floats.size();
    // The elements shown of each list, in this order.
    const size_t sints = std::min(all_sints.size(), kMaxElements);
    const size_t uints = std::min(all_uints.size(), kMaxElements - sints);
    const size_t floats = std::min(all_floats.size(), kMaxElements - sints - uints);
    // Each element: array_values' tag and 1-byte length, a value's tag, the value.
    size_t size = 1 + varint_bytes(name_iid) + floats * (3 + 8);
    for (size_t i = 0; i < sints; ++i)
      size += 3 + varint_bytes(static_cast<uint64_t>(all_sints[i]));
    for (size_t i = 0; i < uints; ++i) size += 3 + varint_bytes(all_uints[i]);
    const size_t shown = sints + uints + floats;
    size_t more_size = 0;
    NumberText more("<", n - shown, " more>");
    if (n > shown) {
      more_size = 1 + varint_bytes(more.view().size()) + more.view().size();
      size += 1 + varint_bytes(more_size) + more_size;
    }
    uint8_t* at = packets.begin_write(size + 16);
    at = wire::put_varint(at, pf::track_event::kDebugAnnotationsTag);
    at = wire::put_varint(at, size);
    at = da::put_name_iid(at, name_iid);
    constexpr uint8_t kElement = da::kArrayValuesTag;
    for (size_t i = 0; i < sints; ++i) {
      auto bits = static_cast<uint64_t>(all_sints[i]);
      *at++ = kElement;
      *at++ = static_cast<uint8_t>(1 + varint_bytes(bits));
      at = da::put_int_value(at, bits);
    }
    for (size_t i = 0; i < uints; ++i) {
      *at++ = kElement;
      *at++ = static_cast<uint8_t>(1 + varint_bytes(all_uints[i]));
      at = da::put_uint_value(at, all_uints[i]);
    }
    for (size_t i = 0; i < floats; ++i) {
      double d = all_floats[i];
      at[0] = kElement;
      at[1] = 1 + 8;
      at[2] = da::kDoubleValueTag;
      std::memcpy(at + 3, &d, 8);
      at += 3 + 8;
    }
    if (more_size != 0) {
      at = wire::put_varint(at, kElement);
      at = wire::put_varint(at, more_size);
      at = wire::put_varint(at, da::kStringValueTag);
      at = wire::put_varint(at, more.view().size());
      std::memcpy(at, more.view().data(), more.view().size());
      at += more.view().size();
    }
    packets.end_write(at);
  }

  // An annotation of a value that is not a scalar: text, lists, pointer data.
  [[gnu::noinline]] void other_annotation(uint64_t name_iid, const format::Value& v) {
    using format::ValueKind;
    switch (v.kind) {
      case ValueKind::kData:
        utf8_annotation(name_iid, NumberText("<", v.bytes().size(), " bytes>").view());
        break;
      case ValueKind::kBlob:
        utf8_annotation(name_iid, NumberText("<blob ", v.blob, ">").view());
        break;
      case ValueKind::kText:
        string_annotation(name_iid, v.bytes());
        break;
      case ValueKind::kUnknown:
        composed.assign("<not recorded: ");
        composed.append(v.bytes().substr(0, kMaxText));  // more is cut in the annotation
        composed += '>';
        string_annotation(name_iid, composed);
        break;
      case ValueKind::kStrings:
        strings_annotation(name_iid, v);
        break;
      case ValueKind::kArray:
        numbers_annotation(name_iid, v);
        break;
      case ValueKind::kNone:
      default:  // scalars: not here
        utf8_annotation(name_iid, "<none>");
        break;
    }
  }

  // A call's argument (p: its parameter in the registry, if known) as a
  // debug annotation. Scalars, most arguments, are written in one go.
  [[gnu::always_inline]] void annotation(uint64_t name_iid, const format::Value& v,
                                         const ParamPlan* p) {
    using format::ValueKind;
    namespace da = pf::debug_annotation;
    uint64_t value_tag = 0;  // a varint's, or a double's
    uint64_t bits = 0;
    switch (v.kind) {
      case ValueKind::kSint:
        value_tag = da::kIntValueTag, bits = static_cast<uint64_t>(v.sint);
        break;
      case ValueKind::kPointer:
        value_tag = da::kPointerValueTag, bits = v.pointer;
        break;
      case ValueKind::kUint:
        value_tag = da::kUintValueTag, bits = v.uint;
        if (p != nullptr && p->kind == ParamKind::kEnum && v.uint <= 0xffffffffu) {
          if (uint64_t iid = enum_iid(static_cast<uint32_t>(v.uint), p->group); iid != 0)
            value_tag = da::kStringValueIidTag, bits = iid;
        } else if (p != nullptr && p->kind == ParamKind::kBoolean && v.uint <= 1) {
          value_tag = da::kBoolValueTag;
        }
        break;
      case ValueKind::kF32:
      case ValueKind::kF64: {
        double d = v.kind == ValueKind::kF32 ? v.f32 : v.f64;
        value_tag = da::kDoubleValueTag;
        std::memcpy(&bits, &d, 8);
        break;
      }
      default:
        other_annotation(name_iid, v);
        return;
    }
    uint8_t* at = packets.begin_write(kScalarAnnotationBound);
    at = wire::put_varint(at, pf::track_event::kDebugAnnotationsTag);
    uint8_t* length = at++;
    at = da::put_name_iid(at, name_iid);
    at = wire::put_varint(at, value_tag);
    if ((value_tag & 7) == wire::kFixed64) {
      std::memcpy(at, &bits, 8);
      at += 8;
    } else {
      at = wire::put_varint(at, bits);
    }
    *length = static_cast<uint8_t>(at - length - 1);
    packets.end_write(at);
  }

  void describe_thread(uint32_t index, uint64_t tid, std::string_view name) {
    threads.try_emplace(index, 0);
    size_t packet = begin_packet(0, false);
    size_t track = pf::trace_packet::begin_track_descriptor(packets);
    pf::track_descriptor::set_uuid(packets, kFirstThreadTrack + index);
    pf::track_descriptor::set_parent_uuid(packets, kProcessTrack);
    size_t thread = pf::track_descriptor::begin_thread(packets);
    pf::thread_descriptor::set_pid(packets, pid);
    pf::thread_descriptor::set_tid(packets, tid);
    text.clear();
    append_utf8(text, name);
    pf::thread_descriptor::set_thread_name(packets, text);
    packets.end_nested(thread);
    packets.end_nested(track);
    end_packet(packet);
  }

  // A slice's end: all its fields are known, so it is written in one go.
  void end_slice(uint64_t track, uint64_t time_ns) {
    uint8_t timestamp[16];
    size_t timestamp_size = static_cast<size_t>(put_timestamp(timestamp, time_ns) - timestamp);
    size_t event_size = 2 + 1 + varint_bytes(track);
    size_t packet_size = timestamp_size + 2 + 2 + event_size;
    uint8_t* p = packets.begin_write(packet_size + 8 + sizeof timestamp);
    p = wire::put_varint(p, pf::trace::kPacketTag);
    p = wire::put_varint(p, packet_size);
    std::memcpy(p, timestamp, sizeof timestamp);  // a fixed size: no call to memcpy
    p += timestamp_size;
    p = pf::trace_packet::put_trusted_packet_sequence_id(p, kSequence);
    p = wire::put_varint(p, pf::trace_packet::kTrackEventTag);
    p = wire::put_varint(p, event_size);
    p = pf::track_event::put_type(p, pf::track_event::type::kTypeSliceEnd);
    p = pf::track_event::put_track_uuid(p, track);
    packets.end_write(p);
    if (packets.size() >= kBatchBytes) flush();
  }

  void counter_track(uint64_t uuid, std::string_view name, uint64_t unit) {
    size_t packet = begin_packet(0, false);
    size_t track = pf::trace_packet::begin_track_descriptor(packets);
    pf::track_descriptor::set_uuid(packets, uuid);
    pf::track_descriptor::set_parent_uuid(packets, kProcessTrack);
    pf::track_descriptor::set_name(packets, name);
    size_t counter = pf::track_descriptor::begin_counter(packets);
    pf::counter_descriptor::set_unit(packets, unit);
    packets.end_nested(counter);
    packets.end_nested(track);
    end_packet(packet);
  }

  void counter(uint64_t uuid, uint64_t time_ns, uint64_t value) {
    size_t packet = begin_packet(time_ns, true);
    size_t event = pf::trace_packet::begin_track_event(packets);
    pf::track_event::set_type(packets, pf::track_event::type::kTypeCounter);
    pf::track_event::set_track_uuid(packets, uuid);
    pf::track_event::set_counter_value(packets, value);
    packets.end_nested(event);
    end_packet(packet);
  }

  // Written by the compressing thread when there is one (then read by the
  // writer's thread only after it ended).
  void write(const void* data, size_t n) {
    if (failed || n == 0) return;
    if (fwrite(data, 1, n, out) != n) failed = true;
    written += n;
  }

  // Compresses a batch of plain packets into one packet and writes it.
  void write_compressed(const uint8_t* batch, size_t size) {
    if (zstd == nullptr) {
      zstd = ZSTD_createCCtx();
      if (zstd == nullptr) {
        failed = true;
        return;
      }
      ZSTD_CCtx_setParameter(zstd, ZSTD_c_compressionLevel, 1);
    }
    size_t bound = ZSTD_compressBound(size);
    compressed.clear();
    uint8_t* data = compressed.begin_write(bound);
    size_t n = ZSTD_compress2(zstd, data, bound, batch, size);
    if (ZSTD_isError(n)) {
      failed = true;
      return;
    }
    // The wrapping packet's tags and lengths, then the data.
    uint8_t header[32];
    uint8_t* p = wire::put_varint(header, pf::trace::kPacketTag);
    p = wire::put_varint(p, 2 + wire::varint_size(n) + n);  // field 133's tag takes 2 bytes
    p = wire::put_varint(p, pf::trace_packet::kZstdCompressedPacketsTag);
    p = wire::put_varint(p, n);
    write(header, static_cast<size_t>(p - header));
    write(data, n);
  }

  // Compression runs on a thread of its own, a batch at a time, while the
  // next batch is encoded: it costs as much as encoding.
  std::thread compressor;
  std::mutex mutex;
  std::condition_variable changed;
  uint8_t* pending = nullptr;  // the batch handed over (malloc'ed), if any
  size_t pending_size = 0, pending_capacity = 0;
  uint8_t* spare = nullptr;  // a compressed batch's buffer, to encode into again
  size_t spare_capacity = 0;
  bool stopping = false;

  void compress_batches() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return pending != nullptr || stopping; });
      if (pending == nullptr) return;
      uint8_t* batch = pending;
      size_t size = pending_size, capacity = pending_capacity;
      lock.unlock();
      write_compressed(batch, size);
      lock.lock();
      free(spare);
      spare = batch;
      spare_capacity = capacity;
      pending = nullptr;
      changed.notify_all();
    }
  }

  void flush() {
    if (packets.size() == 0) return;
    if (compression == Compression::kNone) {
      write(packets.data(), packets.size());
      packets.clear();
      return;
    }
    if (!compressor.joinable()) compressor = std::thread([this] { compress_batches(); });
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return pending == nullptr; });
    pending = packets.release(&pending_size, &pending_capacity);
    if (spare != nullptr) {
      packets.adopt(spare, spare_capacity);
      spare = nullptr;
    }
    changed.notify_all();
  }

  // After the last flush(): waits for the compressing thread to write all.
  void stop_compressor() {
    if (!compressor.joinable()) return;
    {
      std::lock_guard lock(mutex);
      stopping = true;
      changed.notify_all();
    }
    compressor.join();
  }
};

PerfettoWriter::PerfettoWriter(FILE* out, Compression compression)
    : state_(std::make_unique<State>()) {
  state_->out = out;
  state_->compression = compression;
}

PerfettoWriter::~PerfettoWriter() = default;

uint64_t PerfettoWriter::bytes_written() const { return state_->written; }

void PerfettoWriter::process(uint32_t pid, std::string_view name, std::string_view command_line) {
  State& s = *state_;
  s.pid = pid;
  size_t packet = s.begin_packet(0, false);
  size_t track = pf::trace_packet::begin_track_descriptor(s.packets);
  pf::track_descriptor::set_uuid(s.packets, kProcessTrack);
  size_t process = pf::track_descriptor::begin_process(s.packets);
  pf::process_descriptor::set_pid(s.packets, pid);
  s.text.clear();
  append_utf8(s.text, name);
  pf::process_descriptor::set_process_name(s.packets, s.text);
  s.text.clear();
  append_utf8(s.text, command_line);
  pf::process_descriptor::add_cmdline(s.packets, s.text);
  s.packets.end_nested(process);
  s.packets.end_nested(track);
  s.end_packet(packet);

  packet = s.begin_packet(0, false);
  track = pf::trace_packet::begin_track_descriptor(s.packets);
  pf::track_descriptor::set_uuid(s.packets, kFrameTrack);
  pf::track_descriptor::set_parent_uuid(s.packets, kProcessTrack);
  pf::track_descriptor::set_name(s.packets, "frames");
  s.packets.end_nested(track);
  s.end_packet(packet);
  s.counter_track(kCallsCounterTrack, "calls per frame", pf::counter_descriptor::unit::kUnitCount);
  s.counter_track(kBytesCounterTrack, "data bytes per frame",
                  pf::counter_descriptor::unit::kUnitSizeBytes);
}

void PerfettoWriter::thread(uint32_t index, uint64_t tid, std::string_view name) {
  state_->describe_thread(index, tid, name);
}

void PerfettoWriter::call(const format::Call& call) {
  State& s = *state_;
  // Calls come in runs of one thread: one lookup per run.
  if (call.thread != s.last_thread) {
    if (!s.threads.contains(call.thread))
      s.describe_thread(call.thread, 0, "thread " + std::to_string(call.thread));
    s.last_thread = call.thread;
    s.last_thread_end = &s.threads[call.thread];
  }
  // A slice must not begin before the one before it on its track ended:
  // Perfetto would nest it there, and end the wrong one. Clocks read on
  // different cores may disagree by a few ns.
  uint64_t start = std::max(call.start_ns, *s.last_thread_end);
  uint64_t end = std::max(call.start_ns + call.duration_ns, start);
  *s.last_thread_end = end;
  if (!s.frame_started) {
    s.frame_start_ns = call.start_ns;
    s.frame_started = true;
  }
  ++s.frame_calls;
  for (const format::ClientArray& a : call.client_arrays) s.frame_bytes += a.data.size();
  for (const format::BufferWrite& w : call.buffer_writes) s.frame_bytes += w.data.size();

  uint64_t track = kFirstThreadTrack + call.thread;
  const FunctionPlan* plan = s.plan(call.function);
  // The packet's and its track event's fixed fields, in one go; the lengths
  // are filled in at the end (State::close_padded).
  size_t packet = 0, event = 0;
  {
    namespace tp = pf::trace_packet;
    namespace te = pf::track_event;
    if (s.first_packet) s.start_sequence();
    uint8_t* const base = s.packets.begin_write(kCallHeaderBound);
    uint8_t* p = wire::put_varint(base, pf::trace::kPacketTag) + 4;
    packet = s.packets.size() + static_cast<size_t>(p - base);
    p = s.put_timestamp(p, start);
    p = tp::put_trusted_packet_sequence_id(p, kSequence);
    p = tp::put_sequence_flags(p, tp::sequence_flags::kSeqNeedsIncrementalState);
    p = wire::put_varint(p, tp::kTrackEventTag) + 4;
    event = s.packets.size() + static_cast<size_t>(p - base);
    p = te::put_type(p, te::type::kTypeSliceBegin);
    p = te::put_track_uuid(p, track);
    p = te::put_name_iid(p, plan != nullptr ? plan->name_iid : s.unknown_function_iid);
    s.packets.end_write(p);
  }
  bool cut = false;
  const ParamPlan* params = plan != nullptr ? plan->params.data() : nullptr;
  const size_t planned = plan != nullptr ? plan->params.size() : 0;
  for (size_t i = 0, n = call.args.size(); i < n; ++i) {
    const format::Value& v = call.args[i];
    if (v.kind == format::ValueKind::kData) s.frame_bytes += v.bytes().size();
    if (cut) continue;
    // A call of many long strings (a hostile trace's) stays a small packet:
    // a compressed batch must stay under 512 KiB.
    if (s.packets.size() - event > kMaxCallBytes) {
      s.string_annotation(s.annotation_iid(&s.more_iid, "..."),
                          "<more arguments: see gltrace dump>");
      cut = true;
      continue;
    }
    const ParamPlan* p = i < planned ? &params[i] : nullptr;
    s.annotation(p != nullptr ? p->name_iid : s.annotation_iid(&s.arg_iid, "arg"), v, p);
  }
  if (call.ret != nullptr)
    s.annotation(s.annotation_iid(&s.return_iid, "return"), *call.ret, nullptr);
  if (call.gl_error != 0) {
    format::Value error;
    error.kind = format::ValueKind::kUint;
    error.uint = call.gl_error;
    ParamPlan as_enum;
    as_enum.kind = ParamKind::kEnum;
    s.annotation(s.annotation_iid(&s.gl_error_iid, "gl_error"), error, &as_enum);
  }
  if (s.call_numbers) {
    format::Value number;
    number.kind = format::ValueKind::kUint;
    number.uint = call.seq;
    s.annotation(s.annotation_iid(&s.call_iid, "call"), number, nullptr);
  }
  s.close_padded(event);
  if (!s.new_names.empty() || !s.new_annotations.empty() || !s.new_strings.empty())
    s.write_interned_data();
  s.close_padded(packet);

  s.end_slice(track, end);
}

void PerfettoWriter::blob(const format::Blob& blob) { state_->frame_bytes += blob.data.size(); }

void PerfettoWriter::frame(const format::Frame& frame) {
  State& s = *state_;
  // Frames follow each other on their track (a multi-threaded trace may
  // deliver one stamped before the end of the one before).
  uint64_t end = std::max(frame.time_ns, s.last_frame_end);
  uint64_t start = std::clamp(s.frame_started ? s.frame_start_ns : end, s.last_frame_end, end);
  s.last_frame_end = end;
  size_t packet = s.begin_packet(start, true);
  size_t event = pf::trace_packet::begin_track_event(s.packets);
  pf::track_event::set_type(s.packets, pf::track_event::type::kTypeSliceBegin);
  pf::track_event::set_track_uuid(s.packets, kFrameTrack);
  pf::track_event::set_name(s.packets, NumberText("frame ", frame.number, "").view());
  s.packets.end_nested(event);
  s.end_packet(packet);
  s.end_slice(kFrameTrack, end);
  s.counter(kCallsCounterTrack, end, s.frame_calls);
  s.counter(kBytesCounterTrack, end, s.frame_bytes);
  // The next frame starts where this one ended.
  s.frame_start_ns = end;
  s.frame_started = true;
  s.frame_calls = s.frame_bytes = 0;
}

void PerfettoWriter::call_numbers(bool on) { state_->call_numbers = on; }

void PerfettoWriter::gpu_clock(uint64_t time_ns, uint64_t gpu_ns) {
  namespace clock = pf::clock_snapshot::clock;
  State& s = *state_;
  size_t packet = s.begin_packet(0, false);
  size_t snapshot = pf::trace_packet::begin_clock_snapshot(s.packets);
  size_t boottime = pf::clock_snapshot::begin_clocks(s.packets);
  clock::set_clock_id(s.packets, kBoottime);
  clock::set_timestamp(s.packets, time_ns);
  s.packets.end_nested(boottime);
  size_t gpu = pf::clock_snapshot::begin_clocks(s.packets);
  clock::set_clock_id(s.packets, kGpuClock);
  clock::set_timestamp(s.packets, gpu_ns);
  s.packets.end_nested(gpu);
  s.packets.end_nested(snapshot);
  s.end_packet(packet);
}

void PerfettoWriter::gpu_stage(const GpuStage& stage) {
  namespace ev = pf::gpu_render_stage_event;
  namespace spec = pf::interned_gpu_render_stage_specification;
  State& s = *state_;
  // Interned data this event introduces: its queue's and stage's
  // specifications, its context.
  struct NewSpec {
    uint64_t iid;
    std::string_view name, description;
    int32_t category;
  };
  NewSpec new_specs[2];
  size_t new_spec_count = 0;
  auto spec_iid = [&](std::string_view name, std::string_view description, int32_t category) {
    auto [it, added] = s.gpu_specifications.try_emplace(std::string(name), s.next_gpu_iid);
    if (added) new_specs[new_spec_count++] = {s.next_gpu_iid++, name, description, category};
    return it->second;
  };
  uint64_t queue =
      spec_iid(stage.queue.name, stage.queue.description, spec::render_stage_category::kOther);
  uint64_t stage_iid = spec_iid(stage.stage, stage.stage_description,
                                stage.compute ? spec::render_stage_category::kCompute
                                              : spec::render_stage_category::kGraphics);
  bool new_context = std::find(s.gpu_contexts.begin(), s.gpu_contexts.end(), stage.context) ==
                     s.gpu_contexts.end();
  if (new_context) s.gpu_contexts.push_back(stage.context);

  size_t packet = s.begin_packet(0, false);
  pf::trace_packet::set_timestamp(s.packets, stage.gpu_start_ns);
  pf::trace_packet::set_timestamp_clock_id(s.packets, kGpuClock);
  pf::trace_packet::set_sequence_flags(s.packets,
                                       pf::trace_packet::sequence_flags::kSeqNeedsIncrementalState);
  if (new_spec_count != 0 || new_context) {
    size_t interned = pf::trace_packet::begin_interned_data(s.packets);
    for (size_t i = 0; i < new_spec_count; ++i) {
      size_t m = pf::interned_data::begin_gpu_specifications(s.packets);
      spec::set_iid(s.packets, new_specs[i].iid);
      spec::set_name(s.packets, new_specs[i].name);
      spec::set_description(s.packets, new_specs[i].description);
      spec::set_category(s.packets, new_specs[i].category);
      s.packets.end_nested(m);
    }
    if (new_context) {
      size_t m = pf::interned_data::begin_graphics_contexts(s.packets);
      pf::interned_graphics_context::set_iid(s.packets, stage.context);
      pf::interned_graphics_context::set_pid(s.packets, s.pid);
      pf::interned_graphics_context::set_api(s.packets,
                                             pf::interned_graphics_context::api::kOpenGl);
      s.packets.end_nested(m);
    }
    s.packets.end_nested(interned);
  }
  size_t event = pf::trace_packet::begin_gpu_render_stage_event(s.packets);
  ev::set_event_id(s.packets, s.next_gpu_event++);
  ev::set_duration(s.packets, stage.duration_ns);
  ev::set_hw_queue_iid(s.packets, queue);
  ev::set_stage_iid(s.packets, stage_iid);
  ev::set_context(s.packets, stage.context);
  ev::set_render_target_handle(s.packets, stage.framebuffer);
  ev::set_submission_id(s.packets, stage.frame);
  for (const auto& [name, value] : stage.extra) {
    size_t m = ev::begin_extra_data(s.packets);
    ev::extra_data::set_name(s.packets, name);
    s.text.clear();
    append_utf8(s.text, value);
    ev::extra_data::set_value(s.packets, s.text);
    s.packets.end_nested(m);
  }
  s.packets.end_nested(event);
  s.end_packet(packet);
}

void PerfettoWriter::gpu_counters(uint64_t time_ns, std::span<const GpuCounter> counters) {
  namespace ce = pf::gpu_counter_event;
  State& s = *state_;
  size_t packet = s.begin_packet(time_ns, true);
  size_t event = pf::trace_packet::begin_gpu_counter_event(s.packets);
  if (!s.gpu_counters_described) {
    // The first event describes every counter.
    s.gpu_counters_described = true;
    size_t descriptor = ce::begin_counter_descriptor(s.packets);
    for (const GpuCounter& c : counters) {
      size_t m = pf::gpu_counter_descriptor::begin_specs(s.packets);
      pf::gpu_counter_descriptor::gpu_counter_spec::set_counter_id(s.packets, c.id);
      pf::gpu_counter_descriptor::gpu_counter_spec::set_name(s.packets, c.name);
      pf::gpu_counter_descriptor::gpu_counter_spec::set_description(s.packets, c.description);
      s.packets.end_nested(m);
    }
    s.packets.end_nested(descriptor);
  }
  for (const GpuCounter& c : counters) {
    size_t m = ce::begin_counters(s.packets);
    ce::gpu_counter::set_counter_id(s.packets, c.id);
    ce::gpu_counter::set_int_value(s.packets, c.value);
    s.packets.end_nested(m);
  }
  s.packets.end_nested(event);
  s.end_packet(packet);
}

bool PerfettoWriter::finish(std::string* error) {
  State& s = *state_;
  s.flush();
  s.stop_compressor();
  if (!s.failed && fflush(s.out) != 0) s.failed = true;
  if (s.failed) *error = "writing the Perfetto trace failed";
  return !s.failed;
}

}  // namespace gltrace::consumers
