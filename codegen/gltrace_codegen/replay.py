"""Generates glreplay's per-function replay code: for every function, turn
the recorded Values back into C arguments (remapping object names, uniform
and attribute locations and EGL handles on the way) and call the real driver.

The conversions themselves live in hand-written code (src/glreplay/args.h):
the generated code only picks, per parameter, which one applies, from the
C type, the registry's class= and len=, and the parameter's role. Functions
in CUSTOM are written by hand (src/glreplay/egl_calls.cpp), those in SKIP
are not replayed at all (their results are the trace's, not state), those in
UNSUPPORTED fail with the reason given."""

import re

from .emit import HEADER
from .trace import DOUBLE, FLOAT, FUNCPTR, HANDLE, SINT, TEXT_BASES, UINT, _base

# Replayed by hand: the EGL calls that set up displays, configs, surfaces,
# contexts and frames, whose native handles and sizes belong to the replay.
CUSTOM = {
    "eglGetDisplay", "eglGetPlatformDisplay", "eglGetPlatformDisplayEXT", "eglInitialize",
    "eglChooseConfig", "eglGetConfigs", "eglGetConfigAttrib",
    "eglCreateWindowSurface", "eglCreatePlatformWindowSurface",
    "eglCreatePlatformWindowSurfaceEXT", "eglCreatePbufferSurface", "eglCreateContext",
    "eglMakeCurrent", "eglDestroyContext", "eglDestroySurface",
    "eglSwapBuffers", "eglSwapBuffersWithDamageKHR", "eglSwapBuffersWithDamageEXT",
    "eglCreateImage", "eglCreateImageKHR",
}

# What the app asked and the replay does not need: the answers were the
# traced process's (addresses, strings, the error state), and running them
# would change nothing but time. The display is the replay's own to end.
SKIP = {
    "eglGetProcAddress", "eglGetError", "eglQueryString", "eglGetCurrentContext",
    "eglGetCurrentDisplay", "eglGetCurrentSurface", "eglQueryAPI", "eglTerminate",
    "glGetError", "glGetString", "glGetStringi", "glGetPointerv", "glGetPointervKHR",
    "glDebugMessageCallback", "glDebugMessageCallbackKHR",
}

UNSUPPORTED = {
    "eglCreatePixmapSurface": "pixmap surfaces are not supported yet",
    "eglCreatePlatformPixmapSurface": "pixmap surfaces are not supported yet",
    "eglCreatePlatformPixmapSurfaceEXT": "pixmap surfaces are not supported yet",
    "eglCreatePbufferFromClientBuffer": "client-buffer pbuffers are not supported yet",
    "eglCopyBuffers": "copying to native pixmaps is not supported",
}

# The registry's object classes, as the hand-written ObjectClass enum names
# them. Programs and shaders share one namespace in GL.
CLASSES = {
    "buffer": "kBuffer", "texture": "kTexture", "program": "kProgram", "shader": "kProgram",
    "program pipeline": "kProgramPipeline", "framebuffer": "kFramebuffer",
    "renderbuffer": "kRenderbuffer", "vertex array": "kVertexArray", "query": "kQuery",
    "sampler": "kSampler", "transform feedback": "kTransformFeedback", "sync": "kSync",
}

# Return values that name a new object (the model keeps no class for them).
RETURN_CLASSES = {
    "glCreateProgram": "program", "glCreateShader": "shader",
    "glCreateShaderProgramv": "program", "glCreateShaderProgramvEXT": "program",
    "glFenceSync": "sync", "glFenceSyncAPPLE": "sync",
}

# EGL handle types and the maps they go through.
EGL_HANDLES = {
    "EGLDisplay": "kDisplay", "EGLSurface": "kSurface", "EGLContext": "kContext",
    "EGLConfig": "kConfig", "EGLSync": "kEglSync", "EGLSyncKHR": "kEglSync",
    "EGLImage": "kImage", "EGLImageKHR": "kImage", "GLeglImageOES": "kImage",
}

_UNIFORM_FN = re.compile(r"^gl(Program)?Uniform|^glGetn?Uniform[fiu]i?v")
_ATTRIB_FN = re.compile(r"^gl(Enable|Disable)VertexAttribArray|^glVertexAttrib|^glGetVertexAttrib")
_DRAW_FN = re.compile(r"^glDraw(Arrays|Elements|RangeElements)")
# Calls whose Call.buffer_writes must land in the replay's mapping first.
_FLUSH_FN = {"glUnmapBuffer", "glUnmapBufferOES", "glFlushMappedBufferRange",
             "glFlushMappedBufferRangeEXT"}
_MAP_FN = {"glMapBufferRange", "glMapBufferRangeEXT", "glMapBufferOES"}
_UNMAP_FN = {"glUnmapBuffer", "glUnmapBufferOES"}
_VERTEX_POINTER_FN = {"glVertexAttribPointer", "glVertexAttribIPointer"}
# Draw pointers that are offsets whenever this binding is non-zero:
# GL_ELEMENT_ARRAY_BUFFER_BINDING, GL_DRAW_INDIRECT_BUFFER_BINDING.
_BOUND_OFFSETS = {"indices": "0x8895", "indirect": "0x8F43"}

# Outputs larger than this are refused (a hostile trace must not make the
# replay allocate without bound).
MAX_OUTPUT_BYTES = 256 << 20


def _ctype(t):
    return re.sub(r"\bconst\b", "", t).strip()


def _len_expr(f, p, locals_):
    """A lower bound for an output's element count from the call's scalar
    arguments (as the replay passes them), or None: what the driver may write."""
    tokens = re.findall(r"[A-Za-z_]\w*|\d+|[*/+()-]|\s+", p.len)
    if not p.len or "".join(tokens) != p.len:
        return None
    out = []
    for tok in tokens:
        if tok.strip() == "":
            continue
        if tok[0].isalpha() or tok[0] == "_":
            q = next((q for q in f.params if q.name == tok), None)
            # Only parameters converted before this one (and no pointers).
            if q is None or "*" in q.type or f.params.index(q) > f.params.index(p):
                return None
            out.append(f"static_cast<int64_t>({locals_[q.name]})")
        else:
            out.append(tok)
    return " ".join(out)


_GL_UNIFORM = "0x92E1"
_GL_UNIFORM_BLOCK = "0x92E2"
_GL_SHADER_STORAGE_BLOCK = "0x92E6"


def _resource_interface(f, p):
    """The program interface whose driver-assigned index parameter p is
    (an expression), or None."""
    if f.params[0].name != "program":
        return None
    if p.name == "uniformBlockIndex":
        return _GL_UNIFORM_BLOCK
    if p.name == "storageBlockIndex":
        return _GL_SHADER_STORAGE_BLOCK
    if p.name == "index" and f.name in ("glGetProgramResourceiv", "glGetProgramResourceName"):
        return "static_cast<uint32_t>(p1)"  # programInterface
    return None


def _scalar(f, i, p, t):
    """The conversion of a scalar (or handle) parameter, or None."""
    if p.cls in CLASSES and p.cls != "sync" and t in UINT | SINT:
        return f"static_cast<{t}>(a.name({i}, ObjectClass::{CLASSES[p.cls]}))"
    if p.name == "location" and _UNIFORM_FN.match(f.name):
        program = next((j for j, q in enumerate(f.params) if q.name == "program"), -1)
        return f"static_cast<{t}>(a.uniform_location({i}, {program}))"
    if p.name in ("index", "attribindex") and _ATTRIB_FN.match(f.name):
        return f"static_cast<{t}>(a.attrib_location({i}))"
    interface = _resource_interface(f, p)
    if interface is not None:
        return f"static_cast<{t}>(a.resource_index({i}, {interface}, 0))"
    if t in UINT:
        return f"static_cast<{t}>(a.u({i}))"
    if t in SINT:
        return f"static_cast<{t}>(a.s({i}))"
    if t in FLOAT:
        return f"static_cast<{t}>(a.f({i}))"
    if t in DOUBLE:
        return f"static_cast<{t}>(a.d({i}))"
    if t == "GLsync":
        return f"a.handle<{t}>({i}, HandleKind::kSync)"
    if t in EGL_HANDLES:
        return f"a.handle<{t}>({i}, HandleKind::{EGL_HANDLES[t]})"
    if t in HANDLE:
        return f"a.handle<{t}>({i}, HandleKind::kRaw)"
    if t in FUNCPTR:
        return "nullptr"
    return None


def _param(f, i, p, locals_, post):
    """The C++ expression for parameter i; may append statements to post."""
    t = _ctype(p.type)
    if "*" not in p.type:
        s = _scalar(f, i, p, t)
        return s if s is not None else f'a.unsupported({i}, "type {t}")'
    base, depth = _base(p.type)
    is_const = p.type.strip().startswith("const")
    if base in FUNCPTR:
        return "nullptr"
    if depth > 1:
        if is_const and base in TEXT_BASES:
            # Some prototypes lack the inner const (const GLchar **).
            return f"const_cast<{p.type}>(a.strings({i}))"
        if is_const:
            return f'a.unsupported({i}, "pointer to pointers")'
        return f"a.out<{base}*>({i}, 1)"
    if is_const:
        if f.name in _VERTEX_POINTER_FN and p.name == "pointer":
            # Remembered for client arrays; a client address becomes NULL.
            normalized = "p3" if f.name == "glVertexAttribPointer" else "0"
            stride = "p4" if f.name == "glVertexAttribPointer" else "p3"
            integer = "false" if f.name == "glVertexAttribPointer" else "true"
            return f"a.vertex_pointer({i}, p0, p1, p2, {normalized}, {stride}, {integer})"
        if base in TEXT_BASES:
            return f"a.text({i})"
        if base == "void" and p.name in _BOUND_OFFSETS and f.name.startswith("glDraw"):
            # Sized by COMPSIZE, so not captured unless the custom wrapper
            # did: with a buffer bound in the replay, the pointer is an offset.
            return f"a.bound_offset({i}, {_BOUND_OFFSETS[p.name]})"
        if base == "void":
            return f"a.bytes({i})"
        if p.cls in CLASSES and base in UINT | SINT:
            return f"a.names<{base}>({i}, ObjectClass::{CLASSES[p.cls]})"
        if base in UINT | SINT | FLOAT | DOUBLE | HANDLE:
            return f"a.array<{base}>({i})"
        return f'a.unsupported({i}, "elements of type {base}")'
    # A non-const pointer is an output: scratch memory at least as large as
    # what the call may write.
    elem = "uint8_t" if base == "void" else base
    if elem not in UINT | SINT | FLOAT | DOUBLE | HANDLE | TEXT_BASES | {"uint8_t"}:
        return f'a.unsupported({i}, "output of type {base}")'
    count = _len_expr(f, p, locals_) or "0"
    if p.cls in CLASSES and f.name.startswith("glGen") and p.cls != "sync":
        post.append(f"a.define_names({i}, ObjectClass::{CLASSES[p.cls]}, p{i});")
    ptr = f"a.out<{elem}>({i}, {count})"
    return f"static_cast<void*>({ptr})" if base == "void" else ptr


def _generic(f):
    locals_ = {p.name: f"p{i}" for i, p in enumerate(f.params)}
    pre, post = [], []
    lines = [f"bool replay_{f.name}(Session& s, Args& a) {{",
             f"  auto fn = reinterpret_cast<{f.pfn()}>(s.proc({f.id}));",
             "  if (fn == nullptr) return a.missing();"]
    for i, p in enumerate(f.params):
        expr = _param(f, i, p, locals_, post)
        decl_type = p.type if "*" in p.type else _ctype(p.type)
        lines.append(f"  {decl_type} p{i} = {expr};")
    if _DRAW_FN.match(f.name):
        pre.append("if (!a.set_client_arrays()) return false;")
    if f.name in _FLUSH_FN:
        pre.append("a.write_mapped_buffer(static_cast<uint32_t>(p0));")
    lines.append("  if (!a.ok()) return false;")
    lines += [f"  {s}" for s in pre]
    call = f"fn({', '.join(f'p{i}' for i in range(len(f.params)))})"
    if f.returns_void:
        lines.append(f"  {call};")
    else:
        lines.append(f"  auto result = {call};")
        cls = RETURN_CLASSES.get(f.name)
        t = _ctype(f.ret)
        if cls == "sync":
            post.append("a.define_handle(HandleKind::kSync, result);")
        elif cls is not None:
            post.append(f"a.define_name(ObjectClass::{CLASSES[cls]}, result);")
        elif t in ("EGLSync", "EGLSyncKHR", "EGLImage", "EGLImageKHR"):
            post.append(f"a.define_handle(HandleKind::{EGL_HANDLES[t]}, result);")
        if f.name == "glGetUniformLocation":
            post.append("a.define_uniform_location(0, result);")
        elif f.name == "glGetUniformBlockIndex":
            post.append(f"a.define_resource_index(0, {_GL_UNIFORM_BLOCK}, result);")
        elif f.name == "glGetProgramResourceIndex":
            post.append("a.define_resource_index(0, static_cast<uint32_t>(p1), result);")
        elif f.name == "glGetProgramResourceLocation":
            post.append(f"if (p1 == {_GL_UNIFORM}) a.define_uniform_location(0, result);")
        elif f.name == "glGetAttribLocation":
            post.append("a.define_attrib_location(0, result);")
        elif f.name in _MAP_FN:
            length = "p2" if len(f.params) == 4 else "-1"
            offset = "p1" if len(f.params) == 4 else "0"
            post.append(f"a.remember_mapping(static_cast<uint32_t>(p0), result, "
                        f"static_cast<int64_t>({offset}), static_cast<int64_t>({length}));")
        elif f.name in _UNMAP_FN:
            post.append("a.forget_mapping(static_cast<uint32_t>(p0));")
        if not any("result" in line for line in post):
            post.append("(void)result;")
    if f.name == "glUseProgram":
        post.append("a.use_program(0);")
    if f.name == "eglReleaseThread":
        post.append("a.session().make_current(0, 0, EGL_NO_SURFACE);")
    if f.name == "glDeleteProgram":
        post.append("a.forget_program(0);")
    if f.name in ("eglDestroyImage", "eglDestroyImageKHR"):
        post.append("a.forget_handle(HandleKind::kImage, 1);")
    lines += [f"  {s}" for s in post]
    lines += ["  return true;", "}", ""]
    return "\n".join(lines)


def replay_calls_inc(functions):
    """(replay_calls.inc, replay_decls.h)."""
    out = [HEADER,
           "// Included once by src/glreplay/generated_calls.cpp, inside namespace",
           "// gltrace::glreplay, after Session, Args and the custom calls are declared.",
           f"// Outputs over {MAX_OUTPUT_BYTES} bytes are refused by Args::out.", ""]
    for f in functions:
        if f.name in CUSTOM or f.name in SKIP or f.name in UNSUPPORTED:
            continue
        out.append(_generic(f))
    out += ["const ReplayEntry kReplayEntries[] = {"]
    for f in functions:
        if f.name in CUSTOM:
            out.append(f"    {{{f.id}, ReplayKind::kCustom, &custom_{f.name}, nullptr}},")
        elif f.name in SKIP:
            out.append(f"    {{{f.id}, ReplayKind::kSkip, nullptr, nullptr}},")
        elif f.name in UNSUPPORTED:
            reason = UNSUPPORTED[f.name].replace('"', '\\"')
            out.append(f"    {{{f.id}, ReplayKind::kUnsupported, nullptr, \"{reason}\"}},")
        else:
            out.append(f"    {{{f.id}, ReplayKind::kGeneric, &replay_{f.name}, nullptr}},")
    out += ["};", ""]
    decls = [HEADER, "#pragma once", "", "// The calls glreplay replays by hand (src/glreplay).",
             "namespace gltrace::glreplay {", "", "class Session;", "class Args;", ""]
    by_name = {f.name: f for f in functions}
    for name in sorted(CUSTOM):
        if name in by_name:
            decls.append(f"bool custom_{name}(Session& s, Args& a);")
    decls += ["", "}  // namespace gltrace::glreplay", ""]
    return "\n".join(out), "\n".join(decls)
