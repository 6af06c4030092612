"""The state worker's table (spec/gles_state.json) as C++ data: each entry's
enum value from the registry, its query, kind and lowest GLES version, and the
calls that write the pipeline group back (setters). A name the registry lacks,
an unknown group, query, kind or class, a setter that does not fit its function
or a pipeline entry no setter writes fails the build."""

import json
import re

GROUPS = {"egl": "kEgl", "bindings": "kBindings", "pipeline": "kPipeline",
          "texture_unit": "kTextureUnit", "texture": "kTexture",
          "vertex_attrib": "kVertexAttrib", "attachment": "kAttachment",
          "indexed_buffer": "kIndexedBuffer",
          "program": "kProgram", "shader": "kShader"}
QUERIES = {"integer": "kInteger", "float": "kFloat", "boolean": "kBoolean",
           "enabled": "kEnabled", "integer_indexed": "kIntegerIndexed",
           "egl_context": "kEglContext", "egl_draw": "kEglDraw", "egl_read": "kEglRead",
           "egl_config": "kEglConfig", "tex_parameter": "kTexParameter",
           "tex_level_parameter": "kTexLevelParameter", "vertex_attrib": "kVertexAttrib",
           "vertex_attrib_pointer": "kVertexAttribPointer", "attachment": "kAttachment",
           "program": "kProgram", "shader": "kShader"}
KINDS = {"int": "kInt", "float": "kFloat", "bool": "kBool", "enum": "kEnum",
         "egl_enum": "kEglEnum", "object": "kObject", "attachment_object": "kAttachmentObject"}
# glreplay's ObjectClass (src/glreplay/session.h).
CLASSES = {"buffer": "kBuffer", "texture": "kTexture", "program": "kProgram",
           "renderbuffer": "kRenderbuffer", "sampler": "kSampler",
           "framebuffer": "kFramebuffer", "vertex_array": "kVertexArray",
           "transform_feedback": "kTransformFeedback", "query": "kQuery",
           "program_pipeline": "kProgramPipeline"}
EGL_QUERIES = {"egl_context", "egl_draw", "egl_read", "egl_config"}
# Where a pipeline entry that the snapshot's context pass leaves alone is
# written back instead ("set" of an entry).
SET_ELSEWHERE = {"framebuffer"}
# How the snapshot's context pass writes an entry back: glreplay's StateSet.
SET_NOT_BY_CONTEXT, SET_ENABLE, SET_SETTER = "kNotByContext", "kEnable", "kSetter"
FLOAT_TYPES = {"GLfloat", "GLclampf"}
_CALL = re.compile(r"^\s*(gl\w+)\s*\((.*)\)\s*$")
_CORE = re.compile(r"^GL_ES_VERSION_(\d+)_(\d+)$")


class StateError(Exception):
    pass


def _version(text, where):
    try:
        major, minor = (int(p) for p in text.split("."))
    except ValueError:
        raise StateError(f"{where}: since wants MAJOR.MINOR, not {text!r}") from None
    return major, minor


READS = {"float": "kFloat", "int": "kInt", "uint": "kUint", "bool": "kBool"}


def read(path, gl_enums, egl_enums, functions):
    """The entries of the table, its uniform types and its setters, checked.
    gl_enums: registry (value, name, groups, rank); egl_enums: (value, name);
    functions: the API model's [Function]."""
    with open(path, encoding="utf-8") as f:
        table = json.load(f)
    gl_values = {name: value for value, name, _, _ in gl_enums}
    gl_groups = {g for _, _, groups, _ in gl_enums for g in groups}
    egl_values = {}
    for value, name in egl_enums:
        egl_values.setdefault(name, value)
    entries = []
    seen = set()
    for i, e in enumerate(table["state"]):
        where = f"{path}: entry {i} ({e.get('key', '?')})"
        for field in ("group", "key", "enum", "get", "kind"):
            if field not in e:
                raise StateError(f"{where}: no {field}")
        if e["group"] not in GROUPS:
            raise StateError(f"{where}: unknown group {e['group']!r}")
        if e["get"] not in QUERIES:
            raise StateError(f"{where}: unknown get {e['get']!r}")
        if e["kind"] not in KINDS:
            raise StateError(f"{where}: unknown kind {e['kind']!r}")
        values = egl_values if e["get"] in EGL_QUERIES else gl_values
        if e["enum"] not in values:
            raise StateError(f"{where}: {e['enum']} is not in the registry")
        target = 0
        if "target" in e:
            if e["target"] not in gl_values:
                raise StateError(f"{where}: target {e['target']} is not in the registry")
            target = gl_values[e["target"]]
        limit = 0
        if "limit" in e:
            if e["limit"] not in gl_values:
                raise StateError(f"{where}: limit {e['limit']} is not in the registry")
            limit = gl_values[e["limit"]]
        if (e["group"] == "indexed_buffer") != (limit != 0 and target != 0):
            raise StateError(f"{where}: a target and a limit are for (and needed by) indexed_buffer")
        group = e.get("enum_group", "")
        if group and group not in gl_groups:
            raise StateError(f"{where}: enum group {group!r} is not in the registry")
        cls = e.get("class")
        if (e["kind"] == "object") != (cls is not None):
            raise StateError(f"{where}: a class is for (and needed by) kind object")
        if cls is not None and cls not in CLASSES:
            raise StateError(f"{where}: unknown class {cls!r}")
        count = e.get("count", 1)
        if not isinstance(count, int) or not 1 <= count <= 16:
            raise StateError(f"{where}: count wants 1 to 16")
        if (e["group"], e["key"], target) in seen:
            raise StateError(f"{where}: {e['group']}.{e['key']} twice")
        seen.add((e["group"], e["key"], target))
        major, minor = _version(e.get("since", "2.0"), where)
        if "set" in e and e["group"] != "pipeline":
            raise StateError(f"{where}: set is for pipeline entries")
        if "set" in e and e["set"] not in SET_ELSEWHERE:
            raise StateError(f"{where}: set wants one of {', '.join(sorted(SET_ELSEWHERE))}")
        set_by = SET_NOT_BY_CONTEXT
        if e["group"] == "pipeline" and "set" not in e:
            set_by = SET_ENABLE if e["get"] == "enabled" else SET_SETTER
        entries.append({"group": GROUPS[e["group"]], "key": e["key"], "pname": values[e["enum"]],
                        "enum": e["enum"], "query": QUERIES[e["get"]], "count": count,
                        "kind": KINDS[e["kind"]], "enum_group": group,
                        "cls": CLASSES.get(cls, "kCount"), "target": target,
                        "limit": limit, "major": major, "minor": minor, "set": set_by})
    uniform_types = []
    for i, u in enumerate(table.get("uniform_types", [])):
        where = f"{path}: uniform type {i} ({u.get('type', '?')})"
        if u.get("type") not in gl_values:
            raise StateError(f"{where}: not in the registry")
        if u.get("read") not in READS:
            raise StateError(f"{where}: read wants one of {', '.join(READS)}")
        if not isinstance(u.get("components"), int) or not 1 <= u["components"] <= 16:
            raise StateError(f"{where}: components wants 1 to 16")
        uniform_types.append({"type": u["type"], "value": gl_values[u["type"]],
                              "components": u["components"], "read": READS[u["read"]]})
    setters = _setters(path, table.get("setters", []), entries, gl_values, functions)
    return entries, uniform_types, setters


def _core_version(function):
    """The lowest GLES 2.0+ version that has `function`, None if only extensions do."""
    versions = [(int(m[1]), int(m[2])) for m in map(_CORE.match, function.origins) if m]
    return min(versions) if versions else None


def _setters(path, texts, entries, gl_values, functions):
    """The setters, each {"text", "function", "args"}: an arg is ("entry",
    index in entries, component) or ("constant", value, name). Each is checked
    against its function's parameters; every kSetter entry must be set by
    exactly one of them."""
    gles = {f.name: f for f in functions if f.api == "gles"}
    pipeline = {e["key"]: i for i, e in enumerate(entries) if e["group"] == "kPipeline"}
    group_names = {value: name for name, value in GROUPS.items()}
    other_groups = {e["key"]: group_names[e["group"]] for e in entries
                    if e["group"] != "kPipeline"}
    set_by = {}  # entry index -> the setter's text
    setters = []
    for n, text in enumerate(texts):
        where = f"{path}: setter {n} ({text!r})"
        match = _CALL.match(text) if isinstance(text, str) else None
        if match is None:
            raise StateError(f"{where}: wants 'glName(arg, ...)'")
        name = match[1]
        if name not in gles:
            raise StateError(f"{where}: {name} is no GLES function of the registry")
        function = gles[name]
        core = _core_version(function)
        if core is None:
            raise StateError(f"{where}: {name} is in no core GLES version (only extensions)")
        params = function.params
        args, versions = [], set()
        for word in (w.strip() for w in match[2].split(",")) if match[2].strip() else ():
            if re.fullmatch(r"\d+", word):
                args.append(("constant", int(word), word))
                continue
            if word.startswith("GL_"):
                if word not in gl_values:
                    raise StateError(f"{where}: {word} is not in the registry")
                args.append(("constant", gl_values[word], word))
                continue
            if word not in pipeline:
                if word in other_groups:
                    raise StateError(f"{where}: {word} is an entry of {other_groups[word]}, "
                                     "not of the pipeline group")
                raise StateError(f"{where}: {word} is no pipeline entry's key")
            index = pipeline[word]
            e = entries[index]
            if e["set"] != SET_SETTER:
                why = ("glEnable / glDisable set it" if e["set"] == SET_ENABLE
                       else "it is marked set elsewhere")
                raise StateError(f"{where}: {word} takes no setter: {why}")
            if index in set_by:
                raise StateError(f"{where}: {word} is set by {set_by[index]!r} already")
            set_by[index] = text
            versions.add((e["major"], e["minor"]))
            args += [("entry", index, c) for c in range(e["count"])]
        if len(args) != len(params):
            raise StateError(f"{where}: {name} takes {len(params)} parameters, "
                             f"the arguments fill {len(args)}")
        if not versions:
            raise StateError(f"{where}: sets no entry")
        if len(versions) > 1:
            raise StateError(f"{where}: its entries have different since")
        since = versions.pop()
        if core > since:
            raise StateError(f"{where}: {name} is GLES {core[0]}.{core[1]}, "
                             f"its entries since {since[0]}.{since[1]}")
        for i, (arg, param) in enumerate(zip(args, params)):
            wants_float = param.type.strip() in FLOAT_TYPES
            is_float = arg[0] == "entry" and entries[arg[1]]["kind"] == "kFloat"
            if param.is_pointer or wants_float != is_float:
                what = entries[arg[1]]["key"] if arg[0] == "entry" else arg[2]
                raise StateError(f"{where}: parameter {i} ({param.type.strip()} {param.name}) "
                                 f"cannot take {what}")
        setters.append({"text": text, "function": name, "args": args})
    for i, e in enumerate(entries):
        if e["set"] == SET_SETTER and i not in set_by:
            raise StateError(f"{path}: pipeline entry {e['key']} is set by no setter (add one, "
                             "or mark it set: where it is written back)")
    return setters


def state_table_inc(entries, uniform_types, setters, header):
    """The entries as `StateEntry kStateTable[]`, the uniform types as
    `UniformType kUniformTypes[]`, the setters as `StateSetter kStateSetters[]`
    over `SetterArg kSetterArgs[]` (types in glstate/state_table.h; function
    ids from gltrace/api/functions.h)."""
    out = [header, "// From spec/gles_state.json.", "", "const StateEntry kStateTable[] = {"]
    for e in entries:
        out.append(f"    {{StateGroup::{e['group']}, \"{e['key']}\", 0x{e['pname']:X}u /* {e['enum']} */, "
                   f"StateQuery::{e['query']}, {e['count']}, StateKind::{e['kind']}, "
                   f"\"{e['enum_group']}\", ObjectClass::{e['cls']}, 0x{e['target']:X}u, "
                   f"0x{e['limit']:X}u, {e['major']}, {e['minor']}, StateSet::{e['set']}}},")
    out += ["};", "", "const UniformType kUniformTypes[] = {"]
    for u in uniform_types:
        out.append(f"    {{0x{u['value']:X}u /* {u['type']} */, {u['components']}, "
                   f"UniformRead::{u['read']}}},")
    # std::array: a table may have no setters, and a C++ array cannot be empty.
    count = sum(len(s["args"]) for s in setters)
    out += ["};", "", f"const std::array<SetterArg, {count}> kSetterArgs = {{{{"]
    starts, start = [], 0
    for s in setters:
        starts.append(start)
        start += len(s["args"])
        out.append(f"    // {s['text']}")
        for kind, value, component in s["args"]:
            if kind == "entry":
                out.append(f"    {{SetterArg::kEntry, {value}, {component}, 0}},  "
                           f"// {entries[value]['key']}")
            else:
                out.append(f"    {{SetterArg::kConstant, 0, 0, 0x{value:X}u}},  // {component}")
    out += ["}};", "", f"const std::array<StateSetter, {len(setters)}> kStateSetters = {{{{"]
    for s, start in zip(setters, starts):
        out.append(f"    {{api::kFn_{s['function']}, "
                   f"{{kSetterArgs.data() + {start}, {len(s['args'])}}}}},")
    out += ["}};", ""]
    return "\n".join(out)
