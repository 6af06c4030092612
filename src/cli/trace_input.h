// Opening a trace for the analysis commands, and reporting how reading ended.
#pragma once

#include <string>

#include "format/reader.h"

namespace gltrace::cli {

// Opens `path` ("-" reads standard input); prints the error and returns false
// if it is no readable trace.
bool open_trace(const char* command, const std::string& path, format::ChunkReader* reader);

// After read_trace(): prints a warning (cut short) or the error (corrupt),
// naming the offset. Returns the command's exit status.
int finish_reading(const char* command, const std::string& path, bool ok,
                   const format::ReadStatus& status);

// How far a second thread reads ahead of the consumer: kDecode,
// read_trace_prefetched() (chunks read, decompressed and decoded); kRead,
// read_trace_read_ahead() (read and decompressed: the least work in all, for
// a consumer cheap per record); kNone, read_trace(): one chunk at a time, for
// a command whose chunks are mostly data it does not use (frames' pixels).
enum class ReadAhead { kNone, kRead, kDecode };

// read_trace_*() behind a progress line on stderr when it is a terminal
// (common/progress.h): "gltrace COMMAND: N calls, M frames, ...".
bool read_trace_showing_progress(const char* command, const std::string& path,
                                 format::ChunkReader& reader, format::Consumer& consumer,
                                 format::ReadStatus* status,
                                 ReadAhead read_ahead = ReadAhead::kDecode);

// Parses "N", "N-M", "N-" or "-M" into [first, last]; false if malformed.
bool parse_range(const std::string& text, uint64_t* first, uint64_t* last);

}  // namespace gltrace::cli
