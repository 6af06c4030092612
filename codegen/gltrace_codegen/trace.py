"""Generates the trace layer's wrappers: time the call, then record every
argument, the pointed-to data the registry can size, and the return value.

Pointer sizes come from the registry's len= attributes. COMPSIZE(...) sizes
(pixel-store state, pname tables) are computed by hand-written functions in
src/trace/compsize.cpp, named compsize_<function>_<param>, for the functions
listed in COMPSIZE_HANDLED; any other unsizable pointer is recorded as
Unknown, with the reason, never as garbage. Functions in CUSTOM are written
by hand entirely (src/trace/custom_wrappers.cpp)."""

import re

from .emit import HEADER

UINT = {"GLenum", "GLuint", "GLbitfield", "GLboolean", "GLubyte", "GLushort", "GLuint64",
        "GLuint64EXT", "EGLenum", "EGLBoolean", "EGLuint64KHR", "EGLuint64NV", "EGLTime",
        "EGLTimeKHR", "EGLTimeNV", "GLhandleARB", "GLhalf", "GLhalfNV"}
SINT = {"GLint", "GLsizei", "GLintptr", "GLsizeiptr", "GLfixed", "GLclampx", "GLint64",
        "GLint64EXT", "GLshort", "GLbyte", "EGLint", "EGLAttrib", "EGLAttribKHR",
        "EGLnsecsANDROID", "EGLNativeFileDescriptorKHR", "int", "GLvdpauSurfaceNV"}
FLOAT = {"GLfloat", "GLclampf"}
DOUBLE = {"GLdouble", "GLclampd"}
# Opaque handles: recorded by value (remapped at replay).
HANDLE = {"EGLDisplay", "EGLSurface", "EGLContext", "EGLConfig", "EGLImage", "EGLImageKHR",
          "EGLSync", "EGLSyncKHR", "EGLSyncNV", "EGLStreamKHR", "EGLClientBuffer", "GLsync",
          "GLeglImageOES", "GLeglClientBufferEXT", "EGLDeviceEXT", "EGLOutputLayerEXT",
          "EGLOutputPortEXT", "EGLObjectKHR", "EGLLabelKHR", "EGLNativeDisplayType",
          "EGLNativeWindowType", "EGLNativePixmapType"}
FUNCPTR = {"GLDEBUGPROC", "GLDEBUGPROCKHR", "GLDEBUGPROCARB", "GLDEBUGPROCAMD", "EGLDEBUGPROCKHR",
           "EGLSetBlobFuncANDROID", "EGLGetBlobFuncANDROID", "GLVULKANPROCNV",
           "__eglMustCastToProperFunctionPointerType"}
TEXT_BASES = {"GLchar", "char", "GLcharARB"}

# Hand-written wrappers (state tracking, client memory, frames, contexts).
CUSTOM = {
    "eglSwapBuffers", "eglSwapBuffersWithDamageKHR", "eglSwapBuffersWithDamageEXT",
    "eglMakeCurrent", "glShaderSource", "glGetError", "glFinish",
    "glVertexAttribPointer", "glVertexAttribIPointer",
    "glDrawArrays", "glDrawArraysInstanced", "glDrawElements", "glDrawElementsInstanced",
    "glDrawRangeElements", "glDrawElementsBaseVertex", "glDrawRangeElementsBaseVertex",
    "glDrawElementsInstancedBaseVertex",
    "glMapBufferRange", "glFlushMappedBufferRange", "glUnmapBuffer",
    "glMapBufferOES", "glUnmapBufferOES", "glMapBufferRangeEXT", "glFlushMappedBufferRangeEXT",
    "eglCreateImage", "eglCreateImageKHR",
    "eglCreateWindowSurface", "eglCreatePlatformWindowSurface",
    "eglCreatePlatformWindowSurfaceEXT", "eglCreatePbufferSurface", "eglCreateContext", "glClear",
    "glBlitFramebuffer",
}

# COMPSIZE parameters with a hand-written size function (elements of the
# pointer's type; bytes for void).
COMPSIZE_HANDLED = {
    "glTexImage2D.pixels", "glTexSubImage2D.pixels", "glTexImage3D.pixels",
    "glTexSubImage3D.pixels", "glReadPixels.pixels",
    "glPushDebugGroup.message", "glPushDebugGroupKHR.message", "glDebugMessageInsert.buf",
    "glDebugMessageInsertKHR.buf", "glObjectLabel.label", "glObjectLabelKHR.label",
    "glClearBufferfv.value", "glClearBufferiv.value", "glClearBufferuiv.value",
}

_TRAILING_CONST = re.compile(r"\bconst\b")

# Texture uploads: their data pointer is an offset when a pixel-unpack buffer
# is bound, and capturing the data can be switched off.
_TEXTURE_UPLOAD = re.compile(r"^gl(Compressed)?Tex(Sub)?Image[123]D")


def _base(ptype):
    """Pointee type name without qualifiers, and the pointer depth."""
    depth = ptype.count("*")
    base = _TRAILING_CONST.sub("", ptype.replace("*", " ")).replace("struct", "").strip()
    return base, depth


def scalar_call(ptype, expr):
    """The encoder call for a scalar (or handle) value, or None."""
    t = _TRAILING_CONST.sub("", ptype).strip()
    if t in UINT:
        return f"uint_value(static_cast<uint64_t>({expr}))"
    if t in SINT:
        return f"sint_value(static_cast<int64_t>({expr}))"
    if t in FLOAT:
        return f"f32_value({expr})"
    if t in DOUBLE:
        return f"f64_value({expr})"
    if t in HANDLE:
        return f"uint_value(gltrace::trace::handle_bits({expr}))"
    if t in FUNCPTR or "*" in t:
        return None
    return None


def _len_expr(f, length):
    """The registry's len= as a C++ expression over the parameters, or None."""
    names = {}
    for p in f.params:
        # A pointer-to-count parameter (an output length): what it holds.
        names[p.name] = (f"({p.cname} != nullptr ? *{p.cname} : -1)" if "*" in p.type
                         else p.cname)
    tokens = re.findall(r"[A-Za-z_]\w*|\d+|[*/+()-]|\s+", length)
    if "".join(tokens) != length:
        return None
    out = []
    for tok in tokens:
        if tok.strip() == "":
            continue
        if tok[0].isalpha() or tok[0] == "_":
            if tok not in names:
                return None
            out.append(f"static_cast<int64_t>({names[tok]})")
        else:
            out.append(tok)
    return " ".join(out)


def value_call(f, p):
    """The encoder call that records parameter p (after the call returned)."""
    v = p.cname
    s = scalar_call(p.type, v)
    if s is not None:
        return s
    base, depth = _base(p.type)
    if p.type.strip() in FUNCPTR or base in FUNCPTR:
        return f"pointer_value(reinterpret_cast<const void*>({v}))"
    if depth == 0:
        return f"pointer_value(reinterpret_cast<const void*>({v}))"
    if depth > 1:
        return f'unknown_value({v}, "pointer to pointers")'
    is_const = p.type.strip().startswith("const")
    if p.len == "EGL_NONE-terminated":
        return f"attrib_list_value({v})"
    if base in TEXT_BASES and is_const and p.len in ("COMPSIZE()", f"COMPSIZE({p.name})"):
        # The registry's way of saying NUL-terminated (glGetUniformBlockIndex,
        # glGetProgramResourceIndex and -Location).
        return f"text_value({v})"
    if p.len == "COMPSIZE(pname)" and f"{f.name}.{p.name}" not in COMPSIZE_HANDLED:
        # How many values a pname takes: a table, 1 when unknown (never more
        # than the app's buffer holds).
        pname = next(q.cname for q in f.params if q.name == "pname")
        count = f"gltrace::trace::pname_count(static_cast<uint32_t>({pname}))"
    elif p.len.startswith("COMPSIZE"):
        if f"{f.name}.{p.name}" in COMPSIZE_HANDLED:
            args = ", ".join(q.cname for q in f.params)
            count = f"gltrace::trace::compsize_{f.name}_{p.name}({args})"
        else:
            return f'unknown_value({v}, "size computed from {p.len}, not implemented")'
    elif p.len == "":
        if base in TEXT_BASES and is_const:
            return f"text_value({v})"
        return f'unknown_value({v}, "no size in the registry")'
    else:
        count = _len_expr(f, p.len)
        if count is None:
            return f'unknown_value({v}, "size {p.len} not understood")'
    if base in TEXT_BASES:
        return f"text_value({v}, {count})"
    if base == "void":
        if _TEXTURE_UPLOAD.match(f.name):
            count = f"gltrace::trace::texture_data_size({count})"
        return f"bytes_value({v}, {count})"
    if base in UINT | SINT | FLOAT | DOUBLE | HANDLE:
        return f"array_value({v}, {count})"
    return f'unknown_value({v}, "elements of type {base}")'



def return_call(f):
    t = f.ret.strip()
    s = scalar_call(t, "result")
    if s is not None:
        return s
    base, depth = _base(t)
    if depth == 1 and base in TEXT_BASES | {"GLubyte"}:
        return "text_value(reinterpret_cast<const char*>(result))"
    return "pointer_value(reinterpret_cast<const void*>(result))"


def trace_wrappers_inc(functions):
    out = [HEADER,
           "// Included once by src/trace/wrappers.cpp, inside namespace",
           "// gltrace::trace, after the CallRecorder and next_function() are declared.", ""]
    for f in functions:
        if f.name in CUSTOM:
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
        if not f.returns_void:
            body.append("  return result;")
        out.append(f"{f.ret} trace_{f.name}({f.param_list()}) {{\n" + "\n".join(body) + "\n}\n")
    out += ["struct TraceWrapper { uint32_t id; void* function; };",
            "const TraceWrapper kTraceWrappers[] = {"]
    for f in functions:
        out.append(f"    {{{f.id}, reinterpret_cast<void*>(&trace_{f.name})}},")
    out += ["};", ""]
    # Declarations of what the generated code expects to be written by hand.
    decls = [HEADER, "#pragma once", "", "#include \"gltrace/api/pfn.h\"", "",
             "namespace gltrace::trace {", ""]
    for f in functions:
        if f.name in CUSTOM:
            decls.append(f"{f.ret} trace_{f.name}({f.param_list()});")
    by_name = {f.name: f for f in functions}
    for key in sorted(COMPSIZE_HANDLED):
        fname, pname = key.split(".")
        f = by_name.get(fname)
        if f is not None:
            decls.append(f"int64_t compsize_{fname}_{pname}({f.param_list()});")
    decls += ["", "}  // namespace gltrace::trace", ""]
    return "\n".join(out), "\n".join(decls)
