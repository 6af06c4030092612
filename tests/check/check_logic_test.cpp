// gltrace check's pure logic: the expectations file (its errors name the
// line), the shard conventions of CI engines, the merge of shard reports and
// what labels make of outcomes as the reports count them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <limits>

#include "check/expectations.h"
#include "check/report.h"
#include "check/shard.h"
#include "support/subprocess.h"

namespace gltrace::check {
namespace {

std::string write_file(const std::string& text) {
  std::string path = test::make_temp_dir() + "/expectations.toml";
  test::write_text_file(path, text);
  return path;
}

constexpr char kFile[] = R"(tolerance = "channel=16,pixels=0.5%,edges"
timeout = 60

[devices.llvmpipe]
renderer = "llvmpipe*"

[devices.zink]
renderer = "zink*"
version = "*Mesa 22.*"

[[traces]]
name = "demo"
path = "traces/demo.gltrace"
hash = "xxh3-128:00000000000000000000000000000001"
frames = [3, "last"]

[traces.expect.llvmpipe]
checksums = ["xxh3:1", "xxh3:2"]
goldens = ["goldens/a.png", "goldens/b.png"]

[traces.expect.zink]
label = "flaky"
note = "rounds differently at edges \"sometimes\""
tolerance = "channel=2"

[[traces]]
name = "mpv"
path = "/abs/mpv.gltrace"
timeout = 5
)";

TEST(CheckExpectations, ReadsTheFileAndWritesItBackTheSame) {
  Expectations e;
  std::string error;
  std::string path = write_file(kFile);
  ASSERT_TRUE(read_expectations(path, &e, &error)) << error;
  EXPECT_EQ(e.tolerance, "channel=16,pixels=0.5%,edges");
  EXPECT_EQ(e.timeout, 60);
  ASSERT_EQ(e.devices.size(), 2u);
  ASSERT_EQ(e.traces.size(), 2u);
  const TraceEntry& demo = e.traces[0];
  EXPECT_EQ(demo.frames, (std::vector<uint64_t>{3, kLastFrame}));
  ASSERT_NE(demo.expectation("zink"), nullptr);
  EXPECT_EQ(demo.expectation("zink")->label, Label::kFlaky);
  EXPECT_EQ(demo.expectation("llvmpipe")->goldens[1], "goldens/b.png");
  EXPECT_EQ(e.resolve(demo.path), e.dir + "/traces/demo.gltrace");
  EXPECT_EQ(e.resolve(e.traces[1].path), "/abs/mpv.gltrace");
  EXPECT_EQ(*e.traces[1].timeout, 5);
  EXPECT_TRUE(e.traces[1].hash.empty());  // --update records it
  // Written and read again: the same text.
  std::string text = expectations_text(e);
  Expectations again;
  ASSERT_TRUE(read_expectations(write_file(text), &again, &error)) << error << "\n" << text;
  EXPECT_EQ(expectations_text(again), text);
  EXPECT_EQ(again.traces[0].expectation("zink")->note, "rounds differently at edges \"sometimes\"");
}

TEST(CheckExpectations, MistakesAreNamedWithTheirLine) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"tolerance = \"exact\"\n[[traces]]\nname = \"a\"\npath = \"a\"\nframe = [1]\n",
       "line 5: a trace has no key 'frame'"},
      {"[[traces]]\npath = \"a\"\n[traces.expect.nvidia]\nlabel = \"skip\"\n",
       "no device 'nvidia' under [devices]"},
      {"[devices.x]\n[[traces]]\npath = \"a\"\n[traces.expect.x]\nlabel = \"sometimes\"\n",
       "line 5: no label 'sometimes'"},
      {"[devices.x]\n[[traces]]\npath = \"a\"\nframes = [1, 2]\n[traces.expect.x]\n"
       "checksums = [\"xxh3:1\"]\n",
       "one checksum and golden per frame (2)"},
      {"timeout = -3\n", "line 1: 'timeout' wants seconds"},
      {"[[traces]]\npath = \"a\"\nhash = \"h\"\n[[traces]]\npath = \"b\"\nhash = \"h\"\n",
       "is listed twice"},
      {"tolerance = \n", "line 1:"},  // not TOML
      {"tolerance = \"channel=16,bogus\"\n", "line 1: tolerance: 'bogus' is not a tolerance term"},
  };
  for (const Case& c : cases) {
    Expectations e;
    std::string error;
    std::string path = write_file(c.text);
    EXPECT_FALSE(read_expectations(path, &e, &error)) << c.text;
    EXPECT_NE(error.find(c.says), std::string::npos) << c.text << "\n" << error;
    EXPECT_EQ(error.rfind(path, 0), 0u) << error;
  }
}

TEST(CheckExpectations, ADeviceIsFoundByTheDriversStrings) {
  Expectations e;
  std::string error;
  ASSERT_TRUE(read_expectations(write_file(kFile), &e, &error)) << error;
  DriverIdentity llvmpipe{"Mesa/X.org", "llvmpipe (LLVM 15.0.6, 256 bits)",
                          "OpenGL ES 3.2 Mesa 22.3.6"};
  DriverIdentity zink{"Mesa/X.org", "zink (llvmpipe (LLVM 15.0.6, 256 bits))",
                      "OpenGL ES 3.2 Mesa 22.3.6"};
  DriverIdentity zink23 = zink;
  zink23.version = "OpenGL ES 3.2 Mesa 23.1.0";
  EXPECT_EQ(e.device_of(llvmpipe, &error)->name, "llvmpipe");
  EXPECT_EQ(e.device_of(zink, &error)->name, "zink");
  EXPECT_EQ(e.device_of(zink23, &error), nullptr);
  EXPECT_TRUE(error.empty());
  // --update names a new device after the renderer, matching it exactly.
  const Device& added = e.add_device(zink23);
  EXPECT_EQ(added.name, "zink-2");
  EXPECT_EQ(e.device_of(zink23, &error)->name, "zink-2");
  EXPECT_EQ(e.device_of(zink, &error)->name, "zink");
  // Two devices matching one driver is the file's mistake, said.
  e.devices.push_back(Device{"any", "*", "", ""});
  EXPECT_EQ(e.device_of(llvmpipe, &error), nullptr);
  EXPECT_NE(error.find("both device llvmpipe and any"), std::string::npos) << error;
}

// The CI variables as given, none else; none again at the end.
struct EnvGuard {
  explicit EnvGuard(std::initializer_list<std::pair<const char*, const char*>> vars) {
    clear();
    for (const auto& [name, value] : vars) setenv(name, value, 1);
  }
  ~EnvGuard() { clear(); }
  static void clear() {
    for (const char* name : {"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", "CI_NODE_INDEX",
                             "CI_NODE_TOTAL", "JOB_COMPLETION_INDEX"})
      unsetenv(name);
  }
};

TEST(CheckShards, EachCiConventionGivesItsShard) {
  Shard s;
  std::string error;
  {
    EnvGuard env({});
    ASSERT_TRUE(choose_shard("", 0, &s, &error)) << error;
    EXPECT_EQ(s.total, 1u);
    ASSERT_TRUE(choose_shard("2/4", 0, &s, &error)) << error;
    EXPECT_EQ(s.index, 2u);
    EXPECT_EQ(s.total, 4u);
    EXPECT_TRUE(s.holds(1) && s.holds(5) && !s.holds(0) && !s.holds(2));
    for (const char* bad : {"0/4", "5/4", "4", "a/b", "1/0"})
      EXPECT_FALSE(choose_shard(bad, 0, &s, &error)) << bad;
    EXPECT_FALSE(choose_shard("", 4, &s, &error));  // a count without an index
  }
  {
    EnvGuard env({{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "4"}});
    ASSERT_TRUE(choose_shard("", 0, &s, &error)) << error;
    EXPECT_EQ(s.index, 1u);  // GoogleTest counts from 0
    EXPECT_EQ(s.total, 4u);
    ASSERT_TRUE(choose_shard("3/4", 0, &s, &error));  // the option wins
    EXPECT_EQ(s.index, 3u);
  }
  {
    EnvGuard env({{"CI_NODE_INDEX", "4"}, {"CI_NODE_TOTAL", "4"}});
    ASSERT_TRUE(choose_shard("", 0, &s, &error)) << error;
    EXPECT_EQ(s.index, 4u);  // GitLab counts from 1
  }
  {
    EnvGuard env({{"CI_NODE_INDEX", "0"}, {"CI_NODE_TOTAL", "4"}});
    EXPECT_FALSE(choose_shard("", 0, &s, &error));
    EXPECT_NE(error.find("CI_NODE_INDEX=0"), std::string::npos) << error;
  }
  {
    EnvGuard env({{"JOB_COMPLETION_INDEX", "2"}});
    EXPECT_FALSE(choose_shard("", 0, &s, &error));  // Kubernetes says no count
    EXPECT_NE(error.find("--shards"), std::string::npos) << error;
    ASSERT_TRUE(choose_shard("", 4, &s, &error)) << error;
    EXPECT_EQ(s.index, 3u);
  }
}

Report shard_report(uint32_t shard, uint32_t shards, const std::vector<size_t>& traces) {
  Report r;
  r.expectations_hash = "xxh3-128:1";
  r.device = "llvmpipe";
  r.shard = shard;
  r.shards = shards;
  r.traces = 4;
  for (size_t t : traces) {
    TraceResult result;
    result.index = t;
    result.name = "t" + std::to_string(t);
    result.status = t == 2 ? Status::kFail : Status::kPass;
    r.results.push_back(result);
  }
  return r;
}

TEST(CheckReports, ShardsMergeInTheFilesOrderAndAMissingOneIsSaid) {
  Report merged;
  std::string error;
  ASSERT_TRUE(
      merge_reports({shard_report(2, 2, {1, 3}), shard_report(1, 2, {0, 2})}, &merged, &error))
      << error;
  ASSERT_EQ(merged.results.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(merged.results[i].index, i);
  EXPECT_TRUE(merged.failed());
  EXPECT_EQ(merged.shards, 1u);
  EXPECT_FALSE(merge_reports({shard_report(1, 2, {0, 2})}, &merged, &error));
  EXPECT_NE(error.find("shard 2/2 is missing"), std::string::npos) << error;
  EXPECT_FALSE(
      merge_reports({shard_report(1, 2, {0, 2}), shard_report(1, 2, {0, 2})}, &merged, &error));
  EXPECT_NE(error.find("given twice"), std::string::npos) << error;
  Report other = shard_report(2, 2, {1, 3});
  other.expectations_hash = "xxh3-128:2";
  EXPECT_FALSE(merge_reports({shard_report(1, 2, {0, 2}), other}, &merged, &error));
  EXPECT_NE(error.find("another run"), std::string::npos) << error;
}

TEST(CheckReports, JsonReadsBackAndJUnitEscapes) {
  Report r = shard_report(1, 1, {0, 1, 2, 3});
  r.results[2].message = "frame 9 differs <&> \"x\"\x01";
  FrameResult f;
  f.frame = 9;
  f.verdict = "differs";
  f.pixels = 12;
  r.results[2].frames.push_back(f);
  // Differing only in alpha: the PSNR of the RGB channels is infinite,
  // which JSON writes as null; it reads back as infinite.
  f.verdict = "within_tolerance";
  f.psnr = std::numeric_limits<double>::infinity();
  r.results[2].frames.push_back(f);
  std::string dir = test::make_temp_dir();
  std::string error;
  ASSERT_TRUE(write_text(dir + "/r.json", report_json(r), &error)) << error;
  Report back;
  ASSERT_TRUE(read_report_json(dir + "/r.json", &back, &error)) << error;
  EXPECT_EQ(report_json(back), report_json(r));
  EXPECT_EQ(back.results[2].frames[1].psnr, std::numeric_limits<double>::infinity());
  std::string junit = report_junit(r);
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("frame 9 differs &lt;&amp;&gt; &quot;x&quot;?"), std::string::npos) << junit;
  EXPECT_FALSE(is_failure(Status::kFlaky));
  EXPECT_FALSE(is_failure(Status::kExpected));
  EXPECT_TRUE(is_failure(Status::kUnexpectedPass));
  EXPECT_TRUE(is_failure(Status::kHang));
}

}  // namespace
}  // namespace gltrace::check
