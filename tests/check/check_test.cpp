// gltrace check on real traces (Mesa llvmpipe and softpipe, surfaceless):
// --update records expectations that the next run passes; a wrong golden
// fails with its images kept and the others' not; a changed trace is known
// by its hash; a replay that hangs (a fragment loop softpipe runs to its
// end) is reported as a hang within its timeout; labels are honoured; the
// JUnit XML is read by a JUnit reader (python3-junitparser); four shards
// run by each CI convention merge to the report of one run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// A trace of `app` with the framebuffer captured at every swap, in dir/traces.
void capture(const IsolatedEnv& env, const std::string& app, std::vector<std::string> app_args,
             const std::string& name) {
  fs::create_directories(env.dir + "/traces");
  std::vector<std::string> args = {
      "trace", "-o",          env.dir + "/traces/" + name + ".gltrace", "--framebuffer", "swap",
      "--",    build_bin(app)};
  args.insert(args.end(), app_args.begin(), app_args.end());
  ProcessResult r = gltrace(env, args);
  ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
}

Json read_json(const std::string& path) {
  std::ifstream in(path);
  return Json::parse(in, nullptr, false);
}

const Json& result_of(const Json& report, const std::string& name) {
  for (const Json& r : report["results"])
    if (r["name"] == name) return r;
  static const Json none;
  ADD_FAILURE() << "no result for " << name << " in " << report.dump(1);
  return none;
}

// The JUnit file as python3-junitparser reads it: "tests failures errors
// skipped" and a line per test case, "NAME: RESULT MESSAGE".
std::string junit_as_read(const std::string& path) {
  static const char kReader[] =
      "import sys\n"
      "from junitparser import JUnitXml\n"
      "xml = JUnitXml.fromfile(sys.argv[1])\n"
      "for suite in xml:\n"
      "    print(suite.tests, suite.failures, suite.errors, suite.skipped)\n"
      "    for case in suite:\n"
      "        r = case.result\n"
      "        print(case.name + ':', ' '.join(x._tag + ' ' + (x.message or '') for x in r))\n";
  // Debian's python3, which python3-junitparser is installed for.
  ProcessResult r = run_process({"/usr/bin/python3", "-c", kReader, path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in\n" << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(CheckRun, UpdateRecordsWhatTheNextRunPassesAndAWrongGoldenFailsWithItsImagesKept) {
  IsolatedEnv env;
  capture(env, "gltrace-demo", {"--frames", "6"}, "demo");
  capture(env, "gltrace-glsl-320", {"--frames", "2"}, "glsl");
  capture(env, "gltrace-two-threads", {"--frames", "4"}, "threads");
  std::string file = env.dir + "/expectations.toml";
  write_text_file(file,
                  "[[traces]]\nname = \"demo\"\npath = \"traces/demo.gltrace\"\nframes = [2, 5]\n"
                  "[[traces]]\nname = \"glsl\"\npath = \"traces/glsl.gltrace\"\n"
                  "[[traces]]\nname = \"threads\"\npath = \"traces/threads.gltrace\"\n");
  std::string results = env.dir + "/results";
  auto check = [&](std::vector<std::string> more) {
    std::vector<std::string> args = {"check", file, "-r", results, "-j", "2"};
    args.insert(args.end(), more.begin(), more.end());
    return gltrace(env, args);
  };

  // Without hashes the traces are not known: each is an error.
  ProcessResult first = check({});
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_TRUE(contains(first.out, "the file gives no hash")) << first.out;

  ProcessResult update = check({"--update"});
  ASSERT_EQ(update.exit_code, 0) << update.out << update.err;
  EXPECT_TRUE(contains(update.out, "--update recorded 3 traces' images for device llvmpipe"))
      << update.out;
  std::string recorded = read_text_file(file);
  EXPECT_TRUE(std::regex_search(recorded, std::regex("\\[devices\\.llvmpipe\\]\\nrenderer = "
                                                     "\"llvmpipe \\(LLVM")))
      << recorded;
  EXPECT_EQ(count_occurrences(recorded, "hash = \"xxh3-128:"), 3u) << recorded;
  EXPECT_TRUE(fs::exists(env.dir + "/goldens/demo-llvmpipe-f5.png")) << recorded;

  ProcessResult pass = check({});
  ASSERT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  Json report = read_json(results + "/results.json");
  EXPECT_EQ(report["summary"]["pass"], 3) << report.dump(1);
  EXPECT_EQ(report["device"], "llvmpipe");
  for (const Json& f : result_of(report, "demo")["frames"]) EXPECT_EQ(f["verdict"], "checksum");
  EXPECT_FALSE(fs::exists(results + "/failed"));  // images are kept only on a failure
  EXPECT_FALSE(fs::exists(results + "/work"));
  EXPECT_TRUE(contains(junit_as_read(results + "/junit.xml"), "3 0 0 0\n"));

  // A wrong golden: the demo's two frames' checksums lost and goldens
  // swapped; the threads trace's file is not the one recorded.
  std::string wrong = recorded;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(wrong, m,
                                std::regex("checksums = \\[\"xxh3:[0-9a-f]+\", "
                                           "\"xxh3:[0-9a-f]+\"\\]")));
  wrong = replace(wrong, m[0], "checksums = [\"xxh3:0\", \"xxh3:0\"]");
  wrong = replace(wrong,
                  "goldens = [\"goldens/demo-llvmpipe-f2.png\", \"goldens/demo-llvmpipe-f5.png\"]",
                  "goldens = [\"goldens/demo-llvmpipe-f5.png\", \"goldens/demo-llvmpipe-f2.png\"]");
  ASSERT_TRUE(std::regex_search(wrong, m,
                                std::regex("name = \"threads\"\\npath = .*\\nhash = "
                                           "\"(xxh3-128:[0-9a-f]+)\"")));
  wrong = replace(wrong, m[1], "xxh3-128:00000000000000000000000000000000");
  write_text_file(file, wrong);
  ProcessResult fail = check({});
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  report = read_json(results + "/results.json");
  const Json& demo = result_of(report, "demo");
  EXPECT_EQ(demo["status"], "fail") << demo.dump(1);
  for (const Json& f : demo["frames"]) {
    EXPECT_EQ(f["verdict"], "differs") << f.dump();
    EXPECT_GT(f["pixels"].get<uint64_t>(), 0u);
    EXPECT_TRUE(fs::exists(f["image"].get<std::string>())) << f.dump();
    EXPECT_TRUE(fs::exists(f["difference"].get<std::string>())) << f.dump();
  }
  EXPECT_EQ(result_of(report, "threads")["status"], "error");
  EXPECT_TRUE(contains(result_of(report, "threads")["message"], "not the trace expected"));
  EXPECT_EQ(result_of(report, "glsl")["status"], "pass");
  EXPECT_TRUE(fs::exists(results + "/failed/0-demo/replay.log"));
  EXPECT_FALSE(fs::exists(results + "/failed/1-glsl"));
  std::string junit = junit_as_read(results + "/junit.xml");
  EXPECT_TRUE(contains(junit, "3 1 1 0\n")) << junit;
  EXPECT_TRUE(contains(junit, "demo: failure fail: frame 2 differs, frame 5 differs")) << junit;

  // --update rebaselines: the next run passes.
  ASSERT_EQ(check({"--update"}).exit_code, 0);
  ProcessResult again = check({});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
}

TEST(CheckRun, OnSoftpipeAHangIsReportedWithinItsTimeoutAndLabelsAreHonoured) {
  IsolatedEnv env;
  capture(env, "gltrace-long-loop", {"--frames", "2"}, "loop");
  capture(env, "gltrace-glsl-320", {"--frames", "2"}, "glsl");
  capture(env, "gltrace-demo", {"--frames", "3"}, "demo");
  std::string file = env.dir + "/expectations.toml";
  std::string text =
      "[devices.softpipe]\nrenderer = \"softpipe*\"\n"
      "[[traces]]\nname = \"loop\"\npath = \"traces/loop.gltrace\"\ntimeout = 8\n"
      "[[traces]]\nname = \"glsl\"\npath = \"traces/glsl.gltrace\"\n"
      "[traces.expect.softpipe]\nlabel = \"broken\"\nnote = \"softpipe has GLSL ES 3.10\"\n"
      "[[traces]]\nname = \"demo\"\npath = \"traces/demo.gltrace\"\n"
      "[traces.expect.softpipe]\nlabel = \"flaky\"\nchecksums = [\"xxh3:0\"]\n";
  // The traces' hashes, as --update on llvmpipe records them (what else it
  // records, for llvmpipe, is left out).
  write_text_file(file, text);
  ASSERT_EQ(gltrace(env, {"check", file, "-r", env.dir + "/r0", "--update"}).exit_code, 0);
  // On llvmpipe, which the file names no device for, each trace was judged
  // by its own last frame's image: the apps exit with their context current
  // (the last swap's image is written at their exit).
  Json own = read_json(env.dir + "/r0/results.json");
  for (const char* name : {"loop", "glsl", "demo"}) {
    const Json& r = result_of(own, name);
    EXPECT_EQ(r["status"], "pass") << r.dump(1);
    EXPECT_EQ(r["frames"][0]["verdict"], "identical") << r.dump(1);
  }
  std::string hashed = read_text_file(file);
  std::regex hash_line("hash = \"xxh3-128:[0-9a-f]+\"\\n");
  auto it = std::sregex_iterator(hashed.begin(), hashed.end(), hash_line);
  std::vector<std::string> hashes;
  for (; it != std::sregex_iterator(); ++it) hashes.push_back(it->str());
  ASSERT_EQ(hashes.size(), 3u) << hashed;
  text = replace(text, "timeout = 8\n", hashes[0] + "timeout = 8\n");
  text = replace(text, "path = \"traces/glsl.gltrace\"\n",
                 "path = \"traces/glsl.gltrace\"\n" + hashes[1]);
  text = replace(text, "path = \"traces/demo.gltrace\"\n",
                 "path = \"traces/demo.gltrace\"\n" + hashes[2]);
  write_text_file(file, text);

  std::string results = env.dir + "/results";
  ProcessResult run = gltrace(env, {"check", file, "--driver", "softpipe", "-r", results});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;  // the hang
  Json report = read_json(results + "/results.json");
  EXPECT_EQ(report["device"], "softpipe") << report.dump(1);
  const Json& loop = result_of(report, "loop");
  EXPECT_EQ(loop["status"], "hang") << loop.dump(1);
  EXPECT_TRUE(contains(loop["message"], "ran past its timeout of 8 s")) << loop.dump(1);
  EXPECT_LT(loop["seconds"].get<double>(), 8 + 20) << "killed at its timeout";
  EXPECT_EQ(result_of(report, "glsl")["status"], "expected") << report.dump(1);
  EXPECT_TRUE(contains(result_of(report, "glsl")["message"], "softpipe has GLSL ES 3.10"));
  EXPECT_EQ(result_of(report, "demo")["status"], "flaky") << report.dump(1);
  std::string junit = junit_as_read(results + "/junit.xml");
  EXPECT_TRUE(contains(junit, "3 0 1 2\n")) << junit;
  EXPECT_TRUE(contains(junit, "loop: error hang:")) << junit;

  // Labelled a hang, the hang is expected and the run passes.
  write_text_file(file, replace(text, "timeout = 8\n",
                                "timeout = 8\n[traces.expect.softpipe]\nlabel = \"hang\"\n"));
  ProcessResult labelled = gltrace(env, {"check", file, "--driver", "softpipe", "-r", results});
  EXPECT_EQ(labelled.exit_code, 0) << labelled.out << labelled.err;
  EXPECT_TRUE(contains(labelled.out, "1 flaky, 2 expected")) << labelled.out;
}

// Each result's name, status, message and frames: what one run and merged
// shards must agree on (times and kept files' folders aside).
std::string comparable(const Json& report) {
  std::string out;
  for (const Json& r : report["results"]) {
    out += r["name"].get<std::string>() + " " + r["status"].get<std::string>() + " " +
           r["message"].get<std::string>();
    for (const Json& f : r["frames"])
      out += " " + std::to_string(f["frame"].get<uint64_t>()) + ":" +
             f["verdict"].get<std::string>() + ":" + f["checksum"].get<std::string>();
    out += "\n";
  }
  return out;
}

TEST(CheckRun, FourShardsByEachConventionMergeToTheReportOfOneRun) {
  IsolatedEnv env;
  capture(env, "gltrace-demo", {"--frames", "3"}, "demo");
  capture(env, "gltrace-glsl-320", {"--frames", "2"}, "glsl");
  capture(env, "gltrace-two-threads", {"--frames", "3"}, "threads");
  capture(env, "gltrace-long-loop", {"--frames", "1"}, "loop");
  capture(env, "gltrace-snapshot-objects", {}, "objects");
  std::string file = env.dir + "/expectations.toml";
  std::string text;
  for (const char* name : {"demo", "glsl", "threads", "loop", "objects"})
    text += std::string("[[traces]]\nname = \"") + name + "\"\npath = \"traces/" + name +
            ".gltrace\"\n";
  write_text_file(file, text);
  ASSERT_EQ(gltrace(env, {"check", file, "-r", env.dir + "/r0", "--update"}).exit_code, 0);
  ProcessResult one = gltrace(env, {"check", file, "-r", env.dir + "/one"});
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;

  struct Shard {
    EnvChanges vars;
    std::vector<std::string> args;
  } shards[] = {
      {{{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "4"}}, {}},
      {{{"CI_NODE_INDEX", "2"}, {"CI_NODE_TOTAL", "4"}}, {}},
      {{{"JOB_COMPLETION_INDEX", "2"}}, {"--shards", "4"}},
      {{}, {"--shard", "4/4"}},
  };
  std::vector<std::string> merge = {"check", "--merge", "-r", env.dir + "/merged"};
  size_t i = 0;
  for (const Shard& s : shards) {
    EnvChanges vars = env.vars;
    for (const auto& [k, v] : s.vars) vars[k] = v;
    std::string dir = env.dir + "/shard" + std::to_string(++i);
    std::vector<std::string> args = {"check", file, "-r", dir};
    args.insert(args.end(), s.args.begin(), s.args.end());
    ProcessResult r = gltrace(args, vars);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "shard " + std::to_string(i) + " of 4")) << r.out;
    merge.push_back(dir + "/results.json");
  }
  fs::create_directories(env.dir + "/merged");
  ProcessResult merged = gltrace(env, merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  std::string expected = comparable(read_json(env.dir + "/one/results.json"));
  EXPECT_EQ(count_occurrences(expected, " pass "), 5u) << expected;
  EXPECT_EQ(comparable(read_json(env.dir + "/merged/results.json")), expected);
  EXPECT_EQ(junit_as_read(env.dir + "/merged/junit.xml"),
            junit_as_read(env.dir + "/one/junit.xml"));
  // Three shards are not the run: the missing one is named.
  merge.pop_back();
  ProcessResult missing = gltrace(env, merge);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "shard 4/4 is missing")) << missing.err;
}

}  // namespace
}  // namespace gltrace::test
