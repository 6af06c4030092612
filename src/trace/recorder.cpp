#include "trace/recorder.h"

#include <EGL/egl.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/encoders.h"
#include "format/record_builder.h"
#include "format/schema.h"
#include "gltrace/api/functions.h"
#include "textformat/value_text.h"
#include "trace/compsize.h"
#include "trace/modes.h"
#include "trace/session.h"

namespace gltrace::trace {

void* g_next_functions[api::kFunctionIdLimit];

namespace {

namespace schema = gltrace::schema;

// Pointer data at least this large is stored once as a Blob and referred to
// by its hash: repeated uploads (same texture, same uniform block) cost 9 bytes.
constexpr size_t kInlineLimit = 256;
// What a single pointer argument may capture (a record must stay under the
// container's 64 MiB chunk limit); more is recorded as Unknown.
constexpr int64_t kMaxCapture = int64_t{60} << 20;

enum ArrayKind { kUints, kSints, kFloats, kBytes };

// The longest EGL attribute list recorded, in elements.
constexpr int64_t kMaxAttribListLength = 4096;
// Memory is checked for readability in blocks of this size (the smallest
// page size: a larger real page only costs more checks).
constexpr uintptr_t kPageSize = 4096;

uintptr_t page_end(uintptr_t address) { return (address | (kPageSize - 1)) + 1; }

// Whether the app's memory [p, p + size) can be read without faulting.
bool readable(const void* p, size_t size) {
  char copy[16];
  if (size > sizeof(copy)) return false;
  iovec local{copy, size};
  iovec remote{const_cast<void*>(p), size};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n >= 0) return static_cast<size_t>(n) == size;
  if (errno == EFAULT) return false;
  // process_vm_readv not allowed here (seccomp): at least the pages must be
  // mapped (a PROT_NONE page passes this check).
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  uintptr_t last = ((reinterpret_cast<uintptr_t>(p) + size - 1) | (page - 1)) + 1;
  unsigned char resident[2];  // size <= 16 bytes spans at most two pages
  return mincore(reinterpret_cast<void*>(first), last - first, resident) == 0;
}

// The number of elements of an attribute list to record: up to and
// including the `none` (EGL_NONE, or GL_NONE for GL's lists) in a name
// position that ends it. A malformed list
// such as {name, EGL_NONE} (an attribute without a value) has none there:
// the driver stops reading at the attribute it rejects, but the list goes on
// into whatever memory follows it, maybe to the end of the stack. That
// memory is read only while it is readable, so such a list is recorded up to
// there instead of faulting in the app. Only a list that crosses into
// another page is checked: the page of its first element the driver read.
template <typename T>
int64_t attrib_list_length(const T* list, T none) {
  uintptr_t checked_end = page_end(reinterpret_cast<uintptr_t>(list));
  for (int64_t n = 0; n + 2 <= kMaxAttribListLength; n += 2) {
    const T* pair = list + n;
    if (reinterpret_cast<uintptr_t>(pair + 2) > checked_end) {
      if (!readable(pair, sizeof(T) * 2)) return readable(pair, sizeof(T)) ? n + 1 : n;
      checked_end = page_end(reinterpret_cast<uintptr_t>(pair + 2) - 1);
    }
    if (pair[0] == none) return n + 1;
  }
  return kMaxAttribListLength;
}

// An integer array's element i, unsigned and sign-extended.
void load_element(const uint8_t* e, size_t element_size, uint64_t* u, int64_t* s) {
  switch (element_size) {
    case 1: {
      uint8_t v;
      memcpy(&v, e, 1);
      *u = v;
      *s = static_cast<int64_t>(v) - (v >= 0x80 ? 256 : 0);  // sign-extend
      break;
    }
    case 2: {
      uint16_t v;
      memcpy(&v, e, 2);
      *u = v;
      *s = static_cast<int16_t>(v);
      break;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, e, 4);
      *u = v;
      *s = static_cast<int32_t>(v);
      break;
    }
    default: {
      uint64_t v;
      memcpy(&v, e, 8);
      *u = v;
      *s = static_cast<int64_t>(v);
      break;
    }
  }
}

// Where the text of a call's next value goes, and how it is shown: an
// argument after its "name = " (the wrappers write them in parameter order),
// or the result. The text is the dumper's (consumers/value_format.cpp) for
// the same value encoded and decoded.
struct LineValue {
  std::string* out;
  textformat::ValueFormat format;
};

// False when the line takes no values (systrace, and EGL calls in error
// mode: recorded for their wrappers' state, not shown).
bool next_line_value(CallLine& line, uint32_t key, LineValue* value) {
  if (line.text == nullptr) return false;
  if (key == schema::call::kRetTag) {
    line.result.clear();
    line.has_result = true;
    *value = {&line.result, line.text->ret};
    return true;
  }
  uint32_t i = line.args++;
  if (i < line.text->params.size()) {
    line.line += line.text->params[i].prefix;
    *value = {&line.line, line.text->params[i].format};
    return true;
  }
  if (i != 0) line.line += ", ";
  *value = {&line.line, {}};
  return true;
}

}  // namespace

void ValueWriter::line_uint(uint64_t v) {
  LineValue value;
  if (!next_line_value(*line_, key_, &value)) return;
  textformat::Text out(*value.out);
  textformat::append_uint(out, v, value.format);
}

void ValueWriter::line_sint(int64_t v) {
  LineValue value;
  if (!next_line_value(*line_, key_, &value)) return;
  textformat::Text out(*value.out);
  textformat::append_sint(out, v, value.format);
}

void ValueWriter::line_pointer(const void* p) {
  LineValue value;
  if (!next_line_value(*line_, key_, &value)) return;
  textformat::Text out(*value.out);
  textformat::append_pointer(out, reinterpret_cast<uintptr_t>(p));
}

void ValueWriter::line_f32(float v) {
  LineValue value;
  if (!next_line_value(*line_, key_, &value)) return;
  textformat::Text out(*value.out);
  textformat::append_number(out, v);
}

void ValueWriter::line_f64(double v) {
  LineValue value;
  if (!next_line_value(*line_, key_, &value)) return;
  textformat::Text out(*value.out);
  textformat::append_number(out, v);
}

void ValueWriter::line_array(const void* p, int64_t count, size_t element_size, int kind) {
  LineValue value;
  if (!next_line_value(*line_, key_, &value)) return;
  textformat::Text out(*value.out);
  const auto* base = static_cast<const uint8_t*>(p);
  auto n = static_cast<size_t>(count);
  if (kind == kFloats)
    return textformat::append_list(out, n, [&](textformat::Text& text, size_t i) {
      float v;
      memcpy(&v, base + i * sizeof(float), sizeof(float));
      textformat::append_number(text, v);
    });
  auto element = [&](size_t i) {
    uint64_t u = 0;
    int64_t s = 0;
    load_element(base + i * element_size, element_size, &u, &s);
    return std::pair(u, s);
  };
  if (value.format.kind == api::Kind::kAttribList)
    return textformat::append_attrib_list(out, n, [&](size_t i) {
      auto [u, s] = element(i);
      return kind == kSints ? static_cast<uint64_t>(s) : u;
    });
  textformat::append_list(out, n, [&](textformat::Text& text, size_t i) {
    auto [u, s] = element(i);
    if (kind == kSints)
      textformat::append_sint(text, s, value.format);
    else
      textformat::append_uint(text, u, value.format);
  });
}

void ValueWriter::unknown_value(const void* p, const char* reason) {
  if (p == nullptr) return pointer_value(p);
  if (line_ != nullptr) {
    LineValue value;
    if (!next_line_value(*line_, key_, &value)) return;
    textformat::Text out(*value.out);
    return textformat::append_unknown(out, reinterpret_cast<uintptr_t>(p), reason);
  }
  size_t m = call_->begin_nested_key(key_);
  size_t u = schema::value::begin_unknown(*call_);
  schema::unknown::set_pointer(*call_, reinterpret_cast<uintptr_t>(p));
  schema::unknown::set_reason(*call_, reason);
  call_->end_nested(u);
  call_->end_nested(m);
}

void ValueWriter::text_value(const char* s, int64_t max_length) {
  if (s == nullptr) return pointer_value(s);
  size_t n = max_length < 0 ? strlen(s) : strnlen(s, static_cast<size_t>(max_length));
  if (line_ != nullptr) {
    LineValue value;
    if (!next_line_value(*line_, key_, &value)) return;
    textformat::Text out(*value.out);
    return textformat::append_escaped(out, {s, n});
  }
  size_t m = call_->begin_nested_key(key_);
  schema::value::set_text(*call_, s, n);
  call_->end_nested(m);
}

void ValueWriter::bytes_value(const void* p, int64_t size) {
  if (size == kTextureDataNotCaptured && p != nullptr)
    return unknown_value(p, "texture data not captured (capture option)");
  if (p == nullptr || size < 0) return pointer_value(p);
  if (size > kMaxCapture) return unknown_value(p, "larger than the 60 MiB capture limit");
  size_t n = static_cast<size_t>(size);
  if (line_ != nullptr) {
    LineValue value;
    if (!next_line_value(*line_, key_, &value)) return;
    textformat::Text out(*value.out);
    // The blob's id is its hash: no blob is stored in a text mode.
    if (n >= kInlineLimit) return textformat::append_blob(out, store_blob(thread_, p, n), n);
    return textformat::append_bytes(out, {static_cast<const char*>(p), n});
  }
  if (n >= kInlineLimit) {
    uint64_t id = store_blob(thread_, p, n);
    return fixed_value(schema::value::kBlobTag, &id, 8);
  }
  flat_array(format::FlatValue::kData, 0, n, p, n);
}

void ValueWriter::flat_array(format::FlatValue kind, int element, size_t count, const void* p,
                             size_t bytes) {
  uint8_t* out = call_->begin_write(1 + 1 + 4 + bytes);
  *out++ = format::flat_value_byte(kind, key_ == schema::call::kRetTag);
  if (kind == format::FlatValue::kInts) *out++ = static_cast<uint8_t>(element);
  auto n = static_cast<uint32_t>(count);
  memcpy(out, &n, 4);
  call_->end_write(wire::copy_small(out + 4, static_cast<const uint8_t*>(p), bytes));
}

void ValueWriter::typed_array(const void* p, int64_t count, size_t element_size, int kind) {
  if (p == nullptr || count < 0) return pointer_value(p);
  if (count > kMaxCapture / static_cast<int64_t>(element_size))
    return unknown_value(p, "larger than the 60 MiB capture limit");
  size_t bytes = static_cast<size_t>(count) * element_size;
  if (kind == kBytes || bytes >= kInlineLimit) return bytes_value(p, static_cast<int64_t>(bytes));
  if (line_ != nullptr) return line_array(p, count, element_size, kind);
  // The elements as they are: the writer packs them (flat_calls.h).
  if (kind == kFloats)
    return flat_array(format::FlatValue::kFloats, 0, static_cast<size_t>(count), p, bytes);
  int element = static_cast<int>(element_size) | (kind == kSints ? format::kFlatSigned : 0);
  flat_array(format::FlatValue::kInts, element, static_cast<size_t>(count), p, bytes);
}

template <typename T>
void ValueWriter::array_value(const T* p, int64_t count) {
  int kind;
  // Doubles have no packed field: their bytes are kept instead.
  if constexpr (std::is_same_v<T, float>)
    kind = kFloats;
  else if constexpr (std::is_floating_point_v<T>)
    kind = kBytes;
  else if constexpr (std::is_signed_v<T> && !std::is_pointer_v<T>)
    kind = kSints;
  else
    kind = kUints;
  typed_array(p, count, sizeof(T), kind);
}

// Every element type the generated wrappers use.
template void ValueWriter::array_value(const float*, int64_t);
template void ValueWriter::array_value(const double*, int64_t);
template void ValueWriter::array_value(const int8_t*, int64_t);
template void ValueWriter::array_value(const uint8_t*, int64_t);
template void ValueWriter::array_value(const int16_t*, int64_t);
template void ValueWriter::array_value(const uint16_t*, int64_t);
template void ValueWriter::array_value(const int32_t*, int64_t);
template void ValueWriter::array_value(const uint32_t*, int64_t);
template void ValueWriter::array_value(const long*, int64_t);
template void ValueWriter::array_value(const unsigned long*, int64_t);
template void ValueWriter::array_value(const long long*, int64_t);
template void ValueWriter::array_value(const unsigned long long*, int64_t);
template void ValueWriter::array_value(void* const*, int64_t);

void ValueWriter::attrib_list_value(const int32_t* list, int32_t none) {
  if (list == nullptr) return pointer_value(list);
  array_value(list, attrib_list_length(list, none));
}

void ValueWriter::attrib_list_value(const intptr_t* list) {
  if (list == nullptr) return pointer_value(list);
  array_value(list, attrib_list_length(list, intptr_t{EGL_NONE}));
}

void ValueWriter::index_lists_value(const void* const* lists, const int32_t* counts, uint32_t type,
                                    int64_t n) {
  if (lists == nullptr || counts == nullptr || n < 0 || n > INT32_MAX) return pointer_value(lists);
  if (driver_integer(0x8895 /* GL_ELEMENT_ARRAY_BUFFER_BINDING */) != 0)
    return array_value(reinterpret_cast<const uintptr_t*>(lists), n);
  int64_t size = type == 0x1401 /* GL_UNSIGNED_BYTE */    ? 1
                 : type == 0x1403 /* GL_UNSIGNED_SHORT */ ? 2
                 : type == 0x1405 /* GL_UNSIGNED_INT */   ? 4
                                                          : 0;
  std::vector<int32_t> bytes(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    bytes[static_cast<size_t>(k)] =
        counts[k] > 0 ? static_cast<int32_t>(std::min<int64_t>(counts[k] * size, kMaxCapture)) : 0;
  strings_value(reinterpret_cast<const char* const*>(lists), static_cast<int32_t>(n), bytes.data());
}

void ValueWriter::strings_value(const char* const* strings, int32_t count, const int32_t* lengths) {
  if (strings == nullptr || count < 0) return pointer_value(strings);
  auto string = [&](int32_t i) {
    const char* s = strings[i] != nullptr ? strings[i] : "";
    size_t n = lengths != nullptr && lengths[i] >= 0 ? static_cast<size_t>(lengths[i]) : strlen(s);
    return std::string_view(s, n);
  };
  if (line_ != nullptr) {
    LineValue value;
    if (!next_line_value(*line_, key_, &value)) return;
    textformat::Text out(*value.out);
    return textformat::append_list(
        out, static_cast<size_t>(count), [&](textformat::Text& text, size_t i) {
          textformat::append_escaped(text, string(static_cast<int32_t>(i)));
        });
  }
  size_t m = call_->begin_nested_key(key_);
  size_t list = schema::value::begin_strings(*call_);
  for (int32_t i = 0; i < count; ++i) {
    std::string_view s = string(i);
    schema::strings::add_items(*call_, s.data(), s.size());
  }
  call_->end_nested(list);
  call_->end_nested(m);
}

void CallRecorder::note_frame_start() {
  thread_->frame_started = false;
  thread_->frame_starts.push_back({frames_completed(), seq_});
}

void CallRecorder::commit() {
  // The call goes to the payload last: a record appended meanwhile (a
  // context, a blob) comes before it. It goes flat (format/flat_calls.h):
  // the writer thread encodes it.
  if (mode() != Mode::kFull) [[unlikely]]
    return commit_text();
  ThreadState* t = thread_;
  format::FlatCallHead head;
  head.function = function_;
  head.context = context_;
  head.seq = seq_;
  head.start_ns = trace_time(start_);
  head.duration_ns = duration_;
  size_t args_size = t->call.size();
  head.args_size = static_cast<uint32_t>(args_size);
  head.flags = (thread_time_ != 0 ? format::kFlatThreadTime : 0) |
               (synthetic_ ? format::kFlatSynthetic : 0) | (snapshot_ ? format::kFlatSnapshot : 0);
  uint8_t* out = t->payload.begin_write(1 + sizeof head + 8 + args_size);
  *out++ = format::kFlatCallMarker;
  memcpy(out, &head, sizeof head);
  out += sizeof head;
  if (thread_time_ != 0) {
    memcpy(out, &thread_time_, 8);
    out += 8;
  }
  t->payload.end_write(wire::copy_small(out, t->call.data(), args_size));
  ++t->records;
  t->calls.store(t->calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (t->payload.size() >= kFlushBytes) flush_thread(t);
  leave_busy(t);
}

// Systrace records names and times only: the values go to a line that
// takes none, and commit() writes the slice. (Each call still reaches
// commit(): wrappers keep the layer's state there, such as the current
// context of eglMakeCurrent and the frames a glFinish ends.) Error mode
// reads glGetError here and records nothing more of a GL call that raised
// none; log mode formats every call.
bool CallRecorder::finish_text() {
  ThreadState* t = thread_;
  CallLine* line = &t->line;
  switch (mode()) {
    case Mode::kSystrace:
      line->text = nullptr;
      line_ = line;
      return true;
    case Mode::kError:
      if (api::kFunctionInfo[function_].api != api::Api::kGles) {
        line->text = nullptr;
        line_ = line;
        return true;
      }
      if (!gl_error_raised(t, function_)) {
        leave_busy(t);
        return false;
      }
      break;
    case Mode::kLog:
    case Mode::kFull:
      break;
  }
  line_ = line;
  begin_call_line(*line, function_, seq_);
  return true;
}

void CallRecorder::commit_text() {
  ThreadState* t = thread_;
  if (mode() == Mode::kSystrace)
    systrace_slice(t, function_, seq_, trace_time(start_), duration_);
  else if (line_->text != nullptr)
    end_call_line(t, *line_);
  leave_busy(t);
}

}  // namespace gltrace::trace
