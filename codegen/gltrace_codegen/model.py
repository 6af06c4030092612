"""The API model every emitter works from."""

from dataclasses import dataclass, field

CPP_KEYWORDS = {"near", "far", "class", "new", "delete", "template", "this", "operator",
                "namespace", "public", "private", "protected", "virtual", "register"}


@dataclass
class Param:
    name: str
    type: str            # C type text, e.g. "const GLchar *const*"
    len: str = ""        # registry len= expression ("count", "COMPSIZE(...)", "EGL_NONE-terminated")
    cls: str = ""        # object class for handle remapping ("buffer", "texture", ...)
    group: str = ""      # enum group for naming values
    # From spec/api.toml (gltrace_codegen/api.py):
    kind: str = ""       # the value's meaning (the pointee's for a pointer): api.REPRESENTATIONS
    rep: str = ""        # how a scalar is recorded: uint, sint, f32, f64, handle, funcptr, ""
    base: str = ""       # C type without pointers and qualifiers
    depth: int = 0       # pointer depth
    is_const: bool = False
    length: str = ""     # the length rule that applies: the table's, else len
    role: str = ""       # what the generators do with it beyond its kind (api.PARAM_ROLES)
    interface: tuple = ()  # a resource index's program interface: ("enum", hex) or ("param", i)
    array: tuple = ()  # a GLES 1 vertex_pointer's array: (name, hex), GL_VERTEX_ARRAY...
    offset_in: tuple = ()  # (pname, hex) of the binding a pointer is an offset into
    null_ok: bool = False  # NULL is data GL allows
    bytes: int = 0       # size of the structure an indirect pointer points to
    lengths: str = ""    # strings: the parameter holding each one's length (NULL: NUL-terminated)
    effect: str = ""     # creates, binds or deletes an object of class cls
    # An output the app acted on when the parameter at index [0] is one of
    # the enums [1] (hex): a replay whose driver writes another value warns.
    checked_when: tuple = ()
    # An output that is a time the GPU measured when the parameter at index
    # [0] is one of the enums [1]: `gltrace diverge` does not compare it.
    measured_when: tuple = ()
    # What the value counts against (api.LIMIT_RULES): ("at_most" or
    # "below", hex, GL_MAX_* name) or (rule, "", "") for a hand-written rule.
    limit: tuple = ()

    @property
    def cname(self):
        return self.name + "_" if self.name in CPP_KEYWORDS else self.name

    @property
    def is_pointer(self):
        return "*" in self.type

    def decl(self):
        t = self.type
        return f"{t}{'' if t.endswith('*') else ' '}{self.cname}"


@dataclass
class Function:
    name: str
    api: str             # "egl" or "gles" (any GL: OpenGL ES or desktop OpenGL)
    ret: str             # return C type text ("void" for none)
    params: list = field(default_factory=list)
    origins: list = field(default_factory=list)  # features/extensions requiring it
    # The GL client APIs whose features or extensions require it: "gles1",
    # "gles2", "gl" (desktop OpenGL); empty for EGL.
    apis: frozenset = frozenset()
    es_origins: list = field(default_factory=list)  # the OpenGL ES ones of origins
    ret_group: str = ""  # enum group of the return value
    id: int = 0
    # From spec/api.toml:
    result: Param = field(default_factory=lambda: Param(name="", type=""))
    custom: dict = field(default_factory=dict)  # part (replay, export) -> why by hand
    # The trace wrapper's hand-written hooks (src/trace/hooks/): kind (pre,
    # post, done) -> C++ names, in call order; "state" -> the type they share.
    hooks: dict = field(default_factory=dict)
    replay_skip: str = ""
    replay_unsupported: str = ""
    roles: set = field(default_factory=set)

    @property
    def returns_void(self):
        return self.ret.strip() == "void"

    def param_list(self):
        return ", ".join(p.decl() for p in self.params) or "void"

    def arg_list(self):
        return ", ".join(p.cname for p in self.params)

    def pfn(self):
        return f"PFN_gltrace_{self.name}"

    def compressed_upload(self, expr):
        """A compressed upload's glstate::CompressedUpload (role
        compressed_upload), its fields from the parameters by name; expr(i)
        is how the caller names parameter i."""
        index = {p.name: i for i, p in enumerate(self.params)}
        fields = [("target", "target"), ("level", "level"),
                  ("format", "format" if "format" in index else "internalformat"),
                  ("x", "xoffset"), ("y", "yoffset"), ("z", "zoffset"), ("width", "width"),
                  ("height", "height"), ("depth", "depth"), ("image_size", "imageSize"),
                  ("data", "data")]
        parts = [f".{field} = static_cast<decltype(glstate::CompressedUpload::{field})>"
                 f"({expr(index[name])})" for field, name in fields if name in index]
        parts.append(f".sub = {'true' if 'xoffset' in index else 'false'}")
        return "glstate::CompressedUpload{" + ", ".join(parts) + "}"
