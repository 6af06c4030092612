"""Generates the trace layer's wrappers: time the call, then record every
argument, the pointed-to data the registry can size, and the return value.

Pointer sizes come from the registry's len= attributes. COMPSIZE(...) sizes
(pixel-store state, pname tables) are computed by hand-written functions in
src/trace/compsize.cpp, named compsize_<function>_<param>, for the functions
listed in COMPSIZE_HANDLED. SIZES gives a size, as a len= expression, where
the registry gives none or one the generic rules cannot compute. Any other
unsizable pointer is recorded as Unknown, with the reason, never as garbage.
Functions in CUSTOM are written by hand entirely
(src/trace/custom_wrappers.cpp)."""

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

# Sizes the registry leaves unknown (no len=, or a COMPSIZE the generic rules
# cannot compute): a len= expression over the parameters and the size helpers
# of src/trace/compsize.h (SIZE_HELPERS). Each is what the call writes (or
# reads), so the trace records exactly that and a replay gets scratch for it.
SIZES = {
    # Indexed state: as many values per index as the plain glGet of the same
    # pname returns for one (4 for GL_VIEWPORT, GL_SCISSOR_BOX, GL_COLOR_WRITEMASK).
    "glGetIntegeri_v.data": "pname_count(target)",
    "glGetInteger64i_v.data": "pname_count(target)",
    "glGetBooleani_v.data": "pname_count(target)",
    "glGetIntegeri_vEXT.data": "pname_count(target)",
    "glGetFloati_vOES.data": "pname_count(target)",
    "glGetFloati_vNV.data": "pname_count(target)",
    "glGetUnsignedBytei_vEXT.data": "pname_count(target)",
    "glGetFixedv.params": "pname_count(pname)",
    "glGetInteger64vAPPLE.params": "pname_count(pname)",
    # A uniform's value: its type's components (16 for a mat4).
    "glGetUniformfv.params": "uniform_components(program, location)",
    "glGetUniformiv.params": "uniform_components(program, location)",
    "glGetUniformuiv.params": "uniform_components(program, location)",
    # One per uniform asked for: its name in, its index or value (whatever
    # the pname) out.
    "glGetUniformIndices.uniformNames": "uniformCount",
    "glGetUniformIndices.uniformIndices": "uniformCount",
    "glGetActiveUniformsiv.params": "uniformCount",
    # GL_UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES: one per active uniform of the block.
    "glGetActiveUniformBlockiv.params":
        "uniform_block_param_count(program, uniformBlockIndex, pname)",
    # Single values.
    "glGetProgramPipelineivEXT.params": "1",
    "glGetObjectLabelKHR.length": "1",
    "glGetSyncivAPPLE.length": "1",
    "glGetMemoryObjectParameterivEXT.params": "1",
    "glGetSemaphoreParameterui64vEXT.params": "1",
    "glGetSemaphoreParameterivNV.params": "1",
    "glCreatePerfQueryINTEL.queryHandle": "1",
    "glGetFirstPerfQueryIdINTEL.queryId": "1",
    "glGetNextPerfQueryIdINTEL.nextQueryId": "1",
    "glGetPerfQueryIdByNameINTEL.queryId": "1",
    "glGetPerfCounterInfoINTEL.counterOffset": "1",
    "glGetPerfCounterInfoINTEL.counterDataSize": "1",
    "glGetPerfCounterInfoINTEL.counterTypeEnum": "1",
    "glGetPerfCounterInfoINTEL.counterDataTypeEnum": "1",
    "glGetPerfCounterInfoINTEL.rawCounterMaxValue": "1",
    "glGetPerfQueryInfoINTEL.dataSize": "1",
    "glGetPerfQueryInfoINTEL.noCounters": "1",
    "glGetPerfQueryInfoINTEL.noInstances": "1",
    "glGetPerfQueryInfoINTEL.capsMask": "1",
    "glGetPerfQueryDataINTEL.bytesWritten": "1",
    "glGetDriverControlsQCOM.num": "1",
    "glGetDriverControlStringQCOM.length": "1",
    "glExtGetTexturesQCOM.numTextures": "1",
    "glExtGetTexLevelParameterivQCOM.params": "1",
    "glExtGetProgramBinarySourceQCOM.length": "1",
    # Counts given by another parameter.
    "glCreateMemoryObjectsEXT.memoryObjects": "n",
    "glGetCoverageModulationTableNV.v": "bufSize",
    "glGetPerfQueryDataINTEL.data": "dataSize",
    "glExtGetTexturesQCOM.textures": "maxTextures",
}

# Functions of src/trace/compsize.h a SIZES expression may call; their
# arguments are passed as the parameters' own types.
SIZE_HELPERS = {"pname_count", "uniform_components", "uniform_block_param_count"}

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
    tokens = re.findall(r"[A-Za-z_]\w*|\d+|[*/+(),-]|\s+", length)
    if "".join(tokens) != length:
        return None
    out = []
    helper_parens = []  # per open parenthesis: whether it holds a helper's arguments
    helper_next = False
    for tok in tokens:
        if tok.strip() == "":
            continue
        if tok in SIZE_HELPERS:
            out.append(f"gltrace::trace::{tok}")
            helper_next = True
        elif tok[0].isalpha() or tok[0] == "_":
            if tok not in names:
                return None
            in_helper = bool(helper_parens) and helper_parens[-1]
            out.append(names[tok] if in_helper else f"static_cast<int64_t>({names[tok]})")
        elif tok == "(":
            helper_parens.append(helper_next)
            helper_next = False
            out.append(tok)
        elif tok == ")":
            if not helper_parens:
                return None
            helper_parens.pop()
            out.append(tok)
        elif tok == "," and not (helper_parens and helper_parens[-1]):
            return None
        else:
            out.append(tok)
    if helper_parens or helper_next:
        return None
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
    is_const = p.type.strip().startswith("const")
    length = SIZES.get(f"{f.name}.{p.name}", p.len)
    if depth > 1:
        count = _len_expr(f, length) if length else None
        if is_const and base in TEXT_BASES and count is not None:
            # An array of NUL-terminated strings (glTransformFeedbackVaryings).
            return f"strings_value({v}, static_cast<int32_t>({count}), nullptr)"
        if not is_const and depth == 2 and base == "void" and count is not None:
            # Pointers written (glGetPointerv): their values, as numbers.
            return f"array_value({v}, {count})"
        return f'unknown_value({v}, "pointer to pointers")'
    if length == "EGL_NONE-terminated":
        return f"attrib_list_value({v})"
    if base in TEXT_BASES and is_const and length in ("COMPSIZE()", f"COMPSIZE({p.name})"):
        # The registry's way of saying NUL-terminated (glGetUniformBlockIndex,
        # glGetProgramResourceIndex and -Location).
        return f"text_value({v})"
    if length == "COMPSIZE(pname)" and f"{f.name}.{p.name}" not in COMPSIZE_HANDLED:
        # How many values a pname takes: a table, 1 when unknown (never more
        # than the app's buffer holds).
        pname = next(q.cname for q in f.params if q.name == "pname")
        count = f"gltrace::trace::pname_count(static_cast<uint32_t>({pname}))"
    elif length.startswith("COMPSIZE"):
        if f"{f.name}.{p.name}" in COMPSIZE_HANDLED:
            args = ", ".join(q.cname for q in f.params)
            count = f"gltrace::trace::compsize_{f.name}_{p.name}({args})"
        else:
            return f'unknown_value({v}, "size computed from {length}, not implemented")'
    elif length == "":
        if base in TEXT_BASES and is_const:
            return f"text_value({v})"
        return f'unknown_value({v}, "no size in the registry")'
    else:
        count = _len_expr(f, length)
        if count is None:
            return f'unknown_value({v}, "size {length} not understood")'
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
