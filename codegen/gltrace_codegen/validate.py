"""Generates the replay's size rules (validate_rules.inc): for every GLES
function glreplay replays generically, the checks src/glreplay/validate.h
runs on each pointer argument before the driver sees it, from the registry's
len= (and COMPSIZE, with the pixel-store state) and the parameter's role.

A trace is hostile input: a pointer argument reaches the driver only when the
trace holds at least the bytes the driver reads, when it is an offset into a
buffer bound to the parameter's target, or NULL where GL allows it."""

import re

from . import lengths
from .api import COMPSIZE, GL_NONE_TERMINATED
from .trace import index_lists

# The table's size helpers the replay computes from the call's scalars alone
# (src/common/image_size.h, param_sizes.h); the others ask the capture's driver.
_PURE_HELPERS = {"pixel_bytes", "clear_buffer_values", "map_components", "path_coord_bytes",
                 "path_name_bytes", "transform_values", "path_metric_count",
                 "path_spacing_count", "path_gen_coeffs", "shading_rate_locations"}


def _index(f, name):
    return next((i for i, q in enumerate(f.params) if q.name == name), -1)


def _len_expr(f, length):
    """The length rule over the call's scalar arguments, or None."""
    c = lengths.call(length)
    if c and c[0] == "at_most" and len(c[1]) == 2:
        # What the call wrote, at most the room given: the replay's driver
        # may write all that room (a count pointer is written by the call,
        # not read).
        count, room = (_index(f, n) for n in c[1])
        if count >= 0 and room >= 0 and f.params[count].is_pointer:
            return _len_expr(f, c[1][1])
        length = c[1][0]  # both scalars: the count bounds it already
    tokens = lengths.parse(length, _PURE_HELPERS)
    if tokens is None:
        return None
    out = []
    for tok in tokens:
        if tok.kind == "helper":
            out.append(f"Len{{gltrace::{tok.text}")
        elif tok.kind == "name":
            i = _index(f, tok.text)
            if i < 0 or f.params[i].is_pointer:
                return None
            # A helper takes the argument as the driver got it; arithmetic
            # saturates through Len.
            out.append(_scalar(f, i) if tok.in_call else f"Len{{{_scalar(f, i)}}}")
        elif tok.kind == "number":
            out.append(f"Len{{{tok.text}}}")
        elif tok.kind == ")":
            out.append(")}" if tok.closes_call else ")")
        else:
            out.append(tok.text)
    # Len: saturating arithmetic (a hostile trace's counts must not wrap).
    if len(out) == 1 and out[0].startswith("Len{") and not out[0].startswith("Len{gltrace::"):
        return out[0][len("Len{"):-1]  # one scalar or number: as it is
    return f"int64_t{{{' '.join(out)}}}"


def _scalar(f, i):
    """Argument i as the driver gets it: the recorded value converted to the
    parameter's C type first (a count recorded as 2^32 + 6 reaches the
    driver as 6), then widened."""
    t = re.sub(r"\bconst\b", "", f.params[i].type).strip()
    return f"v.as<{t}>({i})"


def _element(base):
    return "1" if base == "void" else f"sizeof({base})"


def _rules(f):
    """The checks of function f, as C++ statements."""
    out = []
    indirect = any(p.role == "indirect" for p in f.params)
    if "draw" in f.roles and not indirect:
        idx = {n: _index(f, n) for n in ("first", "count", "type", "indices", "basevertex")}
        instances = max(_index(f, "instancecount"), _index(f, "primcount"))
        out.append(f"v.draw({idx['first']}, {idx['count']}, {idx['type']}, {idx['indices']}, "
                   f"{instances}, {idx['basevertex']});")
    for i, p in enumerate(f.params):
        if not p.is_pointer:
            continue
        base, depth, is_const = p.base, p.depth, p.is_const
        if p.kind == "funcptr":
            continue
        if p.role == "vertex_pointer":
            continue  # a client address becomes NULL (Args::vertex_pointer)
        if p.name == "length" and any(q.depth > 1 and q.kind == "text" for q in f.params):
            continue  # v.strings
        if p.role == "indices":
            continue  # v.draw
        if p.role == "indirect":
            out.append(f"v.indirect({i}, {p.bytes});")
            continue
        if p.len == "EGL_NONE-terminated":
            out.append(f"v.attrib_list({i}, {_element(base)});")
            continue
        lists = index_lists(p.length)
        if lists:
            counts, type_, n = (_index(f, name) for name in lists)
            out.append(f"v.index_lists({i}, {counts}, {type_}, {n});")
            continue
        if p.length == GL_NONE_TERMINATED:
            out.append(f"v.attrib_list({i}, {_element(base)}, 0);")
            continue
        count = None
        # The capture's size where the registry gives none (one place for the fact).
        length = p.len if p.length == COMPSIZE else p.length
        # A table's rule that only the driver can answer at capture time
        # (uniform_components(...)) gives no count here; pname_count(X) is
        # the table's.
        rule, registry_rule = lengths.call(length), lengths.call(p.len)
        if rule and rule[0] == "pname_count" and len(rule[1]) == 1 and \
                _index(f, rule[1][0]) >= 0:
            pname = _scalar(f, _index(f, rule[1][0]))
            count = f"v.pname_count(static_cast<uint32_t>({pname}))"
        elif registry_rule == ("COMPSIZE", ("pname",)) and _index(f, "pname") >= 0:
            count = f"v.pname_count(static_cast<uint32_t>({_scalar(f, _index(f, 'pname'))}))"
        elif lengths.image(length):
            fmt, type_, *extent = (_scalar(f, _index(f, n)) if _index(f, n) >= 0 else n
                                   for n in lengths.image(length))
            fmt = f"static_cast<uint32_t>({fmt}), static_cast<uint32_t>({type_})"
            if is_const:
                count = f"v.unpack_image({fmt}, {', '.join(extent)})"
            else:
                count = f"v.pack_image({fmt}, {', '.join(extent[:2])})"
        elif not length.startswith("COMPSIZE"):
            count = _len_expr(f, length)
        if depth > 1:
            if is_const and p.kind == "text":
                length = _index(f, "length")
                if length >= 0 and not f.params[length].is_pointer:
                    length = -1
                out.append(f"v.strings({i}, {count or '-1'}, {length});")
            elif not is_const:
                out.append(f"v.output({i}, sizeof(void*), {count or '1'}, 0);")
            else:
                out.append(f"v.unsized({i});")
            continue
        binding = p.offset_in[0] if p.offset_in else "0"
        if not is_const:
            if count is not None:
                elem = "1" if base == "void" else f"sizeof({base})"
                out.append(f"v.output({i}, {elem}, {count}, {binding});")
            continue
        if p.kind == "text":
            registry_rule = lengths.call(p.len)
            with_length = registry_rule and registry_rule[0] == "COMPSIZE" and \
                len(registry_rule[1]) == 2 and registry_rule[1][1] == "length"
            if p.len == "" or registry_rule in (("COMPSIZE", ()), ("COMPSIZE", (p.name,))):
                out.append(f"v.text({i});")
            elif with_length and _index(f, "length") >= 0:
                # A NULL label removes the object's label.
                null_ok = "true" if p.null_ok else "false"
                length = _scalar(f, _index(f, "length"))
                out.append(f"v.text({i}, {length}, {null_ok});")
            elif count is not None:
                out.append(f"v.input({i}, 1, {count}, 0, false);")
            else:
                out.append(f"v.unsized({i});")
            continue
        if count is None:
            out.append(f"v.unsized({i});")
            continue
        null_ok = "true" if p.null_ok else "false"
        out.append(f"v.input({i}, {_element(base)}, {count}, {binding}, {null_ok});")
    return out


def validate_rules_inc(functions, header):
    # The hand-written EGL calls (custom replay) are checked too: their
    # attribute lists and rectangles come from the trace all the same.
    replayed = [f for f in functions if not f.replay_skip and not f.replay_unsupported]
    out = [header,
           "// Included once by src/glreplay/validate.cpp, inside namespace",
           "// gltrace::glreplay, after Validator is declared.", "",
           "using CheckFn = void (*)(Validator&);", ""]
    table = {}
    for f in replayed:
        rules = _rules(f)
        if not rules:
            continue
        table[f.id] = f"&check_{f.name}"
        out.append(f"void check_{f.name}(Validator& v) {{")
        out += [f"  {r}" for r in rules]
        out += ["}", ""]
    limit = max(f.id for f in functions) + 1
    out.append(f"const CheckFn kCheckRules[{limit}] = {{")
    out += [f"    {table.get(i, 'nullptr')}," for i in range(limit)]
    out += ["};", ""]
    return "\n".join(out)
