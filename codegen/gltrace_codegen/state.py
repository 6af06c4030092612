"""The state worker's table (spec/gles_state.json) as C++ data: each entry's
enum value from the registry, its query, kind and lowest GLES version. A name
the registry lacks, an unknown group, query, kind or class fails the build."""

import json

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


class StateError(Exception):
    pass


def _version(text, where):
    try:
        major, minor = (int(p) for p in text.split("."))
    except ValueError:
        raise StateError(f"{where}: since wants MAJOR.MINOR, not {text!r}") from None
    return major, minor


READS = {"float": "kFloat", "int": "kInt", "uint": "kUint", "bool": "kBool"}


def read(path, gl_enums, egl_enums):
    """The entries of the table and its uniform types, checked. gl_enums:
    registry (value, name, groups, rank); egl_enums: (value, name)."""
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
        entries.append({"group": GROUPS[e["group"]], "key": e["key"], "pname": values[e["enum"]],
                        "enum": e["enum"], "query": QUERIES[e["get"]], "count": count,
                        "kind": KINDS[e["kind"]], "enum_group": group,
                        "cls": CLASSES.get(cls, "kCount"), "target": target,
                        "limit": limit, "major": major, "minor": minor})
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
    return entries, uniform_types


def state_table_inc(entries, uniform_types, header):
    """The entries as `StateEntry kStateTable[]`, the uniform types as
    `UniformType kUniformTypes[]` (types in glreplay/state_table.h)."""
    out = [header, "// From spec/gles_state.json.", "", "const StateEntry kStateTable[] = {"]
    for e in entries:
        out.append(f"    {{StateGroup::{e['group']}, \"{e['key']}\", 0x{e['pname']:X}u /* {e['enum']} */, "
                   f"StateQuery::{e['query']}, {e['count']}, StateKind::{e['kind']}, "
                   f"\"{e['enum_group']}\", ObjectClass::{e['cls']}, 0x{e['target']:X}u, "
                   f"0x{e['limit']:X}u, {e['major']}, {e['minor']}}},")
    out += ["};", "", "const UniformType kUniformTypes[] = {"]
    for u in uniform_types:
        out.append(f"    {{0x{u['value']:X}u /* {u['type']} */, {u['components']}, "
                   f"UniformRead::{u['read']}}},")
    out += ["};", ""]
    return "\n".join(out)
