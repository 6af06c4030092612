// Outputs other tools read: export in Perfetto's protobuf format (decoded by
// protoc against proto/perfetto_subset.proto) and in Chrome's JSON (loaded by
// speedscope in headless Chromium), info --json and stats --format csv|json
// (parsed by Python's strict JSON reader, hostile strings included), on real
// traces of gltrace-demo (Mesa llvmpipe, surfaceless).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "hostile.h"
#include "protowire/wire.h"
#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

// stdin from a file, through the shell (run_process has no stdin).
ProcessResult shell(const std::string& command) {
  return run_process({"/bin/sh", "-c", command}, clean_env(), 300);
}

std::string sh_quoted(const std::string& s) { return "'" + s + "'"; }

// protoc's text of a Perfetto file, against proto/perfetto_subset.proto.
ProcessResult protoc_decode(const std::string& path) {
  return shell("protoc --decode=perfetto.protos.Trace -I" + sh_quoted(source_path("proto")) + " " +
               sh_quoted(source_path("proto/perfetto_subset.proto")) + " < " + sh_quoted(path));
}

std::string read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// One trace of 60 demo frames, and one with framebuffer images, for all tests.
class ReadableOutputs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(make_temp_dir());
    ProcessResult r =
        gltrace({"trace", "-o", trace(), "--", build_bin("gltrace-demo"), "--frames", "60"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string dir() { return *dir_; }
  static std::string trace() { return *dir_ + "/demo.gltrace"; }
  static std::string* dir_;
};
std::string* ReadableOutputs::dir_ = nullptr;

// The number of lines of `text` that contain `part`.
size_t lines_with(const std::string& text, const std::string& part) {
  size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) n += contains(line, part) ? 1 : 0;
  return n;
}

TEST_F(ReadableOutputs, PerfettoProtobufDecodesWithProtocIntoTracksSlicesAndArguments) {
  std::string out = dir() + "/plain.perfetto-trace";
  ProcessResult r = gltrace({"export", "--compression", "none", "-o", out, trace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult decoded = protoc_decode(out);
  ASSERT_EQ(decoded.exit_code, 0) << decoded.err;
  const std::string& text = decoded.out;
  // The process, its thread and the frame and counter tracks.
  EXPECT_TRUE(contains(text, "process_name: \"gltrace-demo\"")) << text.substr(0, 2000);
  EXPECT_TRUE(contains(text, "thread_name: \"gltrace-demo\""));
  EXPECT_TRUE(contains(text, "name: \"frames\""));
  EXPECT_TRUE(contains(text, "name: \"calls per frame\""));
  EXPECT_TRUE(contains(text, "name: \"data bytes per frame\""));
  // Timestamps are deltas on the incremental clock the first packet sets up.
  EXPECT_EQ(lines_with(text, "is_incremental: true"), 1u);
  EXPECT_EQ(lines_with(text, "timestamp_clock_id: 64"), 1u);
  // A slice per call and per frame, each begun and ended; a counter value
  // of each counter per frame.
  ProcessResult info = gltrace({"info", "--json", trace()});
  std::smatch calls;
  ASSERT_TRUE(std::regex_search(info.out, calls, std::regex("\"calls\": ([0-9]+)"))) << info.out;
  size_t call_count = std::stoul(calls[1]);
  EXPECT_EQ(lines_with(text, "type: TYPE_SLICE_BEGIN"), call_count + 60);
  EXPECT_EQ(lines_with(text, "type: TYPE_SLICE_END"), call_count + 60);
  EXPECT_EQ(lines_with(text, "type: TYPE_COUNTER"), 2u * 60);
  EXPECT_TRUE(contains(text, "name: \"frame 59\""));
  // Function and argument names interned once each, enum values by name.
  EXPECT_EQ(lines_with(text, "name: \"glDrawElements\""), 1u);
  EXPECT_EQ(lines_with(text, "name: \"mode\""), 1u);
  EXPECT_EQ(lines_with(text, "str: \"GL_TRIANGLES\""), 1u);
  EXPECT_GT(lines_with(text, "string_value_iid:"), 100u);
  EXPECT_GT(lines_with(text, "name_iid:"), call_count);
}

// The default output: the same packets, zstd-compressed in batches Perfetto
// reads (each a TracePacket's zstd_compressed_packets, under 512 KiB), at most
// twice the trace's size.
TEST_F(ReadableOutputs, PerfettoDefaultIsTheSamePacketsCompressedWithinTwiceTheTraceSize) {
  std::string plain = dir() + "/same-plain.perfetto-trace";
  std::string compressed = dir() + "/same.perfetto-trace";
  ASSERT_EQ(gltrace({"export", "--compression", "none", "-o", plain, trace()}).exit_code, 0);
  ProcessResult r = gltrace({"export", "--perfetto", "-o", compressed, trace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LE(file_size(compressed), 2 * file_size(trace()));

  std::string bytes = read_binary(compressed);
  wire::Reader trace_reader(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::string unpacked;
  uint32_t field;
  wire::WireType type;
  size_t batches = 0;
  while (trace_reader.next(&field, &type)) {
    ASSERT_EQ(field, 1u);
    std::string_view packet = trace_reader.bytes();
    EXPECT_LT(packet.size() + 8, size_t{512} << 10);
    wire::Reader packet_reader(reinterpret_cast<const uint8_t*>(packet.data()), packet.size());
    ASSERT_TRUE(packet_reader.next(&field, &type));
    ASSERT_EQ(field, 133u) << "not zstd_compressed_packets";
    std::string_view frame = packet_reader.bytes();
    unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    ASSERT_NE(size, ZSTD_CONTENTSIZE_ERROR);
    ASSERT_NE(size, ZSTD_CONTENTSIZE_UNKNOWN);
    std::string data(size, '\0');
    ASSERT_EQ(ZSTD_decompress(data.data(), data.size(), frame.data(), frame.size()), size);
    unpacked += data;
    ++batches;
  }
  ASSERT_TRUE(trace_reader.ok()) << trace_reader.error();
  EXPECT_GE(batches, 1u);
  EXPECT_TRUE(unpacked == read_binary(plain)) << "the packets differ from --compression none's";
}

TEST_F(ReadableOutputs, PerfettoIsNotWrittenToATerminalAndBadOptionsAreRefused) {
  EXPECT_EQ(gltrace({"export", "--format", "svg", trace()}).exit_code, 2);
  EXPECT_EQ(gltrace({"export", "--compression", "gzip", trace()}).exit_code, 2);
  ProcessResult r = gltrace({"export", "-o", "/nonexistent/x", trace()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "/nonexistent/x")) << r.err;
}

// The JSON export opens in a real viewer: speedscope (npm, tests/outputs/
// viewer, installed by tools/deps.sh) in Debian's Chromium, without an
// import error, listing the trace's functions.
TEST_F(ReadableOutputs, JsonLoadsInSpeedscopeWithTheTraceFunctionNames) {
  std::string viewer = source_path("tests/outputs/viewer");
  if (access("/usr/bin/chromium", X_OK) != 0 ||
      access((viewer + "/node_modules/speedscope").c_str(), F_OK) != 0)
    GTEST_SKIP() << "needs chromium and `npm ci` in tests/outputs/viewer (tools/deps.sh)";
  std::string json = dir() + "/demo.json";
  ProcessResult r = gltrace({"export", "--format", "json", "-o", json, trace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult shown =
      run_process({"/usr/bin/node", viewer + "/check_speedscope.js", "/usr/bin/chromium", json,
                   "glDrawElements", "eglSwapBuffers", "glUniformMatrix4fv", "eglInitialize"},
                  clean_env(), 240);
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  // And the check can fail: a name the trace does not hold is not shown.
  ProcessResult missing = run_process({"/usr/bin/node", viewer + "/check_speedscope.js",
                                       "/usr/bin/chromium", json, "glNotInTheTrace"},
                                      clean_env(), 240);
  EXPECT_EQ(missing.exit_code, 1) << missing.out << missing.err;
  EXPECT_TRUE(contains(missing.err, "not shown: glNotInTheTrace")) << missing.err;
}

// Python's json module, strict (the input must be UTF-8), prints `expression`.
ProcessResult python_json(const std::string& path, const std::string& expression) {
  return run_process({"/usr/bin/python3", "-c",
                      "import json,sys\n"
                      "d = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8'))\n"
                      "print(" +
                          expression + ")",
                      path},
                     clean_env(), 60);
}

ProcessResult to_file(const std::vector<std::string>& args, const std::string& path) {
  ProcessResult r = gltrace(args);
  write_text_file(path, r.out);
  return r;
}

TEST_F(ReadableOutputs, InfoJsonHoldsWhatInfoPrints) {
  std::string path = dir() + "/info.json";
  ProcessResult r = to_file({"info", "--json", trace()}, path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult p = python_json(
      path,
      "d['header']['process'], d['threads'][0]['name'], d['contexts'][0]['client_version'], "
      "d['frames'], d['calls'] > 1000, d['complete'], d['state'], "
      "d['compression']['ratio'] > 1, d['missing_calls']['calls']");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, "gltrace-demo gltrace-demo 3 60 True True closed cleanly True 0\n");
  // The same figures as the text.
  ProcessResult text = gltrace({"info", trace()});
  ProcessResult calls = python_json(path, "d['calls']");
  EXPECT_TRUE(contains(text.out, "calls:        " + calls.out)) << text.out << calls.out;
}

TEST_F(ReadableOutputs, StatsCsvAndJsonPerFunctionAndFrame) {
  std::string path = dir() + "/stats.json";
  ProcessResult r = to_file({"stats", "--format", "json", "--frames-max", "100", trace()}, path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult p = python_json(
      path,
      "[(f['count'], f['wall']['p50_ns'] <= f['wall']['p95_ns'] <= f['wall']['max_ns'], "
      "f['thread']) for f in d['functions'] if f['name'] == 'glDrawElements'], "
      "len(d['frames']['first']), d['frames']['count'], d['frames']['first'][1]['gpu_ns'], "
      "d['thread_time_recorded'], sum(f['count'] for f in d['functions']) == d['calls']");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, "[(960, True, None)] 60 60 None False True\n");

  ProcessResult csv = gltrace({"stats", "--format", "csv", trace()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(
      csv.out.starts_with("function,count,wall_total_ns,wall_mean_ns,wall_p50_ns,"
                          "wall_p95_ns,wall_max_ns,thread_total_ns,"))
      << csv.out;
  EXPECT_TRUE(std::regex_search(
      csv.out, std::regex("\nglDrawElements,960,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,n/a,n/a,"
                          "n/a,n/a,n/a\n")))
      << csv.out;
  ProcessResult frames = gltrace({"stats", "--format", "csv", "--table", "frames", trace()});
  EXPECT_TRUE(frames.out.starts_with("frame,calls,call_ns,wall_ns,gpu_ns\n0,")) << frames.out;
  EXPECT_EQ(gltrace({"stats", "--format", "xml", trace()}).exit_code, 2);
}

// With --thread-time the thread-time columns hold figures, not n/a.
TEST_F(ReadableOutputs, StatsThreadTimeWhenRecorded) {
  std::string traced = dir() + "/thread-time.gltrace";
  ProcessResult r = gltrace(
      {"trace", "--thread-time", "-o", traced, "--", build_bin("gltrace-demo"), "--frames", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string path = dir() + "/thread-time.json";
  ASSERT_EQ(to_file({"stats", "--format", "json", traced}, path).exit_code, 0);
  ProcessResult p = python_json(
      path,
      "d['thread_time_recorded'], all(f['thread'] is not None and f['thread']['max_ns'] >= "
      "f['thread']['p95_ns'] for f in d['functions'])");
  EXPECT_EQ(p.out, "True True\n") << p.err;
}

// Names a JSON writer must escape (quotes, backslashes, control characters)
// or replace (bytes that are not UTF-8): every JSON output stays valid, and
// valid UTF-8 comes through unchanged.
TEST_F(ReadableOutputs, JsonOutputsStayValidWithHostileStrings) {
  for (const HostileTrace& kind : hostile_traces()) {
    if (kind.kind != "hostile_strings" && kind.kind != "escapes_in_names") continue;
    std::string path = dir() + "/" + kind.kind + ".gltrace";
    std::vector<uint8_t> bytes = kind.make();
    write_text_file(path, std::string(bytes.begin(), bytes.end()));
    std::string info = dir() + "/" + kind.kind + ".info.json";
    std::string stats = dir() + "/" + kind.kind + ".stats.json";
    std::string events = dir() + "/" + kind.kind + ".events.json";
    to_file({"info", "--json", path}, info);
    to_file({"stats", "--format", "json", path}, stats);
    gltrace({"export", "--format", "json", "-o", events, path});
    ProcessResult p =
        python_json(info, "ascii(d['header']['process']), ascii(d['threads'][0]['name'])");
    EXPECT_EQ(p.exit_code, 0) << kind.kind << ": " << p.err;
    if (kind.kind == "hostile_strings")
      EXPECT_EQ(p.out, "'q\"b\\\\s/\\x01\\x7f\\xff\\xc3(\\u20ac' '\\xed\\xa0\\x80t\\n'\n");
    else
      EXPECT_EQ(p.out, "'app\\x1b[2J\\x1b]0;owned\\x07' 't\\x1b[31mred\\r'\n");
    EXPECT_EQ(python_json(stats, "len(d['functions'])").exit_code, 0) << kind.kind;
    ProcessResult e =
        python_json(events, "ascii([x['args']['name'] for x in d if x['ph'] == 'M'])");
    EXPECT_EQ(e.exit_code, 0) << kind.kind << ": " << e.err;
  }
  // And protoc reads the Perfetto output of hostile strings (strings must be UTF-8 there).
  for (const HostileTrace& kind : hostile_traces()) {
    if (kind.kind != "hostile_strings") continue;
    std::string path = dir() + "/strings.gltrace";
    std::vector<uint8_t> bytes = kind.make();
    write_text_file(path, std::string(bytes.begin(), bytes.end()));
    std::string out = dir() + "/strings.perfetto-trace";
    ASSERT_EQ(gltrace({"export", "--compression", "none", "-o", out, path}).exit_code, 0);
    ProcessResult decoded = protoc_decode(out);
    EXPECT_EQ(decoded.exit_code, 0) << decoded.err;
    // Bytes that are not UTF-8 become '?'; valid UTF-8 (the euro sign) stays.
    EXPECT_TRUE(contains(decoded.out, R"(process_name: "q\"b\\s/\001\177??(\342\202\254")"))
        << decoded.out;
    EXPECT_TRUE(contains(decoded.out, R"(thread_name: "???t\n")")) << decoded.out;
  }
}

}  // namespace
}  // namespace gltrace::test
