"""Reads the subset of proto3 that proto/*.proto use and writes their field numbers
as a C++ header, so capture and read code share only the .proto file.

Understood: syntax, package, import, option, message (nested too), enum, fields with
an optional label (repeated, optional) and [options], oneof, reserved, // and /* */
comments. Anything else (service, extend, map, groups, proto2) is an error naming the
file and line rather than a header that silently lacks a field.
"""

import re
from dataclasses import dataclass, field

# Field numbers protobuf allows: 1 .. 2^29-1, minus the range it keeps for itself.
MAX_FIELD_NUMBER = (1 << 29) - 1
IMPLEMENTATION_RESERVED = range(19000, 20000)

SCALAR_TYPES = {"double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
                "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes"}

# Namespace names come from message and enum names; these would not compile.
CPP_KEYWORDS = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"}


class ProtoError(Exception):
    """A message of the form 'path:line: what'."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line


@dataclass
class Field:
    name: str
    number: int
    type: str
    label: str = ""       # "", "repeated" or "optional"
    oneof: str = ""       # the oneof it belongs to, if any
    options: dict = field(default_factory=dict)
    line: int = 0


@dataclass
class EnumValue:
    name: str
    number: int
    line: int = 0


@dataclass
class Enum:
    name: str
    values: list = field(default_factory=list)
    allow_alias: bool = False
    reserved_numbers: list = field(default_factory=list)   # (first, last) inclusive
    reserved_names: set = field(default_factory=set)
    line: int = 0


@dataclass
class Message:
    name: str
    fields: list = field(default_factory=list)
    oneofs: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    enums: list = field(default_factory=list)
    reserved_numbers: list = field(default_factory=list)   # (first, last) inclusive
    reserved_names: set = field(default_factory=set)
    line: int = 0


@dataclass
class ProtoFile:
    path: str
    package: str = ""
    messages: list = field(default_factory=list)
    enums: list = field(default_factory=list)


_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+) | (?P<newline>\n)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<int>0[xX][0-9a-fA-F]+|\d+)
  | (?P<ident>\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<symbol>[{}\[\]()<>;=,:\-+])
""", re.VERBOSE | re.DOTALL)


def _tokenize(text, path):
    """(kind, text, line) triples; comments and white space dropped."""
    tokens = []
    line = 1
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text.startswith("/*", pos):
                raise ProtoError(path, line, "unterminated /* comment")
            if text[pos] in "\"'":
                raise ProtoError(path, line, "unterminated string")
            raise ProtoError(path, line, f"unexpected character {text[pos]!r}")
        kind = m.lastgroup
        if kind not in ("space", "newline", "line_comment", "block_comment"):
            tokens.append((kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    tokens.append(("eof", "", line))
    return tokens


def _int_value(text):
    return int(text, 16) if text[:2] in ("0x", "0X") else int(text, 8 if text != "0" and
                                                            text.startswith("0") else 10)


class _Parser:
    def __init__(self, text, path):
        self.path = path
        self.tokens = _tokenize(text, path)
        self.pos = 0

    # Token helpers.
    def peek(self, ahead=0):
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def line(self):
        return self.peek()[2]

    def error(self, message, line=None):
        return ProtoError(self.path, self.line() if line is None else line, message)

    def next(self):
        token = self.tokens[self.pos]
        if token[0] != "eof":
            self.pos += 1
        return token

    def at(self, text):
        kind, value, _ = self.peek()
        return kind in ("symbol", "ident") and value == text

    def accept(self, text):
        if self.at(text):
            self.pos += 1
            return True
        return False

    def expect(self, text, what=None):
        if not self.accept(text):
            # On the line of what it should follow: a missing ';' is that line's fault.
            line = self.tokens[self.pos - 1][2] if self.pos else None
            raise self.error(f"expected '{text}'{' ' + what if what else ''}, found "
                             f"{self.describe()}", line)

    def describe(self):
        kind, value, _ = self.peek()
        return "end of file" if kind == "eof" else f"'{value}'"

    def ident(self, what, dotted=False):
        kind, value, line = self.peek()
        if kind != "ident" or (not dotted and "." in value):
            raise self.error(f"expected {what}, found {self.describe()}")
        self.pos += 1
        return value

    def integer(self, what, signed=False):
        negative = signed and self.accept("-")
        kind, value, _ = self.peek()
        if kind != "int":
            raise self.error(f"expected {what}, found {self.describe()}")
        try:
            number = _int_value(value)
        except ValueError:
            raise self.error(f"'{value}' is not a number") from None
        self.pos += 1
        return -number if negative else number

    # Grammar.
    def parse_file(self):
        result = ProtoFile(self.path)
        if self.accept("syntax"):
            self.expect("=")
            kind, value, line = self.next()
            if kind != "string" or value[1:-1] != "proto3":
                raise self.error(f"only syntax = \"proto3\" is understood, found {value}", line)
            self.expect(";")
        else:
            raise self.error("expected syntax = \"proto3\"; first (proto2 is not understood)")
        while self.peek()[0] != "eof":
            line = self.line()
            if self.accept(";"):
                continue
            if self.accept("package"):
                result.package = self.ident("a package name", dotted=True)
                self.expect(";")
            elif self.accept("import"):
                if not self.accept("public"):
                    self.accept("weak")
                if self.next()[0] != "string":
                    raise self.error("expected a quoted file name after import", line)
                self.expect(";")
            elif self.accept("option"):
                self.option_body()
            elif self.accept("message"):
                result.messages.append(self.message(line))
            elif self.accept("enum"):
                result.enums.append(self.enum(line))
            else:
                raise self.error(f"{self.describe()} is not understood here (expected message, "
                                 "enum, package, import or option)")
        return result

    def option_name(self):
        if self.accept("("):
            name = "(" + self.ident("an option name", dotted=True) + ")"
            self.expect(")")
            if self.peek()[0] == "ident" and self.peek()[1].startswith("."):
                name += self.next()[1]
            return name
        return self.ident("an option name", dotted=True)

    def constant(self):
        sign = "-" if self.accept("-") else ""
        if not sign:
            self.accept("+")
        kind, value, line = self.next()
        if kind == "int":
            return int(sign + str(_int_value(value)))
        if kind == "float":
            return float(sign + value)
        if kind == "ident" and not sign:
            return {"true": True, "false": False}.get(value, value)
        if kind == "ident" and value in ("inf", "nan"):
            return float(sign + value)
        if kind == "string" and not sign:
            return value[1:-1]
        raise self.error(f"expected a constant, found '{value}'" if kind != "eof"
                         else "expected a constant, found end of file", line)

    def option_body(self):
        """After 'option': name = constant ;"""
        name = self.option_name()
        self.expect("=")
        value = self.constant()
        self.expect(";")
        return name, value

    def field_options(self):
        options = {}
        if self.accept("["):
            while True:
                name = self.option_name()
                self.expect("=")
                options[name] = self.constant()
                if not self.accept(","):
                    break
            self.expect("]")
        return options

    def reserved(self, numbers, names, max_number, signed):
        if self.peek()[0] == "string":
            while True:
                kind, value, line = self.next()
                if kind != "string":
                    raise self.error("expected a quoted field name", line)
                names.add(value[1:-1])
                if not self.accept(","):
                    break
        else:
            while True:
                line = self.line()
                first = self.integer("a number or a quoted name", signed=signed)
                last = first
                if self.accept("to"):
                    last = max_number if self.accept("max") else self.integer("a number or max",
                                                                              signed=signed)
                if last < first:
                    raise self.error(f"reserved range {first} to {last} is empty", line)
                numbers.append((first, last))
                if not self.accept(","):
                    break
        self.expect(";")

    def message(self, line):
        msg = Message(self.ident("a message name"), line=line)
        self.expect("{", "after the message name")
        while not self.accept("}"):
            line = self.line()
            if self.peek()[0] == "eof":
                raise self.error(f"message {msg.name} (line {msg.line}) is not closed")
            if self.accept(";"):
                continue
            if self.accept("message"):
                msg.messages.append(self.message(line))
            elif self.accept("enum"):
                msg.enums.append(self.enum(line))
            elif self.accept("option"):
                self.option_body()
            elif self.accept("reserved"):
                self.reserved(msg.reserved_numbers, msg.reserved_names, MAX_FIELD_NUMBER, False)
            elif self.accept("oneof"):
                self.oneof(msg, line)
            elif self.at("map") and self.peek(1)[1] == "<":
                raise self.error("map fields are not understood")
            elif self.peek()[1] in ("extensions", "extend", "group", "service", "required"):
                raise self.error(f"'{self.peek()[1]}' is not understood (proto3 subset only)")
            else:
                label = ""
                if self.at("repeated") or self.at("optional"):
                    # A field may itself be named or typed "optional": only a label when a
                    # type and a name follow.
                    if self.peek(2)[0] == "ident":
                        label = self.next()[1]
                msg.fields.append(self.field(label, "", line))
        return msg

    def oneof(self, msg, line):
        name = self.ident("a oneof name")
        msg.oneofs.append(name)
        self.expect("{", "after the oneof name")
        count = 0
        while not self.accept("}"):
            line = self.line()
            if self.peek()[0] == "eof":
                raise self.error(f"oneof {name} is not closed")
            if self.accept(";"):
                continue
            if self.accept("option"):
                self.option_body()
                continue
            if self.peek()[1] in ("repeated", "optional", "required", "map"):
                raise self.error(f"'{self.peek()[1]}' is not allowed in a oneof")
            msg.fields.append(self.field("", name, line))
            count += 1
        if count == 0:
            raise self.error(f"oneof {name} has no fields", line)

    def field(self, label, oneof, line):
        type_name = self.ident("a field type", dotted=True)
        name = self.ident("a field name")
        self.expect("=", f"after field {name}")
        number_line = self.line()
        number = self.integer(f"a field number for {name}")
        options = self.field_options()
        self.expect(";", f"after field {name}")
        if not 1 <= number <= MAX_FIELD_NUMBER:
            raise self.error(f"field {name}: number {number} is out of 1..{MAX_FIELD_NUMBER}",
                             number_line)
        if number in IMPLEMENTATION_RESERVED:
            raise self.error(f"field {name}: numbers 19000..19999 are reserved by protobuf",
                             number_line)
        return Field(name, number, type_name, label, oneof, options, line)

    def enum(self, line):
        result = Enum(self.ident("an enum name"), line=line)
        self.expect("{", "after the enum name")
        while not self.accept("}"):
            line = self.line()
            if self.peek()[0] == "eof":
                raise self.error(f"enum {result.name} (line {result.line}) is not closed")
            if self.accept(";"):
                continue
            if self.accept("option"):
                name, value = self.option_body()
                if name == "allow_alias":
                    result.allow_alias = value is True
            elif self.accept("reserved"):
                self.reserved(result.reserved_numbers, result.reserved_names, (1 << 31) - 1, True)
            else:
                name = self.ident("an enum value name")
                self.expect("=", f"after enum value {name}")
                number = self.integer(f"a number for {name}", signed=True)
                self.field_options()
                self.expect(";", f"after enum value {name}")
                result.values.append(EnumValue(name, number, line))
        return result


def snake_case(name):
    """'IndexEntry' -> 'index_entry' (a message's namespace)."""
    out = ""
    for c in name:
        if c.isupper():
            out += ("_" if out else "") + c.lower()
        else:
            out += c
    return out


def field_constant(name):
    """'start_time_ns' -> 'kStartTimeNs'."""
    return "k" + "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def enum_constant(name):
    """'MODE_FULL' -> 'kModeFull' (enum values are upper snake case by convention)."""
    return "k" + "".join(part[:1].upper() + part[1:].lower() for part in name.split("_"))


def _check_numbers(path, owner, items, reserved_numbers, reserved_names, aliases=False):
    names, numbers, constants = {}, {}, {}
    for item, constant in items:
        if item.name in names:
            raise ProtoError(path, item.line, f"{owner}: '{item.name}' already defined on line "
                             f"{names[item.name]}")
        names[item.name] = item.line
        if item.number in numbers and not aliases:
            raise ProtoError(path, item.line, f"{owner}: number {item.number} of "
                             f"'{item.name}' already used by '{numbers[item.number]}'")
        numbers.setdefault(item.number, item.name)
        if constant in constants:
            raise ProtoError(path, item.line, f"{owner}: '{item.name}' and "
                             f"'{constants[constant]}' both become {constant}")
        constants[constant] = item.name
        if item.name in reserved_names:
            raise ProtoError(path, item.line, f"{owner}: '{item.name}' is reserved")
        for first, last in reserved_numbers:
            if first <= item.number <= last:
                raise ProtoError(path, item.line, f"{owner}: '{item.name}' uses reserved "
                                 f"number {item.number}")


def _check_scope(path, owner, messages, enums):
    spaces = {}
    for item in messages + enums:
        ns = snake_case(item.name)
        if ns in CPP_KEYWORDS:
            raise ProtoError(path, item.line, f"'{item.name}' would be namespace {ns}, a C++ "
                             "keyword")
        if ns in spaces:
            raise ProtoError(path, item.line, f"{owner}'{item.name}' and '{spaces[ns]}' both "
                             f"become namespace {ns}")
        spaces[ns] = item.name
    for msg in messages:
        _check_numbers(path, f"message {msg.name}",
                       [(f, field_constant(f.name)) for f in msg.fields],
                       msg.reserved_numbers, msg.reserved_names)
        _check_scope(path, f"in message {msg.name}: ", msg.messages, msg.enums)
    for enum in enums:
        if not enum.values:
            raise ProtoError(path, enum.line, f"enum {enum.name} has no values")
        if enum.values[0].number != 0:
            raise ProtoError(path, enum.values[0].line,
                             f"enum {enum.name}: the first value must be 0 in proto3")
        _check_numbers(path, f"enum {enum.name}",
                       [(v, enum_constant(v.name)) for v in enum.values],
                       enum.reserved_numbers, enum.reserved_names, enum.allow_alias)


def parse(text, path="<proto>"):
    """A ProtoFile; raises ProtoError on anything not understood or not valid."""
    result = _Parser(text, path).parse_file()
    _check_scope(path, "", result.messages, result.enums)
    return result


def read(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


# How each scalar type travels: the wire kind the decoders and encoders switch on.
WIRE_KINDS = {
    **{t: "varint" for t in ("int32", "int64", "uint32", "uint64", "bool")},
    "sint32": "zigzag", "sint64": "zigzag",
    "fixed64": "fixed64", "sfixed64": "fixed64", "double": "fixed64",
    "fixed32": "fixed32", "sfixed32": "fixed32", "float": "fixed32",
    "string": "bytes", "bytes": "bytes",
}


class Schema:
    """One file's messages (nested ones flattened, parents first) and enum names, and
    what a field's type resolves to: the walk the decoders and encoders share."""

    def __init__(self, proto_file):
        self.path = proto_file.path
        self.package = proto_file.package
        self.messages = []
        self.enums = set(e.name for e in proto_file.enums)
        self._collect(proto_file.messages)

    def _collect(self, messages):
        for msg in messages:
            self.messages.append(msg)
            self.enums.update(e.name for e in msg.enums)
            self._collect(msg.messages)

    def resolve(self, field):
        """'varint', 'zigzag', 'fixed64', 'fixed32' or 'bytes' for a scalar or enum
        (enums travel as varints), else the Message the field holds."""
        name = field.type
        if name in WIRE_KINDS:
            return WIRE_KINDS[name]
        # Qualified names: this file's package only (imports are not generated for).
        prefix = "." + self.package + "." if self.package else "."
        if name.startswith(prefix):
            name = name[len(prefix):]
        elif name.startswith("."):
            raise ProtoError(self.path, field.line, f"field {field.name}: type {field.type} "
                             "is not of this file (the generators cover one file)")
        simple = name.rsplit(".", 1)[-1]
        if simple in self.enums:
            return "varint"
        for msg in self.messages:
            if msg.name == simple:
                return msg
        raise ProtoError(self.path, field.line, f"field {field.name}: unknown type {field.type}")


def _emit_scope(lines, messages, enums):
    for msg in messages:
        if not (msg.fields or msg.messages or msg.enums):
            continue  # an empty namespace would say nothing (control's Stop, GetStatus)
        ns = snake_case(msg.name)
        lines.append(f"namespace {ns} {{")
        lines += [f"inline constexpr uint32_t {field_constant(f.name)} = {f.number};"
                  for f in msg.fields]
        if msg.messages or msg.enums:
            lines.append("")
            _emit_scope(lines, msg.messages, msg.enums)
            lines.pop()  # no blank line before the closing brace
        lines += [f"}}  // namespace {ns}", ""]
    for enum in enums:
        ns = snake_case(enum.name)
        lines.append(f"namespace {ns} {{")
        lines += [f"inline constexpr int32_t {enum_constant(v.name)} = {v.number};"
                  for v in enum.values]
        lines += [f"}}  // namespace {ns}", ""]


def schema_h(proto_file, namespace, source_name):
    """The header: one namespace per message (snake_case of its name, nested messages
    inside it), one uint32_t constant per field (k + CamelCase of its name); enums the
    same way with int32_t values (k + CamelCase of the value name)."""
    lines = [f"// Generated by codegen/gen.py from {source_name}. Do not edit.",
             "// Field numbers, for code that writes or reads the wire format by hand: one",
             "// namespace per message (snake_case of its name), one constant per field",
             "// (k + CamelCase of its name).",
             "#pragma once", "", "#include <cstdint>", "", f"namespace {namespace} {{", ""]
    _emit_scope(lines, proto_file.messages, proto_file.enums)
    lines += [f"}}  // namespace {namespace}", ""]
    return "\n".join(lines)
