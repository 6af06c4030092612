"""Generates the trace layer's wrappers: time the call, then record every
argument, the pointed-to data the registry can size, and the return value.

Everything per function comes from the model (spec/api.toml merged with
the registry by api.py): how each value is recorded (its kind), the length
rule of each pointer (the registry's len=, or the table's: a len= expression,
"compsize" for a hand-written compsize_<function>_<param> of
src/trace/compsize.cpp, "unknown: why"). An unsizable pointer is recorded as
Unknown, with the reason, never as garbage.

Every wrapper is generated. Where the table names hooks (docs/api-table.md),
the wrapper calls the hand-written ones of src/trace/hooks/ too: pre hooks
before the call, post hooks after the plain arguments were recorded (the
extra Call fields), done hooks at the end whether the call was recorded or
not. Their declarations are generated here, one signature per kind. An idle
hook gets a wrapper of its own for live tracing's idle table: the idle hook,
the call, the idle_done hook, nothing recorded.

Calls that create or delete GL objects, and EGL contexts (the table's
effects), also tell the trace layer's object list (src/trace/hooks/
object_names.h) what they made or deleted, in both tables: a capture that
starts mid-run writes a snapshot of every object that lives then."""

from . import lengths
from .api import COMPSIZE, GL_NONE_TERMINATED, HOOK_KINDS, IDLE_HOOKS, SIZE_HELPERS, UNKNOWN
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


def index_lists(length):
    """(COUNTS, TYPE, N) of an index_lists(COUNTS, TYPE, N) rule, else None."""
    c = lengths.call(length)
    return c[1] if c and c[0] == "index_lists" and len(c[1]) == 3 else None


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
    tokens = lengths.parse(length, SIZE_HELPERS)
    if tokens is None:
        return None
    out = []
    for tok in tokens:
        if tok.kind == "helper":
            out.append(f"gltrace::trace::{tok.text}")
        elif tok.kind == "name":
            if tok.text not in names:
                return None
            name = names[tok.text]
            out.append(name if tok.in_call else f"static_cast<int64_t>({name})")
        else:
            out.append(tok.text)
    return " ".join(out)


def value_call(f, p):
    """The encoder call that records parameter p (after the call returned)."""
    v = p.cname
    s = scalar_call(p, v)
    if s is not None:
        return s
    base, depth, is_const = p.base, p.depth, p.is_const
    if p.kind == "funcptr" or depth == 0 or p.role in ("vertex_pointer", "indirect"):
        # A vertex pointer: an offset into the bound buffer, or the client
        # address whose data the draws record. An indirect draw's commands:
        # GL ES reads them from the bound buffer only, at this offset.
        return f"pointer_value(reinterpret_cast<const void*>({v}))"
    length = p.length
    is_text = p.kind == "text"
    if length.startswith(UNKNOWN):
        why = length[len(UNKNOWN):].strip().replace("\\", "\\\\").replace('"', '\\"')
        return f'unknown_value({v}, "{why}")'
    lists = index_lists(length)
    if depth == 2 and is_const and lists:
        counts, type_, n = lists
        return f"index_lists_value({v}, {counts}, static_cast<uint32_t>({type_}), {n})"
    if depth > 1:
        count = _len_expr(f, length) if length else None
        if is_const and is_text and count is not None:
            # An array of NUL-terminated strings (glTransformFeedbackVaryings).
            return (f"strings_value({v}, static_cast<int32_t>({count}), "
                    f"{p.lengths or 'nullptr'})")
        if not is_const and depth == 2 and p.kind == "void" and count is not None:
            # Pointers written (glGetPointerv): their values, as numbers.
            return f"array_value({v}, {count})"
        return f'unknown_value({v}, "pointer to pointers")'
    if length == "EGL_NONE-terminated":
        return f"attrib_list_value({v})"
    if length == GL_NONE_TERMINATED:
        return f"attrib_list_value({v}, 0)"
    if is_text and is_const and lengths.call(length) in (("COMPSIZE", ()),
                                                         ("COMPSIZE", (p.name,))):
        # The registry's way of saying NUL-terminated (glGetUniformBlockIndex,
        # glGetProgramResourceIndex and -Location).
        return f"text_value({v})"
    if length == COMPSIZE:
        args = ", ".join(q.cname for q in f.params)
        count = f"gltrace::trace::compsize_{f.name}_{p.name}({args})"
    elif lengths.call(length) == ("COMPSIZE", ("pname",)):
        # How many values a pname takes: a table, 1 when unknown (never more
        # than the app's buffer holds).
        pname = next(q.cname for q in f.params if q.name == "pname")
        count = f"gltrace::trace::pname_count(static_cast<uint32_t>({pname}))"
    elif is_const and lengths.image(length):
        names = {q.name: q.cname for q in f.params}
        args = ", ".join(names.get(n, n) for n in lengths.image(length))
        count = f"gltrace::trace::unpack_image_size({args})"
    elif length.startswith("COMPSIZE"):
        return f'unknown_value({v}, "size computed from {length}, not implemented")'
    elif length == "":
        # The loader lets only NUL-terminated strings go without a rule
        # (GLubyte ones: glXGetProcAddress's name).
        cast = "" if p.base in ("char", "GLchar", "GLcharARB") else "reinterpret_cast<const char*>"
        return f"text_value({cast}({v}))" if cast else f"text_value({v})"
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


def _hook_params(f, by_reference):
    """A hook's parameters after its leading ones: the function's, then its result."""
    out = []
    for p in f.params:
        out.append(f"{p.type}& {p.cname}" if by_reference else p.decl())
    if not f.returns_void:
        out.append(f"{f.ret}& result" if by_reference else f"{f.ret} result")
    return out


def hook_declarations(f):
    """The declaration each of f's hooks must match, by kind."""
    if not f.hooks:
        return []
    state = [f"{f.hooks['state']}& state"] if "state" in f.hooks else []
    leading = {"pre": [], "post": ["CallRecorder& rec"], "done": ["CallRecorder* recorded"]}
    result = {"pre": "bool", "post": "void", "done": "void"}
    decls = []
    for kind in HOOK_KINDS:
        params = ", ".join(leading[kind] + state + _hook_params(f, kind == "pre"))
        decls += [f"{result[kind]} {name}({params});" for name in f.hooks[kind]]
    return decls


def _hook_args(f, leading):
    return ", ".join(leading + (["state"] if "state" in f.hooks else [])
                     + [p.cname for p in f.params] + ([] if f.returns_void else ["result"]))


def _record_body(f, indent):
    body = [f"{indent}rec.args().{value_call(f, p)};" for p in f.params]
    if not f.returns_void:
        body.append(f"{indent}rec.ret().{return_call(f)};")
    body += [f"{indent}{name}({_hook_args(f, ['rec'])});" for name in f.hooks.get("post", [])]
    body.append(f"{indent}rec.commit();")
    return body


def record_function(f):
    """record_<name>: the wrapper's recording, post hooks included, for a call
    the app did not make (live tracing's eglMakeCurrent at join)."""
    params = ["CallRecorder& rec"] + ([f"{f.hooks['state']}& state"] if "state" in f.hooks
                                      else []) + _hook_params(f, False)
    return f"void record_{f.name}({', '.join(params)})"


def _hooked_wrapper(f, tracking):
    call = f"reinterpret_cast<{f.pfn()}>(next_function({f.id}))({f.arg_list()})"
    body = []
    if "state" in f.hooks:
        body.append(f"  {f.hooks['state']} state{{}};")
    pre = f.hooks.get("pre", [])
    if pre:
        if not f.returns_void:
            body.append(f"  {f.ret} result{{}};")
        make = " && ".join(f"{name}({_hook_args(f, [])})" for name in pre)
        body.append(f"  bool make_call = {make};")
    body.append(f"  CallRecorder rec({f.id});")
    if pre:
        body.append(f"  if (make_call) {'' if f.returns_void else 'result = '}{call};")
    else:
        body.append(f"  {'' if f.returns_void else f'{f.ret} result = '}{call};")
    done = f.hooks.get("done", [])
    if done:
        body.append("  bool recorded = rec.finish();")
        body.append("  if (recorded) {")
    else:
        body.append("  if (rec.finish()) {")
    # The recording inline, as in every other wrapper (record_<name> is the
    # same, for calls the app did not make; a call to it here costs a draw
    # tens of instructions: the encoder's inline writers stay out of line).
    body += _record_body(f, "    ")
    body.append("  }")
    body += [f"  {name}({_hook_args(f, ['recorded ? &rec : nullptr'])});" for name in done]
    # After the recording: its time is not the call's.
    if tracking and pre:
        body += ["  if (make_call) {"] + [f"    {t}" for t in tracking] + ["  }"]
    else:
        body += [f"  {t}" for t in tracking]
    if not f.returns_void:
        body.append("  return result;")
    return body


def _tracking(f, classes):
    """The statements after the driver call that tell the object list what
    the call created or deleted, or the program it linked (empty when none)."""
    out = []
    if "link_program" in f.roles:
        out.append(f"note_program_linked({f.params[0].cname});")
    if "compressed_upload" in f.roles:
        out.append(f"note_compressed_upload({f.compressed_upload(lambda i: f.params[i].cname)});")
    # EGL images' GL siblings (object_names.h): what shares an image's storage.
    for role, cls in (("image_texture", "kTexture"), ("image_renderbuffer", "kRenderbuffer")):
        if role in f.roles:
            out.append(f"note_image_target(glstate::ObjectClass::{cls}, {f.params[0].cname}, "
                       f"{f.params[1].cname});")
    for role, cls in (("defines_texture", "kTexture"), ("defines_renderbuffer", "kRenderbuffer")):
        if role in f.roles:
            out.append(f"note_storage_defined(glstate::ObjectClass::{cls}, {f.params[0].cname});")
    for v in f.params + [f.result]:
        if v.effect not in ("creates", "deletes"):
            continue
        expr = "result" if v is f.result else v.cname
        if v.cls == "image":
            source = [p.cname for p in f.params]
            if v.effect == "deletes":
                out.append(f"note_image_destroyed({expr});")
            elif [p.name for p in f.params][1:4] == ["ctx", "target", "buffer"]:
                out.append(f"note_image_created(result, {', '.join(source)});")
            continue
        if v.cls == "context":
            if v.effect == "creates":
                share = next(p.cname for p in f.params
                             if p.name in ("share_context", "shareList", "share_list"))
                out.append(f"note_context_created(result, {share});")
            else:
                out.append(f"note_context_destroyed({expr});")
            continue
        replay = classes.get(v.cls, {}).get("replay", "")
        if not replay.startswith("ObjectClass::") or replay == "ObjectClass::kSync":
            continue
        cls = "glstate::" + replay
        verb = "note_created" if v.effect == "creates" else "note_deleted"
        if v.depth > 0:
            count = _len_expr(f, v.length)
            assert count, f"{f.name}.{v.name}: an object array of no length"
            out.append(f"{verb}({cls}, {count}, {expr});")
        else:
            out.append(f"{verb}({cls}, {expr});")
    return out


def trace_wrappers_inc(functions, classes=None):
    classes = classes or {}
    out = [HEADER,
           "// Included once by src/trace/wrappers.cpp, inside namespace",
           "// gltrace::trace, after the CallRecorder and next_function() are declared.", ""]
    for f in functions:
        if f.hooks.get("record"):
            out.append(f"{record_function(f)} {{\n" + "\n".join(_record_body(f, "  ")) + "\n}\n")
        tracking = _tracking(f, classes)
        if f.hooks:
            out.append(f"{f.ret} trace_{f.name}({f.param_list()}) {{\n"
                       + "\n".join(_hooked_wrapper(f, tracking)) + "\n}\n")
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
        body += [f"  {t}" for t in tracking]  # after the recording: not the call's time
        if not f.returns_void:
            body.append("  return result;")
        out.append(f"{f.ret} trace_{f.name}({f.param_list()}) {{\n" + "\n".join(body) + "\n}\n")
    # The live layer's idle table: the idle hook, the next function, what
    # the object list is told, the idle_done hook (nothing recorded, no
    # time taken).
    idle = [f for f in functions
            if any(f.hooks.get(k) for k in IDLE_HOOKS) or _tracking(f, classes)]
    for f in idle:
        call = f"reinterpret_cast<{f.pfn()}>(next_function({f.id}))({f.arg_list()})"
        body = [f"  {f.hooks['idle']}();"] if f.hooks.get("idle") else []
        after = [f"  {t}" for t in _tracking(f, classes)]
        if f.hooks.get("idle_done"):
            after.append(f"  {f.hooks['idle_done']}();")
        if not after:
            body.append(f"  {'' if f.returns_void else 'return '}{call};")
        elif f.returns_void:
            body += [f"  {call};"] + after
        else:
            body += [f"  {f.ret} result = {call};"] + after + ["  return result;"]
        out.append(f"{f.ret} idle_{f.name}({f.param_list()}) {{\n" + "\n".join(body) + "\n}\n")
    out += ["struct TraceWrapper { uint32_t id; void* function; };",
            "const TraceWrapper kTraceWrappers[] = {"]
    for f in functions:
        out.append(f"    {{{f.id}, reinterpret_cast<void*>(&trace_{f.name})}},")
    out += ["};", "const TraceWrapper kIdleWrappers[] = {"]
    for f in idle:
        out.append(f"    {{{f.id}, reinterpret_cast<void*>(&idle_{f.name})}},")
    if not idle:
        out.append("    {0, nullptr},  // (none: an array needs an element)")
    out += ["};", ""]
    # Declarations of what the generated code expects to be written by hand.
    decls = [HEADER, "#pragma once", "", "#include \"gltrace/api/pfn.h\"", "",
             "namespace gltrace::trace {", "", "class CallRecorder;"]
    states = sorted({f.hooks["state"] for f in functions if "state" in f.hooks})
    decls += [f"struct {state};" for state in states]
    decls += ["", "// The hooks the table names (src/trace/hooks/), as the wrappers call them."]
    seen = set()
    for f in functions:
        for d in hook_declarations(f):
            if d not in seen:
                seen.add(d)
                decls.append(d)
    idle_hooks = sorted({f.hooks[k] for f in functions for k in IDLE_HOOKS if f.hooks.get(k)})
    if idle_hooks:
        decls += ["", "// The idle hooks, called by the live layer's idle table."]
        decls += [f"void {name}();" for name in idle_hooks]
    decls += ["", "// The wrapper's recording, its post hooks included, for calls the app did",
              "// not make."]
    decls += [f"{record_function(f)};" for f in functions if f.hooks.get("record")]
    decls.append("")
    compsize = sorted((f"{f.name}.{p.name}", f) for f in functions for p in f.params
                      if p.length == COMPSIZE)
    for key, f in compsize:
        decls.append(f"int64_t compsize_{key.replace('.', '_')}({f.param_list()});")
    decls += ["", "}  // namespace gltrace::trace", ""]
    return "\n".join(out), "\n".join(decls)
