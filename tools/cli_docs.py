#!/usr/bin/env python3
"""Man pages (with help2man) and bash completion, generated at build time from
the help texts of the built `gltrace` and `glreplay` and their option tables
(`--help-options`, from the same CLI11 definitions), so neither can fall out
of step with the commands (Python 3 standard library only).

  cli_docs.py --gltrace BIN --glreplay BIN --version V --completion-dir DIR
              [--man-dir DIR [--help2man PATH]]

Writes DIR/gltrace.1, DIR/gltrace-COMMAND.1 for every command `gltrace --help`
lists, DIR/glreplay.1, and the completion scripts COMPLETION_DIR/gltrace and
COMPLETION_DIR/glreplay (bash-completion loads a script by command name).
"""

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

# A command line in `gltrace --help`'s list: two spaces, name, summary.
COMMAND_LINE = re.compile(r"^  ([a-z][a-z0-9-]*) +(\S.*)$")


def help_text(argv):
    """stdout of a --help run; a failing one stops the build with its output."""
    # A clean environment: the texts describe the program, not this machine
    # (a sanitizer build's options still reach its programs).
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    env.update({k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS")})
    result = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0 or not result.stdout:
        sys.exit(f"cli_docs: {' '.join(argv)} failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


def parse_commands(top_help):
    commands = []
    in_list = False
    for line in top_help.splitlines():
        if line == "commands:":
            in_list = True
        elif in_list:
            match = COMMAND_LINE.match(line)
            if not match:
                break
            commands.append((match.group(1), match.group(2)))
    if not commands:
        sys.exit("cli_docs: `gltrace --help` lists no commands")
    return commands


def usage_block(text):
    """The lines of the usage: paragraph (the first, up to a blank line)."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("usage: "):
        sys.exit(f"cli_docs: help text does not start with 'usage: ':\n{text}")
    block = []
    for line in lines:
        if not line.strip():
            break
        block.append(line)
    return block


def option_table(argv):
    """(options, options that take a separate value) from PROGRAM --help-options:
    a line per option, its names and, after a tab, its value's name (empty for a
    flag, "=NAME" for a value given only as --opt=VALUE): the parser's own
    definitions, not the help's prose."""
    options, valued = set(), set()
    for line in help_text(argv).splitlines():
        names, _, value = line.partition("\t")
        if not names.startswith("-"):
            sys.exit(f"cli_docs: {' '.join(argv)}: not an option line: {line!r}")
        options.update(names.split())
        if value and not value.startswith("="):
            valued.update(names.split())
    return sorted(options), sorted(valued)


def for_help2man(text, program):
    """The help text in the shape help2man reads: 'Usage:' with 'or:' lines
    for alternative forms, 'Options:' headings, an option's value set off from
    its description by two spaces, and each option's description on one line
    (help2man breaks a paragraph where the indentation of its lines changes)."""
    lines = text.splitlines()
    usage = usage_block(text)
    out = ["Usage: " + usage[0][len("usage: "):]]
    for line in usage[1:]:
        stripped = line.strip()
        if stripped.startswith(program + " "):
            out.append("  or:  " + stripped)
        else:
            out[-1] += " " + stripped
    rest = lines[len(usage):]
    # `gltrace settings --help` ends with where the files are on the machine
    # that runs it ("here: user file /root/..."): not the program's, left out.
    for index, line in enumerate(rest):
        if line.startswith("here: "):
            rest = rest[:index]
            break
    option = None  # the option entry being read: its lines are joined into one
    for line in rest:
        if re.match(r"^[a-z][^:]*:$", line):
            line = line[0].upper() + line[1:]
        line = re.sub(r"^( {1,4}-[-\w\[\]=]+(?:, -[-\w\[\]=]+)*(?: [A-Z][\w:.|,-]*)?) (?=[a-z(`])",
                      r"\1  ", line)
        indent = len(line) - len(line.lstrip(" "))
        if re.match(r"^ {1,4}-\S", line):
            option = len(out)
        elif option is not None and line.strip() and indent > 4:
            out[option] += " " + line.strip()
            continue
        else:
            option = None
        out.append(line)
    return "\n".join(out).rstrip() + "\n"


def write_wrapper(directory, name, help_file, version_line):
    """An executable named NAME answering --help and --version as help2man
    asks: the page takes its name and title from it."""
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write('#!/bin/sh\nif [ "$1" = --version ]; then\n')
        f.write(f"  printf '%s\\n' '{version_line}'\nelse\n  cat '{help_file}'\nfi\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def man_page(help2man, work, out_dir, name, summary, text, version, see_also):
    program = name.replace("-", " ", 1) if name.startswith("gltrace-") else name
    help_file = os.path.join(work, name + ".help")
    with open(help_file, "w", encoding="utf-8") as f:
        f.write(for_help2man(text, program))
    wrapper = write_wrapper(work, name, help_file, f"{name} (gltrace) {version}")
    include = os.path.join(work, name + ".h2m")
    with open(include, "w", encoding="utf-8") as f:
        f.write(f"[NAME]\n{name} \\- {summary}\n")
        if see_also:
            f.write("[SEE ALSO]\n" + ",\n".join(f".BR {page} (1)" for page in see_also) + "\n")
    subprocess.run(
        [help2man, "--no-info", "--section=1", "--manual=gltrace", f"--include={include}",
         f"--output={os.path.join(out_dir, name + '.1')}", wrapper],
        check=True)


COMPLETION_HEAD = r"""# bash completion for gltrace and glreplay. Generated from their --help by
# tools/cli_docs.py at build time: do not edit.

# Where APP starts in `gltrace run|trace [OPTIONS] [--] APP ARGS...` ($1: the
# first word after the command; $2: the options that take a value).
_gltrace_app_index() {
  local i=$1 valued=" $2 "
  while [[ $i -le $COMP_CWORD ]]; do
    local word=${COMP_WORDS[i]}
    if [[ $word == -- ]]; then
      echo $((i + 1))
      return
    elif [[ $word == -* ]]; then
      [[ $valued == *" $word "* ]] && i=$((i + 1))
    else
      echo "$i"
      return
    fi
    i=$((i + 1))
  done
  echo -1
}

# $1: the first word after the command; $2: its options; $3: those taking a
# value; $4: whether the rest of the line is a program and its arguments.
_gltrace_complete_args() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  if [[ -n $4 ]]; then
    local app
    app=$(_gltrace_app_index "$1" "$3")
    if [[ $app -ge 0 && $COMP_CWORD -gt $app ]] && declare -F _command_offset >/dev/null; then
      _command_offset "$app"
      return
    elif [[ $app -ge 0 && $COMP_CWORD -eq $app ]]; then
      mapfile -t COMPREPLY < <(compgen -c -- "$cur")
      return
    elif [[ $app -ge 0 ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
    fi
  fi
  if [[ $cur == -* && " $3 " != *" $prev "* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$2" -- "$cur")
  else
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
"""


def words(items):
    """A sorted, space-separated word list for compgen -W."""
    return " ".join(sorted(set(items)))


def completion_scripts(commands, gltrace_options, glreplay_options):
    names = [name for name, _ in commands]
    cases = [f'    help) [[ $COMP_CWORD -eq 2 ]] &&\n'
             f'      mapfile -t COMPREPLY < <(compgen -W "{words(names)}" -- "$cur") ;;\n']
    for name in names:
        options, valued = gltrace_options[name]
        launches = "1" if name in ("run", "trace") else ""
        cases.append(f'    {name}) _gltrace_complete_args 2 "{words(options + ["--help"])}"'
                     f' "{words(valued)}" "{launches}" ;;\n')
    top_words = words(names + ["help", "--help", "--version"])
    gltrace = (
        COMPLETION_HEAD + "\n"
        "_gltrace() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]}\n"
        "  COMPREPLY=()\n"
        "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
        f'    mapfile -t COMPREPLY < <(compgen -W "{top_words}" -- "$cur")\n'
        "    return\n"
        "  fi\n"
        "  case ${COMP_WORDS[1]} in\n" + "".join(cases) + "  esac\n"
        "}\n"
        "complete -F _gltrace gltrace\n")

    options, valued = glreplay_options
    glreplay = (
        "# bash completion for glreplay. Generated from its --help by tools/cli_docs.py\n"
        "# at build time: do not edit. The shared functions live in the gltrace script.\n"
        "if ! declare -F _gltrace_complete_args >/dev/null; then\n"
        '  _gltrace_dir=$(dirname "${BASH_SOURCE[0]}")\n'
        "  # shellcheck source=/dev/null\n"
        '  . "$_gltrace_dir/gltrace"\n'
        "  unset _gltrace_dir\n"
        "fi\n"
        "_glreplay() {\n"
        f'  _gltrace_complete_args 1 "{words(options + ["--help", "--version"])}"'
        f' "{words(valued)}" ""\n'
        "}\n"
        "complete -F _glreplay glreplay\n")
    return gltrace, glreplay


def write_man_pages(args, commands, top, texts, glreplay_text):
    pages = [f"gltrace-{name}" for name, _ in commands]
    with tempfile.TemporaryDirectory() as work:
        # gltrace(1): the command list, and a pointer to each command's page.
        man_page(args.help2man, work, args.man_dir, "gltrace",
                 "trace, layer and replay OpenGL ES and EGL", top, args.version,
                 pages + ["glreplay"])
        for name, summary in commands:
            man_page(args.help2man, work, args.man_dir, f"gltrace-{name}", summary, texts[name],
                     args.version, ["gltrace"])
        man_page(args.help2man, work, args.man_dir, "glreplay",
                 "replay a gltrace trace on this machine's EGL/GLES driver", glreplay_text,
                 args.version, ["gltrace", "gltrace-replay"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gltrace", required=True)
    parser.add_argument("--glreplay", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--man-dir", help="without it, no man pages")
    parser.add_argument("--completion-dir", required=True)
    parser.add_argument("--help2man", default="help2man")
    args = parser.parse_args()

    top = help_text([args.gltrace, "--help"])
    commands = parse_commands(top)
    texts = {name: help_text([args.gltrace, name, "--help"]) for name, _ in commands}
    glreplay_text = help_text([args.glreplay, "--help"])

    # Only what this run writes stays: a command that went leaves no page.
    for directory in (args.man_dir, args.completion_dir):
        if directory:
            shutil.rmtree(directory, ignore_errors=True)
            os.makedirs(directory)
    if args.man_dir:
        write_man_pages(args, commands, top, texts, glreplay_text)

    gltrace_options = {name: option_table([args.gltrace, name, "--help-options"])
                       for name, _ in commands}
    glreplay_options = option_table([args.glreplay, "--help-options"])
    gltrace, glreplay = completion_scripts(commands, gltrace_options, glreplay_options)
    for name, text in (("gltrace", gltrace), ("glreplay", glreplay)):
        with open(os.path.join(args.completion_dir, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
