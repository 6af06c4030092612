// Real traces with one argument changed must never crash the replay: each
// call whose pointers are not backed by the trace's bytes is reported
// (`call N: ...`) and skipped, by `gltrace replay` on Mesa and by
// `gltrace replay --check` without GL (issue 12, "Replay trusts what the
// trace says").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gltrace/api/functions.h"
#include "mutate.h"
#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_file(const std::vector<uint8_t>& bytes, const std::string& name) {
  static const std::string dir = make_temp_dir();
  std::string path = dir + "/" + name + ".gltrace";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

// A real trace of an app, made once.
const std::vector<uint8_t>& traced(const std::string& app) {
  static std::map<std::string, std::vector<uint8_t>> traces;
  auto it = traces.find(app);
  if (it != traces.end()) return it->second;
  std::string path = make_temp_dir() + "/" + app + ".gltrace";
  std::vector<std::string> args = {"trace", "-o", path, "--", build_bin(app)};
  // Two frames each.
  if (app == "gltrace-demo") args.emplace_back("--frames");
  args.emplace_back("2");
  ProcessResult r = gltrace(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return traces[app] = read_file(path);
}

// The trace with argument `arg` of the `nth` call of `function` (from 0)
// set to `value`; fails the test when there is no such call.
std::vector<uint8_t> with_argument(const std::vector<uint8_t>& trace, uint32_t function, int nth,
                                   size_t arg, const std::string& value) {
  int seen = 0;
  bool found = false;
  std::vector<uint8_t> out = rewrite_calls(trace, [&](CallEdit& call) {
    if (call.function != function || seen++ != nth || arg >= call.args.size()) return;
    call.args[arg] = value;
    call.changed = found = true;
  });
  EXPECT_TRUE(found) << "no call " << nth << " of " << api::kFunctionInfo[function].name;
  return out;
}

// Replays `trace` on Mesa and checks it: never a signal, the call refused
// with `call N: ...` naming `function` when it is given.
void expect_refused(const std::vector<uint8_t>& trace, const std::string& name,
                    const char* function) {
  std::string path = write_file(trace, name);
  ProcessResult replay = gltrace({"replay", "-n", path});
  EXPECT_EQ(replay.term_signal, 0) << replay.err;
  EXPECT_EQ(replay.exit_code, 1) << replay.err;
  EXPECT_NE(replay.err.find(std::string(": cannot replay ") + function + ": argument"),
            std::string::npos)
      << replay.err;
  EXPECT_NE(replay.err.find("gltrace replay: call "), std::string::npos) << replay.err;
  ProcessResult check = gltrace({"replay", "--check", path});
  EXPECT_EQ(check.term_signal, 0) << check.err;
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find(std::string(": would refuse ") + function + ": argument"),
            std::string::npos)
      << check.out;
}

constexpr uint64_t kSomeAddress = 0x7f0012345000;

TEST(ReplayHostile, TheUnchangedTraceReplaysAndChecksClean) {
  // Rewritten without any change: the rewriting itself loses nothing.
  std::string path = write_file(rewrite_calls(traced("gltrace-demo"), [](CallEdit&) {}), "same");
  ProcessResult replay = gltrace({"replay", "-n", path});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  ProcessResult check = gltrace({"replay", "--check", path});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(": 0 would be refused"), std::string::npos) << check.out;
}

TEST(ReplayHostile, BufferDataFromAPointerValueIsRefused) {
  expect_refused(with_argument(traced("gltrace-demo"), api::kFn_glBufferData, 0, 2,
                               pointer_value(kSomeAddress)),
                 "bufferdata-pointer", "glBufferData");
}

TEST(ReplayHostile, BufferDataOfOneGibFromSeventyTwoBytesIsRefused) {
  // The demo's second glBufferData holds 72 bytes.
  expect_refused(
      with_argument(traced("gltrace-demo"), api::kFn_glBufferData, 1, 1, sint_value(1 << 30)),
      "bufferdata-1gib", "glBufferData");
}

TEST(ReplayHostile, TexImageOf4096SquaredFrom16KiBIsRefused) {
  // The demo's first texture is 64x64 RGBA: 16 KiB.
  std::vector<uint8_t> trace =
      with_argument(traced("gltrace-demo"), api::kFn_glTexImage2D, 0, 3, sint_value(4096));
  expect_refused(with_argument(trace, api::kFn_glTexImage2D, 0, 4, sint_value(4096)),
                 "teximage-4096", "glTexImage2D");
}

TEST(ReplayHostile, TexImageFromAPointerValueIsRefused) {
  expect_refused(with_argument(traced("gltrace-demo"), api::kFn_glTexImage2D, 0, 8,
                               pointer_value(kSomeAddress)),
                 "teximage-pointer", "glTexImage2D");
}

// Beyond the four: a draw from client memory whose client array is
// gone from the trace (the driver would read from address 0 on, or past an
// earlier draw's copy).
TEST(ReplayHostile, ADrawWithoutItsClientArrayIsRefused) {
  bool dropped = false;
  std::vector<uint8_t> trace = rewrite_calls(traced("glreplay_client_app"), [&](CallEdit& call) {
    if (dropped || call.client_arrays == 0) return;
    call.drop_client_arrays = dropped = true;
  });
  ASSERT_TRUE(dropped);
  std::string path = write_file(trace, "no-client-array");
  ProcessResult replay = gltrace({"replay", "-n", path});
  EXPECT_EQ(replay.term_signal, 0) << replay.err;
  EXPECT_EQ(replay.exit_code, 1) << replay.err;
  EXPECT_NE(replay.err.find("reads client memory, but the trace holds no client array"),
            std::string::npos)
      << replay.err;
  ProcessResult check = gltrace({"replay", "--check", path});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("reads client memory, but the trace holds no client array"),
            std::string::npos)
      << check.out;
}

// Seeded random argument changes over real traces (buffers, textures,
// client arrays and client indices): the replay exits 0 or 1, never by a
// signal, and so does --check.
TEST(ReplayHostile, RandomArgumentChangesNeverCrashTheReplay) {
  std::mt19937_64 random(12);
  const std::vector<std::string> apps = {"gltrace-demo", "glreplay_client_app"};
  const uint64_t kSizes[] = {
      0, 1, 4, 255, 4096, uint64_t{1} << 30, uint64_t{1} << 31, uint64_t{1} << 40, UINT64_MAX};
  int refused = 0;
  for (int n = 0; n < 50; ++n) {
    const std::vector<uint8_t>& trace = traced(apps[n % apps.size()]);
    uint64_t calls = 0;
    rewrite_calls(trace, [&](CallEdit&) { ++calls; });
    ASSERT_GT(calls, 0u);
    // A call with arguments, then one of its arguments.
    uint64_t target = random() % calls;
    std::string what;
    std::vector<uint8_t> mutated = rewrite_calls(trace, [&](CallEdit& call) {
      if (call.position < target || !what.empty() || call.args.empty() ||
          call.function >= api::kFunctionIdLimit)
        return;
      size_t arg = random() % call.args.size();
      std::string& value = call.args[arg];
      switch (random() % 4) {
        case 0:
          value = pointer_value(kSomeAddress + (random() % 4096) * 16);
          break;
        case 1:
          value = sint_value(static_cast<int64_t>(kSizes[random() % std::size(kSizes)]));
          break;
        case 2:
          value = uint_value(kSizes[random() % std::size(kSizes)]);
          break;
        default:
          value = data_value(std::string(random() % 8, '\x5a'));
          break;
      }
      call.changed = true;
      what = std::string(api::kFunctionInfo[call.function].name) + " argument " +
             std::to_string(arg) + " (call " + std::to_string(call.position) + ")";
    });
    if (what.empty()) continue;
    std::string path = write_file(mutated, "random-" + std::to_string(n));
    ProcessResult replay = gltrace({"replay", "-n", path});
    EXPECT_EQ(replay.term_signal, 0) << what << "\n" << replay.err;
    EXPECT_TRUE(replay.exit_code == 0 || replay.exit_code == 1) << what << "\n" << replay.err;
    if (replay.exit_code == 1) {
      EXPECT_NE(replay.err.find("gltrace replay: call "), std::string::npos) << what;
      ++refused;
    }
    ProcessResult check = gltrace({"replay", "--check", path});
    EXPECT_TRUE(check.exit_code == 0 || check.exit_code == 1) << what << "\n" << check.err;
  }
  EXPECT_GT(refused, 0);
}

// Snapshot marks that lie (issue 25): every call of a real trace marked as
// the snapshot's, none ending, each saying at length that it is not exact.
// The readers neither hang nor crash, and what they keep of the notes is
// bounded whatever the trace claims: the replay lists the first 100, cut
// short, and counts the rest.
TEST(ReplayHostile, SnapshotMarksThatLieAreBounded) {
  const std::string note(4096, 'n');
  uint64_t calls = 0;
  std::string framed = make_temp_dir() + "/framed.gltrace";
  ProcessResult t = gltrace({"trace", "--framebuffer", "swap", "-o", framed, "--",
                             build_bin("gltrace-demo"), "--frames", "2"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::string path = write_file(rewrite_calls(read_file(framed),
                                              [&](CallEdit& call) {
                                                call.mark_snapshot = true;
                                                call.inexact_note = note;
                                                ++calls;
                                              }),
                                "lying-snapshot");
  ASSERT_GT(calls, 200u);
  ProcessResult replay = gltrace({"replay", "--compare", path});
  EXPECT_EQ(replay.term_signal, 0) << replay.err;
  EXPECT_NE(replay.out.find("compare: the trace's snapshot says " + std::to_string(calls) +
                            " objects are not exact"),
            std::string::npos)
      << replay.out.substr(0, 2000) << replay.err.substr(0, 2000);
  EXPECT_NE(replay.out.find("compare:   ... and " + std::to_string(calls - 100) + " more"),
            std::string::npos);
  size_t listed = 0;
  for (size_t at = replay.out.find("compare:   nnn"); at != std::string::npos;
       at = replay.out.find("compare:   nnn", at + 1)) {
    ++listed;
    size_t end = replay.out.find('\n', at);
    EXPECT_LE(end - at, 420u) << "a note is cut short";
  }
  EXPECT_EQ(listed, 100u);
  // A loop over it and the other readers end too.
  ProcessResult loop = gltrace({"replay", "--loop", "2", path});
  EXPECT_EQ(loop.term_signal, 0) << loop.err;
  for (const char* command : {"dump", "info", "stats"}) {
    ProcessResult r = gltrace({command, path});
    EXPECT_EQ(r.term_signal, 0) << command << ": " << r.err;
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  }
  ProcessResult diff = gltrace({"diff-state", path + "@frame:0", path + "@frame:1"});
  EXPECT_EQ(diff.term_signal, 0) << diff.err;
}

}  // namespace
}  // namespace gltrace::test
