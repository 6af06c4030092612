// Record encoders for tests and fuzz seeds: the producer side, written the
// way the trace layer writes records (wire::Encoder, no libprotobuf).
#pragma once

#include <cstdint>
#include <string_view>

#include "protowire/wire.h"

namespace gltrace::test {

// Each appends one complete record (Chunk field 1, length, Record).
void encode_header(wire::Encoder& e, uint32_t pid, std::string_view process_name);
void encode_thread(wire::Encoder& e, uint32_t index, uint64_t tid, std::string_view name);
// A call with a few typed args (sint -seq, uint thread, text "t<thread>")
// and a uint return value.
// context: the Context index current on the thread (0: none, not written).
void encode_call(wire::Encoder& e, uint32_t thread, uint64_t seq, uint32_t function,
                 uint32_t context = 0);
void encode_frame(wire::Encoder& e, uint64_t number, uint64_t seq);
void encode_blob(wire::Encoder& e, uint64_t id, std::string_view data);
// Eight records: a record of every kind but CallsComplete and DesktopGl;
// every Value kind and array element type; every field of Header, Thread,
// Context, Call (and its parts), Frame and Image written.
void encode_everything(wire::Encoder& e);
inline constexpr uint32_t kEverythingRecords = 8;

}  // namespace gltrace::test
