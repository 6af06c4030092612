// Field numbers of proto/control.proto (the same convention as
// src/format/schema.h; tests/format/schema_test.cpp checks both).
#pragma once

#include <cstdint>

namespace gltrace::control::schema {

namespace request {
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kId = 2;
inline constexpr uint32_t kHello = 10;
inline constexpr uint32_t kStart = 11;
inline constexpr uint32_t kStop = 12;
inline constexpr uint32_t kSetOptions = 13;
inline constexpr uint32_t kGetStatus = 14;
inline constexpr uint32_t kDataChannel = 15;
}  // namespace request

namespace hello {
inline constexpr uint32_t kToken = 1;
inline constexpr uint32_t kClient = 2;
}  // namespace hello

namespace capture_options {
inline constexpr uint32_t kFramebufferOnSwap = 1;
inline constexpr uint32_t kFramebufferOnDraw = 2;
inline constexpr uint32_t kTextureData = 3;
inline constexpr uint32_t kThreadTime = 4;
}  // namespace capture_options

namespace start {
inline constexpr uint32_t kOptions = 1;
inline constexpr uint32_t kMaxFrames = 2;
inline constexpr uint32_t kMode = 3;
inline constexpr uint32_t kZstdLevel = 4;
}  // namespace start

namespace set_options {
inline constexpr uint32_t kOptions = 1;
}  // namespace set_options

namespace status {
inline constexpr uint32_t kPid = 1;
inline constexpr uint32_t kProcessName = 2;
inline constexpr uint32_t kState = 3;
inline constexpr uint32_t kMode = 4;
inline constexpr uint32_t kSession = 5;
inline constexpr uint32_t kFrames = 6;
inline constexpr uint32_t kCalls = 7;
inline constexpr uint32_t kBytes = 8;
inline constexpr uint32_t kStalls = 9;
inline constexpr uint32_t kStallNs = 10;
inline constexpr uint32_t kAppFrames = 11;
inline constexpr uint32_t kThreadsTracing = 12;
inline constexpr uint32_t kOptions = 13;
inline constexpr uint32_t kOutput = 14;
}  // namespace status

namespace reply {
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kId = 2;
inline constexpr uint32_t kOk = 3;
inline constexpr uint32_t kError = 4;
inline constexpr uint32_t kStatus = 5;
}  // namespace reply

}  // namespace gltrace::control::schema
