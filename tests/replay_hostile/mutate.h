// Changes the arguments of recorded calls in a real trace, at the wire
// level: everything else stays byte for byte what the capture wrote. For
// the hostile-replay tests and the replay_check fuzzer's seeds.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gltrace::test {

// One call as the edit sees it: its function id, its position among the
// trace's calls (file order) and its arguments, each the bytes of one Value
// message (replace them with the *_value encoders below).
struct CallEdit {
  uint32_t function = 0;
  uint64_t position = 0;
  std::vector<std::string> args;
  size_t client_arrays = 0;         // how many ClientArray records the call has
  bool drop_client_arrays = false;  // set by the edit: the call loses them
  bool mark_snapshot = false;       // set by the edit: the call is marked a snapshot's
  std::string inexact_note;         // set by the edit: its Call.snapshot_inexact
  bool changed = false;             // set by the edit when it changed args
};

// The trace with every call passed through `edit`. Chunks come out
// uncompressed (with their CRC); the index and footer are dropped (a reader
// then reads front to back, as from a stream). Empty when `trace` is not a
// readable trace.
std::vector<uint8_t> rewrite_calls(const std::vector<uint8_t>& trace,
                                   const std::function<void(CallEdit&)>& edit);

// Value messages.
std::string sint_value(int64_t v);
std::string uint_value(uint64_t v);
std::string pointer_value(uint64_t address);
std::string data_value(const std::string& bytes);

// What kind a Value message is (its field number: schema::value::k*), 0 if none.
uint32_t value_kind(const std::string& value);

}  // namespace gltrace::test
