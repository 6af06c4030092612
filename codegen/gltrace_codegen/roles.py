"""Generates gltrace/api/roles.h: each function's roles at run time.

What a call is (a draw, a swap, a frame end, a debug group's push or pop, a
call bound to its thread...) is said once, in spec/api.toml's roles, hooks
and effects; this table carries it to the code that reads traces, replays
them or traces live, so none of it keeps a list of function names. A
constexpr array indexed by the function id: no allocation, one load."""

from .emit import HEADER

# The runtime flags, in bit order: (name, what it means). Those named after
# a table role are set by that role; the others are derived below.
FLAGS = [
    ("Draw", "draws from its count/first/indices arguments (role draw)"),
    ("OtherDraw", "draws, but not one plain draw: multi-draws, mesh tasks, transform "
                  "feedback (role other_draw)"),
    ("Swap", "posts a window's back buffer and ends a frame (role swap)"),
    ("EndsFrame", "ends an off-screen program's frame when the trace marks it ends_frame "
                  "(role ends_frame)"),
    ("CapturesDraw", "the trace layer may read the framebuffer after it (its "
                     "capture_after_draw hook: --framebuffer draw)"),
    ("ThreadBound", "uses or changes the calling thread's current context or EGL state "
                    "(every GL call; EGL ones by role thread_bound)"),
    ("DebugPush", "opens a debug group (role debug_push)"),
    ("DebugPop", "closes a debug group (role debug_pop)"),
    ("WindowSurface", "creates a window surface (role window_surface)"),
    ("OffscreenSurface", "creates a pbuffer or pixmap surface (role offscreen_surface)"),
    ("Map", "maps a buffer (role map)"),
    ("Unmap", "unmaps a buffer (role unmap)"),
    ("FlushMapped", "makes what the app wrote to a mapping the buffer's (role flush_mapped)"),
    ("ReleaseThread", "releases the thread's EGL state (role release_thread)"),
    ("EglSetup", "sets up EGL state a snapshot keeps: trim copies it from before the cut "
                 "(role egl_setup)"),
    ("LinksProgram", "links a program: a snapshot keeps the shaders it linked with, which the "
                     "app may detach after (role link_program)"),
    ("CompressedUpload", "uploads a compressed image GLES cannot read back: a snapshot keeps "
                         "a copy of its bytes (role compressed_upload)"),
    ("TextureUpload", "uploads texture data (a parameter of role texture_data)"),
    ("AttribPointer", "points a generic vertex attribute at its data (a parameter of role "
                      "vertex_pointer, no GLES 1 array)"),
    ("Creates", "creates an object of object_class (a parameter's or the result's effect)"),
    ("Binds", "binds an object of object_class"),
    ("Deletes", "deletes an object of object_class"),
    ("GpuWork", "makes the GPU render or compute: a draw, clear, blit or dispatch (roles draw, "
                "other_draw, gpu_work, dispatch): `replay --profile` times it"),
    ("Dispatch", "dispatches compute work (role dispatch)"),
]
# The table roles that set a flag of their own name (draw -> kDraw).
ROLE_FLAGS = {"draw": "Draw", "other_draw": "OtherDraw", "swap": "Swap", "ends_frame": "EndsFrame",
              "thread_bound": "ThreadBound", "debug_push": "DebugPush", "debug_pop": "DebugPop",
              "window_surface": "WindowSurface", "offscreen_surface": "OffscreenSurface",
              "map": "Map", "unmap": "Unmap", "flush_mapped": "FlushMapped",
              "release_thread": "ReleaseThread", "egl_setup": "EglSetup",
              "link_program": "LinksProgram", "compressed_upload": "CompressedUpload",
              "dispatch": "Dispatch"}
# The table roles whose functions make the GPU work (flag GpuWork).
GPU_WORK_ROLES = {"draw", "other_draw", "gpu_work", "dispatch"}
_EFFECT_FLAGS = {"creates": "Creates", "binds": "Binds", "deletes": "Deletes"}
# The trace hook after which the trace layer may read the framebuffer.
CAPTURE_AFTER_DRAW = "capture_after_draw"


def flags_of(f):
    """The names of function f's runtime flags, in bit order."""
    names = {ROLE_FLAGS[r] for r in f.roles if r in ROLE_FLAGS}
    if f.api == "gles":
        names.add("ThreadBound")
    if GPU_WORK_ROLES & set(f.roles):
        names.add("GpuWork")
    if CAPTURE_AFTER_DRAW in f.hooks.get("done", []):
        names.add("CapturesDraw")
    if any(p.role == "texture_data" for p in f.params):
        names.add("TextureUpload")
    if any(p.role == "vertex_pointer" and not p.array for p in f.params):
        names.add("AttribPointer")
    for v in [f.result] + f.params:
        if v.effect:
            names.add(_EFFECT_FLAGS[v.effect])
    return [name for name, _ in FLAGS if name in names]


def object_class(f):
    """The class of the object f creates, binds or deletes ("" for none)."""
    return next((v.cls for v in [f.result] + f.params if v.effect), "")


def roles_h(functions, limit):
    assert len(FLAGS) <= 32
    by_id = {f.id: f for f in functions}
    out = [HEADER, "#pragma once", "", "#include <cstdint>", "",
           "#include \"gltrace/api/functions.h\"", "", "namespace gltrace::api {", "",
           "// What a function is, from spec/api.toml (codegen/gltrace_codegen/roles.py).",
           "enum Role : uint32_t {"]
    for bit, (name, what) in enumerate(FLAGS):
        out.append(f"  kRole{name} = 1u << {bit},  // {what}")
    out += ["};", "",
            "struct FunctionRoles {",
            "  uint32_t flags;             // Role bits",
            "  const char* object_class;  // of kRoleCreates/Binds/Deletes: the table's class, "
            "\"\" if none",
            "};", "",
            "// Indexed by FunctionId; an unused id has no roles.",
            "inline constexpr FunctionRoles kFunctionRoles[kFunctionIdLimit] = {"]
    for i in range(limit):
        f = by_id.get(i)
        flags = flags_of(f) if f else []
        bits = " | ".join(f"kRole{n}" for n in flags) or "0"
        cls = object_class(f) if f else ""
        out.append(f"    {{{bits}, \"{cls}\"}},  // {f.name if f else '(unused)'}")
    out += ["};", "",
            "// Whether function `id` has any of the roles in `roles` (false for an",
            "// id out of range: a hostile trace's).",
            "constexpr bool has_role(uint32_t id, uint32_t roles) {",
            "  return id < kFunctionIdLimit && (kFunctionRoles[id].flags & roles) != 0;",
            "}", "",
            "}  // namespace gltrace::api", ""]
    return "\n".join(out)
