// The shared command line (-m -t -s -n -l -h), time specs and the manual
// console's command parser.
#include "replay/options.h"

#include <gtest/gtest.h>

#include "replay/console.h"

namespace gltrace::replay {
namespace {

ReplayOptions parse(std::vector<const char*> args, std::string* error) {
  args.insert(args.begin(), "glreplay");
  return parse_replay_options(static_cast<int>(args.size()), args.data(), error);
}

TEST(ReplayOptions, Defaults) {
  std::string error;
  ReplayOptions options = parse({}, &error);
  EXPECT_TRUE(error.empty());
  EXPECT_FALSE(options.manual);
  EXPECT_EQ(options.threads, 3);
  EXPECT_FALSE(options.stop_at);
  EXPECT_TRUE(options.wait);
  EXPECT_EQ(options.loops, 1u);
  EXPECT_FALSE(options.help);
  EXPECT_EQ(options.execute_on, ExecuteOn::kMainThread);
}

TEST(ReplayOptions, TheSeedsOptions) {
  std::string error;
  ReplayOptions options = parse({"-m", "-t", "5", "-s", "1.5s", "-n", "-l", "-h"}, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_TRUE(options.manual);
  EXPECT_EQ(options.threads, 5);
  ASSERT_TRUE(options.stop_at);
  EXPECT_EQ(options.stop_at->ns, 1'500'000'000);
  EXPECT_TRUE(options.stop_at->from_start);
  EXPECT_FALSE(options.wait);
  EXPECT_EQ(options.loops, 0u);
  EXPECT_TRUE(options.help);
}

TEST(ReplayOptions, BundledAndAttachedValues) {
  std::string error;
  ReplayOptions options = parse({"-mnt0", "-s123456789"}, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_TRUE(options.manual);
  EXPECT_FALSE(options.wait);
  EXPECT_EQ(options.threads, 0);
  ASSERT_TRUE(options.stop_at);
  EXPECT_EQ(options.stop_at->ns, 123456789);
  EXPECT_FALSE(options.stop_at->from_start);
}

TEST(ReplayOptions, OthersAreLeftForTheFrontEnd) {
  std::string error;
  ReplayOptions options =
      parse({"trace.gltrace", "--snapshot-dir", "out", "-x", "-m", "--", "-n"}, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_TRUE(options.manual);
  EXPECT_TRUE(options.wait);  // -n came after --
  EXPECT_EQ(options.args,
            (std::vector<std::string>{"trace.gltrace", "--snapshot-dir", "out", "-x", "-n"}));
}

TEST(ReplayOptions, BadValues) {
  std::string error;
  parse({"-t", "many"}, &error);
  EXPECT_NE(error.find("-t wants a number"), std::string::npos) << error;
  parse({"-t", "1000"}, &error);
  EXPECT_FALSE(error.empty());
  parse({"-t"}, &error);
  EXPECT_EQ(error, "-t needs a value");
  parse({"-s", "soon"}, &error);
  EXPECT_NE(error.find("-s: 'soon' is no time"), std::string::npos) << error;
  EXPECT_NE(std::string(replay_options_help()).find("-t N"), std::string::npos);
}

TEST(TimeSpec, AbsoluteAndFromTheStart) {
  TimeSpec time;
  std::string error;
  ASSERT_TRUE(parse_time_spec("987654321012345", &time, &error));
  EXPECT_EQ(time.ns, 987654321012345);
  EXPECT_FALSE(time.from_start);
  ASSERT_TRUE(parse_time_spec("200ms", &time, &error));
  EXPECT_EQ(time.ns, 200'000'000);
  EXPECT_TRUE(time.from_start);
  ASSERT_TRUE(parse_time_spec("2.5s", &time, &error));
  EXPECT_EQ(time.ns, 2'500'000'000);
  ASSERT_TRUE(parse_time_spec("10us", &time, &error));
  EXPECT_EQ(time.ns, 10'000);
  ASSERT_TRUE(parse_time_spec("7ns", &time, &error));
  EXPECT_EQ(time.ns, 7);
  for (const char* bad : {"", "1.5", "ms", "1.2.3s", "5 min", "-3s", "5h"})
    EXPECT_FALSE(parse_time_spec(bad, &time, &error)) << bad;
}

TEST(ConsoleCommands, Parse) {
  Command command;
  std::string error;
  ASSERT_TRUE(parse_command("n", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kNext);
  EXPECT_EQ(command.count, 1u);
  ASSERT_TRUE(parse_command("ni 4", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kNextI);
  EXPECT_EQ(command.count, 4u);
  ASSERT_TRUE(parse_command("  c  ", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kContinue);
  EXPECT_FALSE(command.ms);
  ASSERT_TRUE(parse_command("c 2.5", &command, &error));
  EXPECT_EQ(command.ms, 2.5);
  ASSERT_TRUE(parse_command("s 300ms", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kUntil);
  EXPECT_EQ(command.time.ns, 300'000'000);
  ASSERT_TRUE(parse_command("f 12", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kFrame);
  EXPECT_EQ(command.count, 12u);
  ASSERT_TRUE(parse_command("call 0", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kCall);
  EXPECT_EQ(command.count, 0u);
  ASSERT_TRUE(parse_command("snap out/frame.png", &command, &error));
  EXPECT_EQ(command.kind, Command::Kind::kSnap);
  EXPECT_EQ(command.path, "out/frame.png");
  for (auto [text, kind] : {std::pair{"l", Command::Kind::kList},
                            {"info", Command::Kind::kInfo},
                            {"h", Command::Kind::kHelp},
                            {"q", Command::Kind::kQuit}}) {
    ASSERT_TRUE(parse_command(text, &command, &error)) << text;
    EXPECT_EQ(command.kind, kind) << text;
  }
}

TEST(ConsoleCommands, Errors) {
  Command command;
  std::string error;
  EXPECT_FALSE(parse_command("", &command, &error));
  EXPECT_FALSE(parse_command("jump 5", &command, &error));
  EXPECT_EQ(error, "unknown command 'jump'; h lists the commands");
  EXPECT_FALSE(parse_command("f", &command, &error));
  EXPECT_FALSE(parse_command("f x", &command, &error));
  EXPECT_EQ(error, "'f' wants a frame number, not 'x'");
  EXPECT_FALSE(parse_command("c -1", &command, &error));
  EXPECT_FALSE(parse_command("s", &command, &error));
  EXPECT_FALSE(parse_command("q now", &command, &error));
  EXPECT_FALSE(parse_command("snap", &command, &error));
  EXPECT_NE(std::string(manual_help_text()).find("snap FILE"), std::string::npos);
}

}  // namespace
}  // namespace gltrace::replay
