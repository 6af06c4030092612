"""Reads the Khronos GL registry (gl.xml) and the EGL headers into the model."""

import re
import xml.etree.ElementTree as ET

from .model import Function, Param

GLES_FEATURES = {("gles1", "1.0"), ("gles2", "2.0"), ("gles2", "3.0"), ("gles2", "3.1"),
                 ("gles2", "3.2")}
# Desktop OpenGL 1.0-4.6, compatibility profile (a superset of core).
GL_FEATURES = {("gl", v) for v in ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "3.0",
                                   "3.1", "3.2", "3.3", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5",
                                   "4.6")}
EXTENSION_APIS = {"gles2", "gl"}
# Desktop GL extensions of the vendors whose extensions Mesa and NVIDIA's
# drivers expose; the registry's others (SGI, SUN, ATI, APPLE...) are of
# drivers gone, and each function costs code in every generated table.
GL_EXTENSION_VENDORS = {"ARB", "EXT", "KHR", "NV", "NVX", "AMD", "MESA", "INTEL", "OVR"}
# Of those vendors, extensions neither exposes any more (ATI's vertex
# shaders, NVIDIA's evaluators of 2000).
GL_EXTENSIONS_LEFT_OUT = {"GL_EXT_vertex_shader", "GL_NV_evaluators"}


def _text_without_name(elem):
    parts = [elem.text or ""]
    for child in elem:
        if child.tag != "name":
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def read_gl(path):
    """Returns (typedef lines, [Function]) for GLES 1.0-3.2, desktop GL 1.0-4.6 and their
    extensions; each function's apis are those of the features and extensions requiring it."""
    root = ET.parse(path).getroot()
    typedefs = []
    for t in root.find("types"):
        name = t.get("name") or (t.findtext("name") or "")
        if t.get("api") not in (None, "gles1", "gles2") or name in ("khrplatform", "GLhandleARB"):
            continue
        if name.startswith("struct _cl"):
            typedefs.append(f"struct {name.split()[-1]};")
            continue
        text = "".join(t.itertext()).strip()
        if text.startswith("#include") or not text:
            continue
        typedefs.append(text)
    typedefs.append("typedef unsigned int GLhandleARB;")

    commands = {}
    for c in root.find("commands"):
        proto = c.find("proto")
        name = proto.findtext("name")
        params = [Param(name=p.findtext("name"), type=_text_without_name(p), len=p.get("len", ""),
                        cls=p.get("class", ""), group=p.get("group", ""))
                  for p in c.findall("param")]
        commands[name] = Function(name=name, api="gles", ret=_text_without_name(proto),
                                  params=params, ret_group=proto.get("group", ""))

    wanted = {}
    wanted_enums = {}  # name -> rank (core features before extensions)

    apis = {}  # function name -> {"gles1", "gles2", "gl"}
    es_origins = {}  # function name -> the OpenGL ES features and extensions requiring it

    def require(block_parent, origin, api, rank):
        for req in block_parent.findall("require"):
            if req.get("api") not in (None, api):
                continue
            for cmd in req.findall("command"):
                wanted.setdefault(cmd.get("name"), []).append(origin)
                apis.setdefault(cmd.get("name"), set()).add(api)
                if api != "gl":
                    es_origins.setdefault(cmd.get("name"), set()).add(origin)
            for enum in req.findall("enum"):
                name = enum.get("name")
                wanted_enums[name] = min(rank, wanted_enums.get(name, rank))

    for feat in root.findall("feature"):
        if (feat.get("api"), feat.get("number")) in GLES_FEATURES | GL_FEATURES:
            require(feat, feat.get("name"), feat.get("api"), 0)
    for ext in root.find("extensions"):
        supported = set((ext.get("supported") or "").split("|"))
        vendor = ext.get("name").split("_")[1]
        for api in EXTENSION_APIS & supported:
            if api == "gl" and (vendor not in GL_EXTENSION_VENDORS
                                or ext.get("name") in GL_EXTENSIONS_LEFT_OUT):
                continue
            # KHR/OES/EXT names read better than vendor ones for shared values.
            require(ext, ext.get("name"), api, 1 if vendor in ("KHR", "OES", "EXT") else 2)

    enums = []  # (value, name, groups, rank)
    for block in root.findall("enums"):
        if block.get("namespace") != "GL":
            continue
        for e in block.findall("enum"):
            name = e.get("name")
            if name not in wanted_enums or e.get("api") not in (None, "gles2", "gles1"):
                continue
            value = int(e.get("value"), 0)
            if value < 0 or value > 0xFFFFFFFF or e.get("type") == "ull":
                continue
            groups = [g for g in (e.get("group") or "").split(",") if g]
            enums.append((value, name, groups, wanted_enums[name]))
    read_gl.enums = enums

    functions = []
    for name, origins in wanted.items():
        f = commands[name]
        f.origins = sorted(set(origins))
        f.apis = frozenset(apis[name])
        f.es_origins = sorted(es_origins.get(name, ()))
        functions.append(f)
    return typedefs, functions


_EGL_PROTO = re.compile(r"^EGLAPI\s+(.+?)\s*EGLAPIENTRY\s+(egl\w+)\s*\((.*)\);\s*$")

# EGL has no registry len= in the headers: the sizes of pointer arguments that
# later capture code needs are stated here, by parameter name.
EGL_LENGTHS = {
    "attrib_list": "EGL_NONE-terminated",
    "attribs": "EGL_NONE-terminated",
    "configs": "num_config",  # what the call wrote (num_config is an output)
    "rects": "n_rects*4",
    "value": "1",
    "num_config": "1",
    "major": "1",
    "minor": "1",
}


def read_egl(paths):
    """Returns [Function] for every EGL prototype in the given headers."""
    functions = []
    seen = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = _EGL_PROTO.match(line.strip())
                if not m or m.group(2) in seen:
                    continue
                ret, name, args = m.groups()
                seen.add(name)
                params = []
                if args.strip() != "void":
                    for i, arg in enumerate(a.strip() for a in args.split(",")):
                        am = re.match(r"^(.*?)(\w+)$", arg)
                        ptype, pname = (am.group(1).strip(), am.group(2)) if am else (arg, f"arg{i}")
                        ptype = re.sub(r"\s*\*\s*", " *", ptype).strip()
                        params.append(Param(name=pname, type=ptype,
                                            len=EGL_LENGTHS.get(pname, "") if "*" in ptype else ""))
                functions.append(Function(name=name, api="egl", ret=ret.strip(), params=params,
                                          origins=[path.rsplit("/", 1)[-1]]))
    return functions


_EGL_DEFINE = re.compile(r"^#define\s+(EGL_\w+)\s+(0x[0-9A-Fa-f]+|\d+)\s*$")


def read_egl_enums(paths):
    """(value, name) of the EGL enum #defines, first definition of a value first."""
    enums = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = _EGL_DEFINE.match(line.strip())
                # EGL_EGLEXT_VERSION is the header's date, no enum; the feature
                # macros (EGL_VERSION_1_5 1) fall below the enums' 0x3000.
                if m and m.group(1) != "EGL_EGLEXT_VERSION":
                    enums.append((int(m.group(2), 0), m.group(1)))
    return enums
