"""The one parser of length rules: the registry's len= and spec/api.toml's
length (docs/api-table.md). Every generator reads a rule through it: the
trace's recording (trace.py), the replay's checks (validate.py) and output
scratch (replay.py), the table's check that a rule names parameters
(api.py).

A rule is either one of the table's words (EGL_NONE-terminated, compsize,
unknown: WHY, api.py) or an expression: numbers, names, + - * /,
parentheses and calls NAME(ARG, ...) of size helpers. parse() gives its
tokens, each knowing whether it is a helper's, inside a helper's arguments
or closing them; each generator renders them its own way. call() reads the
forms a generator matches whole: COMPSIZE(format,type,width,height),
at_most(n, room), index_lists(counts, type, n)."""

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|[*/+(),-]|\s+")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Token:
    kind: str                 # name, helper, number, op (+ - * /), "(", ")", ","
    text: str
    in_call: bool = False     # a name directly among a helper's arguments
    closes_call: bool = False  # a ")" that ends a helper's arguments


def identifiers(text):
    """The names a rule mentions (parameters, helpers, COMPSIZE), in order."""
    return _IDENTIFIER.findall(text)


def parse(text, helpers=frozenset()):
    """The tokens of expression `text` (whitespace dropped), or None when it
    is none: an empty rule, a character outside the language, unbalanced
    parentheses, a comma outside a helper's arguments, a helper not called.
    `helpers`: the names that are calls (others are names, a "(" after one a
    plain parenthesis)."""
    pieces = _TOKEN.findall(text)
    if not text or "".join(pieces) != text:
        return None
    out = []
    calls = []  # per open parenthesis: whether it holds a helper's arguments
    helper_next = False
    for piece in pieces:
        if piece.isspace():
            continue
        if helper_next and piece != "(":
            return None
        if piece in helpers:
            out.append(Token("helper", piece))
            helper_next = True
        elif piece[0].isalpha() or piece[0] == "_":
            out.append(Token("name", piece, in_call=bool(calls) and calls[-1]))
        elif piece.isdigit():
            out.append(Token("number", piece))
        elif piece == "(":
            calls.append(helper_next)
            helper_next = False
            out.append(Token("(", piece))
        elif piece == ")":
            if not calls:
                return None
            out.append(Token(")", piece, closes_call=calls.pop()))
        elif piece == ",":
            if not (calls and calls[-1]):
                return None
            out.append(Token(",", piece))
        else:
            out.append(Token("op", piece))
    if calls or helper_next:
        return None
    return out


# The registry's bitmap (glBitmap): a bit per pixel, with no format or type
# parameter (common/image_size.h).
_BITMAP = ("gltrace::desktop_pixels::kColorIndex", "gltrace::desktop_pixels::kBitmap")


def image(rule):
    """(format, type, width, height, depth) of a registry image rule, matched
    whole: COMPSIZE([target,] format, type, WIDTH[, HEIGHT[, DEPTH]]) (the
    target only says which table or filter), or the bitmap's
    COMPSIZE(width, height); parameter names, with "1" for an extent the
    rule lacks and C++ constants for the bitmap's format and type. Laid out
    by the pixel-store state: the trace's unpack_image_size, the replay's
    Validator::unpack_image. None for another rule."""
    c = call(rule)
    if c is None or c[0] != "COMPSIZE":
        return None
    args = list(c[1])
    if args == ["width", "height"]:
        return _BITMAP + ("width", "height", "1")
    if args[:1] == ["target"]:
        args = args[1:]
    if args[:2] != ["format", "type"] or not 1 <= len(args) - 2 <= 3:
        return None
    return tuple(args + ["1"] * (5 - len(args)))


def call(text):
    """(NAME, (ARG, ...)) when the rule is one call of plain names
    (COMPSIZE(format,type), COMPSIZE(), at_most(n, room)), else None."""
    tokens = parse(text, frozenset(identifiers(text)[:1]))
    if not tokens or tokens[0].kind != "helper" or tokens[-1].kind != ")":
        return None
    inner = tokens[2:-1]
    args = tuple(t.text for t in inner[0::2])
    if any(t.kind != "name" for t in inner[0::2]) or any(t.kind != "," for t in inner[1::2]) \
            or (inner and inner[-1].kind == ","):
        return None
    return tokens[0].text, args
