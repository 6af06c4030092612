// Reading what the bundled demo and the counting layer report, for tests.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace gltrace::test {

// The CRC of the demo's last frame from its "final crc 0x..." line ("" if none).
std::string demo_final_crc(const std::string& demo_stdout);

// The counting layer's reports in `dir` (GLTRACE_COUNT_DIR), summed: function
// name -> calls, plus "total". With `layer`, only the files of that layer copy.
std::map<std::string, uint64_t> read_layer_counts(const std::string& dir,
                                                  const std::string& layer = "");

// Replay's frame summary, "compare: N frames identical, M differ, K without a
// trace image" (found false when the output has none).
struct CompareLine {
  bool found = false;
  uint64_t identical = 0, differ = 0, without = 0;
};
CompareLine compare_line(const std::string& replay_stdout);

}  // namespace gltrace::test
