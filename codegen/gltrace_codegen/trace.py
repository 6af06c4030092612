"""Generates the trace layer's wrappers: time the call, then record every
argument, the pointed-to data the registry can size, and the return value.

Everything per function comes from the model (spec/api.toml merged with
the registry by api.py): how each value is recorded (its kind), the length
rule of each pointer (the registry's len=, or the table's: a len= expression,
"compsize" for a hand-written compsize_<function>_<param> of
src/trace/compsize.cpp, "unknown: why"). An unsizable pointer is recorded as
Unknown, with the reason, never as garbage. Functions whose trace part is
custom are written by hand (src/trace/custom_wrappers.cpp)."""

import re

from .api import COMPSIZE, SIZE_HELPERS, UNKNOWN
from .emit import HEADER

_RECORD = {
    "uint": "uint_value(static_cast<uint64_t>({}))",
    "sint": "sint_value(static_cast<int64_t>({}))",
    "f32": "f32_value({})",
    "f64": "f64_value({})",
    "handle": "uint_value(gltrace::trace::handle_bits({}))",
}
# Element types array_value records (numbers and handles).
_ARRAY_REPS = {"uint", "sint", "f32", "f64", "handle"}


def scalar_call(v, expr):
    """The encoder call for a scalar (or handle) value v, or None."""
    if v.depth > 0 or v.rep not in _RECORD:
        return None
    return _RECORD[v.rep].format(expr)


def _len_expr(f, length):
    """The registry's len= as a C++ expression over the parameters, or None."""
    names = {}
    for p in f.params:
        # A pointer-to-count parameter (an output length): what it holds.
        names[p.name] = (f"({p.cname} != nullptr ? *{p.cname} : -1)" if "*" in p.type
                         else p.cname)
    tokens = re.findall(r"[A-Za-z_]\w*|\d+|[*/+(),-]|\s+", length)
    if "".join(tokens) != length:
        return None
    out = []
    helper_parens = []  # per open parenthesis: whether it holds a helper's arguments
    helper_next = False
    for tok in tokens:
        if tok.strip() == "":
            continue
        if tok in SIZE_HELPERS:
            out.append(f"gltrace::trace::{tok}")
            helper_next = True
        elif tok[0].isalpha() or tok[0] == "_":
            if tok not in names:
                return None
            in_helper = bool(helper_parens) and helper_parens[-1]
            out.append(names[tok] if in_helper else f"static_cast<int64_t>({names[tok]})")
        elif tok == "(":
            helper_parens.append(helper_next)
            helper_next = False
            out.append(tok)
        elif tok == ")":
            if not helper_parens:
                return None
            helper_parens.pop()
            out.append(tok)
        elif tok == "," and not (helper_parens and helper_parens[-1]):
            return None
        else:
            out.append(tok)
    if helper_parens or helper_next:
        return None
    return " ".join(out)


def value_call(f, p):
    """The encoder call that records parameter p (after the call returned)."""
    v = p.cname
    s = scalar_call(p, v)
    if s is not None:
        return s
    base, depth, is_const = p.base, p.depth, p.is_const
    if p.kind == "funcptr" or depth == 0:
        return f"pointer_value(reinterpret_cast<const void*>({v}))"
    length = p.length
    is_text = p.kind == "text"
    if length.startswith(UNKNOWN):
        why = length[len(UNKNOWN):].strip().replace("\\", "\\\\").replace('"', '\\"')
        return f'unknown_value({v}, "{why}")'
    if depth > 1:
        count = _len_expr(f, length) if length else None
        if is_const and is_text and count is not None:
            # An array of NUL-terminated strings (glTransformFeedbackVaryings).
            return f"strings_value({v}, static_cast<int32_t>({count}), nullptr)"
        if not is_const and depth == 2 and p.kind == "void" and count is not None:
            # Pointers written (glGetPointerv): their values, as numbers.
            return f"array_value({v}, {count})"
        return f'unknown_value({v}, "pointer to pointers")'
    if length == "EGL_NONE-terminated":
        return f"attrib_list_value({v})"
    if is_text and is_const and length in ("COMPSIZE()", f"COMPSIZE({p.name})"):
        # The registry's way of saying NUL-terminated (glGetUniformBlockIndex,
        # glGetProgramResourceIndex and -Location).
        return f"text_value({v})"
    if length == COMPSIZE:
        args = ", ".join(q.cname for q in f.params)
        count = f"gltrace::trace::compsize_{f.name}_{p.name}({args})"
    elif length == "COMPSIZE(pname)":
        # How many values a pname takes: a table, 1 when unknown (never more
        # than the app's buffer holds).
        pname = next(q.cname for q in f.params if q.name == "pname")
        count = f"gltrace::trace::pname_count(static_cast<uint32_t>({pname}))"
    elif length.startswith("COMPSIZE"):
        return f'unknown_value({v}, "size computed from {length}, not implemented")'
    elif length == "":
        # The loader lets only NUL-terminated strings go without a rule.
        return f"text_value({v})"
    else:
        count = _len_expr(f, length)
        if count is None:
            return f'unknown_value({v}, "size {length} not understood")'
    if is_text:
        return f"text_value({v}, {count})"
    if p.kind == "void":
        if p.role == "texture_data":
            count = f"gltrace::trace::texture_data_size({count})"
        return f"bytes_value({v}, {count})"
    if p.rep in _ARRAY_REPS:
        return f"array_value({v}, {count})"
    return f'unknown_value({v}, "elements of type {base}")'


def return_call(f):
    s = scalar_call(f.result, "result")
    if s is not None:
        return s
    if f.result.depth == 1 and f.result.kind == "text":
        return "text_value(reinterpret_cast<const char*>(result))"
    return "pointer_value(reinterpret_cast<const void*>(result))"


def trace_wrappers_inc(functions):
    out = [HEADER,
           "// Included once by src/trace/wrappers.cpp, inside namespace",
           "// gltrace::trace, after the CallRecorder and next_function() are declared.", ""]
    for f in functions:
        if "trace" in f.custom:
            continue
        call = f"reinterpret_cast<{f.pfn()}>(next_function({f.id}))({f.arg_list()})"
        body = [f"  CallRecorder rec({f.id});"]
        if f.returns_void:
            body.append(f"  {call};")
        else:
            body.append(f"  {f.ret} result = {call};")
        body.append("  if (rec.finish()) {")
        for p in f.params:
            body.append(f"    rec.args().{value_call(f, p)};")
        if not f.returns_void:
            body.append(f"    rec.ret().{return_call(f)};")
        body.append("    rec.commit();")
        body.append("  }")
        if not f.returns_void:
            body.append("  return result;")
        out.append(f"{f.ret} trace_{f.name}({f.param_list()}) {{\n" + "\n".join(body) + "\n}\n")
    out += ["struct TraceWrapper { uint32_t id; void* function; };",
            "const TraceWrapper kTraceWrappers[] = {"]
    for f in functions:
        out.append(f"    {{{f.id}, reinterpret_cast<void*>(&trace_{f.name})}},")
    out += ["};", ""]
    # Declarations of what the generated code expects to be written by hand.
    decls = [HEADER, "#pragma once", "", "#include \"gltrace/api/pfn.h\"", "",
             "namespace gltrace::trace {", ""]
    for f in functions:
        if "trace" in f.custom:
            decls.append(f"{f.ret} trace_{f.name}({f.param_list()});")
    compsize = sorted((f"{f.name}.{p.name}", f) for f in functions for p in f.params
                      if p.length == COMPSIZE)
    for key, f in compsize:
        decls.append(f"int64_t compsize_{key.replace('.', '_')}({f.param_list()});")
    decls += ["", "}  // namespace gltrace::trace", ""]
    return "\n".join(out), "\n".join(decls)
