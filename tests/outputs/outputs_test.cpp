// Outputs whose size the registry gives only as COMPSIZE(...) or not at all
// (glGetIntegeri_v, glGetUniform*v, glGetActiveUniformBlockiv, ...): the
// trace must record what each call wrote, and the replay must give the driver
// room for it (a null output made the driver write through NULL: the replay
// died of SIGSEGV without a word).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

// The app's "NAME: v v v" lines, by name.
std::map<std::string, std::vector<std::string>> app_values(const std::string& out) {
  std::map<std::string, std::vector<std::string>> values;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    size_t colon = line.find(": ");
    if (colon == std::string::npos || line.rfind("gl", 0) != 0) continue;
    std::istringstream words(line.substr(colon + 2));
    std::vector<std::string>& v = values[line.substr(0, colon)];
    for (std::string w; words >> w;) v.push_back(w);
  }
  return values;
}

// The dumped calls of `function`: each call's last argument that is an
// array ("{a, b}"), as its elements; a call whose output is not an array
// (not captured) gives its whole line as the only element.
std::vector<std::vector<std::string>> dumped_outputs(const std::string& dump,
                                                     const std::string& function) {
  std::vector<std::vector<std::string>> calls;
  std::istringstream lines(dump);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" " + function + "(") == std::string::npos) continue;
    size_t open = line.rfind('{');
    size_t close = line.find('}', open);
    if (open == std::string::npos || close == std::string::npos) {
      calls.push_back({line});
      continue;
    }
    std::vector<std::string> elements;
    std::istringstream items(line.substr(open + 1, close - open - 1));
    for (std::string item; std::getline(items, item, ',');) {
      size_t first = item.find_first_not_of(' ');
      elements.push_back(first == std::string::npos ? "" : item.substr(first));
    }
    calls.push_back(elements);
  }
  return calls;
}

std::vector<double> numbers(const std::vector<std::string>& words) {
  std::vector<double> out;
  for (const std::string& w : words) {
    if (w == "GL_TRUE")
      out.push_back(1);
    else if (w == "GL_FALSE")
      out.push_back(0);
    else
      out.push_back(std::stod(w));
  }
  return out;
}

// Every getter's output is in the trace, with the values the app read, and
// the replay (which must not crash writing them) renders identically.
TEST(Outputs, EveryGetterOutputIsTracedAndReplays) {
  std::string trace = make_temp_dir() + "/outputs.gltrace";
  ProcessResult traced = gltrace(
      {"trace", "--framebuffer", "swap", "-o", trace, "--", build_bin("gltrace-outputs-app"), "2"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  auto app = app_values(traced.out);
  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out.find("size unknown"), std::string::npos) << dump.out;

  // Each getter's calls in order, and the app's lines they wrote, in order.
  struct Getter {
    const char* function;
    std::vector<std::string> lines;
  };
  const std::vector<Getter> getters = {
      {"glGetIntegeri_v", {}},  // compared below: the app prints them per pname
      {"glGetBooleani_v", {"glGetBooleani_v GL_COLOR_WRITEMASK"}},
      {"glGetUniformfv", {"glGetUniformfv u_offset[2]", "glGetUniformfv u_transform"}},
      {"glGetnUniformfv", {"glGetnUniformfv u_transform"}},
      {"glGetUniformiv", {"glGetUniformiv u_steps"}},
      {"glGetUniformuiv", {"glGetUniformuiv u_mask"}},
      {"glGetUniformIndices", {"glGetUniformIndices"}},
      {"glGetActiveUniformsiv", {"glGetActiveUniformsiv GL_UNIFORM_OFFSET"}},
      {"glGetProgramResourceiv", {"glGetProgramResourceiv GL_TYPE GL_ARRAY_SIZE"}},
      {"glGetInteger64i_v", {"glGetInteger64i_v GL_UNIFORM_BUFFER_SIZE"}},
      {"glGetPointerv", {"glGetPointerv GL_DEBUG_CALLBACK_FUNCTION"}},
  };
  for (const Getter& g : getters) {
    auto calls = dumped_outputs(dump.out, g.function);
    ASSERT_FALSE(calls.empty()) << g.function << " not in the dump";
    for (size_t i = 0; i < g.lines.size(); ++i) {
      ASSERT_LT(i, calls.size()) << g.function;
      ASSERT_TRUE(app.count(g.lines[i])) << g.lines[i] << " not printed:\n" << traced.out;
      EXPECT_EQ(numbers(calls[i]), numbers(app[g.lines[i]])) << g.lines[i];
    }
  }
  // glGetIntegeri_v: the counts and sizes in turn, one value each.
  auto indexed = dumped_outputs(dump.out, "glGetIntegeri_v");
  const auto& counts = app["glGetIntegeri_v GL_MAX_COMPUTE_WORK_GROUP_COUNT"];
  const auto& sizes = app["glGetIntegeri_v GL_MAX_COMPUTE_WORK_GROUP_SIZE"];
  ASSERT_EQ(indexed.size(), 6u);
  ASSERT_EQ(counts.size(), 3u);
  ASSERT_EQ(sizes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(indexed[2 * i], std::vector<std::string>{counts[i]}) << i;
    EXPECT_EQ(indexed[2 * i + 1], std::vector<std::string>{sizes[i]}) << i;
  }
  // glGetActiveUniformBlockiv: active uniforms (1 value), data size (1), then
  // the indices of as many uniforms, those glGetUniformIndices gave.
  auto block = dumped_outputs(dump.out, "glGetActiveUniformBlockiv");
  ASSERT_EQ(block.size(), 3u);
  EXPECT_EQ(block[0], std::vector<std::string>{"2"});
  EXPECT_EQ(block[1].size(), 1u);
  std::vector<double> members = numbers(block[2]);
  std::sort(members.begin(), members.end());
  std::vector<double> indices = numbers(app["glGetUniformIndices"]);
  std::sort(indices.begin(), indices.end());
  EXPECT_EQ(members, indices);
  // glGetInternalformativ: the count, then as many sample counts.
  auto formats = dumped_outputs(dump.out, "glGetInternalformativ");
  ASSERT_EQ(formats.size(), 2u);
  EXPECT_EQ(numbers(formats[1]), numbers(app["glGetInternalformativ GL_SAMPLES"]));

  ProcessResult replay = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(replay.term_signal, 0) << replay.out << replay.err;
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("compare: 2 frames identical, 0 differ, 0 without a trace image"),
            std::string::npos)
      << replay.out << replay.err;
}

}  // namespace
}  // namespace gltrace::test
