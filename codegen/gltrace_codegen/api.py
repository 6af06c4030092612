"""Reads spec/api.toml (docs/api-table.md) and merges it with the registry's
functions into the model: each parameter's kind, object class, length rule
and role, each function's hand-written parts, roles and object effects.

The table is checked against the registry: a function or parameter it names
that the registry lacks, a type without a kind, a pointer with no length
rule (nor an "unknown: why"), a class it does not declare are errors."""

import re
import tomllib

from . import lengths

# The kinds of [types], and how a value of each is recorded.
REPRESENTATIONS = {
    "uint": "uint", "sint": "sint", "float": "f32", "double": "f64", "enum": "uint",
    "egl_enum": "uint", "bitmask": "uint", "boolean": "uint", "egl_boolean": "uint",
    "time": "uint", "stime": "sint", "handle": "handle", "text": "", "funcptr": "funcptr",
    "void": "", "opaque": "",
}
# Kinds an integer's meaning may be refined to (the C type keeps its recording).
INTEGER_KINDS = {"uint", "sint", "enum", "egl_enum", "bitmask", "boolean", "egl_boolean", "time",
                 "stime", "name"}
EFFECTS = {"creates", "binds", "deletes"}
PARAM_ROLES = {"uniform_location", "attrib_location", "resource_index", "vertex_pointer",
               "indices", "indirect", "texture_data"}
RET_ROLES = {"uniform_location", "attrib_location", "resource_index"}
# What a function is (docs/api-table.md); gltrace/api/roles.h carries them
# to run time (gltrace_codegen/roles.py).
FUNCTION_ROLES = {"draw", "other_draw", "swap", "ends_frame", "thread_bound", "debug_push",
                  "debug_pop", "window_surface", "offscreen_surface", "map", "unmap",
                  "flush_mapped", "release_thread", "egl_setup", "link_program",
                  "compressed_upload", "image_texture", "image_renderbuffer", "defines_texture",
                  "defines_renderbuffer", "checked_result", "driver_prose", "begins_query",
                  "query_result", "reads_pixels", "gpu_work", "dispatch"}
CUSTOM_PARTS = {"replay", "export"}
FUNCTION_KEYS = {"custom", "hooks", "replay_skip", "replay_unsupported", "roles", "ret", "params"}
PARAM_KEYS = {"kind", "length", "effect", "role", "interface", "array", "offset_in", "null_ok", "bytes",
              "checked_when", "measured_when", "limit",
              "lengths"}
# What a parameter's value counts against, for what a trace requires of a
# driver (gltrace/api/requirements.h): "<= GL_MAX_X" (a size or count at
# most that limit), "< GL_MAX_X" (an index below it), or a rule by name,
# written by hand in src/consumers/requirements.cpp because the limit
# depends on another argument: rule -> the parameter it reads ("" if none).
LIMIT_RULES = {"texture_size": "target", "texture_depth": "target", "texture_unit": "",
               "color_attachment": "", "buffer_binding": "target"}
# The trace wrapper's hooks (docs/api-table.md): before the call (may change
# its arguments or make it), after the generated recording (extra Call
# fields), after the call whether recorded or not.
HOOK_KINDS = ("pre", "post", "done")
# record = true: also a record_<function> for calls the app did not make.
# idle = NAME: live tracing's idle table (a thread not recording) calls
# NAME() before the call (what the idle path tracks: draws, for frame ends);
# idle_done = NAME: after it (switch points: swaps, context switches).
IDLE_HOOKS = ("idle", "idle_done")
HOOK_KEYS = set(HOOK_KINDS) | {"why", "state", "record"} | set(IDLE_HOOKS)
GLX_REPLAY_SKIP = ("a GLX query or setting of the traced process (the replay makes its "
                   "contexts and surfaces on EGL)")
RET_KEYS = {"kind", "effect", "role", "interface"}
# Functions of src/trace/compsize.h a length rule may call.
SIZE_HELPERS = {"pname_count", "uniform_components", "uniform_block_param_count", "index_bytes",
                "pixel_bytes", "at_most", "clear_buffer_values", "map_components",
                "pixel_map_size", "path_coord_bytes", "path_name_bytes", "transform_values",
                "path_metric_count", "path_spacing_count", "path_gen_coeffs",
                "shading_rate_locations"}
# A depth-2 pointer's rule: index_lists(COUNTS, TYPE, N) for N index arrays
# of COUNTS[k] indices of TYPE (glMultiDrawElementsEXT).
LIST_HELPERS = {"index_lists"}
COMPSIZE = "compsize"
UNKNOWN = "unknown:"
# GL's attribute lists end at a GL_NONE name (EGL's at EGL_NONE).
GL_NONE_TERMINATED = "GL_NONE-terminated"
# What an "unknown: WHY" may be: data that no capture can hold, by its
# nature (the platform's or the app's own objects, addresses with no data
# behind them). Any other pointer gets a rule (codegen/tests checks it);
# docs/uncaptured.md lists the ones left, generated from the table.
UNCAPTURABLE = ("a native ", "a Wayland ", "an Android ", "a Windows ", "the app's pointer",
                "an object's address")

_TRAILING_CONST = re.compile(r"\bconst\b")
_KIND = re.compile(r"^(\w+)(?:\(([\w ]+)\))?$")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


class ApiError(Exception):
    pass


def base_type(ctype):
    """Pointee type name without qualifiers, and the pointer depth."""
    depth = ctype.count("*")
    base = _TRAILING_CONST.sub("", ctype.replace("*", " ")).replace("struct", "").strip()
    return base, depth


def parse_kind(text, where):
    """("handle", "image") for "handle(image)"."""
    m = _KIND.match(text)
    if not m or (m.group(1) not in REPRESENTATIONS and m.group(1) != "name"):
        raise ApiError(f"{where}: unknown kind {text!r}")
    if m.group(2) and m.group(1) not in ("handle", "name"):
        raise ApiError(f"{where}: only handle and name kinds take a class: {text!r}")
    if m.group(1) == "name" and not m.group(2):
        raise ApiError(f"{where}: a name kind needs its class: {text!r}")
    return m.group(1), m.group(2) or ""


def read(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ApiError(str(e)) from e


def _check_keys(entry, allowed, where):
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise ApiError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _merge(into, entry, where):
    """Adds entry's keys to into; a key given twice with different values is an error."""
    for key, value in entry.items():
        if key in ("params",):
            params = into.setdefault("params", {})
            for pname, pentry in value.items():
                _merge(params.setdefault(pname, {}), pentry, f"{where}.params.{pname}")
        elif key in ("ret", "custom", "hooks"):
            _merge(into.setdefault(key, {}), value, f"{where}.{key}")
        elif key == "roles":
            into.setdefault("roles", [])
            into["roles"] += [r for r in value if r not in into["roles"]]
        elif key in into and into[key] != value:
            raise ApiError(f"{where}: {key} given twice ({into[key]!r}, {value!r})")
        else:
            into[key] = value


def _function_entries(table):
    """{function name: entry} of [functions] and [[groups]]. A function is in
    one block only, so that all the table says of it is found in one place."""
    entries, blocks = {}, {}

    def add(name, entry, where):
        if name in blocks:
            raise ApiError(f"{name} is in {blocks[name]} and in {where}: give each function "
                           "one block (a group of functions that share all their keys, or a "
                           "[functions.NAME] of its own)")
        blocks[name] = where
        _merge(entries.setdefault(name, {}), entry, where)

    for i, group in enumerate(table.get("groups", [])):
        names = group.get("functions")
        if not isinstance(names, list) or not names:
            raise ApiError(f"groups[{i}]: needs a non-empty functions list")
        entry = {k: v for k, v in group.items() if k != "functions"}
        _check_keys(entry, FUNCTION_KEYS, f"groups[{i}]")
        first = f"groups[{i}] ({names[0]}...)" if len(names) > 1 else f"groups[{i}]"
        for name in names:
            add(name, entry, first)
    for name, entry in table.get("functions", {}).items():
        _check_keys(entry, FUNCTION_KEYS, f"functions.{name}")
        add(name, entry, f"functions.{name}")
    return entries


def _resolve_enum(name, gl_values, where):
    if name not in gl_values:
        raise ApiError(f"{where}: {name} is no GL enum of the registry")
    return f"0x{gl_values[name]:X}"


def _annotate_value(v, entry, f, where, classes, gl_values, defaults=False):
    """Applies a [functions] (or defaults) entry to parameter or result v."""
    if entry.get("kind") == "text" and v.depth == 1 and v.kind in ("uint", "sint"):
        v.kind = "text"  # characters, as bytes
    elif "kind" in entry:
        # A pointer's kind is its elements' (defaults: scalars only). A
        # handle may be an integer in disguise (a GL name as EGLClientBuffer).
        refinable = v.kind in INTEGER_KINDS or (v.kind == "handle" and not defaults)
        if v.depth > (0 if defaults else 1) or not refinable:
            if not defaults:
                raise ApiError(f"{where}: kind applies to integers and handles only ({v.type})")
        else:
            kind, cls = parse_kind(entry["kind"], where)
            if kind not in INTEGER_KINDS:
                raise ApiError(f"{where}: {kind} is no integer kind")
            v.kind, v.cls = kind, cls or v.cls
    if "length" in entry:
        if v.depth == 0:
            if not defaults:
                raise ApiError(f"{where}: a length rule for a non-pointer ({v.type})")
        elif defaults:
            v.len = entry["length"]  # EGL's stand-in for the registry's len=
            v.length = v.len
        else:
            v.length = entry["length"]
            _check_length(f, v, where)
    if "effect" in entry:
        if entry["effect"] not in EFFECTS:
            raise ApiError(f"{where}: unknown effect {entry['effect']!r}")
        if not v.cls:
            raise ApiError(f"{where}: an effect on a value of no object class")
        v.effect = entry["effect"]
    if "role" in entry and not (defaults and v.depth > 0):
        role = entry["role"]
        allowed = RET_ROLES if v.name == "" else PARAM_ROLES
        if role and role not in allowed:
            raise ApiError(f"{where}: unknown role {role!r}")
        if role in ("uniform_location", "attrib_location", "resource_index") and v.depth > 0:
            raise ApiError(f"{where}: a {role} is an integer, not a pointer")
        v.role = role
    if "interface" in entry:
        name = entry["interface"]
        index = next((i for i, q in enumerate(f.params) if q.name == name), -1)
        if index >= 0:
            v.interface = ("param", index)
        else:
            v.interface = ("enum", _resolve_enum(name, gl_values, where))
    if "array" in entry:
        if v.role != "vertex_pointer":
            raise ApiError(f"{where}: an array is a GLES 1 vertex_pointer's")
        v.array = (entry["array"], _resolve_enum(entry["array"], gl_values, where))
    if "offset_in" in entry:
        v.offset_in = (entry["offset_in"], _resolve_enum(entry["offset_in"], gl_values, where))
    if "null_ok" in entry:
        v.null_ok = bool(entry["null_ok"])
    # An output's meaning when the call's pname is one of some enums.
    for key in ("checked_when", "measured_when"):
        if key not in entry:
            continue
        pname = next((i for i, q in enumerate(f.params) if q.name == "pname"), -1)
        if v.depth != 1 or v.is_const or pname < 0:
            raise ApiError(f"{where}: {key} is for the output of a function with a pname")
        setattr(v, key, (pname, [_resolve_enum(n, gl_values, where) for n in entry[key]]))
    if "limit" in entry:
        v.limit = _limit(entry["limit"], v, f, gl_values, where)
    if "bytes" in entry:
        v.bytes = int(entry["bytes"])
    if "lengths" in entry:
        name = entry["lengths"]
        q = next((q for q in f.params if q.name == name), None)
        if v.kind != "text" or v.depth != 2:
            raise ApiError(f"{where}: lengths applies to arrays of strings only ({v.type})")
        if q is None or q.depth != 1 or q.rep != "sint":
            raise ApiError(f"{where}: lengths {name!r} names no integer array parameter")
        v.lengths = q.cname


def _limit(text, v, f, gl_values, where):
    """A parameter's limit entry, checked: see LIMIT_RULES."""
    if v.depth != 0 or v.kind not in ("uint", "sint", "enum"):
        raise ApiError(f"{where}: a limit applies to integers and enums only ({v.type})")
    m = re.match(r"^(<=|<)\s*(GL_MAX_\w+)$", text)
    if m:
        rule = "at_most" if m[1] == "<=" else "below"
        return (rule, _resolve_enum(m[2], gl_values, where), m[2])
    if text not in LIMIT_RULES:
        raise ApiError(f"{where}: limit {text!r} is neither \"<= GL_MAX_...\", \"< GL_MAX_...\" "
                       f"nor one of {', '.join(sorted(LIMIT_RULES))}")
    reads = LIMIT_RULES[text]
    if reads and not any(q.name == reads for q in f.params):
        raise ApiError(f"{where}: limit {text} reads the parameter {reads!r}, which "
                       f"{f.name} lacks")
    return (text, "", "")


def _load_hooks(f, hooks):
    """Checks a function's hooks entry; {kind: [names]} plus "state" and "why"."""
    where = f"{f.name}.hooks"
    _check_keys(hooks, HOOK_KEYS, where)
    if not isinstance(hooks.get("why"), str) or not hooks["why"].strip():
        raise ApiError(f"{where}: needs a why (what the hooks record that the table cannot say)")
    out = {"why": hooks["why"]}
    if "state" in hooks:
        if not isinstance(hooks["state"], str) or not _IDENTIFIER.match(hooks["state"]):
            raise ApiError(f"{where}: state {hooks['state']!r} is no C++ type name")
        out["state"] = hooks["state"]
    for kind in HOOK_KINDS:
        names = hooks.get(kind, [])
        names = [names] if isinstance(names, str) else names
        if not isinstance(names, list) or not all(
                isinstance(n, str) and _IDENTIFIER.match(n) for n in names):
            raise ApiError(f"{where}.{kind}: a C++ function name or a list of them")
        if len(set(names)) != len(names):
            raise ApiError(f"{where}.{kind}: a hook named twice")
        out[kind] = names
    out["record"] = hooks.get("record", False)
    if not isinstance(out["record"], bool):
        raise ApiError(f"{where}: record is true or false")
    for key in IDLE_HOOKS:
        if key in hooks:
            if not isinstance(hooks[key], str) or not _IDENTIFIER.match(hooks[key]):
                raise ApiError(f"{where}.{key}: a C++ function name")
            out[key] = hooks[key]
    if (not any(out[kind] for kind in HOOK_KINDS) and not any(k in out for k in IDLE_HOOKS)
            and not out["record"]):
        raise ApiError(f"{where}: names no hook ({', '.join(HOOK_KINDS + IDLE_HOOKS)}) "
                       "and no record")
    return out


def _check_length(f, p, where):
    """A pointer's length rule must say something a generator can act on."""
    length = p.length
    if length in ("", "EGL_NONE-terminated", GL_NONE_TERMINATED, COMPSIZE) or length.startswith(UNKNOWN):
        return
    for tok in lengths.identifiers(length):
        if tok in SIZE_HELPERS or tok in LIST_HELPERS or tok == "COMPSIZE":
            continue
        if not any(q.name == tok for q in f.params):
            raise ApiError(f"{where}: length {length!r} names no parameter {tok!r}")


def load(functions, table, gl_enums):
    """Annotates the registry's functions from the parsed table, in place.
    gl_enums: the registry's (value, name, groups, rank)."""
    types = table.get("types", {})
    type_kinds = {}
    for name, text in types.items():
        type_kinds[name] = parse_kind(text, f"types.{name}")
        if type_kinds[name][0] == "name":
            raise ApiError(f"types.{name}: a GL object name is a parameter's kind (the "
                           "registry's class=), not a type's")
    classes = table.get("classes", {})
    for name, entry in classes.items():
        _check_keys(entry, {"replay", "on_bind", "on_delete"}, f"classes.{name}")
    gl_values = {}
    for value, name, _, _ in gl_enums:
        gl_values.setdefault(name, value)

    def classify(v, where):
        base, v.depth = base_type(v.type)
        v.base = base
        v.is_const = v.type.strip().startswith("const")
        if base not in type_kinds:
            raise ApiError(f"{where}: type {base!r} has no kind in [types]")
        kind, cls = type_kinds[base]
        v.rep = REPRESENTATIONS[kind]
        v.kind = kind
        # The registry's class= on a GL integer: an object name of that class.
        if v.cls and kind in ("uint", "sint"):
            v.kind = "name"
        elif cls:
            v.cls = cls

    by_name = {f.name: f for f in functions}
    defaults = table.get("param_defaults", {})
    for api in defaults:
        if api not in ("egl", "gles", "glx"):
            raise ApiError(f"param_defaults.{api}: the APIs are egl, gles and glx")
        for pname, entry in defaults[api].items():
            _check_keys(entry, PARAM_KEYS, f"param_defaults.{api}.{pname}")
    entries = _function_entries(table)
    unknown = sorted(set(entries) - set(by_name))
    if unknown:
        raise ApiError(f"functions not in the registry: {', '.join(unknown)}")

    for f in functions:
        f.result.type = f.ret
        classify(f.result, f"{f.name} result")
        for p in f.params:
            classify(p, f"{f.name}.{p.name}")
            p.length = p.len
            entry = defaults.get(f.api, {}).get(p.name)
            if entry is not None:
                _annotate_value(p, entry, f, f"param_defaults.{f.api}.{p.name} ({f.name})",
                                classes, gl_values, defaults=True)
        entry = entries.get(f.name, {})
        custom = entry.get("custom", {})
        for part in custom:
            if part not in CUSTOM_PARTS:
                raise ApiError(f"{f.name}: custom part {part!r} is none of "
                               f"{', '.join(sorted(CUSTOM_PARTS))}")
        f.custom = dict(custom)
        f.hooks = _load_hooks(f, entry["hooks"]) if "hooks" in entry else {}
        f.replay_skip = entry.get("replay_skip", "")
        f.replay_unsupported = entry.get("replay_unsupported", "")
        if sum(bool(x) for x in (f.replay_skip, f.replay_unsupported, "replay" in custom)) > 1:
            raise ApiError(f"{f.name}: replayed by hand, skipped or unsupported: only one")
        for role in entry.get("roles", []):
            if role not in FUNCTION_ROLES:
                raise ApiError(f"{f.name}: unknown role {role!r}")
        f.roles = set(entry.get("roles", []))
        if "thread_bound" in f.roles and f.api == "gles":
            raise ApiError(f"{f.name}: thread_bound is for EGL and GLX functions (every GL call "
                           "is)")
        # A replay runs on EGL: it makes what a GLX call made by hand (custom),
        # and skips the rest, the traced process's answers and settings.
        if f.api == "glx" and not (f.replay_skip or f.replay_unsupported or "replay" in custom):
            f.replay_skip = GLX_REPLAY_SKIP
        if "ret" in entry:
            if f.returns_void:
                raise ApiError(f"{f.name}: ret given for a void function")
            _check_keys(entry["ret"], RET_KEYS, f"{f.name}.ret")
            _annotate_value(f.result, entry["ret"], f, f"{f.name}.ret", classes, gl_values)
            r = f.result
            if r.role == "uniform_location" and r.interface and r.interface[0] != "param":
                raise ApiError(f"{f.name}.ret: a location's interface is the parameter "
                               "that names it")
        params = {p.name: p for p in f.params}
        for pname, pentry in entry.get("params", {}).items():
            if pname not in params:
                raise ApiError(f"{f.name}: no parameter {pname!r}")
            _check_keys(pentry, PARAM_KEYS, f"{f.name}.params.{pname}")
            _annotate_value(params[pname], pentry, f, f"{f.name}.{pname}", classes, gl_values)
        for v in [f.result] + f.params:
            where = f"{f.name}.{v.name or 'ret'}"
            if v.cls and v.cls not in classes:
                raise ApiError(f"{where}: class {v.cls!r} is not in [classes]")
        for p in f.params:
            # A const string without a length is NUL-terminated; a function
            # pointer, and an indirect draw's offset, are recorded as numbers.
            nul_terminated = p.kind == "text" and p.is_const and p.depth == 1
            as_number = p.kind == "funcptr" or p.role == "indirect"
            if p.depth > 0 and not p.length and not nul_terminated and not as_number:
                raise ApiError(f"{f.name}.{p.name}: a pointer ({p.type}) with no length rule: "
                               f"give one, or \"{UNKNOWN} why\"")
    return functions
