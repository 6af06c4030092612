// The control protocol as data (no app): round trips, framing, refusals;
// the live-tracing settings as pure logic.
#include "control/protocol.h"

#include <gtest/gtest.h>

#include <csignal>

#include "settings/live_config.h"

namespace gltrace::control {
namespace {

TEST(ControlProtocol, StartRoundTrips) {
  Request q;
  q.id = 7;
  q.command = Command::kStart;
  q.max_frames = 10;
  q.mode = "log";
  q.zstd_level = 3;
  q.options.framebuffer_on_swap = true;
  q.options.texture_data = false;
  std::vector<uint8_t> bytes = encode(q);
  Request back;
  std::string error;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &back, &error)) << error;
  EXPECT_EQ(back.version, kProtocolVersion);
  EXPECT_EQ(back.id, 7u);
  EXPECT_EQ(back.command, Command::kStart);
  EXPECT_EQ(back.max_frames, 10u);
  EXPECT_EQ(back.mode, "log");
  EXPECT_EQ(back.zstd_level, 3);
  EXPECT_EQ(back.options.framebuffer_on_swap, std::optional<bool>(true));
  EXPECT_EQ(back.options.texture_data, std::optional<bool>(false));
  EXPECT_FALSE(back.options.framebuffer_on_draw.has_value()) << "unset stays unset";
}

TEST(ControlProtocol, ReplyWithStatusRoundTrips) {
  Reply p;
  p.id = 3;
  p.ok = true;
  p.status.emplace();
  p.status->pid = 1234;
  p.status->process_name = "demo";
  p.status->state = "tracing";
  p.status->frames = 42;
  p.status->app_frames = 1042;
  p.status->options.thread_time = true;
  std::vector<uint8_t> bytes = encode(p);
  Reply back;
  std::string error;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &back, &error)) << error;
  EXPECT_TRUE(back.ok);
  ASSERT_TRUE(back.status.has_value());
  EXPECT_EQ(back.status->pid, 1234u);
  EXPECT_EQ(back.status->process_name, "demo");
  EXPECT_EQ(back.status->state, "tracing");
  EXPECT_EQ(back.status->frames, 42u);
  EXPECT_EQ(back.status->app_frames, 1042u);
  EXPECT_EQ(back.status->options.thread_time, std::optional<bool>(true));
}

// Found by the fuzzer: a Hello then a Start in one message kept the Hello's
// token under the Start, which no encoder could write back.
TEST(ControlProtocol, ALaterCommandClearsAnEarlierOnesFields) {
  Request hello;
  hello.command = Command::kHello;
  hello.token = "secret";
  Request start;
  start.command = Command::kStart;
  start.max_frames = 4;
  std::vector<uint8_t> bytes = encode(hello);
  std::vector<uint8_t> second = encode(start);
  bytes.insert(bytes.end(), second.begin(), second.end());
  Request back;
  std::string error;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &back, &error)) << error;
  EXPECT_EQ(back.command, Command::kStart);
  EXPECT_EQ(back.max_frames, 4u);
  EXPECT_EQ(back.token, "") << "the Hello's token must not survive";
  // The same command twice merges, as protobuf does.
  Request start_mode;
  start_mode.command = Command::kStart;
  start_mode.mode = "log";
  second = encode(start_mode);
  bytes.insert(bytes.end(), second.begin(), second.end());
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &back, &error)) << error;
  EXPECT_EQ(back.max_frames, 4u);
  EXPECT_EQ(back.mode, "log");
}

TEST(ControlProtocol, MalformedRequestsSayWhere) {
  Request q;
  std::string error;
  const uint8_t truncated[] = {0x08};  // field 1 varint, no value
  EXPECT_FALSE(decode(truncated, sizeof truncated, &q, &error));
  EXPECT_NE(error.find("at byte"), std::string::npos) << error;
  const uint8_t wrong_type[] = {0x0a, 0x01, 0x00};  // version as bytes
  error.clear();
  EXPECT_FALSE(decode(wrong_type, sizeof wrong_type, &q, &error));
  EXPECT_NE(error.find("wrong wire type"), std::string::npos) << error;
}

// A nested message's error names it and the byte of the whole message.
TEST(ControlProtocol, NestedErrorsNameTheMessageAndItsByte) {
  // version 1; start { options { framebuffer_on_swap: a key without its value } }
  const uint8_t bytes[] = {0x08, 0x01, 0x5a, 0x03, 0x0a, 0x01, 0x08};
  Request q;
  std::string error;
  EXPECT_FALSE(decode(bytes, sizeof bytes, &q, &error));
  EXPECT_EQ(error, "malformed capture options at byte 7: truncated varint");
  Reply p;
  const uint8_t pid_as_bytes[] = {0x2a, 0x02, 0x0a, 0x00};  // status { pid as bytes }
  EXPECT_FALSE(decode(pid_as_bytes, sizeof pid_as_bytes, &p, &error));
  EXPECT_EQ(error, "malformed status at byte 3: wrong wire type for a known field");
}

TEST(ControlProtocol, FramingCutsAStreamAnywhere) {
  Request a, b;
  a.command = Command::kGetStatus;
  b.command = Command::kStop;
  std::vector<uint8_t> stream = frame(encode(a));
  std::vector<uint8_t> second = frame(encode(b));
  stream.insert(stream.end(), second.begin(), second.end());
  FrameReader reader;
  std::vector<Command> seen;
  std::vector<uint8_t> message;
  for (uint8_t byte : stream) {  // one byte at a time
    reader.append(&byte, 1);
    while (reader.next(&message) == FrameReader::Result::kMessage) {
      Request q;
      std::string error;
      ASSERT_TRUE(decode(message.data(), message.size(), &q, &error)) << error;
      seen.push_back(q.command);
    }
  }
  EXPECT_EQ(seen, (std::vector<Command>{Command::kGetStatus, Command::kStop}));
  const uint8_t huge[] = {0xff, 0xff, 0xff, 0x7f};
  reader.append(huge, sizeof huge);
  EXPECT_EQ(reader.next(&message), FrameReader::Result::kTooLarge);
}

}  // namespace
}  // namespace gltrace::control

namespace gltrace::settings {
namespace {

const char* no_env(const char*) { return nullptr; }

TEST(LiveConfig, OffUnlessAModeIsSet) {
  EXPECT_FALSE(choose_live_config({}, &no_env, "demo").enabled);
  EXPECT_FALSE(choose_live_config({{kLiveTrace, "off"}}, &no_env, "demo").enabled);
  LiveConfig c = choose_live_config({{kLiveTrace, "full"}}, &no_env, "demo");
  EXPECT_TRUE(c.enabled);
  EXPECT_FALSE(c.start_now) << "traceable, idle until a host attaches";
  EXPECT_EQ(c.tcp_port, -1) << "no TCP unless asked";
}

TEST(LiveConfig, ProcessNamesAndPrefixes) {
  Values v = {{kLiveTrace, "log"}, {kLiveProc, "glmark2*:demo"}};
  EXPECT_TRUE(choose_live_config(v, &no_env, "glmark2-es2").enabled);
  EXPECT_TRUE(choose_live_config(v, &no_env, "demo").enabled);
  EXPECT_FALSE(choose_live_config(v, &no_env, "demo2").enabled);
  EXPECT_FALSE(choose_live_config(v, &no_env, "chromium").enabled);
}

TEST(LiveConfig, EnvironmentWinsAndBadValuesAreReported) {
  auto env = [](const char* name) -> const char* {
    if (std::string(name) == "GLTRACE_LIVE") return "systrace";
    if (std::string(name) == "GLTRACE_LIVE_START") return "now";
    if (std::string(name) == "GLTRACE_CONTROL_SOCKET") return "../escape";
    if (std::string(name) == "GLTRACE_CONTROL_TCP") return "70000";
    return nullptr;
  };
  LiveConfig c = choose_live_config({{kLiveTrace, "full"}}, env, "demo");
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.mode, "systrace");
  EXPECT_TRUE(c.start_now);
  EXPECT_EQ(c.socket_name, "") << "a path is not a socket name";
  EXPECT_EQ(c.tcp_port, -1);
  EXPECT_FALSE(c.error.empty());
  EXPECT_FALSE(choose_live_config({{kLiveTrace, "bogus"}}, &no_env, "demo").enabled);
}

// A start of the process's own (issue 25's triggers): at a frame, or after a
// time, with a frame limit; anything else is reported and waits for a host.
TEST(LiveConfig, StartsAtAFrameOrAfterATime) {
  LiveConfig f = choose_live_config(
      {{kLiveTrace, "full"}, {kLiveStart, "frame:40"}, {kLiveFrames, "10"}}, &no_env, "demo");
  EXPECT_EQ(f.error, "");
  EXPECT_FALSE(f.start_now);
  EXPECT_EQ(f.start_frame, 40u);
  EXPECT_EQ(f.start_after_s, 0.0);
  EXPECT_EQ(f.max_frames, 10u);
  LiveConfig a =
      choose_live_config({{kLiveTrace, "full"}, {kLiveStart, "after:2.5"}}, &no_env, "demo");
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.start_frame, 0u);
  EXPECT_EQ(a.start_after_s, 2.5);
  LiveConfig s =
      choose_live_config({{kLiveTrace, "full"}, {kLiveStart, "signal:USR2"}}, &no_env, "demo");
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.start_signal, SIGUSR2);
  for (const char* bad : {"frame:0", "frame:", "frame:-3", "frame:4x", "after:0", "after:-1",
                          "after:nan", "after:", "later", "signal:KILL", "signal:"}) {
    LiveConfig c = choose_live_config({{kLiveTrace, "full"}, {kLiveStart, bad}}, &no_env, "demo");
    EXPECT_NE(c.error, "") << bad;
    EXPECT_EQ(c.start_frame, 0u) << bad;
    EXPECT_EQ(c.start_after_s, 0.0) << bad;
  }
  LiveConfig n = choose_live_config({{kLiveTrace, "full"}, {kLiveFrames, "ten"}}, &no_env, "demo");
  EXPECT_NE(n.error, "");
  EXPECT_EQ(n.max_frames, 0u);
}

}  // namespace
}  // namespace gltrace::settings
