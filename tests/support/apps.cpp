#include "support/apps.h"

#include <filesystem>
#include <fstream>
#include <regex>

namespace gltrace::test {

std::string demo_final_crc(const std::string& demo_stdout) {
  static const std::regex kCrc("final crc (0x[0-9a-f]+)");
  std::smatch m;
  return std::regex_search(demo_stdout, m, kCrc) ? m[1].str() : "";
}

std::map<std::string, uint64_t> read_layer_counts(const std::string& dir,
                                                  const std::string& layer) {
  std::map<std::string, uint64_t> counts;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    // Reports are named LAYER.PID.
    if (!layer.empty() && entry.path().filename().string().rfind(layer + ".", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::string name;
    uint64_t n;
    while (in >> name >> n) counts[name] += n;
  }
  return counts;
}

CompareLine compare_line(const std::string& replay_stdout) {
  CompareLine c;
  std::smatch m;
  static const std::regex kLine(
      R"(compare: (\d+) frames identical[^,]*, (\d+) differ, (\d+) without a trace image)");
  if (std::regex_search(replay_stdout, m, kLine)) {
    c.found = true;
    c.identical = std::stoull(m[1]);
    c.differ = std::stoull(m[2]);
    c.without = std::stoull(m[3]);
  }
  return c;
}

}  // namespace gltrace::test
