// Hostile input, shared by the mutation test and the libFuzzer target.
#pragma once

#include <cstddef>
#include <cstdint>
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

}  // namespace gltrace::test
