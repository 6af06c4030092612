#include "consumers/value_format.h"

#include <span>

#include "textformat/value_text.h"

namespace gltrace::consumers {
namespace {

using textformat::append_blob;
using textformat::append_bytes;
using textformat::append_escaped;
using textformat::append_number;
using textformat::append_pointer;
using textformat::append_sint;
using textformat::append_uint;
using textformat::CallText;
using textformat::ParamText;
using textformat::Text;
using textformat::ValueFormat;

void format_value(Text& out, const format::Value& value, ValueFormat f, const BlobSizes& blobs) {
  using format::ValueKind;
  switch (value.kind) {
    case ValueKind::kNone:
      out += "?";
      break;
    case ValueKind::kSint:
      append_sint(out, value.sint, f);
      break;
    case ValueKind::kUint:
      append_uint(out, value.uint, f);
      break;
    case ValueKind::kF32:
      append_number(out, value.f32);
      break;
    case ValueKind::kF64:
      append_number(out, value.f64);
      break;
    case ValueKind::kPointer:
      append_pointer(out, value.pointer);
      break;
    case ValueKind::kData:
      append_bytes(out, value.bytes());
      break;
    case ValueKind::kBlob: {
      auto it = blobs.find(value.blob);
      append_blob(out, value.blob, it != blobs.end() ? it->second : 0);
      break;
    }
    case ValueKind::kText:
      append_escaped(out, value.bytes());
      break;
    case ValueKind::kUnknown:
      textformat::append_unknown(out, value.pointer, value.bytes());
      break;
    case ValueKind::kStrings: {
      std::span<const std::string_view> strings = value.strings();
      textformat::append_list(out, strings.size(),
                              [&](Text& text, size_t i) { append_escaped(text, strings[i]); });
      break;
    }
    case ValueKind::kArray: {
      // One of the three is filled.
      std::span<const float> floats = value.floats();
      std::span<const int64_t> sints = value.sints();
      std::span<const uint64_t> uints = value.uints();
      textformat::append_list(out, floats.size() + sints.size() + uints.size(),
                              [&](Text& text, size_t i) {
                                if (i < floats.size())
                                  append_number(text, floats[i]);
                                else if (i < floats.size() + sints.size())
                                  append_sint(text, sints[i - floats.size()], f);
                                else
                                  append_uint(text, uints[i - floats.size() - sints.size()], f);
                              });
      break;
    }
  }
}

// {EGL_RED_SIZE, 8, ..., EGL_NONE}
bool append_egl_attrib_list(Text& out, const format::Value& value) {
  if (value.kind != format::ValueKind::kArray || !value.floats().empty()) return false;
  std::span<const int64_t> sints = value.sints();
  std::span<const uint64_t> uints = value.uints();
  textformat::append_attrib_list(out, sints.size() + uints.size(), [&](size_t i) {
    return i < sints.size() ? static_cast<uint64_t>(sints[i]) : uints[i - sints.size()];
  });
  return true;
}

}  // namespace

std::string escaped(std::string_view text) {
  std::string string;
  {
    Text out(string);
    textformat::append_unquoted(out, text);
  }
  return string;
}

namespace {

using textformat::find_call_text;

void append_argument(Text& out, const format::Value& v, const ParamText* param,
                     const BlobSizes& blobs) {
  if (param == nullptr) return format_value(out, v, {}, blobs);
  if (param->format.kind != api::Kind::kAttribList || !append_egl_attrib_list(out, v))
    format_value(out, v, param->format, blobs);
}

void append_arguments(Text& out, const format::Call& call, const CallText* text,
                      const BlobSizes& blobs) {
  for (size_t i = 0; i < call.args.size(); ++i) {
    const ParamText* param =
        text != nullptr && i < text->params.size() ? &text->params[i] : nullptr;
    if (param == nullptr) {
      if (i != 0) out += ", ";
    } else {
      out += param->prefix;
    }
    append_argument(out, call.args[i], param, blobs);
  }
}

void append_result(Text& out, const format::Call& call, const CallText* text,
                   const BlobSizes& blobs) {
  format_value(out, *call.ret, text != nullptr ? text->ret : ValueFormat{}, blobs);
}

}  // namespace

void format_call(std::string& string, const format::Call& call, const BlobSizes& blobs) {
  Text out(string);
  format_call(out, call, blobs);
}

void format_call(Text& out, const format::Call& call, const BlobSizes& blobs) {
  const CallText* text = find_call_text(call.function);
  if (text == nullptr)
    textformat::appendf(out, "<unknown function %u>(", call.function);
  else
    out += text->open;
  append_arguments(out, call, text, blobs);
  out += ')';
  if (call.ret != nullptr) {
    out += " = ";
    append_result(out, call, text, blobs);
  }
}

void format_call_arguments(std::string& string, const format::Call& call, const BlobSizes& blobs) {
  Text out(string);
  append_arguments(out, call, find_call_text(call.function), blobs);
}

void format_argument(std::string& string, const format::Call& call, size_t index,
                     const BlobSizes& blobs) {
  if (index >= call.args.size()) return;
  Text out(string);
  const CallText* text = find_call_text(call.function);
  append_argument(out, call.args[index],
                  text != nullptr && index < text->params.size() ? &text->params[index] : nullptr,
                  blobs);
}

void format_result(std::string& string, const format::Call& call, const BlobSizes& blobs) {
  if (call.ret == nullptr) return;
  Text out(string);
  append_result(out, call, find_call_text(call.function), blobs);
}

}  // namespace gltrace::consumers
