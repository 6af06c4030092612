"""gen.py --explain FUNCTION: what the model says of one function (the
registry's types merged with spec/api.toml) and where the generated files
use it, so that a reader finds a function's whole description in one place."""

import re

from . import roles


def _value(v):
    """A parameter's or the result's description, one line."""
    parts = [f"kind {v.kind}" + (f"({v.cls})" if v.cls else "")]
    if v.rep:
        parts.append(f"recorded as {v.rep}")
    if v.group:
        parts.append(f"group {v.group}")
    if v.length:
        # len=: the registry's (EGL's: [param_defaults.egl]); else the function's block.
        origin = "len=" if v.length == v.len else "spec/api.toml"
        parts.append(f"length {v.length!r} ({origin}"
                     + (f"; registry len= {v.len!r})" if v.len and v.len != v.length else ")"))
    for key in ("role", "effect", "lengths"):
        if getattr(v, key):
            parts.append(f"{key} {getattr(v, key)}")
    if v.interface:
        what, x = v.interface
        parts.append(f"interface {x if what == 'enum' else f'of parameter {x}'}")
    if v.array:
        parts.append(f"array {v.array[0]}")
    if v.offset_in:
        parts.append(f"offset into {v.offset_in[0]} when bound")
    if v.null_ok:
        parts.append("NULL allowed")
    if v.bytes:
        parts.append(f"{v.bytes} bytes")
    return ", ".join(parts)


def _block(name, table):
    """Where spec/api.toml speaks of the function: its one block, or None."""
    for i, group in enumerate(table.get("groups", [])):
        if name in group.get("functions", []):
            others = len(group["functions"]) - 1
            return f"[[groups]] #{i}" + (f" (with {others} other function{'s' * (others > 1)})"
                                         if others else "")
    if name in table.get("functions", {}):
        return f"[functions.{name}]"
    return None


def _replay(f):
    if f.replay_skip:
        return f"skipped: {f.replay_skip}"
    if f.replay_unsupported:
        return f"unsupported: {f.replay_unsupported}"
    if "replay" in f.custom:
        return f"by hand (src/glreplay/egl_calls.cpp): {f.custom['replay']}"
    return "generated"


def uses(name, generated):
    """[(path, [identifiers])] of the generated files that name the function:
    its id, its wrappers, hooks and checks, its name string."""
    word = re.compile(r"\b\w*" + re.escape(name) + r"(?:_[a-z]\w*)?\b")
    out = []
    for path in sorted(generated):
        found = sorted(set(word.findall(generated[path])))
        if found:
            out.append((path, found))
    return out


def explain(f, table, generated):
    """The text --explain prints for function f of the loaded model."""
    lines = [f"{f.name} ({f.api}, id {f.id}): {f.ret} {f.name}({f.param_list()})",
             f"  defined by: {' '.join(f.origins) or '-'}",
             "  spec/api.toml: "
             + (_block(f.name, table) or "no block (the registry and defaults only)"),
             f"  roles: {', '.join(sorted(f.roles)) or '-'}",
             f"  run-time flags (gltrace/api/roles.h): "
             f"{' | '.join('kRole' + n for n in roles.flags_of(f)) or '-'}"
             + (f", object class {roles.object_class(f)}" if roles.object_class(f) else "")]
    if f.hooks:
        hooks = [f"{k} = {', '.join(f.hooks[k])}" for k in ("pre", "post", "done") if f.hooks[k]]
        hooks += [f"{k} = {f.hooks[k]}" for k in ("idle", "idle_done", "state") if f.hooks.get(k)]
        if f.hooks.get("record"):
            hooks.append("record = true")
        lines.append(f"  trace hooks (src/trace/hooks/): {'; '.join(hooks)} "
                     f"(why: {f.hooks['why']})")
    else:
        lines.append("  trace hooks: - (the generated wrapper records it all)")
    if "export" in f.custom:
        lines.append(f"  exported by hand: {f.custom['export']}")
    lines.append(f"  replay: {_replay(f)}")
    if not f.returns_void:
        lines.append(f"  result: {f.ret}: {_value(f.result)}")
    lines.append("  parameters:" if f.params else "  parameters: none")
    for p in f.params:
        lines.append(f"    {p.name}: {p.type}: {_value(p)}")
    lines.append("  generated from it:")
    for path, found in uses(f.name, generated):
        lines.append(f"    {path}: {', '.join(found)}")
    return "\n".join(lines) + "\n"
