// Trace files with one writer each. A writer claims its file atomically and
// holds an open-file-description lock on it while it writes, so no two
// writers ever share a file (two GL processes of one `gltrace trace`, two runs
// given one FILE, an attach), and a file being written is told from a
// finished one. The naming rule: docs/trace-format.md, "Trace files".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gltrace::format {

struct ClaimedFile {
  int fd = -1;       // open for writing, locked until closed; -1: none
  std::string path;  // the name it got
};

// The name the writer of process `process` (pid `pid`) gets when `wanted` is
// taken: WANTED_STEM.PROCESS.PID.EXT (EXT: wanted's extension, if any), and
// WANTED_STEM.PROCESS.PID.N.EXT for n >= 2. The process name is reduced to
// letters, digits, '-', '_' and '+' (others become '_'), at most 32 of them.
std::string derived_file_name(const std::string& wanted, std::string_view process, uint32_t pid,
                              unsigned n = 1);

// The file a writer gets in directory `dir`: DIR/PROCESS.PID.EXT.
std::string file_in_directory(const std::string& dir, std::string_view process, uint32_t pid,
                              std::string_view ext);

// Creates a new file (mode 0600) for one writer: `wanted` when no file of that
// name exists, else the first free derived_file_name. The file appears under
// its name already locked (made under a private name, then linked), and a file
// that is there is never opened, truncated or replaced. A device or FIFO at
// `wanted` (/dev/null) is opened as it is. On failure fd is -1 and `error`
// says why.
ClaimedFile claim_new_file(const std::string& wanted, std::string_view process, uint32_t pid,
                           std::string* error);

// Whether a writer holds the file at `path` now.
bool being_written(const std::string& path);

// What replace_finished found at `path`.
enum class Previous { kNone, kRemoved, kBeingWritten, kKept };

// Makes room for a new run's `path`: removes a regular file there that no
// writer holds (the finished trace of an earlier run, which the new run
// replaces, as -o FILE always did); keeps one a writer holds (kBeingWritten:
// the new run's writer gets a derived name) and anything that is no regular
// file (kKept).
Previous replace_finished(const std::string& path);

}  // namespace gltrace::format
