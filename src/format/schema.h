// Field numbers of proto/trace.proto, for code that writes or reads the wire
// format by hand. One namespace per message (snake_case of its name), one
// constant per field (k + CamelCase of its name); tests/format/schema_test.cpp
// parses both files and fails when they disagree.
#pragma once

#include <cstdint>

namespace gltrace::schema {

namespace chunk {
inline constexpr uint32_t kRecords = 1;
}  // namespace chunk

namespace record {
inline constexpr uint32_t kHeader = 1;
inline constexpr uint32_t kCall = 2;
inline constexpr uint32_t kBlob = 3;
inline constexpr uint32_t kFrame = 4;
inline constexpr uint32_t kThread = 5;
inline constexpr uint32_t kContext = 6;
inline constexpr uint32_t kImage = 7;
inline constexpr uint32_t kStats = 8;
}  // namespace record

namespace header {
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint32_t kPid = 2;
inline constexpr uint32_t kProcessName = 3;
inline constexpr uint32_t kCommandLine = 4;
inline constexpr uint32_t kClockDomain = 5;
inline constexpr uint32_t kStartTimeNs = 6;
inline constexpr uint32_t kMode = 7;
inline constexpr uint32_t kCaptureOptions = 8;
inline constexpr uint32_t kMidRun = 9;
inline constexpr uint32_t kDriver = 10;
}  // namespace header

namespace thread {
inline constexpr uint32_t kIndex = 1;
inline constexpr uint32_t kTid = 2;
inline constexpr uint32_t kName = 3;
}  // namespace thread

namespace context {
inline constexpr uint32_t kIndex = 1;
inline constexpr uint32_t kHandle = 2;
inline constexpr uint32_t kDisplay = 3;
inline constexpr uint32_t kConfig = 4;
inline constexpr uint32_t kShareContext = 5;
inline constexpr uint32_t kClientVersion = 6;
inline constexpr uint32_t kConfigAttribs = 7;
inline constexpr uint32_t kGlVendor = 8;
inline constexpr uint32_t kGlRenderer = 9;
inline constexpr uint32_t kGlVersion = 10;
inline constexpr uint32_t kSurfaceWidth = 11;
inline constexpr uint32_t kSurfaceHeight = 12;
}  // namespace context

namespace call {
inline constexpr uint32_t kFunction = 1;
inline constexpr uint32_t kThread = 2;
inline constexpr uint32_t kContext = 3;
inline constexpr uint32_t kSeq = 4;
inline constexpr uint32_t kStartNs = 5;
inline constexpr uint32_t kDurationNs = 6;
inline constexpr uint32_t kThreadTimeNs = 7;
inline constexpr uint32_t kArgs = 8;
inline constexpr uint32_t kRet = 9;
inline constexpr uint32_t kGlError = 10;
inline constexpr uint32_t kClientArrays = 11;
inline constexpr uint32_t kBufferWrites = 12;
inline constexpr uint32_t kSeqDelta = 13;
inline constexpr uint32_t kStartDeltaNs = 14;
inline constexpr uint32_t kSynthetic = 15;
inline constexpr uint32_t kImageSource = 16;
}  // namespace call

namespace image_source {
inline constexpr uint32_t kWidth = 1;
inline constexpr uint32_t kHeight = 2;
inline constexpr uint32_t kBlob = 3;
inline constexpr uint32_t kNotCaptured = 4;
}  // namespace image_source

namespace client_array {
inline constexpr uint32_t kIndex = 1;
inline constexpr uint32_t kFirst = 2;
inline constexpr uint32_t kStride = 3;
inline constexpr uint32_t kPointer = 4;
inline constexpr uint32_t kData = 5;
inline constexpr uint32_t kBlob = 6;
}  // namespace client_array

namespace buffer_write {
inline constexpr uint32_t kTarget = 1;
inline constexpr uint32_t kOffset = 2;
inline constexpr uint32_t kData = 3;
inline constexpr uint32_t kBlob = 4;
}  // namespace buffer_write

namespace value {
inline constexpr uint32_t kSint = 1;
inline constexpr uint32_t kUint = 2;
inline constexpr uint32_t kF32 = 3;
inline constexpr uint32_t kF64 = 4;
inline constexpr uint32_t kPointer = 5;
inline constexpr uint32_t kData = 6;
inline constexpr uint32_t kBlob = 7;
inline constexpr uint32_t kText = 8;
inline constexpr uint32_t kUnknown = 9;
inline constexpr uint32_t kStrings = 10;
inline constexpr uint32_t kArray = 11;
}  // namespace value

namespace unknown {
inline constexpr uint32_t kPointer = 1;
inline constexpr uint32_t kReason = 2;
}  // namespace unknown

namespace strings {
inline constexpr uint32_t kItems = 1;
}  // namespace strings

namespace array {
inline constexpr uint32_t kSints = 1;
inline constexpr uint32_t kUints = 2;
inline constexpr uint32_t kFloats = 3;
}  // namespace array

namespace blob {
inline constexpr uint32_t kId = 1;
inline constexpr uint32_t kData = 2;
}  // namespace blob

namespace frame {
inline constexpr uint32_t kNumber = 1;
inline constexpr uint32_t kSeq = 2;
inline constexpr uint32_t kThread = 3;
inline constexpr uint32_t kContext = 4;
inline constexpr uint32_t kTimeNs = 5;
inline constexpr uint32_t kAppFrame = 6;
}  // namespace frame

namespace image {
inline constexpr uint32_t kFrame = 1;
inline constexpr uint32_t kSeq = 2;
inline constexpr uint32_t kWidth = 3;
inline constexpr uint32_t kHeight = 4;
inline constexpr uint32_t kBlob = 5;
inline constexpr uint32_t kOrigin = 6;
inline constexpr uint32_t kContext = 7;
}  // namespace image

namespace stats {
inline constexpr uint32_t kCalls = 1;
inline constexpr uint32_t kFrames = 2;
inline constexpr uint32_t kBytesUncompressed = 3;
inline constexpr uint32_t kStallCount = 4;
inline constexpr uint32_t kStallNs = 5;
inline constexpr uint32_t kBlobs = 6;
inline constexpr uint32_t kBlobBytesDeduplicated = 7;
}  // namespace stats

namespace index {
inline constexpr uint32_t kEntries = 1;
}  // namespace index

namespace index_entry {
inline constexpr uint32_t kFrame = 1;
inline constexpr uint32_t kChunkOffset = 2;
inline constexpr uint32_t kSeq = 3;
}  // namespace index_entry

}  // namespace gltrace::schema
