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
    api: str             # "egl" or "gles"
    ret: str             # return C type text ("void" for none)
    params: list = field(default_factory=list)
    origins: list = field(default_factory=list)  # features/extensions requiring it
    ret_group: str = ""  # enum group of the return value
    id: int = 0

    @property
    def returns_void(self):
        return self.ret.strip() == "void"

    def param_list(self):
        return ", ".join(p.decl() for p in self.params) or "void"

    def arg_list(self):
        return ", ".join(p.cname for p in self.params)

    def pfn(self):
        return f"PFN_gltrace_{self.name}"
