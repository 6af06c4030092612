#include "consumers/value_format.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "gltrace/api/enums.h"

namespace gltrace::consumers {
namespace {

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  char buffer[128];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  if (n > 0) out.append(buffer, std::min<size_t>(static_cast<size_t>(n), sizeof buffer - 1));
}

template <typename T>
void append_number(std::string& out, T value) {
  char buffer[32];
  if constexpr (std::is_floating_point_v<T>) {
    // Whole numbers (matrices are full of 0 and 1) print as integers: the
    // same text as the shortest round trip, and far cheaper.
    if (value >= -1e6 && value <= 1e6 && value == static_cast<T>(static_cast<int32_t>(value)) &&
        !(value == 0 && std::signbit(value))) {
      auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<int32_t>(value));
      out.append(buffer, static_cast<size_t>(result.ptr - buffer));
      return;
    }
  }
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, static_cast<size_t>(result.ptr - buffer));
}

void append_hex(std::string& out, uint64_t value) {
  char buffer[24] = {'0', 'x'};
  auto result = std::to_chars(buffer + 2, buffer + sizeof buffer, value, 16);
  out.append(buffer, static_cast<size_t>(result.ptr - buffer));
}

bool type_is(const char* type, const char* name) {
  if (type == nullptr) return false;
  while (strncmp(type, "const ", 6) == 0) type += 6;
  size_t n = strlen(name);
  return strncmp(type, name, n) == 0 && (type[n] == '\0' || type[n] == ' ' || type[n] == '*');
}

bool is_handle_type(const char* type) {
  return type != nullptr && strncmp(type, "EGL", 3) == 0 && !type_is(type, "EGLint") &&
         !type_is(type, "EGLBoolean") && !type_is(type, "EGLenum") && !type_is(type, "EGLAttrib");
}

void append_enum(std::string& out, uint64_t value, int32_t group) {
  const char* name =
      value <= 0xffffffffu ? api::enum_name_in(static_cast<uint32_t>(value), group) : nullptr;
  if (name != nullptr)
    out += name;
  else
    append_hex(out, value);
}

void append_bitfield(std::string& out, uint64_t value, int32_t group) {
  if (value == 0) {
    out += "0";
    return;
  }
  bool first = true;
  for (int bit = 0; bit < 32; ++bit) {
    uint32_t mask = 1u << bit;
    if ((value & mask) == 0) continue;
    if (!first) out += " | ";
    first = false;
    const char* name = api::enum_name_in(mask, group);
    if (name != nullptr && strstr(name, "_BIT") != nullptr)
      out += name;
    else
      append_hex(out, mask);
  }
}

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          appendf(out, "\\x%02x", c & 0xff);
        else
          out += c;
    }
  }
  out += '"';
}

void append_bytes(std::string& out, std::string_view data) {
  appendf(out, "<%zu bytes:", data.size());
  for (size_t i = 0; i < data.size() && i < 16; ++i)
    appendf(out, " %02x", static_cast<unsigned char>(data[i]));
  out += data.size() > 16 ? " ...>" : ">";
}

enum class IntKind : uint8_t {
  kSigned,
  kUnsigned,
  kEnum,
  kBitfield,
  kBoolean,
  kEglBoolean,
  kHandle
};

IntKind classify(const char* type) {
  if (type_is(type, "GLenum") || type_is(type, "EGLenum")) return IntKind::kEnum;
  if (type_is(type, "GLbitfield")) return IntKind::kBitfield;
  if (type_is(type, "GLboolean")) return IntKind::kBoolean;
  if (type_is(type, "EGLBoolean")) return IntKind::kEglBoolean;
  // GLeglImageOES: an EGLImage, printed as eglCreateImage* returned it.
  if (is_handle_type(type) || type_is(type, "GLsync") || type_is(type, "GLeglImageOES"))
    return IntKind::kHandle;
  return IntKind::kUnsigned;  // signedness comes from the value's kind
}

struct ParamFormat {
  IntKind kind;
  int32_t group;  // api::enum_group of the parameter's group
};

// Classifying a type and finding its enum group is string work: done once
// per parameter (ParamInfo arrays are static), not per value.
ParamFormat format_of(const api::ParamInfo* param, const char* type, const char* ret_group) {
  if (param == nullptr) return {classify(type), api::enum_group(ret_group)};
  static std::mutex mutex;
  static std::vector<std::pair<const api::ParamInfo*, ParamFormat>> cache;
  static thread_local const api::ParamInfo* last_param = nullptr;
  static thread_local ParamFormat last{IntKind::kUnsigned, -1};
  if (param == last_param) return last;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = std::lower_bound(cache.begin(), cache.end(), param,
                             [](const auto& e, const api::ParamInfo* p) { return e.first < p; });
  if (it == cache.end() || it->first != param)
    it = cache.insert(it, {param, {classify(type), api::enum_group(param->group)}});
  last_param = param;
  last = it->second;
  return last;
}

void append_integer(std::string& out, uint64_t u, int64_t s, bool is_signed,
                    const api::ParamInfo* param, const char* type, const char* ret_group) {
  ParamFormat f = format_of(param, type, ret_group);
  switch (f.kind) {
    case IntKind::kEnum:
      return append_enum(out, u, f.group);
    case IntKind::kBitfield:
      return append_bitfield(out, u, f.group);
    case IntKind::kBoolean:
      if (u <= 1)
        out += u == 0 ? "GL_FALSE" : "GL_TRUE";
      else
        append_number(out, u);
      return;
    case IntKind::kEglBoolean:
      if (u <= 1)
        out += u == 0 ? "EGL_FALSE" : "EGL_TRUE";
      else
        append_number(out, u);
      return;
    case IntKind::kHandle:
      return append_hex(out, u);
    default:
      if (is_signed)
        append_number(out, s);
      else
        append_number(out, u);
  }
}

}  // namespace

void format_value(std::string& out, const format::Value& value, const api::ParamInfo* param,
                  const char* type, const BlobSizes& blobs, const char* ret_group) {
  using format::ValueKind;
  switch (value.kind) {
    case ValueKind::kNone:
      out += "?";
      break;
    case ValueKind::kSint:
      append_integer(out, static_cast<uint64_t>(value.sint), value.sint, true, param, type,
                     ret_group);
      break;
    case ValueKind::kUint:
      append_integer(out, value.uint, static_cast<int64_t>(value.uint), false, param, type,
                     ret_group);
      break;
    case ValueKind::kF32:
      append_number(out, value.f32);
      break;
    case ValueKind::kF64:
      append_number(out, value.f64);
      break;
    case ValueKind::kPointer:
      if (value.pointer == 0)
        out += "NULL";
      else
        append_hex(out, value.pointer);
      break;
    case ValueKind::kData:
      append_bytes(out, value.bytes);
      break;
    case ValueKind::kBlob: {
      auto it = blobs.find(value.blob);
      if (it != blobs.end())
        appendf(out, "<blob %016" PRIx64 ", %" PRIu64 " bytes>", value.blob, it->second);
      else
        appendf(out, "<blob %016" PRIx64 ">", value.blob);
      break;
    }
    case ValueKind::kText:
      append_escaped(out, value.bytes);
      break;
    case ValueKind::kUnknown:
      appendf(out, "<0x%" PRIx64 ", size unknown: ", value.pointer);
      out.append(value.bytes.data(), value.bytes.size());
      out += ">";
      break;
    case ValueKind::kStrings:
      out += "{";
      for (size_t i = 0; i < value.strings.size(); ++i) {
        if (i != 0) out += ", ";
        append_escaped(out, value.strings[i]);
      }
      out += "}";
      break;
    case ValueKind::kArray: {
      out += "{";
      bool first = true;
      auto sep = [&] {
        if (!first) out += ", ";
        first = false;
      };
      for (float f : value.floats) sep(), append_number(out, f);
      for (int64_t s : value.sints)
        sep(), append_integer(out, static_cast<uint64_t>(s), s, true, param, type, ret_group);
      for (uint64_t u : value.uints)
        sep(), append_integer(out, u, static_cast<int64_t>(u), false, param, type, ret_group);
      out += "}";
      break;
    }
  }
}

// EGL parameters whose integers are EGL enums, and attribute lists (pairs).
bool is_egl_enum_param(const char* name) {
  static const char* const kNames[] = {"attribute", "name", "platform",   "api",   "buffer",
                                       "engine",    "type", "objectType", "target"};
  for (const char* n : kNames)
    if (strcmp(name, n) == 0) return true;
  return false;
}

void append_egl_enum(std::string& out, uint64_t value) {
  const char* name =
      value <= 0xffffffffu ? api::egl_enum_name(static_cast<uint32_t>(value)) : nullptr;
  if (name != nullptr)
    out += name;
  else
    append_number(out, value);
}

// {EGL_RED_SIZE, 8, ..., EGL_NONE}
bool append_egl_attrib_list(std::string& out, const format::Value& value) {
  if (value.kind != format::ValueKind::kArray || value.floats.size() != 0) return false;
  out += '{';
  size_t n = value.sints.size() + value.uints.size();
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = i < value.sints.size() ? static_cast<uint64_t>(value.sints[i])
                                        : value.uints[i - value.sints.size()];
    if (i != 0) out += ", ";
    if (i % 2 == 0)
      append_egl_enum(out, v);
    else
      append_number(out, static_cast<int64_t>(v));
  }
  out += '}';
  return true;
}

// "glName(" and each parameter's ", name = ", built once per function: the
// dumper's hot loop then appends known-length strings.
struct CallText {
  std::string open;
  std::vector<std::string> params;
};

const CallText& call_text(uint32_t function) {
  static const std::vector<CallText> texts = [] {
    std::vector<CallText> all(api::kFunctionIdLimit);
    for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
      const api::FunctionInfo& info = api::kFunctionInfo[id];
      if (info.name == nullptr) continue;
      all[id].open = std::string(info.name) + "(";
      for (uint32_t i = 0; i < info.param_count; ++i)
        all[id].params.push_back((i != 0 ? ", " : "") + std::string(info.params[i].name) + " = ");
    }
    return all;
  }();
  return texts[function];
}

void format_call(std::string& out, const format::Call& call, const BlobSizes& blobs) {
  const api::FunctionInfo* info =
      call.function < api::kFunctionIdLimit && api::kFunctionInfo[call.function].name != nullptr
          ? &api::kFunctionInfo[call.function]
          : nullptr;
  const CallText* text = info != nullptr ? &call_text(call.function) : nullptr;
  if (info == nullptr) {
    appendf(out, "<unknown function %u>(", call.function);
  } else {
    out += text->open;
  }
  for (size_t i = 0; i < call.args.size(); ++i) {
    const api::ParamInfo* param =
        info != nullptr && i < info->param_count ? &info->params[i] : nullptr;
    if (param != nullptr)
      out += text->params[i];
    else if (i != 0)
      out += ", ";
    if (info != nullptr && info->api == api::Api::kEgl && param != nullptr) {
      const format::Value& v = call.args[i];
      bool integer = v.kind == format::ValueKind::kSint || v.kind == format::ValueKind::kUint;
      if (integer && is_egl_enum_param(param->name)) {
        append_egl_enum(
            out, v.kind == format::ValueKind::kSint ? static_cast<uint64_t>(v.sint) : v.uint);
        continue;
      }
      if (strcmp(param->len, "EGL_NONE-terminated") == 0 && append_egl_attrib_list(out, v))
        continue;
    }
    format_value(out, call.args[i], param, param != nullptr ? param->type : nullptr, blobs);
  }
  out += ')';
  if (call.ret != nullptr) {
    out += " = ";
    format_value(out, *call.ret, nullptr, info != nullptr ? info->ret : nullptr, blobs,
                 info != nullptr ? info->ret_group : "");
  }
}

}  // namespace gltrace::consumers
