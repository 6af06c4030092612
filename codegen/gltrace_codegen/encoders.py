"""Writes the encoders of a .proto's messages as a C++ header: for each field of each
message, small inline append functions in the message's namespace (the one of its field
numbers, proto.schema_h), so hand-written code names a field and passes its value while
the field number and the wire type come from the .proto alone. Perfetto's protozero
generates the same kind of helpers; these write into the caller's reusable
wire::Encoder (no allocation once it has grown) and into reserved raw memory on the
capture's per-call path.

For a field `x` (k + CamelCase of its name, as in schema.h):

  kXTag                          its key (number << 3 | wire type)
  set_x(e, v)                    a singular scalar, string or bytes field
  add_x(e, v)                    one element of a repeated field, with its own key
  put_x(p, v)                    a singular varint field at p, in room reserved before
                                 (returns the end; wire::Encoder::begin_write)
  begin_x(e)                     a nested message (or a packed run of a repeated
                                 scalar): returns the mark for e.end_nested(mark)
  pack_x(e, v)                   one element inside the packed run begin_x opened
  set_x_packed(e, bytes, n)      a whole packed run from its encoded bytes (little-endian
                                 floats, say)
  set_x(e, bytes, n) / add_x(..) a message field from bytes already encoded

Values are taken as the wire primitives take them (uint64_t for unsigned varints,
int64_t for signed ones), so what a caller passes is written as before, bit for bit.
"""

from . import proto

E = "::gltrace::wire::Encoder& e"
WIRE_TYPES = {"varint": "kVarint", "zigzag": "kVarint", "fixed64": "kFixed64",
              "fixed32": "kFixed32", "bytes": "kLengthDelimited"}

# Per scalar type: the C++ parameter and the expression written by the primitive
# `(method, value expression)` of wire::Encoder, and the raw packed element.
SCALARS = {
    "uint32": ("uint64_t", "uint_field", "v", "e.raw_varint(v)"),
    "uint64": ("uint64_t", "uint_field", "v", "e.raw_varint(v)"),
    "int32": ("int64_t", "uint_field", "static_cast<uint64_t>(v)",
              "e.raw_varint(static_cast<uint64_t>(v))"),
    "int64": ("int64_t", "uint_field", "static_cast<uint64_t>(v)",
              "e.raw_varint(static_cast<uint64_t>(v))"),
    "bool": ("bool", "bool_field", "v", "e.raw_varint(v ? 1 : 0)"),
    "sint32": ("int64_t", "sint_field", "v", "e.raw_varint(::gltrace::wire::zigzag(v))"),
    "sint64": ("int64_t", "sint_field", "v", "e.raw_varint(::gltrace::wire::zigzag(v))"),
    "fixed64": ("uint64_t", "fixed64_field", "v", "e.raw(&v, 8)"),
    "sfixed64": ("int64_t", "fixed64_field", "static_cast<uint64_t>(v)", "e.raw(&v, 8)"),
    "double": ("double", "double_field", "v", "e.raw(&v, 8)"),
    "fixed32": ("uint32_t", "fixed32_field", "v", "e.raw(&v, 4)"),
    "sfixed32": ("int32_t", "fixed32_field", "static_cast<uint32_t>(v)", "e.raw(&v, 4)"),
    "float": ("float", "float_field", "v", "e.raw(&v, 4)"),
}
ENUM = ("int64_t", "uint_field", "static_cast<uint64_t>(v)",
        "e.raw_varint(static_cast<uint64_t>(v))")


def _names(field):
    constant = proto.field_constant(field.name)
    return constant, [f"{constant}Tag", f"set_{field.name}", f"add_{field.name}",
                      f"put_{field.name}", f"begin_{field.name}", f"pack_{field.name}",
                      f"set_{field.name}_packed"]


def _field_lines(schema, field):
    kind = schema.resolve(field)
    k, _ = _names(field)
    repeated = field.label == "repeated"
    wire_type = "kLengthDelimited" if isinstance(kind, proto.Message) else WIRE_TYPES[kind]
    lines = [f"// {field.label + ' ' if field.label else ''}{field.type} {field.name} = "
             f"{field.number};",
             f"inline constexpr uint32_t {k}Tag = {k} << 3 | ::gltrace::wire::{wire_type};"]
    if isinstance(kind, proto.Message) or field.type in ("string", "bytes"):
        verb = "add" if repeated else "set"
        if isinstance(kind, proto.Message):
            lines.append(f"inline size_t begin_{field.name}({E}) {{ return e.begin_nested({k}); }}")
        lines += [f"inline void {verb}_{field.name}({E}, const void* bytes, size_t n) {{",
                  f"  e.bytes_field({k}, bytes, n);", "}",
                  f"inline void {verb}_{field.name}({E}, std::string_view s) {{",
                  f"  e.bytes_field({k}, s.data(), s.size());", "}"]
        return lines
    param, method, value, element = SCALARS.get(field.type, ENUM)
    verb = "add" if repeated else "set"
    lines.append(f"inline void {verb}_{field.name}({E}, {param} v) {{ e.{method}({k}, {value}); }}")
    if repeated:
        # proto3 packs repeated scalars: begin_x opens the run, pack_x fills it.
        lines += [f"inline size_t begin_{field.name}({E}) {{ return e.begin_nested({k}); }}",
                  f"inline void pack_{field.name}({E}, {param} v) {{ {element}; }}",
                  f"inline void set_{field.name}_packed({E}, const void* bytes, size_t n) {{",
                  f"  e.bytes_field({k}, bytes, n);", "}"]
    elif kind in ("varint", "zigzag"):
        encoded = "::gltrace::wire::zigzag(v)" if kind == "zigzag" else (
            "v ? 1 : 0" if field.type == "bool" else value)
        lines.append(f"inline uint8_t* put_{field.name}(uint8_t* p, {param} v) {{")
        lines.append(f"  return ::gltrace::wire::put_varint(::gltrace::wire::put_varint(p, {k}Tag), "
                     f"{encoded});")
        lines.append("}")
    return lines


def _check_names(path, msg):
    """The generated names must not collide with a field constant or a nested scope."""
    taken = {proto.field_constant(f.name): f.name for f in msg.fields}
    taken.update({proto.snake_case(m.name): m.name for m in msg.messages + msg.enums})
    for field in msg.fields:
        for name in _names(field)[1]:
            if name in taken and taken[name] != field.name:
                raise proto.ProtoError(path, field.line, f"message {msg.name}: the encoder "
                                       f"{name} of '{field.name}' collides with "
                                       f"'{taken[name]}'")
            taken[name] = field.name


def _emit_scope(lines, schema, scope, source_name):
    for msg in scope:
        if not (msg.fields or msg.messages):
            continue  # no namespace in schema.h either
        _check_names(schema.path, msg)
        ns = proto.snake_case(msg.name)
        lines.append(f"namespace {ns} {{  // message {msg.name} ({source_name}:{msg.line})")
        for field in msg.fields:
            lines += _field_lines(schema, field)
        if msg.messages:
            lines.append("")
            _emit_scope(lines, schema, msg.messages, source_name)
            lines.pop()
        lines += [f"}}  // namespace {ns}", ""]


def encoders_h(proto_file, schema_ns, schema_header, source_name):
    """The header of the append functions, in namespace schema_ns next to the field numbers
    of schema_header (proto.schema_h's output)."""
    schema = proto.Schema(proto_file)
    lines = [f"// Generated by codegen/gen.py from {source_name}. Do not edit.",
             "// Per field, append functions in its message's namespace: set_x/add_x/begin_x/",
             "// pack_x into a wire::Encoder, put_x into reserved memory, kXTag its key",
             "// (codegen/gltrace_codegen/encoders.py).",
             "#pragma once", "", "#include <cstddef>", "#include <cstdint>",
             "#include <string_view>", "",
             f"#include \"{schema_header}\"", "#include \"protowire/wire.h\"", "",
             f"namespace {schema_ns} {{", ""]
    _emit_scope(lines, schema, proto_file.messages, source_name)
    lines += [f"}}  // namespace {schema_ns}", ""]
    return "\n".join(lines)
