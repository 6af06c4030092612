// The shared command line (src/cli/command_line.*): both forms of a value,
// operands passed through, the nearest-name suggestion, the option table.
#include "command_line/command_line.h"

#include <gtest/gtest.h>

namespace gltrace::cli {
namespace {

struct Parsed {
  std::optional<int> status;
  std::string mode = "full";
  std::vector<std::string> operands;
};

Parsed parse_launch(const std::vector<std::string>& args) {
  Parsed parsed;
  CommandLine line("gltrace test", "gltrace help test");
  line.app().add_option("--mode", parsed.mode, "the mode")->type_name("MODE");
  line.pass_operands_through();
  parsed.status = line.parse(args);
  parsed.operands = line.operands();
  return parsed;
}

TEST(CommandLine, ValueAfterEqualsOrAsTheNextWord) {
  EXPECT_EQ(parse_launch({"--mode=log", "app"}).mode, "log");
  EXPECT_EQ(parse_launch({"--mode", "log", "app"}).mode, "log");
}

TEST(CommandLine, EmptyValueAfterEqualsIsAUsageErrorNotTheNextWord) {
  testing::internal::CaptureStderr();
  Parsed p = parse_launch({"--mode=", "app"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.status, kExitUsage);
  EXPECT_EQ(err,
            "gltrace test: option '--mode' needs a value after '='\n"
            "see 'gltrace help test'\n");
  // The app's own words are not looked at, nor is a value that ends in '='.
  p = parse_launch({"--mode", "--mode=", "app", "--mode="});
  EXPECT_FALSE(p.status);
  EXPECT_EQ(p.mode, "--mode=");
  EXPECT_EQ(p.operands, (std::vector<std::string>{"app", "--mode="}));
}

TEST(CommandLine, OperandsFromTheFirstNonOptionOnAreTheCommands) {
  Parsed p = parse_launch({"--mode", "log", "app", "--mode", "x", "-v"});
  EXPECT_FALSE(p.status);
  EXPECT_EQ(p.mode, "log");
  EXPECT_EQ(p.operands, (std::vector<std::string>{"app", "--mode", "x", "-v"}));
  p = parse_launch({"--", "--app"});
  EXPECT_FALSE(p.status);
  EXPECT_EQ(p.operands, (std::vector<std::string>{"--app"}));
}

TEST(CommandLine, UnknownOptionBeforeTheOperandsIsAUsageError) {
  testing::internal::CaptureStderr();
  Parsed p = parse_launch({"--mdoe", "log", "app"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.status, kExitUsage);
  EXPECT_EQ(err,
            "gltrace test: unknown option '--mdoe' (did you mean --mode?)\n"
            "see 'gltrace help test'\n");
}

TEST(Nearest, OneTypoOrACutShortWord) {
  const std::vector<std::string> commands = {"trace", "replay", "run", "frames", "export"};
  EXPECT_EQ(nearest("trcae", commands), "trace");  // two letters swapped
  EXPECT_EQ(nearest("replya", commands), "replay");
  EXPECT_EQ(nearest("frame", commands), "frames");   // one letter missing
  EXPECT_EQ(nearest("exp", commands), "export");     // cut short
  EXPECT_EQ(nearest("xyz", commands), "");           // nothing near
  EXPECT_EQ(nearest("-x", {"-o", "--output"}), "");  // one letter is no misspelling of another
  EXPECT_EQ(nearest("--frmaes", {"--frames", "--function"}), "--frames");
  EXPECT_EQ(did_you_mean("--vers", {"--help", "--version"}), " (did you mean --version?)");
}

TEST(OneOf, ListsTheChoicesAndSuggestsTheNearest) {
  std::string mode;
  CommandLine line("gltrace test", "gltrace help test");
  line.app()
      .add_option("--mode", mode, "the mode")
      ->type_name("MODE")
      ->check(one_of({"full", "log"}));
  testing::internal::CaptureStderr();
  EXPECT_EQ(line.parse({"--mode=fulll"}), kExitUsage);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "gltrace test: --mode: 'fulll' is not one of full, log (did you mean full?)\n"
            "see 'gltrace help test'\n");
}

TEST(CommandLine, OptionTableAndHelpComeFromTheDefinitions) {
  std::string output, mode;
  bool quiet = false;
  CommandLine line("gltrace test", "gltrace help test");
  line.app().add_option("-o,--output", output, "where")->type_name("FILE")->required();
  line.app().add_flag("--traceable{full}", mode, "traceable")->type_name("MODE");
  line.app().add_flag("--quiet", quiet, "no progress");
  int level = 0;
  line.app().add_option("--level", level, "level")->type_name("N")->check(in_range(1, 22));
  line.app().add_option("--tcp", mode, "where")->type_name("HOST:PORT");
  line.app().add_option("TRACE", output, "the trace")->required();
  testing::internal::CaptureStdout();
  line.print_option_table(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "-h --help\t\n-o --output\tFILE\n--traceable\t=MODE\n--quiet\t\n--level\tN\n"
            "--tcp\tHOST:PORT\n");
  testing::internal::CaptureStdout();
  line.print_help(stdout);
  std::string help = testing::internal::GetCapturedStdout();
  EXPECT_EQ(help.substr(0, help.find("\n\n")),
            "usage: gltrace test -o FILE [--traceable[=MODE]] [--quiet] [--level N]\n"
            "                    [--tcp HOST:PORT] TRACE");
  EXPECT_NE(help.find("\n  -o, --output FILE"), std::string::npos) << help;
  EXPECT_NE(help.find("\n  --traceable[=MODE]"), std::string::npos) << help;
}

}  // namespace
}  // namespace gltrace::cli
