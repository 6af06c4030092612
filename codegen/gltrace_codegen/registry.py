"""Reads the Khronos GL registry (gl.xml), its GLX registry (glx.xml) and the EGL headers
into the model."""

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


# GLX: 1.0-1.4 and the extensions of glx.xml but those of window systems and
# hardware gone (SGIX's and SUN's, 3dfx) and NVIDIA's video and swap-group
# ones, whose devices no replay has; AMD's GPU association is AMD's old
# proprietary driver's only.
GLX_EXTENSIONS_LEFT_OUT = {
    "GLX_SGIX_dmbuffer", "GLX_SGIX_hyperpipe", "GLX_SGIX_video_resize", "GLX_SGIX_video_source",
    "GLX_SGIX_swap_barrier", "GLX_SGIX_swap_group", "GLX_SGIX_fbconfig", "GLX_SGIX_pbuffer",
    "GLX_SUN_get_transparent_index", "GLX_MESA_agp_offset", "GLX_MESA_set_3dfx_mode",
    "GLX_MESA_pixmap_colormap", "GLX_MESA_release_buffers", "GLX_SGI_cushion", "GLX_NV_video_out",
    "GLX_NV_video_capture", "GLX_NV_present_video", "GLX_NV_swap_group", "GLX_NV_copy_buffer",
    "GLX_NV_copy_image", "GLX_AMD_gpu_association"}

# The X and GLX types of those functions, declared so that the system's
# <X11/Xlib.h> and <GL/glx.h> may come before or after (the same typedefs;
# Xlib's Bool is a macro, Xutil's XVisualInfo an unnamed struct: ours only
# where they are not defined yet).
GLX_TYPEDEFS = [
    "struct _XDisplay;", "typedef struct _XDisplay Display;",
    "typedef Display *GLXDisplayPointer;",
    "typedef unsigned long XID;", "typedef XID Window;", "typedef XID Pixmap;",
    "typedef XID Font;", "typedef XID GLXDrawable;", "typedef XID GLXWindow;",
    "typedef XID GLXPixmap;", "typedef XID GLXPbuffer;", "typedef XID GLXContextID;",
    "typedef struct __GLXcontextRec *GLXContext;",
    "typedef struct __GLXFBConfigRec *GLXFBConfig;",
    "typedef void (*__GLXextFuncPtr)(void);",
    "#ifndef Bool", "typedef int Bool;", "#endif",
    "#ifndef _X11_XUTIL_H_", "struct gltrace_XVisualInfo;",
    "typedef struct gltrace_XVisualInfo XVisualInfo;", "#endif",
    "typedef XVisualInfo *GLXVisualPointer;"]

# Pointers GLX hands around as handles (an X connection, a visual whose
# attributes the calls that use it record): recorded as their addresses.
GLX_HANDLE_POINTERS = {"Display *": "GLXDisplayPointer", "XVisualInfo *": "GLXVisualPointer"}


def _glx_type(text):
    return GLX_HANDLE_POINTERS.get(text, text)


def read_glx(path):
    """Returns [Function] for GLX 1.0-1.4 and the extensions kept (GLX_EXTENSIONS_LEFT_OUT)."""
    root = ET.parse(path).getroot()
    wanted = {}
    for feat in root.findall("feature"):
        for cmd in feat.findall("require/command"):
            wanted.setdefault(cmd.get("name"), []).append(feat.get("name"))
    for ext in root.find("extensions"):
        if ext.get("name") in GLX_EXTENSIONS_LEFT_OUT:
            continue
        for cmd in ext.findall("require/command"):
            wanted.setdefault(cmd.get("name"), []).append(ext.get("name"))
    functions = []
    for c in root.find("commands"):
        proto = c.find("proto")
        name = proto.findtext("name")
        if name not in wanted:
            continue
        params = [Param(name=p.findtext("name"), type=_glx_type(_text_without_name(p)))
                  for p in c.findall("param")]
        functions.append(Function(name=name, api="glx", ret=_glx_type(_text_without_name(proto)),
                                  params=params, origins=sorted(set(wanted[name]))))
    return functions
