#include "command_line/command_line.h"

#include <algorithm>
#include <cstring>
#include <regex>

namespace gltrace::cli {
namespace {

constexpr size_t kWidth = 79;            // help lines end before column 80
constexpr size_t kMaxOptionColumn = 28;  // where option descriptions start, at most

bool is_flag(const CLI::Option& option) { return option.get_expected_max() == 0; }

// The value's name as the command set it (its checks are one_of and
// in_range, which add nothing to it).
std::string value_name(const CLI::Option& option) { return option.get_type_name(); }

bool listed(const CLI::Option& option) {
  return !option.get_positional() && !option.get_group().empty();
}

std::vector<std::string> names_of(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const std::string& s : option.get_snames()) names.push_back("-" + s);
  for (const std::string& l : option.get_lnames()) names.push_back("--" + l);
  return names;
}

// "-o, --output FILE", "--traceable[=MODE]", "--dropin".
std::string label(const CLI::Option& option) {
  std::string text;
  for (const std::string& name : names_of(option)) text += (text.empty() ? "" : ", ") + name;
  std::string value = value_name(option);
  if (is_flag(option)) return value.empty() ? text : text + "[=" + value + "]";
  return text + " " + value;
}

// Words of `text` on lines of at most `width` characters after `indent`
// spaces (the first line's indent is the caller's); '\n' breaks a line.
std::string wrap(const std::string& text, size_t first_column, size_t indent) {
  std::string out;
  size_t column = first_column;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (start != 0) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    }
    bool first_word = true;
    size_t pos = 0;
    // Leading spaces of a line are kept: they indent a list inside a description.
    size_t lead = line.find_first_not_of(' ');
    if (lead != std::string::npos && lead > 0) {
      out += line.substr(0, lead);
      column += lead;
      pos = lead;
    }
    while (pos < line.size()) {
      size_t word_end = line.find(' ', pos);
      if (word_end == std::string::npos) word_end = line.size();
      std::string word = line.substr(pos, word_end - pos);
      pos = word_end + 1;
      if (word.empty()) continue;
      if (!first_word && column + 1 + word.size() > kWidth) {
        out += "\n" + std::string(indent, ' ');
        column = indent;
        first_word = true;
      }
      if (!first_word) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
      first_word = false;
    }
    start = end + 1;
  }
  return out;
}

// CLI11's messages as one line, the common ones in the words of the rest
// of gltrace's messages.
std::string rephrase(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  static const std::regex missing_value(R"(^(\S+): 1 required ([^:\s]+)\S* missing$)");
  static const std::regex required(R"(^(\S+) is required$)");
  static const std::regex not_converted(R"(^Could not convert: (\S+) = (.*)$)");
  std::smatch m;
  if (std::regex_match(text, m, missing_value))
    return m[1].str() + " needs a value (" + m[2].str() + ")";
  if (std::regex_match(text, m, required)) return "missing " + m[1].str();
  if (std::regex_match(text, m, not_converted))
    return m[1].str() + ": '" + m[2].str() + "' is not a valid value";
  return text;
}

// Damerau-Levenshtein distance (optimal string alignment).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string without_dashes(const std::string& word) {
  size_t start = word.find_first_not_of('-');
  return start == std::string::npos ? "" : word.substr(start);
}

}  // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  // Dashes are compared too, but the threshold is from the name: "-x" is no
  // misspelling of "-o", "--frmaes" is of "--frames".
  std::string name = without_dashes(word);
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& candidate : candidates) {
    // A word cut short ("--vers") is as near as one typo.
    size_t distance = name.size() >= 3 && candidate.compare(0, word.size(), word) == 0
                          ? 1
                          : edit_distance(word, candidate);
    if (distance < best_distance && distance <= limit && distance < name.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string match = nearest(word, candidates);
  return match.empty() ? "" : " (did you mean " + match + "?)";
}

CLI::Validator one_of(std::vector<std::string> choices) {
  // No description: it would be appended to the value's name in the help.
  return CLI::Validator(
      [choices = std::move(choices)](std::string& value) -> std::string {
        if (std::find(choices.begin(), choices.end(), value) != choices.end()) return "";
        std::string list;
        for (const std::string& choice : choices) list += (list.empty() ? "" : ", ") + choice;
        return "'" + value + "' is not one of " + list + did_you_mean(value, choices);
      },
      "");
}

CommandLine::CommandLine(std::string program, std::string help)
    : program_(std::move(program)), help_(std::move(help)), app_("", program_) {
  app_.set_help_flag("-h,--help", "this help");
  // Unknown words are reported by parse() itself, with a suggestion.
  app_.allow_extras();
  // As before CLI11: an option given twice takes its last value.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void CommandLine::pass_operands_through() {
  pass_through_ = true;
  app_.prefix_command();
}

std::optional<int> CommandLine::parse(const std::vector<std::string>& args) {
  if (args.size() == 1 && args[0] == "--help-options") {
    print_option_table(stdout);
    return kExitOk;
  }
  if (std::optional<std::string> word = empty_value(args))
    return usage_error("option '" + word->substr(0, word->size() - 1) +
                       "' needs a value after '='");
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 takes them
  try {
    app_.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    print_help(stdout);
    return kExitOk;
  } catch (const CLI::CallForVersion& version) {
    printf("%s\n", version.what());
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // An unknown option ended the options (pass-through): it is the mistake
    // to name, not the required option it kept from being read.
    std::vector<std::string> rest = app_.remaining();
    if (pass_through_ && !rest.empty() && rest[0] != "--" && rest[0].size() > 1 &&
        rest[0][0] == '-')
      return usage_error(unknown_option(rest[0]));
    return usage_error(rephrase(e.what()));
  }
  std::vector<std::string> rest = app_.remaining();
  if (pass_through_) {
    if (!rest.empty() && rest[0] == "--")
      rest.erase(rest.begin());
    else if (!rest.empty() && rest[0].size() > 1 && rest[0][0] == '-')
      return usage_error(unknown_option(rest[0]));
    operands_ = std::move(rest);
    return std::nullopt;
  }
  for (const std::string& word : rest)
    if (word != "--" && word.size() > 1 && word[0] == '-') return usage_error(unknown_option(word));
  for (const std::string& word : rest)
    if (word != "--") return usage_error("unexpected argument '" + word + "'");
  return std::nullopt;
}

std::optional<std::string> CommandLine::empty_value(const std::vector<std::string>& args) const {
  // CLI11 reads "--opt=" as "--opt" and takes the next word as the value
  // ("--frames= trace.gltrace" lost the trace): an empty value is refused.
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--" || word.size() < 2 || word[0] != '-') {
      if (pass_through_) break;  // the command's own words from here on
      continue;
    }
    size_t equals = word.find('=');
    const CLI::Option* option = app_.get_option_no_throw(word.substr(0, equals));
    if (option == nullptr || option->get_type_size_max() == 0) continue;  // a flag, or unknown
    if (equals == word.size() - 1) return word;
    if (equals == std::string::npos && option->get_expected_min() > 0) ++i;  // its value
  }
  return std::nullopt;
}

std::string CommandLine::unknown_option(const std::string& word) const {
  std::string name = word.substr(0, word.find('='));
  std::vector<std::string> candidates;
  for (const CLI::Option* option : app_.get_options())
    if (listed(*option))
      for (const std::string& n : names_of(*option)) candidates.push_back(n);
  return "unknown option '" + name + "'" + did_you_mean(name, candidates);
}

int CommandLine::usage_error(const std::string& message) const {
  fprintf(stderr, "%s: %s\nsee '%s'\n", program_.c_str(), message.c_str(), help_.c_str());
  return kExitUsage;
}

std::string CommandLine::options_synopsis() const {
  std::string text;
  for (const CLI::Option* option : app_.get_options()) {
    if (!listed(*option) || option == app_.get_help_ptr()) continue;
    std::vector<std::string> names = names_of(*option);
    std::string value = value_name(*option);
    std::string item;
    if (is_flag(*option))
      item = value.empty() ? names[0] : names.back() + "[=" + value + "]";
    else
      item = names[0] + " " + value;
    text += (text.empty() ? "" : " ") + (option->get_required() ? item : "[" + item + "]");
  }
  return text;
}

void CommandLine::print_help(FILE* out) const {
  std::vector<std::string> forms = operand_forms_;
  if (forms.empty()) {
    std::string form;
    for (const CLI::Option* option : app_.get_options()) {
      if (!option->get_positional()) continue;
      std::string name = option->get_name();
      if (option->get_expected_max() > 1) name += "...";
      form += (form.empty() ? "" : " ") + (option->get_required() ? name : "[" + name + "]");
    }
    forms.push_back(form);
  }
  std::string synopsis = options_synopsis();
  for (size_t i = 0; i < forms.size(); ++i) {
    std::string lead = (i == 0 ? "usage: " : "       ") + program_ + " ";
    // A bracketed item is not split across lines, nor are the operands.
    std::vector<std::string> items;
    for (size_t pos = 0; pos < synopsis.size();) {
      size_t end = pos;
      int depth = 0;
      while (end < synopsis.size() && (depth > 0 || synopsis[end] != ' ')) {
        if (synopsis[end] == '[') ++depth;
        if (synopsis[end] == ']') --depth;
        ++end;
      }
      items.push_back(synopsis.substr(pos, end - pos));
      pos = end + 1;
    }
    if (!forms[i].empty()) items.push_back(forms[i]);
    std::string line = lead;
    size_t column = lead.size();
    bool first = true;
    for (const std::string& item : items) {
      if (!first && column + 1 + item.size() > kWidth) {
        line += "\n" + std::string(lead.size(), ' ');
        column = lead.size();
        first = true;
      }
      if (!first) {
        line += ' ';
        ++column;
      }
      line += item;
      column += item.size();
      first = false;
    }
    fprintf(out, "%s\n", line.c_str());
  }
  if (!app_.get_description().empty()) fprintf(out, "\n%s\n", app_.get_description().c_str());

  std::vector<std::string> groups;
  for (const CLI::Option* option : app_.get_options())
    if (listed(*option) &&
        std::find(groups.begin(), groups.end(), option->get_group()) == groups.end())
      groups.push_back(option->get_group());
  // One column for all groups: past the longest label that fits.
  size_t column = 0;
  for (const CLI::Option* option : app_.get_options())
    if (listed(*option) && 2 + label(*option).size() + 2 <= kMaxOptionColumn)
      column = std::max(column, 2 + label(*option).size() + 2);
  for (const std::string& group : groups) {
    std::string heading = group;
    heading[0] = static_cast<char>(tolower(heading[0]));
    fprintf(out, "\n%s:\n", heading.c_str());
    std::vector<const CLI::Option*> options;
    for (const CLI::Option* option : app_.get_options())
      if (listed(*option) && option->get_group() == group && option != app_.get_help_ptr())
        options.push_back(option);
    if (app_.get_help_ptr() != nullptr && app_.get_help_ptr()->get_group() == group)
      options.push_back(app_.get_help_ptr());  // last: the others are what a reader looks for
    for (const CLI::Option* option : options) {
      std::string entry = "  " + label(*option);
      entry += std::string(entry.size() + 2 <= column ? column - entry.size() : 2, ' ');
      entry += wrap(option->get_description(), entry.size(), column);
      fprintf(out, "%s\n", entry.c_str());
    }
  }
  if (!app_.get_footer().empty()) fprintf(out, "\n%s\n", app_.get_footer().c_str());
}

void CommandLine::print_option_table(FILE* out) const {
  for (const CLI::Option* option : app_.get_options()) {
    if (!listed(*option)) continue;
    std::string names;
    for (const std::string& name : names_of(*option)) names += (names.empty() ? "" : " ") + name;
    std::string value = value_name(*option);
    if (is_flag(*option) && !value.empty()) value = "=" + value;
    fprintf(out, "%s\t%s\n", names.c_str(), value.c_str());
  }
}

}  // namespace gltrace::cli
