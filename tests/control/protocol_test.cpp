// The control protocol as data (no app): round trips, framing, refusals;
// the live-tracing settings as pure logic.
#include "control/protocol.h"

#include <gtest/gtest.h>

#include <csignal>

#include "settings/known.h"
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

TEST(ControlProtocol, FlightRequestAndItsReplyRoundTrip) {
  Request q;
  q.id = 9;
  q.command = Command::kFlight;
  std::vector<uint8_t> bytes = encode(q);
  Request back;
  std::string error;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &back, &error)) << error;
  EXPECT_EQ(back.id, 9u);
  EXPECT_EQ(back.command, Command::kFlight);
  EXPECT_STREQ(command_name(back.command), "flight");

  Reply p;
  p.id = 9;
  p.ok = true;
  p.path = "/tmp/demo.1234.flight.gltrace";
  p.status.emplace();
  p.status->flight_frames = 30;
  p.status->flight_bytes = uint64_t{12} << 20;
  p.status->flight_traces = 1;
  bytes = encode(p);
  Reply reply;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &reply, &error)) << error;
  EXPECT_TRUE(reply.ok);
  EXPECT_EQ(reply.path, "/tmp/demo.1234.flight.gltrace");
  ASSERT_TRUE(reply.status.has_value());
  EXPECT_EQ(reply.status->flight_frames, 30u);
  EXPECT_EQ(reply.status->flight_bytes, uint64_t{12} << 20);
  EXPECT_EQ(reply.status->flight_traces, 1u);

  // A refusal carries no path; a process without a recorder reports zeros.
  Reply refused;
  refused.error = "this process has no flight recorder";
  refused.status.emplace();
  bytes = encode(refused);
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), &reply, &error)) << error;
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error, "this process has no flight recorder");
  EXPECT_EQ(reply.path, "");
  EXPECT_EQ(reply.status->flight_frames, 0u);
  EXPECT_EQ(reply.status->flight_traces, 0u);
}

// Hostile bytes around the new fields: every cut of a flight request and of
// its reply, and wrong wire types, give an error that says where, never a crash.
TEST(ControlProtocol, TruncatedOrMistypedFlightMessagesSayWhere) {
  Request q;
  q.command = Command::kFlight;
  std::vector<uint8_t> request = encode(q);
  Reply p;
  p.ok = true;
  p.path = "/tmp/x.gltrace";
  p.status.emplace();
  p.status->flight_frames = 300;
  p.status->flight_bytes = 1 << 20;
  p.status->flight_traces = 2;
  std::vector<uint8_t> reply = encode(p);
  std::string error;
  for (size_t n = 0; n < request.size(); ++n) {
    Request back;
    error.clear();
    if (!decode(request.data(), n, &back, &error)) {
      EXPECT_NE(error.find("at byte"), std::string::npos) << n << ": " << error;
    }
  }
  size_t failures = 0;
  for (size_t n = 0; n < reply.size(); ++n) {
    Reply back;
    error.clear();
    if (decode(reply.data(), n, &back, &error)) continue;
    ++failures;
    EXPECT_NE(error.find("at byte"), std::string::npos) << n << ": " << error;
  }
  EXPECT_GT(failures, 0u);
  // flight (field 16) as a varint; path (field 6) as a varint;
  // status { flight_frames (field 15) as bytes }.
  const uint8_t flight_as_varint[] = {0x08, 0x01, 0x80, 0x01, 0x00};
  Request back;
  EXPECT_FALSE(decode(flight_as_varint, sizeof flight_as_varint, &back, &error));
  EXPECT_NE(error.find("wrong wire type"), std::string::npos) << error;
  Reply back_reply;
  const uint8_t path_as_varint[] = {0x30, 0x01};
  EXPECT_FALSE(decode(path_as_varint, sizeof path_as_varint, &back_reply, &error));
  EXPECT_NE(error.find("wrong wire type"), std::string::npos) << error;
  const uint8_t frames_as_bytes[] = {0x2a, 0x03, 0x7a, 0x01, 0x00};
  EXPECT_FALSE(decode(frames_as_bytes, sizeof frames_as_bytes, &back_reply, &error));
  EXPECT_EQ(error, "malformed status at byte 3: wrong wire type for a known field");
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

// The flight recorder: a reason of its own to be traceable (in full mode),
// refused with a text mode; its bound and watchdog as the settings say.
TEST(LiveConfig, FlightRecorderMakesTheProcessTraceableInFullMode) {
  LiveConfig off = choose_live_config({}, &no_env, "demo");
  EXPECT_EQ(off.flight_frames, 0u);
  EXPECT_EQ(off.flight_mb, kDefaultFlightMb);
  EXPECT_EQ(off.flight_watchdog_s, kDefaultFlightWatchdogS);
  EXPECT_FALSE(choose_live_config({{kFlight, "0"}}, &no_env, "demo").enabled);

  LiveConfig c = choose_live_config({{kFlight, "30"}}, &no_env, "demo");
  EXPECT_EQ(c.error, "");
  EXPECT_TRUE(c.enabled) << "without debug.gltrace.trace";
  EXPECT_EQ(c.mode, "full");
  EXPECT_FALSE(c.start_now);
  EXPECT_EQ(c.flight_frames, 30u);
  EXPECT_EQ(c.flight_mb, kDefaultFlightMb);
  EXPECT_EQ(c.flight_watchdog_s, kDefaultFlightWatchdogS);
  EXPECT_NE(c.source.find("setting debug.gltrace.flight"), std::string::npos) << c.source;

  LiveConfig full = choose_live_config(
      {{kLiveTrace, "full"}, {kFlight, "5"}, {kFlightMb, "64"}, {kFlightWatchdog, "2.5"}}, &no_env,
      "demo");
  EXPECT_EQ(full.error, "");
  EXPECT_EQ(full.flight_frames, 5u);
  EXPECT_EQ(full.flight_mb, 64u);
  EXPECT_EQ(full.flight_watchdog_s, 2.5);
  LiveConfig no_watchdog =
      choose_live_config({{kFlight, "5"}, {kFlightWatchdog, "0"}}, &no_env, "demo");
  EXPECT_EQ(no_watchdog.error, "");
  EXPECT_EQ(no_watchdog.flight_watchdog_s, 0.0);

  // Only in the processes debug.gltrace.proc names.
  Values only_glmark = {{kFlight, "30"}, {kLiveProc, "glmark2*"}};
  EXPECT_FALSE(choose_live_config(only_glmark, &no_env, "demo").enabled);
  EXPECT_EQ(choose_live_config(only_glmark, &no_env, "glmark2-es2").flight_frames, 30u);
}

TEST(LiveConfig, FlightRecorderIsRefusedWithATextMode) {
  for (const char* mode : {"log", "error", "systrace"}) {
    LiveConfig c = choose_live_config({{kLiveTrace, mode}, {kFlight, "30"}}, &no_env, "demo");
    EXPECT_TRUE(c.enabled) << mode;
    EXPECT_EQ(c.mode, mode);
    EXPECT_EQ(c.flight_frames, 0u) << mode;
    EXPECT_NE(c.error.find("the flight recorder needs the full mode, not " + std::string(mode)),
              std::string::npos)
        << c.error;
  }
}

TEST(LiveConfig, FlightEnvironmentWinsOverSettings) {
  auto env = [](const char* name) -> const char* {
    if (std::string(name) == "GLTRACE_FLIGHT") return "12";
    if (std::string(name) == "GLTRACE_FLIGHT_MB") return "8";
    if (std::string(name) == "GLTRACE_FLIGHT_WATCHDOG") return "0.25";
    return nullptr;
  };
  LiveConfig c =
      choose_live_config({{kFlight, "30"}, {kFlightMb, "64"}, {kFlightWatchdog, "3"}}, env, "demo");
  EXPECT_EQ(c.error, "");
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.flight_frames, 12u);
  EXPECT_EQ(c.flight_mb, 8u);
  EXPECT_EQ(c.flight_watchdog_s, 0.25);
  EXPECT_NE(c.source.find("GLTRACE_FLIGHT"), std::string::npos) << c.source;
}

TEST(LiveConfig, BadFlightValuesAreIgnoredAndReported) {
  for (const char* bad : {"-1", "ten", "3x", " 3", "1e3", "281474976710656"}) {
    LiveConfig c = choose_live_config({{kFlight, bad}}, &no_env, "demo");
    EXPECT_FALSE(c.enabled) << bad << ": no flight recorder, no other reason to trace";
    EXPECT_NE(c.error.find("flight '" + std::string(bad) + "' is no whole number"),
              std::string::npos)
        << c.error;
    LiveConfig traced = choose_live_config({{kLiveTrace, "full"}, {kFlight, bad}}, &no_env, "demo");
    EXPECT_TRUE(traced.enabled) << bad;
    EXPECT_EQ(traced.flight_frames, 0u) << bad;
  }
  for (const char* bad : {"0", "-5", "lots", "1.5"}) {
    LiveConfig c = choose_live_config({{kFlight, "30"}, {kFlightMb, bad}}, &no_env, "demo");
    EXPECT_EQ(c.flight_frames, 30u) << bad;
    EXPECT_EQ(c.flight_mb, kDefaultFlightMb) << bad;
    EXPECT_NE(c.error.find("flight_mb '" + std::string(bad) + "'"), std::string::npos) << c.error;
    EXPECT_NE(c.error.find(": 256 MiB"), std::string::npos) << c.error;
  }
  for (const char* bad : {"-1", "nan", "inf", "0x10", " 2", "2s", "", "1e9", "+3"}) {
    LiveConfig c = choose_live_config({{kFlight, "30"}, {kFlightWatchdog, bad}}, &no_env, "demo");
    EXPECT_EQ(c.flight_watchdog_s, kDefaultFlightWatchdogS) << bad;
    if (std::string(bad).empty()) {
      EXPECT_EQ(c.error, "") << "empty is unset";
      continue;
    }
    EXPECT_NE(c.error.find("flight_watchdog '" + std::string(bad) + "' is no number of seconds"),
              std::string::npos)
        << c.error;
    EXPECT_NE(c.error.find(": 10 s"), std::string::npos) << c.error;
  }
}

// `gltrace settings put` checks the values with the same table.
TEST(LiveConfig, FlightSettingsAreKnownWithTheirChecks) {
  for (const char* name : {kFlight, kFlightMb, kFlightWatchdog})
    EXPECT_NE(find_known_setting(name), nullptr) << name;
  EXPECT_EQ(check_setting_value(kFlight, "0"), "");
  EXPECT_EQ(check_setting_value(kFlight, "120"), "");
  EXPECT_NE(check_setting_value(kFlight, "-3"), "");
  EXPECT_EQ(check_setting_value(kFlightMb, "1"), "");
  EXPECT_EQ(check_setting_value(kFlightMb, "0"), "'0' is less than 1");
  EXPECT_EQ(check_setting_value(kFlightWatchdog, "0"), "");
  EXPECT_EQ(check_setting_value(kFlightWatchdog, ".5"), "");
  EXPECT_EQ(check_setting_value(kFlightWatchdog, "1e-3"), "");
  EXPECT_NE(check_setting_value(kFlightWatchdog, "-0.5"), "");
  double seconds = -1;
  EXPECT_FALSE(parse_seconds("nan", &seconds));
  EXPECT_EQ(seconds, -1.0) << "left alone on failure";
  EXPECT_TRUE(parse_seconds("2.5", &seconds));
  EXPECT_EQ(seconds, 2.5);
}

}  // namespace
}  // namespace gltrace::settings
