#include "encode.h"

#include <string>

#include "format/schema.h"

namespace gltrace::test {

namespace s = schema;

void encode_header(wire::Encoder& e, uint32_t pid, std::string_view process_name) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t header = e.begin_nested(s::record::kHeader);
  e.uint_field(s::header::kFormatVersion, 1);
  e.uint_field(s::header::kPid, pid);
  e.string_field(s::header::kProcessName, process_name);
  e.string_field(s::header::kClockDomain, "CLOCK_MONOTONIC");
  e.uint_field(s::header::kStartTimeNs, 123456789);
  e.string_field(s::header::kMode, "full");
  e.end_nested(header);
  e.end_nested(record);
}

void encode_thread(wire::Encoder& e, uint32_t index, uint64_t tid, std::string_view name) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t thread = e.begin_nested(s::record::kThread);
  e.uint_field(s::thread::kIndex, index);
  e.uint_field(s::thread::kTid, tid);
  e.string_field(s::thread::kName, name);
  e.end_nested(thread);
  e.end_nested(record);
}

void encode_call(wire::Encoder& e, uint32_t thread, uint64_t seq, uint32_t function,
                 uint32_t context) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t call = e.begin_nested(s::record::kCall);
  e.uint_field(s::call::kFunction, function);
  e.uint_field(s::call::kThread, thread);
  if (context != 0) e.uint_field(s::call::kContext, context);
  e.uint_field(s::call::kSeq, seq);
  e.uint_field(s::call::kStartNs, seq * 100);
  e.uint_field(s::call::kDurationNs, 7);
  size_t arg = e.begin_nested(s::call::kArgs);
  e.sint_field(s::value::kSint, -static_cast<int64_t>(seq));
  e.end_nested(arg);
  arg = e.begin_nested(s::call::kArgs);
  e.uint_field(s::value::kUint, thread);
  e.end_nested(arg);
  arg = e.begin_nested(s::call::kArgs);
  e.string_field(s::value::kText, "t" + std::to_string(thread));
  e.end_nested(arg);
  size_t ret = e.begin_nested(s::call::kRet);
  e.uint_field(s::value::kUint, seq + 1);
  e.end_nested(ret);
  e.end_nested(call);
  e.end_nested(record);
}

void encode_frame(wire::Encoder& e, uint64_t number, uint64_t seq) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t frame = e.begin_nested(s::record::kFrame);
  e.uint_field(s::frame::kNumber, number);
  e.uint_field(s::frame::kSeq, seq);
  e.end_nested(frame);
  e.end_nested(record);
}

void encode_blob(wire::Encoder& e, uint64_t id, std::string_view data) {
  size_t record = e.begin_nested(s::chunk::kRecords);
  size_t blob = e.begin_nested(s::record::kBlob);
  e.fixed64_field(s::blob::kId, id);
  e.bytes_field(s::blob::kData, data.data(), data.size());
  e.end_nested(blob);
  e.end_nested(record);
}

namespace {

template <typename F>
void record(wire::Encoder& e, uint32_t kind, F&& body) {
  size_t r = e.begin_nested(s::chunk::kRecords);
  size_t k = e.begin_nested(kind);
  body();
  e.end_nested(k);
  e.end_nested(r);
}

template <typename F>
void nested(wire::Encoder& e, uint32_t field, F&& body) {
  size_t m = e.begin_nested(field);
  body();
  e.end_nested(m);
}

}  // namespace

void encode_everything(wire::Encoder& e) {
  encode_header(e, 9, "everything");
  encode_thread(e, 0, 99, "main");
  record(e, s::record::kContext, [&] {
    e.uint_field(s::context::kIndex, 1);
    e.uint_field(s::context::kHandle, 0xc0);
    e.uint_field(s::context::kClientVersion, 3);
    nested(e, s::context::kConfigAttribs, [&] {
      e.raw_varint(0x3024);
      e.raw_varint(8);
    });
    e.string_field(s::context::kGlRenderer, "llvmpipe");
    e.uint_field(s::context::kSurfaceWidth, 64);
    e.uint_field(s::context::kSurfaceHeight, 32);
  });
  encode_blob(e, 0xb10b, "blob bytes");
  record(e, s::record::kCall, [&] {
    e.uint_field(s::call::kFunction, 5);
    e.uint_field(s::call::kSeq, 1);
    e.uint_field(s::call::kContext, 1);
    nested(e, s::call::kArgs, [&] { e.sint_field(s::value::kSint, -5); });
    nested(e, s::call::kArgs, [&] { e.uint_field(s::value::kUint, 5); });
    nested(e, s::call::kArgs, [&] { e.float_field(s::value::kF32, 0.5f); });
    nested(e, s::call::kArgs, [&] { e.double_field(s::value::kF64, 0.25); });
    nested(e, s::call::kArgs, [&] { e.uint_field(s::value::kPointer, 0x1000); });
    nested(e, s::call::kArgs, [&] { e.bytes_field(s::value::kData, "\1\2\3", 3); });
    nested(e, s::call::kArgs, [&] { e.fixed64_field(s::value::kBlob, 0xb10b); });
    nested(e, s::call::kArgs, [&] { e.string_field(s::value::kText, "text"); });
    nested(e, s::call::kArgs, [&] {
      nested(e, s::value::kUnknown, [&] {
        e.uint_field(s::unknown::kPointer, 0x2000);
        e.string_field(s::unknown::kReason, "why");
      });
    });
    nested(e, s::call::kArgs, [&] {
      nested(e, s::value::kStrings, [&] {
        e.string_field(s::strings::kItems, "a");
        e.string_field(s::strings::kItems, "bc");
      });
    });
    nested(e, s::call::kArgs, [&] {
      nested(e, s::value::kArray, [&] {
        nested(e, s::array::kSints, [&] { e.raw_varint(wire::zigzag(-3)); });
        nested(e, s::array::kUints, [&] { e.raw_varint(300); });
        float f[2] = {1, 2};
        e.bytes_field(s::array::kFloats, f, sizeof f);
      });
    });
    nested(e, s::call::kRet, [&] { e.uint_field(s::value::kUint, 1); });
    e.uint_field(s::call::kGlError, 0x500);
    nested(e, s::call::kClientArrays, [&] {
      e.uint_field(s::client_array::kIndex, 0);
      e.uint_field(s::client_array::kStride, 8);
      e.bytes_field(s::client_array::kData, "12345678", 8);
    });
    nested(e, s::call::kBufferWrites, [&] {
      e.uint_field(s::buffer_write::kTarget, 0x8892);
      e.fixed64_field(s::buffer_write::kBlob, 0xb10b);
    });
    nested(e, s::call::kImageSource,
           [&] { e.string_field(s::image_source::kNotCaptured, "no context was current"); });
  });
  encode_frame(e, 0, 1);
  record(e, s::record::kImage, [&] {
    e.uint_field(s::image::kWidth, 1);
    e.uint_field(s::image::kHeight, 1);
    e.fixed64_field(s::image::kBlob, 0xb10b);
    e.string_field(s::image::kOrigin, "swap");
  });
  record(e, s::record::kStats, [&] { e.uint_field(s::stats::kCalls, 1); });
}

}  // namespace gltrace::test
