"""Generates glreplay's per-function replay code: for every function, turn
the recorded Values back into C arguments (remapping object names, uniform
and attribute locations and EGL handles on the way) and call the real driver.

The conversions themselves live in hand-written code (src/glreplay/args.h):
the generated code only picks, per parameter, which one applies, from the
model (spec/api.toml merged with the registry): the parameter's kind and
object class, the registry's len= and the parameter's role. Functions whose
replay part is custom are written by hand (src/glreplay/egl_calls.cpp),
replay_skip ones are not replayed at all (their results are the trace's, not
state), replay_unsupported ones fail with the message given."""

import re

from . import lengths
from .emit import HEADER
from .trace import index_lists

# Element types the replay's arrays and outputs hold (numbers and handles).
_ARRAY_REPS = {"uint", "sint", "f32", "f64", "handle"}
_SCALAR = {"uint": "u", "sint": "s", "f32": "f", "f64": "d"}
_GL_UNIFORM = "0x92E1"
# How `gltrace diverge` compares a result (Args::note_result), by its role,
# else its kind: a location or index is the driver's to choose, only whether
# there is one says what the app saw; names and handles are remapped, times
# differ from run to run, neither is compared.
_RESULT_FORMS = {"uniform_location": "kLocation", "attrib_location": "kLocation",
                 "resource_index": "kIndex", "enum": "kEnum", "egl_enum": "kEnum",
                 "boolean": "kNumber", "egl_boolean": "kNumber", "bitmask": "kNumber",
                 "uint": "kNumber", "sint": "kNumber"}  # the program interface whose locations are uniform locations

# Outputs larger than this are refused (a hostile trace must not make the
# replay allocate without bound).
MAX_OUTPUT_BYTES = 256 << 20


def _ctype(t):
    return re.sub(r"\bconst\b", "", t).strip()


def _len_expr(f, p, locals_):
    """A lower bound for an output's element count from the call's scalar
    arguments (as the replay passes them), or None: what the driver may write."""
    tokens = lengths.parse(p.len)
    if tokens is None:
        return None
    out = []
    for tok in tokens:
        if tok.kind == "name":
            q = next((q for q in f.params if q.name == tok.text), None)
            # Only parameters converted before this one (and no pointers).
            if q is None or "*" in q.type or f.params.index(q) > f.params.index(p):
                return None
            out.append(f"static_cast<int64_t>({locals_[q.name]})")
        else:
            out.append(tok.text)
    return " ".join(out)


def _interface(v):
    """A resource index's program interface, as a C++ expression."""
    what, x = v.interface
    return f"static_cast<uint32_t>(p{x})" if what == "param" else x


def _scalar(f, i, p, t, classes):
    """The conversion of a scalar (or handle) parameter, or None."""
    if p.kind == "name":
        return f"static_cast<{t}>(a.name({i}, {classes[p.cls]['replay']}))"
    if p.role == "uniform_location":
        program = next((j for j, q in enumerate(f.params) if q.name == "program"), -1)
        return f"static_cast<{t}>(a.uniform_location({i}, {program}))"
    if p.role == "attrib_location":
        return f"static_cast<{t}>(a.attrib_location({i}))"
    if p.role == "resource_index":
        return f"static_cast<{t}>(a.resource_index({i}, {_interface(p)}, 0))"
    if p.rep in _SCALAR:
        return f"static_cast<{t}>(a.{_SCALAR[p.rep]}({i}))"
    if p.rep == "handle":
        kind = classes[p.cls]["replay"] if p.cls else "HandleKind::kRaw"
        return f"a.handle<{t}>({i}, {kind})"
    if p.kind == "funcptr":
        return "nullptr"
    return None


def _param(f, i, p, locals_, post, classes):
    """The C++ expression for parameter i; may append statements to post."""
    t = _ctype(p.type)
    if p.depth == 0:
        s = _scalar(f, i, p, t, classes)
        return s if s is not None else f'a.unsupported({i}, "type {t}")'
    base, depth, is_const = p.base, p.depth, p.is_const
    is_text = p.kind == "text"
    if p.kind == "funcptr":
        return "nullptr"
    if depth > 1:
        if is_const and is_text:
            # Some prototypes lack the inner const (const GLchar **).
            return f"const_cast<{p.type}>(a.strings({i}))"
        if is_const and index_lists(p.length):
            return f"a.index_lists({i})"
        if is_const:
            return f'a.unsupported({i}, "pointer to pointers")'
        return f"a.out<{base}*>({i}, 1)"
    if is_const:
        if p.role == "vertex_pointer":
            # Remembered for client arrays; a client address becomes NULL.
            index = {q.name: f"p{j}" for j, q in enumerate(f.params)}
            if p.array:  # GLES 1: the array the function sets
                size = index.get("size", "3")  # normals have 3 components
                return (f"a.fixed_pointer({i}, {p.array[1]} /* {p.array[0]} */, {size}, "
                        f"{index['type']}, {index['stride']})")
            normalized = index.get("normalized", "0")
            integer = "false" if "normalized" in index else "true"
            return (f"a.vertex_pointer({i}, {index['index']}, {index['size']}, {index['type']}, "
                    f"{normalized}, {index['stride']}, {integer})")
        if is_text:
            return f"a.text({i})"
        if p.kind == "void" and p.role in ("indices", "indirect"):
            # Not captured unless the table sizes it (index_bytes): with a
            # buffer bound in the replay, the pointer is an offset.
            return f"a.bound_offset({i}, {p.offset_in[1]})"
        if p.kind == "void":
            return f"a.bytes({i})"
        if p.kind == "name":
            return f"a.names<{base}>({i}, {classes[p.cls]['replay']})"
        if p.rep in _ARRAY_REPS:
            return f"a.array<{base}>({i})"
        return f'a.unsupported({i}, "elements of type {base}")'
    # A non-const pointer is an output: scratch memory at least as large as
    # what the call may write.
    elem = "uint8_t" if p.kind == "void" else base
    if not (p.kind == "void" or is_text or p.rep in _ARRAY_REPS):
        return f'a.unsupported({i}, "output of type {base}")'
    count = _len_expr(f, p, locals_) or "0"
    if p.effect == "creates":
        post.append(f"a.define_names({i}, {classes[p.cls]['replay']}, p{i});")
    ptr = f"a.out<{elem}>({i}, {count})"
    if p.checked_when:
        which, values = p.checked_when
        test = " || ".join(f"p{which} == {v}" for v in values)
        post.append(f"if ({test}) a.check_output({i}, static_cast<uint64_t>(p{i}[0]));")
    if p.measured_when:
        which, values = p.measured_when
        test = " || ".join(f"p{which} == {v}" for v in values)
        post.append(f"if ({test}) a.forget_outputs();")
    return f"static_cast<void*>({ptr})" if p.kind == "void" else ptr


def _result(f, classes, post):
    """Statements after the call for what its result means."""
    r = f.result
    if r.effect == "creates":
        define = "define_name" if r.kind == "name" else "define_handle"
        post.append(f"a.{define}({classes[r.cls]['replay']}, result);")
    if r.role == "uniform_location" and r.interface:
        # Locations of other interfaces are the driver's to give (not remapped).
        interface = f"p{r.interface[1]}"
        post.append(f"if ({interface} == {_GL_UNIFORM}) a.define_uniform_location(0, result);")
    elif r.role == "uniform_location":
        post.append("a.define_uniform_location(0, result);")
    elif r.role == "resource_index":
        post.append(f"a.define_resource_index(0, {_interface(r)}, result);")
    elif r.role == "attrib_location":
        post.append("a.define_attrib_location(0, result);")
    elif "map" in f.roles:
        length = "p2" if len(f.params) == 4 else "-1"
        offset = "p1" if len(f.params) == 4 else "0"
        post.append(f"a.remember_mapping({_mapping_key(f)}, result, "
                    f"static_cast<int64_t>({offset}), static_cast<int64_t>({length}));")
    elif "unmap" in f.roles:
        post.append(f"a.forget_mapping({_mapping_key(f)});")
    if "checked_result" in f.roles:
        post.append("a.check_result(static_cast<uint64_t>(result));")
    form = _RESULT_FORMS.get(r.role) or _RESULT_FORMS.get(r.kind)
    if form and r.effect != "creates" and "*" not in r.type:
        post.append(f"a.note_result(static_cast<uint64_t>(result), ResultForm::{form});")


def _mapping_key(f):
    """A mapped buffer's key, as the trace recorded it: a target, or (target 0)
    the buffer's recorded name when the function maps a buffer by name."""
    if f.params[0].cls == "buffer":
        return "0, static_cast<uint32_t>(a.u(0))"
    return "static_cast<uint32_t>(p0), 0"


def _generic(f, classes):
    locals_ = {p.name: f"p{i}" for i, p in enumerate(f.params)}
    pre, post = [], []
    lines = [f"bool replay_{f.name}(Session& s, Args& a) {{",
             f"  auto fn = reinterpret_cast<{f.pfn()}>(s.proc({f.id}));",
             "  if (fn == nullptr) return a.missing();"]
    for i, p in enumerate(f.params):
        expr = _param(f, i, p, locals_, post, classes)
        decl_type = p.type if p.depth > 0 else _ctype(p.type)
        lines.append(f"  {decl_type} p{i} = {expr};")
    if "draw" in f.roles:
        pre.append("if (!a.set_client_arrays()) return false;")
    if "flush_mapped" in f.roles:
        pre.append(f"a.write_mapped_buffer({_mapping_key(f)});")
    lines.append("  if (!a.ok()) return false;")
    lines += [f"  {s}" for s in pre]
    call = f"fn({', '.join(f'p{i}' for i in range(len(f.params)))})"
    if f.returns_void:
        lines.append(f"  {call};")
    else:
        lines.append(f"  auto result = {call};")
        _result(f, classes, post)
        if not any("result" in line for line in post):
            post.append("(void)result;")
    for i, p in enumerate(f.params):
        hooks = classes.get(p.cls, {})
        if p.effect == "binds" and "on_bind" in hooks:
            post.append(f"a.{hooks['on_bind']}({i});")
        elif p.effect == "deletes" and hooks.get("on_delete") == "forget_handle":
            post.append(f"a.forget_handle({hooks['replay']}, {i});")
        elif p.effect == "deletes" and "on_delete" in hooks:
            post.append(f"a.{hooks['on_delete']}({i});")
        # A deleted GL name keeps its mapping (an object may outlive its
        # name: a program in use, a texture attached elsewhere); a snapshot
        # leaves out what is gone.
        if p.effect == "deletes" and hooks.get("replay", "").startswith("ObjectClass::"):
            post.append(f"a.mark_deleted({i}, {hooks['replay']});")
    if "link_program" in f.roles:
        post.append("a.remember_linked_shaders(0, p0);")
    if "compressed_upload" in f.roles:
        post.append(f"a.shadow_compressed_upload({f.compressed_upload(lambda i: f'p{i}')});")
    if "driver_prose" in f.roles:
        post.append("a.forget_outputs();")
    named = {p.name: f"p{i}" for i, p in enumerate(f.params)}
    if "begins_query" in f.roles:
        post.append(f"a.begin_query(static_cast<uint32_t>({named['target']}), {named['id']});")
    if "query_result" in f.roles:
        post.append(f"a.forget_timer_query_outputs({named['id']});")
    if "reads_pixels" in f.roles:
        size = ", ".join(f"static_cast<int64_t>({named[n]})" for n in ("width", "height"))
        kind = ", ".join(f"static_cast<uint32_t>({named[n]})" for n in ("format", "type"))
        post.append(f"a.note_pixels({size}, {kind});")
    if "release_thread" in f.roles:
        post.append("a.session().make_current(0, 0, EGL_NO_SURFACE);")
    lines += [f"  {s}" for s in post]
    lines += ["  return true;", "}", ""]
    return "\n".join(lines)


def replay_calls_inc(functions, classes):
    """(replay_calls.inc, replay_decls.h); classes: spec/api.toml's [classes]."""
    out = [HEADER,
           "// Included once by src/glreplay/generated_calls.cpp, inside namespace",
           "// gltrace::glreplay, after Session, Args and the custom calls are declared.",
           f"// Outputs over {MAX_OUTPUT_BYTES} bytes are refused by Args::out.", ""]
    for f in functions:
        if "replay" in f.custom or f.replay_skip or f.replay_unsupported:
            continue
        out.append(_generic(f, classes))
    out += ["const ReplayEntry kReplayEntries[] = {"]
    for f in functions:
        if "replay" in f.custom:
            out.append(f"    {{{f.id}, ReplayKind::kCustom, &custom_{f.name}, nullptr}},")
        elif f.replay_skip:
            out.append(f"    {{{f.id}, ReplayKind::kSkip, nullptr, nullptr}},")
        elif f.replay_unsupported:
            reason = f.replay_unsupported.replace('"', '\\"')
            out.append(f"    {{{f.id}, ReplayKind::kUnsupported, nullptr, \"{reason}\"}},")
        else:
            out.append(f"    {{{f.id}, ReplayKind::kGeneric, &replay_{f.name}, nullptr}},")
    out += ["};", ""]
    decls = [HEADER, "#pragma once", "", "// The calls glreplay replays by hand (src/glreplay).",
             "namespace gltrace::glreplay {", "", "class Session;", "class Args;", ""]
    for name in sorted(f.name for f in functions if "replay" in f.custom):
        decls.append(f"bool custom_{name}(Session& s, Args& a);")
    decls += ["", "}  // namespace gltrace::glreplay", ""]
    return "\n".join(out), "\n".join(decls)
