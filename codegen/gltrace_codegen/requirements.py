"""Generates gltrace/api/requirements.h: what a call needs of a driver, for
`gltrace info --requirements` and the replay's check (src/consumers/
requirements.h). The GLES version of each function comes from the
registry's <feature>s (its origins), the extensions that define the others
are in functions.h's origins already; the parameters whose values count
against an implementation limit come from spec/api.toml's `limit`."""

import re

from . import api
from .emit import HEADER

_CORE = re.compile(r"^GL_(?:ES_VERSION_|VERSION_ES_CM_)(\d+)_(\d+)$")


def es_version(f):
    """(major, minor) of the lowest GLES version that defines f; None for an
    extension's function or an EGL one."""
    versions = [(int(m[1]), int(m[2])) for m in map(_CORE.match, f.es_origins) if m]
    return min(versions) if versions else None


def _rule_name(rule):
    return "k" + "".join(part.capitalize() for part in rule.split("_"))


def requirements_h(functions, limit):
    by_id = {f.id: f for f in functions}
    # Per id: the lowest GLES version, and the GLES extensions of a function
    # of none (EGL's and unused ids have neither).
    versions, extensions = [], []
    for i in range(limit):
        f = by_id.get(i)
        v = es_version(f) if f and f.api == "gles" else None
        versions.append(f"    {v[0] * 10 + v[1] if v else 0},  // {f.name if f else '(unused)'}")
        names = " ".join(f.es_origins) if f and f.api == "gles" and not v else ""
        extensions.append(f'    "{names}",')
    rules = ["at_most", "below"] + sorted(api.LIMIT_RULES)
    out = [HEADER, "#pragma once", "", "#include <cstdint>", "",
           "#include \"gltrace/api/functions.h\"", "", "namespace gltrace::api {", "",
           "// The lowest GLES version that defines each function, as major * 10 +",
           "// minor (GL_VERSION_ES_CM_1_0 is 10); 0 for an extension's function and",
           "// for EGL. Indexed by FunctionId.",
           "inline constexpr uint8_t kFunctionEsVersion[kFunctionIdLimit] = {"]
    out += versions
    out += ["};", "",
            "// The OpenGL ES extensions that define a function of no GLES version,",
            "// space-separated (any one serves); \"\" for the others. (Desktop GL's",
            "// versions and extensions are not among a trace's requirements yet.)",
            "inline constexpr const char* kFunctionEsExtensions[kFunctionIdLimit] = {"]
    out += extensions
    out += ["};", "",
            "// How a parameter's value counts against an implementation limit",
            "// (spec/api.toml's limit): kAtMost, kBelow against `pname`; the others",
            "// are rules of src/consumers/requirements.cpp, by the call's other",
            "// arguments.",
            "enum class LimitRule : uint8_t {"]
    out += [f"  {_rule_name(r)}," for r in rules]
    out += ["};", "",
            "struct LimitParam {",
            "  uint32_t function;  // FunctionId",
            "  uint32_t param;     // the parameter's index",
            "  LimitRule rule;",
            "  uint32_t pname;  // kAtMost, kBelow: the GL_MAX_* enum",
            "};", "",
            "// Every parameter with a limit, by function id.",
            "inline constexpr LimitParam kLimitParams[] = {"]
    for f in sorted(functions, key=lambda f: f.id):
        for i, p in enumerate(f.params):
            if not p.limit:
                continue
            rule, pname, name = p.limit
            comment = f"{f.name}.{p.name}" + (f" {name}" if name else "")
            out.append(f"    {{kFn_{f.name}, {i}, LimitRule::{_rule_name(rule)}, "
                       f"{pname or 0}}},  // {comment}")
    out += ["};", "", "}  // namespace gltrace::api", ""]
    return "\n".join(out)
