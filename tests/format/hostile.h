// Hostile input, shared by the mutation test and the libFuzzer target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gltrace::test {

// Rewrites every chunk header's CRC to match its bytes, so that mutations
// get past the CRC check into decompression and record decoding.
void fix_chunk_crcs(std::vector<uint8_t>& bytes);

// Runs one input through the reader and decoder, touching every decoded
// field. The first byte picks how: 0 a trace as is, 1 a trace with its CRCs
// fixed (read by read_trace and read_trace_prefetched, which must agree), 2 a chunk payload (and an
// index payload) for the record decoder. Returns false when the reader or decoder reported an error
// (any error must name an offset; that is checked with `check`).
bool exercise(const uint8_t* data, size_t size, bool check = false);

// A container holding these chunk payloads (serialized Chunk messages),
// zstd-compressed when `compress`; no index or footer.
std::vector<uint8_t> make_container(const std::vector<std::vector<uint8_t>>& payloads,
                                    bool compress);

// A whole trace file, hostile in one way (kind), made on demand: some are
// small files that claim gigabytes of decoded records.
struct HostileTrace {
  std::string kind;
  std::function<std::vector<uint8_t>()> make;
};
// Every kind of hostile trace file the readers must survive with a clear
// message and bounded memory (tests/hostile_commands runs each through every
// command).
std::vector<HostileTrace> hostile_traces();

}  // namespace gltrace::test
