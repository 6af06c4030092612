// One command line, parsed by CLI11, for `gltrace COMMAND` and `glreplay`:
// the options are defined once on a CLI::App, and the usage line, the option
// list of the help, the option table the build's man pages and bash
// completion are made from (--help-options), the error lines and the
// suggestions for a misspelled option all come from those definitions.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace gltrace::cli {

// Exit statuses shared by all commands (README, "Exit status").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

class CommandLine {
 public:
  // program: as the messages name it ("gltrace trace", "glreplay"); help:
  // what prints the help ("gltrace help trace", "glreplay --help").
  CommandLine(std::string program, std::string help);

  // Where the options, positionals, description() and footer() are defined.
  CLI::App& app() { return app_; }
  const CLI::App& app() const { return app_; }
  const std::string& program() const { return program_; }

  // The forms that follow the options in the usage line, one usage line each
  // ("put [global] NAME VALUE"); by default one, made of the positionals.
  void set_operands(std::vector<std::string> forms) { operand_forms_ = std::move(forms); }
  // Everything from the first word that is no option on (or after "--") is
  // the command's own, as written (`run`'s APP ARGS...): see operands().
  void pass_operands_through();
  const std::vector<std::string>& operands() const { return operands_; }

  // Parses the words after the program name. nullopt: go on; otherwise the
  // exit status (0 after --help, kExitUsage after one error line and where
  // to see the help).
  std::optional<int> parse(const std::vector<std::string>& args);

  // "PROGRAM: MESSAGE" and "see 'HELP'" on stderr; returns kExitUsage.
  int usage_error(const std::string& message) const;

  // usage:, description, options: by group, footer.
  void print_help(FILE* out) const;
  // One line per option for tools/cli_docs.py: its names, space-separated,
  // a tab, and its value's name when it takes one as the next word (empty
  // for a flag; "=NAME" for a value only given as --opt=VALUE).
  void print_option_table(FILE* out) const;

  // The usage line's "[-o FILE] [--mode MODE] ..." part.
  std::string options_synopsis() const;

  // The first "--opt=" with nothing after the '=' of an option that takes
  // a value, before the operands.
  std::optional<std::string> empty_value(const std::vector<std::string>& args) const;

  // "unknown option '--frmaes' (did you mean --frames?)".
  std::string unknown_option(const std::string& word) const;

 private:
  std::string program_;
  std::string help_;
  CLI::App app_;
  std::vector<std::string> operand_forms_;
  bool pass_through_ = false;
  std::vector<std::string> operands_;
};

// A check that a value is one of `choices`; its error lists them and
// suggests the nearest one.
CLI::Validator one_of(std::vector<std::string> choices);

// CLI::Range(min, max) without a description: CLI11 would append it to the
// value's name in the help ("N:INT in [1 - 22]").
template <typename T>
CLI::Validator in_range(T min, T max) {
  CLI::Validator range = CLI::Range(min, max);
  range.description("");
  return range;
}

// The candidate nearest to `word` by edit distance (a swap of two neighbours
// counts as one edit), if near enough to be a likely misspelling; "" if none.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean X?)" for nearest(word, candidates), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace gltrace::cli
